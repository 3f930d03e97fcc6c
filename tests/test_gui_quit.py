"""Issue 24, item 7: quitting. The window closes and the app ends without waiting for work
that cannot be cancelled; the question about unsaved PlantUML names the submissions and
is not asked for a removed trailing newline; Ctrl+S on a text that does not render says so."""

from __future__ import annotations

import threading

import pytest

from test_gui_stories import _course_workspace, _ctrl, _keys

pytestmark = pytest.mark.gui

BROKEN = "@startuml\nclass Book {\n  title : String\n@enduml\n"  # the brace never closes


def test_quit_does_not_wait_for_a_job_that_cannot_be_cancelled(qtbot) -> None:
    from cluestudio.gui.worker import JobRunner

    runner = JobRunner()
    release = threading.Event()
    started = threading.Event()

    def jvm_starting(_cancel) -> None:  # like a JVM start-up: no cancellation point
        started.set()
        release.wait(60)

    runner.submit(jvm_starting, "start PlantUML")
    assert started.wait(30)
    try:
        assert runner.stop(patience_ms=50) is False  # Quit hands back: the app may end
    finally:
        release.set()
        runner.shutdown()
    assert not runner.is_running()


def _answer(object_name: str, button, seen: list[str]):
    from cluestudio.gui.qt import QApplication, QMessageBox, QTimer

    timer = QTimer()

    def click() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):  # any question is answered: a test never hangs
            seen.append(box.text() if box.objectName() == object_name else "another box")
            box.button(button).click()

    timer.timeout.connect(click)
    timer.start(20)
    return timer


def test_quit_names_the_unsaved_submissions_not_a_removed_trailing_newline(session,
                                                                           tmp_path) -> None:

    window = session.open(_course_workspace(tmp_path))
    window.ask_before_discard = True
    try:
        _quit_twice(session, window)
    finally:
        window.ask_before_discard = False  # a failed check must not leave a question open


def _quit_twice(session, window) -> None:
    from cluestudio.gui.qt import QMessageBox

    first = window.review.view.submission
    editor = window.review.editor
    editor.setPlainText(editor.toPlainText().replace("@enduml", "class Fine\n@enduml"))
    session.press(_keys().Key_PageDown, modifier=_ctrl())  # the edit is kept, unsaved
    second = window.review.view.submission
    editor.setPlainText(editor.toPlainText().rstrip("\n"))  # only the last newline removed
    seen: list[str] = []
    timer = _answer("unsavedEdits", QMessageBox.StandardButton.No, seen)
    try:
        window.close()
    finally:
        timer.stop()
    assert window.isVisible()  # "No": the window stays
    assert len(seen) == 1 and f"{first.task_id}/{first.source_id}" in seen[0], seen
    assert f"/{second.source_id}" not in seen[0].split(":", 1)[1]
    window.commands.previous_submission()  # (the focus went with the question)
    window.review.editor.setPlainText(window.review.view.head_puml + "\n\n")  # blank lines
    seen.clear()
    timer = _answer("unsavedEdits", QMessageBox.StandardButton.No, seen)
    try:
        window.close()  # nothing worth a question: it closes
    finally:
        timer.stop()
    assert not seen and not window.isVisible()


def test_saving_a_revision_that_does_not_render_says_so(session, tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    review = window.review
    review.editor.setFocus()
    review.editor.setPlainText(BROKEN)
    session.press(_keys().Key_S, modifier=_ctrl())  # at once, before its preview came
    assert review.view.head_puml == BROKEN  # saved
    session.qtbot.waitUntil(lambda: "does not" in window.statusBar().currentMessage(),
                            timeout=60_000)
    message = window.statusBar().currentMessage()
    assert "line" in message, message
    review.editor.setPlainText(BROKEN.replace("String", "Text"))
    with session.qtbot.waitSignal(review.preview_shown, timeout=60_000):
        pass
    session.press(_keys().Key_S, modifier=_ctrl())  # after its preview: said at once
    message = window.statusBar().currentMessage()
    assert message.startswith("Saved a new revision, but it does not") and "line" in message
