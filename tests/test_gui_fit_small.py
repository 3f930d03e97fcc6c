"""The side panels at 1366×768 (issue 17, from the screenshots): nothing cut on the right,
no horizontal scroll bar, long texts elided with the whole text in the tooltip."""

from __future__ import annotations

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def _right_edge_inside(widget, container) -> bool:
    """Whether ``widget`` ends (on the right) within ``container``'s visible width."""
    right = widget.mapTo(container, widget.rect().topRight()).x()
    return right <= container.width()


def _open_at(session, tmp_path, mode: int, width: int = 1366, height: int = 768):
    window = session.open(_course_workspace(tmp_path))
    window.resize(width, height)
    window.modes.setCurrentIndex(mode)
    session.qtbot.wait(80)
    return window


def test_the_verdict_panel_shows_every_verdict_and_scrolls_its_tags_down_only(session,
                                                                           tmp_path) -> None:
    window = _open_at(session, tmp_path, 0)
    verdict = window.review.verdict
    outer = verdict.parentWidget().parentWidget()  # the scroll area around the panel
    assert not outer.horizontalScrollBar().isVisible()
    for button in verdict.verdict_buttons.values():
        assert button.isVisible() and _right_edge_inside(button, outer.viewport()), (
            button.text(), button.geometry(), outer.viewport().width())
    tags = verdict._scroll
    assert not tags.horizontalScrollBar().isVisible()
    assert _right_edge_inside(tags, outer.viewport())
    assert tags.verticalScrollBar().isVisible()  # more tags than room: scroll down to them
    for box in verdict.tag_boxes.values():
        assert _right_edge_inside(box, tags.viewport())
        whole = box.full_text
        assert box.text() == whole or (box.text().endswith("…") and whole in box.toolTip())
    longest = max(verdict.tag_boxes.values(), key=lambda b: len(b.full_text))
    assert longest.text().endswith("…")  # "[j] Class sequence diagram confusion" is elided


def test_the_rubric_column_shows_every_score_button_and_keeps_save_in_sight(session,
                                                                           tmp_path) -> None:
    from cluestudio.gui.widgets.metric_panel import EXAMPLE, TREE_MIN_ROWS
    from test_gui_stories import _inside

    window = _open_at(session, tmp_path, 1)
    rubric = window.grading.rubric
    scroll = rubric.scroll_area
    assert not scroll.horizontalScrollBar().isVisible()
    overall = max(rubric._rows, key=lambda row: len(row.buttons.buttons()))
    assert len(overall.buttons.buttons()) == 9  # 0..4 by 0.5
    for row in rubric._rows:
        for button in row.buttons.buttons():
            assert _right_edge_inside(button, scroll.viewport()), (row.item.label,
                                                                   button.text())
    # The total and "Save and next unrated" never scroll away with the items.
    for widget in (rubric.total_label, rubric.save_next):
        assert widget.isVisible() and _inside(window, widget)
        assert not scroll.isAncestorOf(widget)
    rubric.select(len(rubric._rows) - 1)  # the last item, scrolled into view
    last = rubric._rows[-1]
    top = last.mapTo(scroll.viewport(), last.rect().topLeft()).y()
    assert 0 <= top < scroll.viewport().height()

    metrics = window.grading.metrics
    data = dict(EXAMPLE, probe=dict(EXAMPLE["probe"], reasons=[
        {"kind": "missing-class", "detail": f"Class{i} is in the PlantUML, not in A"}
        for i in range(4)]))
    metrics.set_metrics(data)
    session.qtbot.wait(50)
    row_height = metrics.tree.fontMetrics().height()
    assert metrics.tree.height() >= TREE_MIN_ROWS * row_height  # a list, not one row
    page = metrics.shown_scroll.widget()
    for part in (metrics.extra_label, metrics.tree):  # reachable by scrolling, never clipped
        assert part.geometry().bottom() <= page.height()
    assert not metrics.shown_scroll.horizontalScrollBar().isVisible()


def test_the_reference_opens_at_a_readable_scale_in_grading(session, tmp_path) -> None:
    """At 70% the reference's 14-px PlantUML text had 6-7 px capitals: unreadable."""
    from cluestudio.gui.qt import QColor, QImage
    from cluestudio.gui.widgets.image_views import READABLE_ZOOM

    plantuml_px, cap_height = 14, 0.73  # PlantUML's text size; DejaVu Sans capitals
    assert plantuml_px * cap_height * READABLE_ZOOM >= 8.5
    window = _open_at(session, tmp_path, 1)
    reference = window.grading.reference_image
    big = QImage(2400, 1500, QImage.Format.Format_RGB32)
    big.fill(QColor("white"))
    reference.set_image(big)
    reference.readable()  # what a pane opens with (Fit shows it whole, text small)
    assert reference.zoom() >= READABLE_ZOOM  # the pane is narrower: it scrolls instead
    assert reference.horizontalScrollBar().maximum() > 0
    assert reference.verticalScrollBar().value() == 0


def test_the_review_tabs_and_check_findings_fit_without_sideways_scrolling(session,
                                                                          tmp_path) -> None:
    from types import SimpleNamespace

    window = _open_at(session, tmp_path, 0)
    tabs = window.review.tabs
    bar = tabs.tabBar()
    for index in range(tabs.count()):  # every tab whole, no scroll arrows
        rect = bar.tabRect(index)
        assert rect.right() <= bar.width(), (tabs.tabText(index), rect, bar.width())
        assert bar.fontMetrics().horizontalAdvance(tabs.tabText(index)) < rect.width()
    check = window.review.check
    tabs.setCurrentWidget(check)
    session.qtbot.wait(30)
    tree = check.tree
    header = tree.header()
    assert header.sectionViewportPosition(2) + header.sectionSize(2) <= tree.viewport().width()
    assert not tree.horizontalScrollBar().isVisible()
    finding = SimpleNamespace(text="Librarian", kind="class", line=3, nearest=None,
                              owner=None, owner_line=None, confidence=0.99,
                              box=SimpleNamespace(rect=(0, 0, 10, 10)))
    report = SimpleNamespace(readable=True, text_recall=0.9, name_precision=0.8,
                             flagged=True, triage=0.5, missing=[], invented=[finding])
    check.show_report(report, True)
    session.qtbot.wait(30)
    group = tree.topLevelItem(1)
    assert group.isFirstColumnSpanned()  # "In the PlantUML, not in image A (1)" whole
    assert tree.visualItemRect(group).width() >= tree.fontMetrics().horizontalAdvance(
        group.text(0)) or group.toolTip(0) == group.text(0)
