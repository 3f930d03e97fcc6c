"""Issue 24, item 6: "A second instance fails silently from a launcher". The TA clicks the
launcher again while the workbench is open on the same workspace: a dialog offers the
running window, the workspace read-only, or another workspace; nothing is printed to a
terminal nobody sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def _answer_dialog_with(choice: str, seen: list[str]):
    """Click ``choice`` in the "workspace in use" dialog as soon as it shows (a timer: the
    dialog's own event loop runs it)."""
    from cluestudio.gui.qt import QApplication, QMessageBox, QPushButton, QTimer

    timer = QTimer()

    def click() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.objectName() == "workspaceInUse":
            seen.append(box.text() + "\n" + box.informativeText())
            box.findChild(QPushButton, f"choice-{choice}").click()

    timer.timeout.connect(click)
    timer.start(20)
    return timer


def _second_instance(path: Path, choice: str):
    from cluestudio.gui.app import build_workbench

    seen: list[str] = []
    timer = _answer_dialog_with(choice, seen)
    try:
        window, runner = build_workbench(path)
    finally:
        timer.stop()
    return window, runner, seen


def test_a_second_launch_can_open_the_workspace_read_only(session, tmp_path, capfd) -> None:
    path = _course_workspace(tmp_path)
    first = session.open(path)
    window, runner, seen = _second_instance(path, "read-only")
    try:
        assert seen and "open in another ClueStudio window" in seen[0]
        assert window is not None and window.bench.ws.readonly
        assert "read-only" in window.windowTitle() and "read-only" in (
            window.workspace_label.text())
        assert window.navigator.ids() == first.navigator.ids()  # the same course, to look at
    finally:
        if window is not None:
            window.close()
        runner.shutdown()
    assert "Traceback" not in capfd.readouterr().err


def test_a_second_launch_brings_the_open_window_forward(session, tmp_path) -> None:
    path = _course_workspace(tmp_path)
    first = session.open(path)
    asked: list[bool] = []
    first.beacon.raise_requested.connect(lambda: asked.append(True))
    window, runner, seen = _second_instance(path, "show")
    runner.shutdown()
    assert seen and window is None  # nothing else to show: the open window came forward
    assert asked == [True]


def test_a_second_launch_can_pick_another_workspace(session, tmp_path, monkeypatch) -> None:
    from cluestudio.gui.workspace_actions import WorkspaceActions

    path = _course_workspace(tmp_path)
    other = _course_workspace(tmp_path, name="other", tasks=("online_shop",))
    session.open(path)
    # The file dialog is replaced by the file the TA would pick in it.
    monkeypatch.setattr(WorkspaceActions, "ask_workspace_path", lambda _self: other)
    window, runner, seen = _second_instance(path, "other")
    try:
        assert seen and window is not None and window.bench.ws.path == other
        assert not window.bench.ws.readonly
    finally:
        if window is not None:
            window.close()
        runner.shutdown()


def test_a_launcher_that_closed_stderr_gets_an_exit_status_not_a_broken_pipe() -> None:
    """A launcher reads nothing: the error line meets a closed pipe. The command still ends
    with its own status (2), not a BrokenPipeError traceback (status 1)."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "cluestudio", "parse",
                               str(Path("/nonexistent") / "diagram.puml")],
                              stdout=subprocess.DEVNULL, stderr=write_end, timeout=120,
                              check=False)
    finally:
        os.close(write_end)
    assert done.returncode == 2
