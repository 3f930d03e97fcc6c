"""A TA on a 1024-pixel laptop sees review mode's findings tabs shortened to "Ch…", "M…",
"Re…": each tab says in its tooltip which it is, so hovering tells them apart."""

from __future__ import annotations

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def test_a_ta_on_a_small_laptop_can_tell_the_shortened_review_tabs_apart(session,
                                                                        tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    window.resize(1024, 700)
    session.qtbot.wait(100)
    tabs = window.review.tabs
    bar = tabs.tabBar()
    shortened = [tabs.tabText(i) for i in range(tabs.count())
                 if bar.fontMetrics().horizontalAdvance(tabs.tabText(i))
                 > bar.tabRect(i).width()]
    assert shortened, "at 1024 px the tabs are shortened (else this story is moot)"
    for index in range(tabs.count()):
        name = tabs.tabText(index)
        assert tabs.tabToolTip(index).startswith(f"{name}: "), (name, tabs.tabToolTip(index))


def test_a_ta_on_a_small_laptop_can_reach_every_review_tab_with_the_mouse(session,
                                                                          tmp_path) -> None:
    """At 1024 px even the shortened tabs ("Ch…" … "VL") ran past the pane: the Task tab
    lay beyond its edge with no arrow to reach it. Each tab is on screen, or arrows are."""
    from cluestudio.gui.qt import Qt, QToolButton

    window = session.open(_course_workspace(tmp_path))
    window.resize(1024, 700)
    tabs = window.review.tabs
    bar = tabs.tabBar()
    session.qtbot.waitUntil(lambda: bar.width() > 0 and bar.width() < 300)  # laid out
    arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
    past_the_edge = [tabs.tabText(i) for i in range(tabs.count())
                     if bar.tabRect(i).right() > bar.width()]
    assert not past_the_edge or len(arrows) == 2, (past_the_edge, bar.width())
    if arrows:  # the right arrow brings the last tab into reach
        last = tabs.count() - 1
        for _ in range(tabs.count()):
            next(b for b in arrows if b.arrowType() == Qt.ArrowType.RightArrow).click()
        session.qtbot.waitUntil(lambda: bar.tabRect(last).right() <= bar.width())
