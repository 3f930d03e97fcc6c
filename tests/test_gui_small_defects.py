"""Issue 24, item 9: the smaller things a new TA hit. The element diff stays on screen on
the next submission; undo names the submission as the TA knows it (s01), not by database
id; the comment box has a key and comes into view; file dialogs open where the TA's files
are; File → Open recent; no "last good rendering" claim over a blank B."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_gui_stories import _course_workspace, _ctrl, _keys, _rate_by_keys

pytestmark = pytest.mark.gui


def test_the_element_diff_stays_on_screen_on_the_next_submission(session, tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    session.press(_keys().Key_F3)
    grading = window.grading
    session.press(_keys().Key_D, modifier=_ctrl())  # element diff on: B, coloured
    assert grading.diff_on() and grading.candidate_tabs.currentWidget() is grading.image_b
    window.commands.next_submission()
    assert grading.diff_on() and grading.candidate_tabs.currentWidget() is grading.image_b
    grading.candidate_tabs.setCurrentWidget(grading.candidate_text)  # the text, by choice
    window.commands.next_submission()
    assert grading.candidate_tabs.currentWidget() is grading.candidate_text


def test_undo_names_the_submission_as_the_list_does(session, tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    session.press(_keys().Key_F3)
    window.commands.next_submission()
    view = window.grading.view
    _rate_by_keys(session)
    label = window.undo_action.text()
    assert f"submission {view.submission.source_id}" in label, label
    assert f"submission {view.submission.id}" not in label or (
        str(view.submission.id) in view.submission.source_id)


def test_the_comment_box_has_a_key_and_comes_into_view(session, tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    window.resize(1366, 768)
    session.press(_keys().Key_F3)
    rubric = window.grading.rubric
    assert "(F5)" in rubric.comment_label.text()
    session.press(_keys().Key_F5)
    from cluestudio.gui.qt import QApplication

    assert QApplication.focusWidget() is rubric.comment
    viewport = rubric.scroll_area.viewport()
    top = rubric.comment.mapTo(viewport, rubric.comment.rect().topLeft()).y()
    assert top >= 0 and top + 20 <= viewport.height()  # on screen, not below the fold
    session.press(*"well done")
    assert rubric.comment_text() == "well done"


def test_file_dialogs_open_beside_the_workspace_then_where_i_was(session, tmp_path,
                                                                 monkeypatch) -> None:
    from cluestudio.gui.qt import QFileDialog

    path = _course_workspace(tmp_path)
    other = _course_workspace(tmp_path / "elsewhere", name="other")
    window = session.open(path)
    asked: list[str] = []

    def dialog(_parent, _title, folder, _filter):  # the OS dialog: records where it opens
        asked.append(folder)
        return str(other if len(asked) == 1 else path), _filter

    monkeypatch.setattr(QFileDialog, "getOpenFileName", dialog)
    monkeypatch.chdir(tmp_path / "course")  # a launcher's working directory: not it
    window.commands.open_workspace()
    assert Path(asked[0]) == path.parent
    assert window.bench.ws.path == other
    window.commands.open_workspace()
    assert Path(asked[1]) == other.parent  # where the last file was picked
    assert window.bench.ws.path == path


def test_file_open_recent_lists_the_workspaces_i_opened(session, tmp_path) -> None:
    path = _course_workspace(tmp_path)
    other = _course_workspace(tmp_path, name="other")
    window = session.open(path)
    window.files.open_workspace(other)
    menu = window.menu_actions["open_recent"].menu()
    assert menu is not None
    menu.aboutToShow.emit()
    entries = [a for a in menu.actions() if a.isEnabled()]
    assert [Path(a.toolTip()) for a in entries] == [other.resolve(), path.resolve()]
    entries[1].trigger()
    assert window.bench.ws.path.resolve() == path.resolve()


def test_a_blank_b_is_not_called_the_last_good_rendering(session, tmp_path) -> None:
    from cluestudio.gui.qt import QColor, QImage

    window = session.open(_course_workspace(tmp_path))
    review = window.review
    session.qtbot.waitUntil(lambda: review.image_b.image is not None, timeout=60_000)
    blank = QImage(300, 200, QImage.Format.Format_RGB32)
    blank.fill(QColor("white"))
    review.image_b.set_image(blank)  # what an empty diagram renders to
    with session.qtbot.waitSignal(review.preview_shown, timeout=60_000):
        review.editor.setPlainText("@startuml\nclass Book {\n@enduml\n")
    assert "last good rendering" not in review.b_error.text() or review.b_error.isHidden()
    assert review.image_b.image is None  # the error is what B shows
