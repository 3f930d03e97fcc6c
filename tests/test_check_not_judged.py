"""The check says which names it read but did not weigh (issue 29): a class, attribute or
method name read too unsurely to carry a flag is named as not judged; one read surely is a
finding and flags, with nothing said as unjudged. Hand-made OCR lines, no engine."""

from __future__ import annotations

from cluestudio.core.check import check_conversion
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

PUML = "@startuml\nclass Fish {\n  - poison\n}\nclass Duck\nclass Horse\n@enduml\n"


def _check(goldfish_confidence: float):
    read = [("Fish", 20, 10, 0.97), ("- poison", 20, 50, 0.97), ("Duck", 220, 10, 0.97),
            ("Horse", 420, 10, 0.97), ("Goldfish", 20, 210, goldfish_confidence)]
    lines = tuple(TextLine(text, Box.from_rect(x, y, x + 8 * len(text), y + 16), conf)
                  for text, x, y, conf in read)
    boxes = tuple(ClassBox((x - 10, y - 10, x + 150, y + 80),
                           ((x - 10, y - 10, x + 150, y + 20), (x - 10, y + 20, x + 150, y + 80)))
                  for _text, x, y, _conf in (read[0], read[2], read[3], read[4]))
    ocr = OcrResult("0" * 64, "test-engine", 640, 320, lines, layout=Layout(boxes))
    return check_conversion(ocr, parse_plantuml(PUML).diagram)


def test_a_class_name_read_unsurely_is_said_not_judged_not_passed_over() -> None:
    report = _check(0.8)  # a marker scrawl OCR half read
    assert report.verdict == "clean"
    assert report.not_judged == ("class names not judged: Goldfish, read too unsurely "
                                 "(handwriting, blur or small text)",)
    assert report.reason.startswith("no flag on what it judged; class names not judged")


def test_a_class_name_read_surely_is_a_finding_and_nothing_is_left_unjudged() -> None:
    report = _check(0.99)
    assert report.verdict == "flagged" and [m.text for m in report.missing] == ["Goldfish"]
    assert report.not_judged == ()
