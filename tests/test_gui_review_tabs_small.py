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
