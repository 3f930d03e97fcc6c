"""Issue 29 at 1024 px: a TA checks a PlantUML render that carries its source; in the
narrow check pane the summary is read as lines and both buttons ("Check again", "Check the
pixels") show whole, placed under the summary; in a wide pane they sit beside it."""

from __future__ import annotations

import pytest

from cluestudio.core.embedded.compare import compare_with_embedded
from cluestudio.core.embedded.source import read_embedded
from cluestudio.core.plantuml import parse_plantuml
from test_embedded_png import SOURCE, png

pytestmark = [pytest.mark.gui]


def _panel(qtbot, width: int):  # type: ignore[no-untyped-def]
    from cluestudio.gui.widgets.check_panel import CheckPanel

    embedded = read_embedded(png(), "s1.png").diagram
    assert embedded is not None
    conversion = SOURCE.replace("class Customer {\n  - email : String\n}",
                                "class Customer\nclass Warehouse")
    report = compare_with_embedded(embedded, parse_plantuml(conversion).diagram)
    panel = CheckPanel()
    qtbot.addWidget(panel)
    panel.show_report(report, True)
    panel.resize(width, 320)
    panel.show()
    qtbot.waitUntil(lambda: panel.pixels_button.isVisible()
                    and panel.pixels_button.width() > 0)
    return panel


def _whole(button) -> bool:  # type: ignore[no-untyped-def]
    return button.width() >= button.sizeHint().width()


def test_a_ta_in_a_narrow_check_pane_reads_the_summary_above_whole_buttons(qtbot) -> None:
    panel = _panel(qtbot, 240)  # the check pane's width in the review window at 1024 px
    qtbot.waitUntil(lambda: panel.run_button.y() > panel.summary.y()
                    + panel.summary.height() - 1)
    assert _whole(panel.run_button) and _whole(panel.pixels_button)
    assert panel.summary.width() > 200  # lines, not a word a line


def test_a_ta_in_a_wide_check_pane_has_the_buttons_beside_the_summary(qtbot) -> None:
    panel = _panel(qtbot, 900)
    qtbot.waitUntil(lambda: panel.run_button.x() > panel.summary.x() + panel.summary.width()
                    - 1)
    assert _whole(panel.run_button) and _whole(panel.pixels_button)
