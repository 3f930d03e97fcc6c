"""Issue 29: after saving a revision a TA pressed Ctrl+Z in the PlantUML editor and got
their typing undone, while Edit offered "Undo Edit PlantUML of submission s02" on the same
key. The key has one meaning where the focus is, and the menu says it: in a text field
Edit → Undo is its typing (the saved change one keyless click below); elsewhere the
workspace's last change."""

from __future__ import annotations

import pytest

from test_gui_stories import _course_workspace, _ctrl, _keys

pytestmark = pytest.mark.gui


def test_a_ta_undoing_in_the_editor_after_a_save_gets_what_the_menu_says(session,
                                                                         tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    review, qtbot = window.review, session.qtbot
    sid = review.view.submission.id
    revisions = lambda: len(window.bench.session.require().revisions(sid))  # noqa: E731
    editor = review.editor
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus)
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor, "' checked")
    session.press(_keys().Key_S, modifier=_ctrl())  # a new revision
    assert revisions() == 2 and review.view.head_puml.endswith("' checked")
    editor.moveCursor(editor.textCursor().MoveOperation.Start)  # an edit of its own
    qtbot.keyClicks(editor, "' twice")

    undo, undo_saved = window.undo_action, window.focus_undo.undo_saved_action
    assert undo.text().replace("&", "") == "Undo typing in the PlantUML editor"
    assert undo.shortcut().toString() == "Ctrl+Z"
    assert undo_saved.isVisible() and undo_saved.shortcut().isEmpty()
    assert undo_saved.text().startswith("Undo saved change: Edit PlantUML")

    session.press(_keys().Key_Z, modifier=_ctrl())  # the key: the typing since the save
    assert editor.toPlainText() == review.view.head_puml and revisions() == 2
    undo.trigger()  # the menu item: the same, typing (from before the save here)
    assert not editor.toPlainText().endswith("' checked") and revisions() == 2

    undo_saved.trigger()  # the saved change, from the menu, without leaving the editor
    assert revisions() == 1

    window.navigator.table.setFocus()  # out of the editor: the workspace's undo
    qtbot.waitUntil(lambda: not editor.hasFocus())
    assert "typing" not in undo.text() and not undo_saved.isVisible()
    assert window.redo_action.text().replace("&", "").startswith("Redo Edit PlantUML")
    session.press(_keys().Key_Z, modifier=_ctrl() | _keys_shift())
    assert revisions() == 2


def _keys_shift():
    from cluestudio.gui.qt import Qt

    return Qt.KeyboardModifier.ShiftModifier
