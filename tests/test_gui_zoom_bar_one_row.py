"""Issue 29: a new TA on a 1024-pixel screen (the window 1016 px wide inside its frame) saw
image A's zoom on a row of its own under "Fit 100% − +", beside the title "A: submitted
image": a second row of buttons taken from the image's height. The title now gives way
first ("A: submit…", whole in its tooltip)."""

from __future__ import annotations

import pytest

from test_gui_stories import _big_workspace, _ctrl, _keys

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("width", [1016, 1024])
def test_a_new_ta_at_1024_px_sees_image_as_zoom_bar_on_one_row(session, tmp_path,
                                                                width: int) -> None:
    from cluestudio.gui.qt import QLabel, QToolButton
    from cluestudio.gui.widgets.zoom_bar import ZoomBar

    window = session.open(_big_workspace(tmp_path))
    window.resize(width, 700)
    review = window.review
    bar = review.findChild(ZoomBar)
    button = bar.findChild(QToolButton)
    session.qtbot.waitUntil(lambda: review.image_a.image is not None
                            and review.image_b.image is not None and button.height() > 0)
    title = next(label for label in bar.parentWidget().findChildren(QLabel)
                 if "A: submitted image" in label.text())

    def one_row() -> bool:
        shown = [w for w in [*bar.findChildren(QToolButton), bar.label] if w.isVisible()]
        return all(abs(w.y() - button.y()) < button.height() // 2 for w in shown)

    session.qtbot.waitUntil(lambda: bar.isVisible() and one_row())
    assert bar.height() < 2 * button.height()
    review.image_a.setFocus()
    session.press(_keys().Key_0, modifier=_ctrl())  # Fit: "…% small" and "Readable" too
    session.qtbot.waitUntil(lambda: bar.readable_button.isVisible())
    session.qtbot.waitUntil(one_row)
    assert "small" in bar.label.text() and bar.height() < 2 * button.height()
    assert title.shown() == title.text() or title.toolTip() == "A: submitted image"
