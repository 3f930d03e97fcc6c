"""A TA reviewing a conversion (image A beside its render B) read the zoom bar's "100%" as
image A's zoom while A was shown at 34 %: synced views keep the same zoom *relative to
fit*, so A and B are at different absolute zooms, and the one label gave whichever view had
changed last. Each pane now shows its own zoom in its title row, as image-comparison tools
do (the bar's beside A's title, B's beside B's), and follows what is on screen (Compare
A/B); in grading the label under the candidate tabs names the tab's view ("A 85%")."""

from __future__ import annotations

import pytest

from test_gui_stories import _big_workspace, _ctrl, _keys

pytestmark = pytest.mark.gui


def _zoom(view) -> str:
    return f"{round(100 * view.zoom())}%"


def test_a_ta_comparing_a_big_image_a_with_b_reads_each_panes_own_zoom(session,
                                                                       tmp_path) -> None:
    from cluestudio.gui.qt import QToolButton
    from cluestudio.gui.widgets.zoom_bar import ZoomBar, ZoomLabel

    window = session.open(_big_workspace(tmp_path))
    window.resize(1024, 700)
    review = window.review
    bar = review.findChild(ZoomBar)
    b_label = next(label for label in review.findChildren(ZoomLabel)
                   if not bar.isAncestorOf(label))
    image_a, image_b = review.image_a, review.image_b
    session.qtbot.waitUntil(lambda: image_a.image is not None and image_b.image is not None
                            and image_b.isVisible(), timeout=20_000)
    # A is 2400 px wide and B a small render: at one relative zoom their zooms differ
    session.qtbot.waitUntil(lambda: bar.label.text().startswith(_zoom(image_a))
                            and b_label.text().startswith(_zoom(image_b)))
    assert _zoom(image_a) != _zoom(image_b)
    assert image_a.isAncestorOf(bar) is False and bar.parentWidget().isAncestorOf(image_a)
    assert b_label.parentWidget().parentWidget().isAncestorOf(image_b)  # in B's title row
    image_b.setFocus()
    session.press(_keys().Key_Equal, modifier=_ctrl())  # zoom in: both views follow
    # B changed last, and A's label still gives A's zoom
    session.qtbot.waitUntil(lambda: bar.label.text().startswith(_zoom(image_a))
                            and b_label.text().startswith(_zoom(image_b)))

    review.compare_button.setChecked(True)  # the overlay takes B's place
    compare = review.compare.view
    session.qtbot.waitUntil(lambda: compare.isVisible() and compare.image is not None)
    session.qtbot.waitUntil(lambda: b_label.text().startswith(f"A⇄B {_zoom(compare)}"))
    review.compare_button.setChecked(False)
    session.qtbot.waitUntil(lambda: b_label.text().startswith(_zoom(image_b)))

    # Fit: both texts small; each label says so, and the bar keeps one row at 1024 px
    image_a.setFocus()
    session.press(_keys().Key_0, modifier=_ctrl())
    image_b.set_zoom(0.3)
    session.qtbot.waitUntil(lambda: "small" in bar.label.text() and "small" in b_label.text()
                            and bar.readable_button.isVisible())
    button = bar.findChild(QToolButton)
    session.qtbot.waitUntil(lambda: all(abs(w.y() - button.y()) < button.height() // 2 for w in
                                        [*bar.findChildren(QToolButton), bar.label]
                                        if w.isVisible()))


def test_a_ta_grading_sees_the_zoom_of_the_candidate_tab_shown_not_the_references(
        session, tmp_path) -> None:
    from cluestudio.gui.widgets.zoom_bar import ZoomBar

    window = session.open(_big_workspace(tmp_path))
    window.resize(1366, 768)
    session.press(_keys().Key_F3)
    grading = window.grading
    bar = grading.findChild(ZoomBar)
    image_a, image_b = grading.image_a, grading.image_b
    session.qtbot.waitUntil(lambda: image_a.image is not None and image_b.image is not None
                            and grading.reference_image.image is not None, timeout=20_000)
    grading.candidate_tabs.setCurrentWidget(image_a)
    session.qtbot.waitUntil(lambda: bar.label.text() == f"A {_zoom(image_a)}")
    grading.reference_image.setFocus()
    grading.reference_image.zoom_by(1.15)  # the reference changed last: A's zoom stays named
    session.qtbot.waitUntil(lambda: bar.label.text() == f"A {_zoom(image_a)}")
    grading.candidate_tabs.setCurrentWidget(image_b)  # another tab: its zoom, by its name
    session.qtbot.waitUntil(lambda: bar.label.text() == f"B {_zoom(image_b)}")
