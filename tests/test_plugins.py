"""Plugin registry: manifests read without importing, lazy load, broken plugins isolated."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import uuid
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from cluestudio.core import plugins as p
from cluestudio.core.metrics import MetricInput, MetricManifest
from cluestudio.core.model import ClassDiagram

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "example_plugin"


def make_distribution(site: Path, name: str, version: str, entry_points: str) -> None:
    """A fake installed distribution: ``<name>-<version>.dist-info`` on a sys.path folder."""
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points), encoding="utf-8")


def run_python(code: str, site: Path) -> subprocess.CompletedProcess[str]:
    env_path = f"{site}"
    import os

    env = {**os.environ, "PYTHONPATH": env_path}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, env=env, cwd=site)


@pytest.fixture()
def example_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE / "example_plugin", site / "example_plugin")
    make_distribution(site, "example_plugin", "0.1", """
        [cluestudio.metrics]
        class-count = example_plugin.metric:ClassCountMetric
    """)
    return site


def test_example_plugin_is_listed_without_import_then_loaded_and_scored(example_site: Path
                                                                         ) -> None:
    result = run_python("""
        import json, sys
        from cluestudio.core.plugins import PluginRegistry
        from cluestudio.core.metrics import MetricInput
        from cluestudio.core.model import Class, ClassDiagram
        registry = PluginRegistry()
        status = registry.status("metric", "class-count")
        imported_while_listing = "example_plugin" in sys.modules
        ref = MetricInput(diagram=ClassDiagram(tuple(Class(n) for n in "ABCD")))
        cand = MetricInput(diagram=ClassDiagram((Class("A"), Class("B"))))
        result = registry.score("class-count", ref, cand)
        print(json.dumps({"status": status.to_dict(), "imported": imported_while_listing,
                          "after": registry.status("metric", "class-count").state,
                          "values": result.values}))
    """, example_site)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["imported"] is False
    status = out["status"]
    assert status["state"] == "discovered"
    assert status["version"] == "0.1" and status["distribution"] == "example_plugin"
    assert status["diagram_kinds"] == ["class"] and status["inputs"] == ["diagram"]
    assert status["manifest_path"].endswith("cluestudio-plugin.toml")
    assert out["after"] == "loaded"
    assert out["values"] == {"class-count": 0.5}


def test_cli_plugins_json_lists_the_example(example_site: Path) -> None:
    result = run_python("""
        import sys
        from cluestudio.cli import main
        sys.exit(main(["plugins", "--json", "--kind", "metric"]))
    """, example_site)
    assert result.returncode == 0, result.stderr
    listed = {row["name"]: row for row in json.loads(result.stdout)}
    assert listed["class-count"]["state"] == "discovered"
    assert listed["class-count"]["title"] == "Class count ratio"


# --- isolation, in process, with hand-made entry points --------------------------------------

MANIFEST = """
[metrics.good]
version = "2"
inputs = ["diagram"]
diagram_kinds = ["class"]
values = ["one"]

[metrics.bad-import]
version = "1"

[metrics.bad-init]
version = "1"

[metrics.bad-score]
version = "1"

[metrics.needs-missing]
version = "1"
optional_dependencies = ["no_such_package_for_cluestudio_tests"]

[probes.bad-fields]
inputs = "image"
diagram_kinds = [1, 2]
"""

MODULE = """
from cluestudio.core.metrics import MetricResult

class Good:
    def score(self, reference, candidate):
        return MetricResult({"one": 1.0})

class BadInit:
    def __init__(self):
        raise RuntimeError("cannot start")

class BadScore:
    def score(self, reference, candidate):
        raise ZeroDivisionError("division by zero in plugin")

class NeedsMissing:
    pass

class Stringy:  # returns text where a number belongs
    def score(self, reference, candidate):
        return MetricResult({"stringy": "0.5"})

class NotFinite:
    def score(self, reference, candidate):
        return MetricResult({"nan": float("nan"), "inf": float("inf")})

class Unstorable:
    def score(self, reference, candidate):
        return MetricResult({"ok": 1.0}, explanation={"a set": {1, 2}})

class NotAResult:
    def score(self, reference, candidate):
        return 0.75

class Exits:
    def score(self, reference, candidate):
        import sys
        sys.exit(7)

class ExitsOnInit:
    def __init__(self):
        raise SystemExit(3)

class Interrupts:
    def score(self, reference, candidate):
        raise KeyboardInterrupt
"""


@pytest.fixture()
def broken_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"cs_plugtest_{uuid.uuid4().hex[:8]}"
    pkg = tmp_path / name
    pkg.mkdir()
    # Reading the manifest must not execute the package.
    (pkg / "__init__.py").write_text("import os\nos.environ['CS_PLUGTEST_IMPORTED'] = '1'\n")
    (pkg / "cluestudio-plugin.toml").write_text(MANIFEST, encoding="utf-8")
    (pkg / "mod.py").write_text(MODULE, encoding="utf-8")
    (pkg / "broken.py").write_text("import no_such_module_anywhere\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("CS_PLUGTEST_IMPORTED", raising=False)
    yield name
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def _registry(pkg: str, extra: list[EntryPoint] | None = None) -> p.PluginRegistry:
    points = [
        EntryPoint("good", f"{pkg}.mod:Good", "cluestudio.metrics"),
        EntryPoint("bad-import", f"{pkg}.broken:Thing", "cluestudio.metrics"),
        EntryPoint("bad-init", f"{pkg}.mod:BadInit", "cluestudio.metrics"),
        EntryPoint("bad-score", f"{pkg}.mod:BadScore", "cluestudio.metrics"),
        EntryPoint("needs-missing", f"{pkg}.mod:NeedsMissing", "cluestudio.metrics"),
        EntryPoint("bad-fields", f"{pkg}.mod:Good", "cluestudio.probes"),
        EntryPoint("ignored", f"{pkg}.mod:Good", "some.other.group"),
    ]
    return p.PluginRegistry([*points, *(extra or [])])


def _pair() -> tuple[MetricInput, MetricInput]:
    return MetricInput(diagram=ClassDiagram()), MetricInput(diagram=ClassDiagram())


def test_listing_reads_manifests_without_importing(broken_package: str) -> None:
    import os

    registry = _registry(broken_package)
    assert "CS_PLUGTEST_IMPORTED" not in os.environ
    assert broken_package not in sys.modules
    states = {(s.manifest.kind, s.manifest.name): s.state for s in registry.statuses()}
    assert states == {
        ("metric", "good"): p.DISCOVERED, ("metric", "bad-import"): p.DISCOVERED,
        ("metric", "bad-init"): p.DISCOVERED, ("metric", "bad-score"): p.DISCOVERED,
        ("metric", "needs-missing"): p.UNAVAILABLE, ("probe", "bad-fields"): p.INVALID,
    }
    good = registry.status("metric", "good").manifest
    assert (good.version, good.inputs, good.diagram_kinds, good.values) == (
        "2", ("diagram",), ("class",), ("one",))
    assert "no_such_package_for_cluestudio_tests" in registry.status(
        "metric", "needs-missing").error
    assert "list of strings" in registry.status("probe", "bad-fields").error
    assert [m.name for m in registry.manifests("metric", diagram_kind="component")] == [
        "bad-import", "bad-init", "bad-score"]  # "good" is for class diagrams only


def test_broken_plugins_are_reported_and_skipped(broken_package: str) -> None:
    registry = _registry(broken_package)
    ref, cand = _pair()
    assert registry.score("good", ref, cand).values == {"one": 1.0}

    assert registry.score("bad-import", ref, cand) is None
    status = registry.status("metric", "bad-import")
    assert status.state == p.FAILED and "no_such_module_anywhere" in status.error
    assert "Traceback" in status.detail
    assert registry.load("metric", "bad-import") is None  # not retried

    assert registry.score("bad-init", ref, cand) is None
    assert registry.status("metric", "bad-init").state == p.FAILED
    assert "cannot start" in registry.status("metric", "bad-init").error

    assert registry.score("bad-score", ref, cand) is None
    status = registry.status("metric", "bad-score")
    assert status.state == p.ERROR
    assert status.error == "ZeroDivisionError: division by zero in plugin"
    assert status.usable  # one failing pair does not disable it

    assert registry.score("needs-missing", ref, cand) is None  # never imported
    with pytest.raises(p.PluginError, match="no metric plugin named 'nope'"):
        registry.status("metric", "nope")
    # The good one still works after all that.
    assert registry.score("good", ref, cand).values == {"one": 1.0}


def test_duplicate_names_keep_the_first(broken_package: str) -> None:
    dup = EntryPoint("good", f"{broken_package}.mod:BadScore", "cluestudio.metrics")
    registry = _registry(broken_package, [dup])
    status = registry.status("metric", "good")
    assert status.manifest.entry.endswith("mod:Good")
    assert any("ignored" in w for w in status.warnings)


def test_bad_manifest_file_and_missing_manifest(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"cs_plugbad_{uuid.uuid4().hex[:8]}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / name / "cluestudio-plugin.toml").write_text("[metrics.x\nversion=")
    bare = f"{name}_bare"
    (tmp_path / bare).mkdir()
    (tmp_path / bare / "__init__.py").write_text(textwrap.dedent("""
        from cluestudio.core.metrics import MetricManifest
        class M:
            manifest = MetricManifest(name="m", version="7", values=("v",))
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = p.PluginRegistry([EntryPoint("x", f"{name}:X", "cluestudio.metrics"),
                                 EntryPoint("m", f"{bare}:M", "cluestudio.metrics"),
                                 EntryPoint("y", "no_colon_here", "cluestudio.metrics")])
    assert registry.status("metric", "x").state == p.INVALID
    assert "unreadable plugin manifest" in registry.status("metric", "x").error
    assert registry.status("metric", "y").state == p.INVALID
    status = registry.status("metric", "m")
    assert status.state == p.DISCOVERED and "no cluestudio-plugin.toml" in status.warnings[0]
    assert registry.load("metric", "m") is not None
    # Details of a manifest-less plugin come from its class attribute after first use.
    assert registry.status("metric", "m").manifest.version == "7"
    assert registry.status("metric", "m").manifest.values == ("v",)
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def test_json_manifest_and_metric_manifest(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"cs_plugjson_{uuid.uuid4().hex[:8]}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / name / "cluestudio-plugin.json").write_text(json.dumps(
        {"metrics": {"j": {"version": "3", "values": ["a", "b"], "description": "d"}}}))
    monkeypatch.syspath_prepend(str(tmp_path))
    manifest = p.metric_manifest(f"{name}.sub", "j")
    assert manifest == MetricManifest(name="j", version="3", inputs=(), values=("a", "b"),
                                      description="d")
    with pytest.raises(p.PluginError, match=r"no \[metrics.k\] table"):
        p.metric_manifest(name, "k")


def test_installed_registry_lists_without_crashing() -> None:
    registry = p.get_registry(refresh=True)
    assert registry is p.get_registry()
    for status in registry.statuses():
        assert status.manifest.kind in p.KINDS


HOSTILE = {
    "stringy": ("Stringy", "not a number"),
    "not-finite": ("NotFinite", "not a finite number"),
    "unstorable": ("Unstorable", "cannot be stored"),
    "not-a-result": ("NotAResult", "not a metric result"),
    "exits": ("Exits", "SystemExit: 7"),
    "exits-on-init": ("ExitsOnInit", "SystemExit: 3"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_bad_plugin_result_is_one_failure_and_the_registry_goes_on(
        broken_package: str, name: str) -> None:
    cls, message = HOSTILE[name]
    point = EntryPoint(name, f"{broken_package}.mod:{cls}", "cluestudio.metrics")
    registry = _registry(broken_package, [point])
    ref, cand = _pair()
    assert registry.score(name, ref, cand) is None
    status = registry.status("metric", name)
    assert message in status.error
    assert registry.score("good", ref, cand).values == {"one": 1.0}


def test_keyboard_interrupt_from_a_plugin_on_a_worker_thread_is_its_failure(
        broken_package: str) -> None:
    import threading

    point = EntryPoint("interrupts", f"{broken_package}.mod:Interrupts", "cluestudio.metrics")
    registry = _registry(broken_package, [point])
    ref, cand = _pair()
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(
        registry.score("interrupts", ref, cand)))
    worker.start()
    worker.join(30)
    assert outcome == [None]
    assert "KeyboardInterrupt" in registry.status("metric", "interrupts").error
    # On the main thread it is the user's Ctrl+C, and it goes on up.
    with pytest.raises(KeyboardInterrupt):
        registry.score("interrupts", ref, cand)


def test_kind_metric_runner_contains_bad_results_too(broken_package: str) -> None:
    from cluestudio.core.kind_metrics import MetricRunner

    points = [EntryPoint(n, f"{broken_package}.mod:{HOSTILE[n][0]}", "cluestudio.metrics")
              for n in ("stringy", "exits")]
    registry = _registry(broken_package, points)
    runner = MetricRunner(registry)
    manifests = [registry.status("metric", n).manifest for n in ("stringy", "exits", "good")]
    runs = runner.run(manifests, *_pair())
    assert [run.name for run in runs] == ["good"]
    assert set(runner.errors) == {"stringy", "exits"}
