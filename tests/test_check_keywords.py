"""A class's kind declared by keyword (``abstract class X``, ``abstract X``, ``interface X``,
``enum X``): PlantUML 1.2026.2 draws it as a circled letter (A, I, E) and, for abstract, an
italic name, never as the word. Another tool writes the same fact as a word above the name
(«abstract», {abstract}, «interface», «enumeration»): the PlantUML states it, so the word is
no finding. Hand-made OCR lines, as in tests/test_check_abstain.py."""

from __future__ import annotations

import pytest

from cluestudio.core.check import check_conversion
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml
from support.plantuml_differential import java_available

Read = list[tuple[str, int, int]]
needs_java = pytest.mark.skipif(not java_available(), reason="no Java runtime or PlantUML jar")


def _ocr(read: Read, layout: Layout) -> OcrResult:
    lines = tuple(TextLine(text, Box.from_rect(x, y, x + 8 * len(text), y + 16), 0.97)
                  for text, x, y in read)
    return OcrResult("0" * 64, "test-engine", 800, 600, lines, layout=layout)


def _box(x0: float, y0: float, x1: float, y1: float, header: float) -> ClassBox:
    return ClassBox((x0, y0, x1, y1), ((x0, y0, x1, header), (x0, header, x1, y1)))


def _puml(declaration: str) -> str:
    return (f"@startuml\n{declaration} Vehicle {{\n  speed : int\n}}\n"
            "class Garage {\n  size : int\n}\nGarage --> Vehicle\n@enduml\n")


LAYOUT = Layout((_box(0, 0, 180, 80, 42), _box(300, 0, 480, 80, 42)))
# What PlantUML draws: the circled letter is no word OCR keeps, the name is in italics.
DRAWN: Read = [("Vehicle", 60, 22), ("speed : int", 40, 50), ("Garage", 360, 22),
               ("size : int", 340, 50)]


@pytest.mark.parametrize("declaration", ["abstract class", "abstract", "interface", "enum"])
def test_plantuml_s_own_drawing_of_a_keyword_expects_no_word(declaration: str) -> None:
    report = check_conversion(_ocr(DRAWN, LAYOUT), parse_plantuml(_puml(declaration)).diagram)
    assert report.verdict == "clean"
    assert not report.missing and not report.invented


@pytest.mark.parametrize(("declaration", "word"), [
    ("abstract class", "«abstract»"), ("abstract", "{abstract}"),
    ("abstract class", "<<Abstract>>"), ("interface", "«interface»"),
    ("enum", "«enumeration»"), ("enum", "<<enum>>"),
])
def test_another_tool_s_word_for_a_keyword_kind_is_no_finding(declaration: str,
                                                                word: str) -> None:
    diagram = parse_plantuml(_puml(declaration)).diagram
    read = [(word, 50, 5), *DRAWN]
    report = check_conversion(_ocr(read, LAYOUT), diagram)
    assert report.missing == (), [(m.text, m.kind) for m in report.missing]
    assert report.triage == check_conversion(_ocr(DRAWN, LAYOUT), diagram).triage


def test_a_kind_word_over_a_class_the_plantuml_calls_plain_is_still_a_finding() -> None:
    """«abstract» over Vehicle while the PlantUML declares it a plain class: a real
    difference; and «interface» over a class of another kind than the word says."""
    plain = check_conversion(_ocr([("«abstract»", 50, 5), *DRAWN], LAYOUT),
                             parse_plantuml(_puml("class")).diagram)
    assert [m.text for m in plain.missing] == ["abstract"]
    other = check_conversion(_ocr([("«interface»", 50, 5), *DRAWN], LAYOUT),
                             parse_plantuml(_puml("abstract class")).diagram)
    assert [m.text for m in other.missing] == ["interface"]


KEYWORD_KINDS = """@startuml
abstract class Vehicle {
  speed : int
}
abstract Trailer {
  load : int
}
interface Drivable {
  drive() : void
}
enum Fuel {
  DIESEL
  PETROL
}
class Garage {
  size : int
}
Garage --> Vehicle
Vehicle <|-- Trailer
Vehicle ..|> Drivable
Vehicle --> Fuel
@enduml
"""


@needs_java
def test_plantuml_s_render_of_every_keyword_form_checks_clean() -> None:
    """PlantUML 1.2026.2, through the project's renderer and OCR: the circled A, I and E
    and the italic names are all it draws for the four keyword forms; nothing is expected
    that it does not draw, and nothing it draws is a finding."""
    from cluestudio.core.check.files import check_image_and_text
    from cluestudio.core.plantuml.renderer import render_once

    report = check_image_and_text(render_once(KEYWORD_KINDS), KEYWORD_KINDS)
    assert report.verdict == "clean"
    assert not [f for f in (*report.missing, *report.invented)
                if f.kind in ("stereotype", "keyword", "class")], (report.missing,
                                                                   report.invented)
