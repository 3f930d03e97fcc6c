"""A TA on a 1024-pixel laptop whose course lives deep in Documents reads the status line:
the window's messages, the running job and the workspace's path share one row, and none of
them runs under another. What does not fit ends in "…" with its whole text in a tooltip,
and the message, which the TA has to read now, keeps its room before the path does."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui

DEEP = "home/annika.svensson/Documents/Teaching/SE1-2026/grading/assignment3-class-diagrams"


def _deep_workspace(tmp_path: Path) -> Path:
    folder = tmp_path / Path(DEEP).parent
    folder.mkdir(parents=True)
    return _course_workspace(folder, Path(DEEP).name, tasks=("library_loans",))


def _settle(session, window, width: int, height: int) -> None:
    window.resize(width, height)
    status = window.statusBar()
    session.qtbot.waitUntil(lambda: status.width() == window.width(), timeout=5000)
    session.qtbot.wait(50)  # the bar's layout runs on the next pass of the event loop


def _readable(label, detail: str | None = None) -> tuple[bool, str]:
    """Whether ``label`` (an elided label of the status line) is whole on screen, or says
    "…" and has its whole text (or the ``detail`` it shortened) in its tooltip."""
    shown, whole = label.shown(), label.text()
    fits = label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
    reachable = shown == whole or ("…" in shown and (detail or whole) in label.toolTip())
    return fits and reachable, f"{shown!r} of {whole!r} in {label.width()} px"


def _side_by_side(window) -> list[tuple[int, int]]:
    """The status line's visible parts, left to right: (left, right) in the bar."""
    status = window.statusBar()
    parts = [status.message, window.job_status.label, window.job_status.bar,
             window.job_status.cancel_button, window.workspace_label]
    spans = sorted((w.mapTo(status, w.rect().topLeft()).x(),
                    w.mapTo(status, w.rect().topRight()).x())
                   for w in parts if w.isVisible())
    return spans


@pytest.mark.parametrize("size", [(1024, 700), (1366, 768), (1920, 1080)])
def test_a_ta_on_a_small_laptop_with_a_deep_workspace_reads_the_status_message_whole(
        session, tmp_path, size) -> None:
    from cluestudio.gui.qt import Qt

    window = session.open(_deep_workspace(tmp_path))
    _settle(session, window, *size)
    # F3's group finding pressed in review mode: the window says where it is done
    window.menu_actions["find_groups"].trigger()
    status = window.statusBar()
    message = status.currentMessage()
    assert message.startswith("Finding groups is done in grading mode (F3)"), message
    assert status.message.shown() == message  # the whole sentence, at 1024 px too
    spans = _side_by_side(window)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans)), spans
    assert spans[-1][1] < status.width(), (spans, status.width())
    path_label = window.workspace_label
    readable, why = _readable(path_label, str(window.bench.ws.path))
    assert readable, why
    shown = path_label.shown()
    if size[0] == 1024:  # the path gives way, its file name kept
        assert shown.startswith("Workspace: ") and "…" in shown, shown
        assert shown.endswith(".sqlite"), shown
    # a message longer than any room is shortened, and whole in its tooltip
    longer = " ".join([message] * 3)
    window.statusBar().showMessage(longer, 4000)
    session.qtbot.wait(10)
    readable, why = _readable(status.message)
    assert readable and status.message.shown() != status.message.text(), why
    assert status.currentMessage() == longer
    assert Qt.TextElideMode.ElideRight == status.message.mode


def test_a_ta_on_a_small_laptop_sees_a_long_jobs_progress_beside_the_path_not_under_it(
        session, tmp_path) -> None:
    from cluestudio.core.jobs import Progress
    from cluestudio.gui.worker import JobHandle

    window = session.open(_deep_workspace(tmp_path))
    _settle(session, window, 1024, 700)
    handle = JobHandle("offline draft submission 1")
    window.job_status.track(handle)
    handle.started.emit()
    handle.stepped.emit(Progress(0, 1, "#1 library_loans/s01: reading the image (OCR) — a "
                                       "large image (20 MP): this takes a while",
                                 phase="converting"))
    session.qtbot.waitUntil(window.job_status.cancel_button.isVisible, timeout=5000)
    session.qtbot.wait(50)
    status = window.statusBar()
    assert status.minimumSizeHint().width() <= 1024  # the row never needs a wider window
    spans = _side_by_side(window)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans)), spans
    assert spans[-1][1] < status.width(), (spans, status.width())
    for label, detail in ((window.job_status.label, None),
                          (window.workspace_label, str(window.bench.ws.path))):
        readable, why = _readable(label, detail)
        assert readable, why
    assert window.job_status.label.text().startswith("offline draft submission 1 — ")
    handle.finished.emit()


@pytest.mark.parametrize("size", [(1024, 700), (1366, 768), (1920, 1080)])
def test_a_ta_on_a_small_laptop_reads_where_they_are_in_the_heading(session, tmp_path,
                                                                    size) -> None:
    """The line above the modes (task, submission, place, rated, grader, mode) ran past the
    window at 1024 px with a task title like "Hospital appointments": it drops what is shown
    elsewhere first (the mode: its tab is right below), whole in its tooltip."""
    window = session.open(_course_workspace(tmp_path, tasks=("hospital_appointments",)))
    _settle(session, window, *size)
    heading = window.heading
    session.qtbot.waitUntil(lambda: "submission" in heading.toolTip(), timeout=5000)
    assert heading.sizeHint().width() <= heading.width(), (heading.sizeHint(), heading.width())
    shown = heading.shown()
    for part in ("Hospital appointments", "submission <b>s01</b>", "1 of 3 listed",
                 "rated by you: <b>0</b> of 3"):
        assert part in shown, shown
    whole = heading.toolTip()
    assert "grader ta" in whole and whole.endswith("· Review conversion"), whole
    assert heading.text() == shown or "Review conversion" in heading.text()
    if size[0] >= 1366:
        assert shown.endswith("· Review conversion"), shown  # room for all of it
