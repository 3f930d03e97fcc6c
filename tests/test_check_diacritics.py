"""Issue 29: OCR reads a diacritic into a plain word (an umlaut on an English stereotype, an
accent on a keyword) or drops one from a German name. A word whose only difference from a
word the PlantUML has is its diacritics is no finding: names are compared folded. A word the
PlantUML does not have at all stays a finding, accents or not. Hand-made OCR lines."""

from __future__ import annotations

import pytest

from cluestudio.core.check import check_conversion
from cluestudio.core.check.names import name_key
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

Read = list[tuple[str, int, int]]


def _box(x0: float, y0: float, x1: float, y1: float, header: float) -> ClassBox:
    return ClassBox((x0, y0, x1, y1), ((x0, y0, x1, header), (x0, header, x1, y1)))


LAYOUT = Layout((_box(0, 0, 180, 80, 42), _box(300, 0, 480, 80, 42)))


def _ocr(read: Read) -> OcrResult:
    lines = tuple(TextLine(t, Box.from_rect(x, y, x + 8 * len(t), y + 16), 0.97)
                  for t, x, y in read)
    return OcrResult("0" * 64, "test-engine", 800, 600, lines, layout=LAYOUT)


def _puml(declaration: str, first: str = "Vehicle") -> str:
    return (f"@startuml\n{declaration} {{\n  speed : int\n}}\nclass Garage {{\n"
            f"  size : int\n}}\nGarage --> {first} : parks\n@enduml\n")


def _read(header: Read, first: str = "Vehicle") -> Read:
    return [*header, (first, 60, 22), ("speed : int", 40, 50), ("Garage", 360, 22),
            ("size : int", 340, 50), ("parks", 200, 100)]


@pytest.mark.parametrize(("declaration", "word"), [
    ("interface Vehicle", "«ïnterface»"), ("class Vehicle <<entity>>", "«éntity»"),
    ("enum Vehicle", "«ënum»"), ("class Vehicle <<Control>>", "«Cöntrol»"),
])
def test_a_diacritic_read_into_a_stereotype_is_no_finding(declaration: str, word: str) -> None:
    report = check_conversion(_ocr(_read([(word, 50, 5)])),
                              parse_plantuml(_puml(declaration)).diagram)
    assert report.missing == () and report.invented == (), (
        [(m.text, m.kind) for m in report.missing], [i.text for i in report.invented])


def test_a_german_name_read_without_its_umlaut_is_no_finding() -> None:
    diagram = parse_plantuml(_puml("class Kündigung", "Kündigung")).diagram
    report = check_conversion(_ocr(_read([], "Kundigung")), diagram)
    assert report.verdict == "clean"
    assert report.missing == () and report.invented == ()


def test_an_accented_word_the_plantuml_lacks_is_still_a_finding() -> None:
    report = check_conversion(_ocr(_read([("«Zähler»", 50, 5)])),
                              parse_plantuml(_puml("class Vehicle")).diagram)
    assert [m.text for m in report.missing] == ["Zähler"]
    assert name_key("Zähler") != name_key("Zahlen")
