"""A TA starts ClueStudio for the first time: the real `cluestudio gui` process, fresh HOME.

The installer's smoke test (scripts/installer_smoke.sh) and start-up timing run
``gui --quit-after``; on a first run the "Who is grading?" question is modal and used to
swallow that quit, so the process never exited. This runs the same command from source in a
subprocess, with nothing from the user's own settings, data or logs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.gui, pytest.mark.java]

ROOT = Path(__file__).resolve().parents[1]


def _fresh_home_env(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("XDG_", "CLUESTUDIO_"))}
    env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=os.pathsep.join([str(ROOT / "app"), str(ROOT / "plugins"),
                                           env.get("PYTHONPATH", "")]))
    return env


@pytest.mark.timeout(240)
def test_first_run_ta_opens_the_sample_and_quit_after_still_quits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "cluestudio", "gui", "--sample", "--quit-after", "0.5"],
        env=_fresh_home_env(home), capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    logs = list(home.rglob("cluestudio.log"))
    assert logs and "window shown" in logs[0].read_text(encoding="utf-8")
    # The first-run question was dismissed as a user would (Cancel): the login name is kept
    # and saved, so the next start does not ask again.
    settings = list(home.rglob("settings.toml"))
    assert settings, "no settings file written on the first run"
    assert 'grader = "' in settings[0].read_text(encoding="utf-8")
    assert list(home.rglob("sample-course.sqlite"))


def test_ta_opens_the_workbench_and_sees_it_before_the_background_start_ups(
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JVM's warm-up and the worker process start once the window has been painted:
    started with the window, they took the 2 cores the first paint needed."""
    from cluestudio.core.settings import ScoringSettings, Settings, UISettings
    from cluestudio.core.workspace import open_sample_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.qt import QApplication
    from cluestudio.gui.worker import JobRunner

    monkeypatch.setenv("CLUESTUDIO_DATA_DIR", str(tmp_path / "data"))
    runner = JobRunner()
    window = MainWindow(runner, Settings(ui=UISettings(grader="ta"),
                                         scoring=ScoringSettings(embedder="exact")))
    window.ask_before_discard = False
    qtbot.addWidget(window)
    try:
        window.open(open_sample_workspace())
        QApplication.processEvents()  # what opening the workspace posted, window hidden
        assert window.bench._warm_jobs == [], "start-ups began before the window was drawn"
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: len(window.bench._warm_jobs) == 2, timeout=5000)
        labels = sorted(job.label for job in window.bench._warm_jobs)
        assert labels == ["warm up", "warm up the worker process"]
    finally:
        window.close()
        runner.shutdown()
