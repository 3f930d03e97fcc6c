"""Layering rules that keep the CLI fast and the core usable without a display."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "app" / "cluestudio" / "core"


def _modules_loaded_after(import_line: str) -> set[str]:
    code = f"import sys; {import_line}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    return set(out.split())


def _all_core_modules() -> list[str]:
    names = []
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(ROOT / "app").with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def test_core_imports_no_qt_and_no_torch() -> None:
    """Importing every core module pulls in neither Qt nor torch/transformers."""
    imports = "; ".join(f"import {name}" for name in _all_core_modules())
    loaded = _modules_loaded_after(imports)
    forbidden = {m for m in loaded if m.split(".")[0] in {
        "PySide6", "shiboken6", "superqt", "torch", "transformers", "openai"}}
    assert not forbidden, f"core imported heavy/Qt modules: {sorted(forbidden)[:10]}"


def test_cli_help_does_not_import_heavy_modules() -> None:
    loaded = _modules_loaded_after("from cluestudio.cli import build_parser; build_parser()")
    assert not {m for m in loaded if m.split(".")[0] in {"PySide6", "torch", "transformers"}}


def test_only_the_qt_module_imports_qt_bindings() -> None:
    """GUI code takes Qt names from cluestudio.gui.qt, so bindings live in one file."""
    offenders = []
    for path in (ROOT / "app" / "cluestudio").rglob("*.py"):
        if path.name == "qt.py" and path.parent.name == "gui":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith(("from PySide6", "import PySide6", "from superqt",
                                    "import superqt", "from shiboken6")):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert not offenders, offenders


def test_core_and_app_modules_sit_on_no_import_circle() -> None:
    """A module is on a circle when something it imports leads back to it. Imports inside
    functions count: a late import that holds a circle apart is still a circle to a reader
    (scoring ⇄ score_chunk ⇄ executors, calibrate fit ⇄ intervals and the PlantUML renderer
    ⇄ syntax were held so; issue 26 opened them all, docs/adr/0014). The gui and the CLI
    too: the window's helpers name ``gui.window_parts``, not the window that imports them
    (circle 5 of docs/adr/0014 was held by imports under TYPE_CHECKING)."""
    import grimp

    graph = grimp.build_graph("cluestudio", cache_dir=None)
    ours = sorted(m for m in graph.modules if m.startswith(
        ("cluestudio.core", "cluestudio.app", "cluestudio.gui", "cluestudio.cli")))
    assert "cluestudio.app.scoring" in ours and "cluestudio.core.calibrate.fit" in ours
    assert "cluestudio.gui.main_window" in ours and "cluestudio.gui.commands" in ours
    circles = []
    for module in ours:
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                circles.append(" -> ".join((module, *back)))
                break
    assert not circles, "\n".join(circles)


VIEW_LINE_CAP = 400  # STYLE: short modules, views ≤ 400 lines (issue 26's third slice)


def test_no_gui_module_is_longer_than_the_cap() -> None:
    """A view that grows past the cap is split by moving a cohesive piece into a module of
    its own (the navigator's table model, review mode's layout, the window's preferences)."""
    gui = ROOT / "app" / "cluestudio" / "gui"
    long = {str(path.relative_to(gui)): lines for path in sorted(gui.rglob("*.py"))
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > VIEW_LINE_CAP}
    assert not long, long


def test_window_jobs_go_to_the_worker_as_functions_not_strings() -> None:
    """Issue 26: a job named by a "module:function" string is a call that mypy, import-linter
    and a reader cannot follow; the window passes the function, the worker gets its name."""
    import re

    from cluestudio.app.scoring import plan_and_score_job
    from cluestudio.app.worker_process import target_name

    spelled = re.compile(r"\"cluestudio(\.\w+)+:\w+\"|__module__\}:")
    offenders = [f"{path.relative_to(ROOT)}:{number}"
                 for path in (ROOT / "app" / "cluestudio").rglob("*.py")
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if spelled.search(line)]
    assert not offenders, offenders
    assert target_name(plan_and_score_job) == "cluestudio.app.scoring:plan_and_score_job"
    with pytest.raises(ValueError, match="top-level"):
        target_name(lambda: None)


@pytest.mark.parametrize("command", [["--version"], ["--help"]])
def test_cli_entry_point_runs(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cluestudio", *command],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "cluestudio" in result.stdout
