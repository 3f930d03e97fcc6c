"""A TA grading on a 1024- or 1366-pixel screen read "… so one rating can" and half a line
under it in the grade-by-group box: the note explaining "Find groups" ran past the box's
three lines and was cut mid-sentence. The note is short enough to be read whole; the
explanation is its tooltip."""

from __future__ import annotations

import pytest

from test_gui_stories import _course_workspace, _keys

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("size", [(1024, 700), (1366, 768)])
def test_a_ta_grading_reads_the_whole_grade_by_group_note(session, tmp_path, size) -> None:
    window = session.open(_course_workspace(tmp_path))
    window.resize(*size)
    session.press(_keys().Key_F3)
    panel = window.grading.group_panel
    text = panel.text
    session.qtbot.waitUntil(lambda: "Not grouped yet" in text.text() and text.isVisible()
                            and text.width() > 0, timeout=10_000)
    session.qtbot.wait(50)  # the splitter has placed the box
    assert text.heightForWidth(text.width()) <= text.height(), (text.height(), text.width())
    assert panel.rect().contains(text.geometry()), (panel.rect(), text.geometry())
    assert "one rating can serve them all" in text.toolTip()  # the whole explanation
