"""A TA reviewing a conversion (image A beside its render B) read the zoom bar's "100%" as
image A's zoom while A was shown at 34 %: synced views keep the same zoom *relative to
fit*, so A and B are at different absolute zooms, and the one label gave whichever view had
changed last. The label now names each view's zoom ("A 34% · B 85%"), and follows what is
on screen (Compare A/B, the grading tabs)."""

from __future__ import annotations

import pytest

from test_gui_stories import _big_workspace, _ctrl, _keys

pytestmark = pytest.mark.gui


def _says(view, name: str) -> str:
    return f"{name} {round(100 * view.zoom())}%"


def test_a_ta_comparing_a_big_image_a_with_b_reads_each_views_own_zoom(session,
                                                                       tmp_path) -> None:
    from cluestudio.gui.widgets.zoom_bar import ZoomBar

    window = session.open(_big_workspace(tmp_path))
    window.resize(1024, 700)
    review = window.review
    bar = review.findChild(ZoomBar)
    image_a, image_b = review.image_a, review.image_b
    session.qtbot.waitUntil(lambda: image_a.image is not None and image_b.image is not None
                            and image_b.isVisible(), timeout=20_000)
    # A is 2400 px wide and B a small render: at one relative zoom their zooms differ
    session.qtbot.waitUntil(lambda: _says(image_a, "A") in bar.label.text()
                            and _says(image_b, "B") in bar.label.text())
    assert round(100 * image_a.zoom()) != round(100 * image_b.zoom())
    image_b.setFocus()
    session.press(_keys().Key_Equal, modifier=_ctrl())  # zoom in: both views follow
    session.qtbot.waitUntil(lambda: _says(image_a, "A") in bar.label.text()
                            and _says(image_b, "B") in bar.label.text())
    # B is the one that changed last, and A's zoom is still named as A's
    text = bar.label.text()
    assert text.index("A ") < text.index(" · B "), text

    review.compare_button.setChecked(True)  # the overlay takes B's place
    compare = review.compare.view
    session.qtbot.waitUntil(lambda: compare.isVisible() and compare.image is not None)
    session.qtbot.waitUntil(lambda: _says(compare, "A⇄B") in bar.label.text())
    assert " B " not in f" {bar.label.text()} "  # B is not on screen
    review.compare_button.setChecked(False)
    session.qtbot.waitUntil(lambda: _says(image_b, "B") in bar.label.text()
                            and "A⇄B" not in bar.label.text())


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
    session.qtbot.waitUntil(lambda: bar.label.text() == _says(image_a, "A"))
    grading.reference_image.setFocus()
    grading.reference_image.zoom_by(1.15)  # the reference changed last: A's zoom stays named
    session.qtbot.waitUntil(lambda: bar.label.text() == _says(image_a, "A"))
    grading.candidate_tabs.setCurrentWidget(image_b)  # another tab: its zoom, by its name
    session.qtbot.waitUntil(lambda: bar.label.text() == _says(image_b, "B"))
