"""A word of image A that is a name of the PlantUML misread beyond near spelling is no
finding (issue 29: drawings without anti-aliasing, ``Studem`` for ``Student``); a class
the conversion really dropped is still found. Hand-made OCR lines, class boxes and
tokens, built here; no OCR engine runs and no real image is read."""

from __future__ import annotations

from cluestudio.core.check import check_conversion
from cluestudio.core.check.misread import misread_likeness
from cluestudio.core.check.names import ModelName
from cluestudio.core.check.report import CheckReport
from cluestudio.core.check.tokens import ImageToken
from cluestudio.core.ocr import Box, Layout
from cluestudio.core.plantuml import parse_plantuml
from test_check_keywords import Read, _box, _ocr


def _flags(report: CheckReport) -> list[str]:
    return [m.text for m in report.missing
            if m.kind in ("class", "attribute", "method") and m.confidence >= 0.5]


SCHOOL = """@startuml
class Student {
  name : String
}
class Reservation {
  seats : int
}
class Course {
  title : String
}
Student -- Course
Student -- Reservation
@enduml
"""
LAYOUT = Layout((_box(0, 0, 180, 60, 25), _box(200, 0, 380, 60, 25),
                 _box(400, 0, 580, 60, 25)))


def _without(cls: str, text: str = SCHOOL) -> str:
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"class {cls} "))
    end = next(i for i in range(start, len(lines)) if lines[i] == "}\n")
    kept = lines[:start] + lines[end + 1:]
    return "".join(line for line in kept if cls not in line.split())


def test_a_class_name_ocr_misread_beyond_near_spelling_is_no_finding() -> None:
    """``Studem`` is two edits from ``Student``, more than near spelling allows; the
    PlantUML's ``Student`` was read nowhere else: the header is that name, misread."""
    read: Read = [("Studem", 20, 5), ("name : String", 10, 30),
                  ("Reservation", 220, 5), ("seats : int", 210, 30),
                  ("Course", 420, 5), ("title : String", 410, 30)]
    report = check_conversion(_ocr(read, LAYOUT), parse_plantuml(SCHOOL).diagram)
    assert report.verdict == "clean", _flags(report)
    # dropped, Student leaves no name for the header to be a misreading of: found
    dropped = check_conversion(_ocr(read, LAYOUT), parse_plantuml(_without("Student")).diagram)
    assert "Studem" in _flags(dropped)
    # and a header read right is found when its class is dropped, though another
    # leftover name (Course, misread) is about
    misread_course = [(t if t != "Course" else "Cuorsa", x, y) for t, x, y in read]
    dropped = check_conversion(_ocr(misread_course, LAYOUT),
                               parse_plantuml(_without("Reservation")).diagram)
    assert "Reservation" in _flags(dropped)


def test_a_kind_word_misread_over_a_class_name_is_no_finding() -> None:
    """«enumeration» with its guillemets lost and a letter misread (``menumeration``) is
    the word another tool writes for a class's kind; ``Reservation``, as far from
    ``enumeration`` as a word of its own, is still found when dropped."""
    layout = Layout((_box(0, 0, 180, 80, 45), _box(200, 0, 380, 60, 25),
                     _box(400, 0, 580, 60, 25)))
    read: Read = [("menumeration", 10, 2), ("Student", 20, 22), ("name : String", 10, 50),
                  ("Reservation", 220, 5), ("seats : int", 210, 30),
                  ("Course", 420, 5), ("title : String", 410, 30)]
    report = check_conversion(_ocr(read, layout), parse_plantuml(SCHOOL).diagram)
    assert report.verdict == "clean", _flags(report)
    dropped = check_conversion(_ocr(read, layout),
                               parse_plantuml(_without("Reservation")).diagram)
    assert "Reservation" in _flags(dropped)


def _token(text: str, kind: str, line: int, box: int | None) -> ImageToken:
    rect = Box.from_rect(10, 20 * line, 10 + 8 * len(text), 20 * line + 16)
    return ImageToken(text, kind, rect, 0.97, line, 0, class_box=box)


def test_a_name_wrapped_over_three_lines_is_read_as_one() -> None:
    """A narrow box wraps ``AppointmentEntry`` as ``Appo`` / ``intment`` / ``Entry``: run
    together, the box's leftover header words spell the leftover class name."""
    tokens = [_token("Appo", "class", 0, 0), _token("intment", "class", 1, 0),
              _token("Entry", "class", 2, 0), _token("Garage", "class", 3, 1)]
    names = [ModelName("AppointmentEntry", "class", 1, "AppointmentEntry"),
             ModelName("Garage", "class", 5, "Garage")]
    likeness = misread_likeness(tokens, names, {0, 1, 2}, {0})
    assert likeness == {0: 1.0, 1: 1.0, 2: 1.0}
    # each name explains one reading: the more alike takes it, the other word stays a word
    tokens = [_token("Studem", "class", 0, 0), _token("Stadium", "class", 1, 1)]
    names = [ModelName("Student", "class", 1, "Student")]
    likeness = misread_likeness(tokens, names, {0, 1}, {0})
    assert set(likeness) == {0}
    # a header is never a misread type: a dropped class another member names is found
    tokens = [_token("Reservation", "class", 0, 0)]
    names = [ModelName("Reservation", "type", 3, "Student")]
    assert misread_likeness(tokens, names, {0}, {0}) == {}


def test_an_editor_palette_listing_uml_s_elements_in_one_box_is_no_finding() -> None:
    """A palette drawn as one box lists UML's elements (a word of it misread, a relation
    kind): its words are no class names. A single-word box ``Association`` of a class
    the conversion dropped is still found: one element name is no palette."""
    layout = Layout((_box(600, 0, 780, 200, 200), _box(0, 0, 180, 60, 25),
                     _box(200, 0, 380, 60, 25), _box(400, 0, 580, 60, 25),
                     _box(0, 300, 180, 360, 325)))
    palette: Read = [(word, 610, 5 + 20 * i) for i, word in enumerate(
        ("Class", "Intertace", "Association", "Composition", "Dependency", "Note"))]
    read: Read = [("Student", 20, 5), ("name : String", 10, 30),
                  ("Reservation", 220, 5), ("seats : int", 210, 30),
                  ("Course", 420, 5), ("title : String", 410, 30), *palette]
    report = check_conversion(_ocr(read, layout), parse_plantuml(SCHOOL).diagram)
    assert report.verdict == "clean", _flags(report)
    assert report.set_aside >= 6
    read_association = [*read, ("Association", 20, 305)]
    dropped = check_conversion(_ocr(read_association, layout),
                               parse_plantuml(SCHOOL).diagram)
    assert _flags(dropped) == ["Association"]
