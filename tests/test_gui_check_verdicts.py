"""Issue 29 in the review window: when the check cannot compare names (a German drawing
converted into English PlantUML, an image OCR garbles), the check panel says so in words
instead of listing every name as dropped and invented."""

from __future__ import annotations

import pytest

from cluestudio.core.check import check_conversion
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

pytestmark = [pytest.mark.gui]

ENGLISH = """@startuml
class Customer {
  firstName : String
}
class Account {
  accountNumber : String
  balance : double
}
class SavingsAccount
Customer "1" -- "*" Account
Account <|-- SavingsAccount
@enduml
"""
GERMAN = [("Kunde", 20, 5), ("vorname : String", 10, 30), ("Konto", 220, 5),
          ("kontonummer : String", 210, 30), ("kontostand : double", 210, 48),
          ("Sparkonto", 220, 205), ("Girokonto", 420, 205)]


def _report(confidence: float = 0.97):
    lines = tuple(TextLine(t, Box.from_rect(x, y, x + 8 * len(t), y + 16), confidence)
                  for t, x, y in GERMAN)
    def box(x0: float, y0: float, x1: float, y1: float) -> ClassBox:
        return ClassBox((x0, y0, x1, y1), ((x0, y0, x1, y0 + 25), (x0, y0 + 25, x1, y1)))

    layout = Layout((box(0, 0, 180, 70), box(200, 0, 380, 70), box(200, 200, 380, 240),
                     box(400, 200, 580, 240)))
    ocr = OcrResult("0" * 64, "test-engine", 600, 300, lines, layout=layout)
    return check_conversion(ocr, parse_plantuml(ENGLISH).diagram)


def test_a_ta_checking_a_translated_drawing_is_told_it_is_a_translation(qtbot) -> None:
    from cluestudio.gui.widgets.check_panel import CheckPanel

    panel = CheckPanel()
    qtbot.addWidget(panel)
    report = _report()
    assert report.verdict == "language"
    panel.show_report(report, True)
    text = panel.summary.text()
    assert "German" in text and "English" in text and "translation" in text
    assert panel.tree.topLevelItemCount() == 0  # no wall of "missing Kunde, Konto, ..."


def test_a_ta_moving_from_a_checked_conversion_to_an_unchecked_one_is_offered_a_first_check(
        qtbot) -> None:
    from cluestudio.gui.widgets.check_panel import CheckPanel

    panel = CheckPanel()
    qtbot.addWidget(panel)
    panel.show_report(_report(), True)
    assert panel.run_button.text() == "Check again"
    panel.show_report(None, True)  # the next submission, never checked
    assert panel.summary.text() == "Not checked yet."
    assert panel.run_button.text() == "Check this conversion"


def test_a_blank_scan_is_described_in_the_words_the_cli_uses(qtbot) -> None:
    from cluestudio.gui.widgets.check_panel import CheckPanel

    ocr = OcrResult("0" * 64, "test-engine", 600, 300, (), layout=Layout())
    report = check_conversion(ocr, parse_plantuml(ENGLISH).diagram)
    assert not report.readable
    panel = CheckPanel()
    qtbot.addWidget(panel)
    panel.show_report(report, True)
    # `cluestudio check` prints "COULD NOT JUDGE: OCR read almost nothing in image A"
    # "?" as in the navigator: the check made no judgment, so it raises no flag
    assert panel.summary.text() == ("<b>? could not judge: OCR read almost nothing in "
                                    "image A</b> — look at it yourself.")
    assert panel.tree.topLevelItemCount() == 0
