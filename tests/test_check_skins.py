"""The check abstains on what PlantUML renders in other skins show (issue 29, the held-out
random-skins proxy): a generic class's type parameter box over its corner, a box whose top
edge the layout missed, a name or a label OCR read in pieces. Each with the real drop or
rename it must still find. Hand-made OCR lines and class boxes, built here; no OCR engine
runs and no real image is read."""

from __future__ import annotations

from itertools import pairwise

from cluestudio.core.check import check_conversion
from cluestudio.core.check.report import CheckReport
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

# (text, left, top, right, bottom, confidence) as OCR reads a line
Read = list[tuple[str, int, int, int, int, float]]
FLAG_KINDS = ("class", "attribute", "method")


def _ocr(read: Read, boxes: tuple[ClassBox, ...]) -> OcrResult:
    lines = tuple(TextLine(text, Box.from_rect(x0, y0, x1, y1), confidence)
                  for text, x0, y0, x1, y1, confidence in read)
    return OcrResult("0" * 64, "test-engine", 900, 600, lines, layout=Layout(boxes))


def _box(x0: float, y0: float, x1: float, y1: float, *rules: float) -> ClassBox:
    edges = (y0, *rules, y1)
    return ClassBox((x0, y0, x1, y1),
                    tuple((x0, a, x1, b) for a, b in pairwise(edges)))


def _flags(report: CheckReport) -> list[str]:
    return [m.text for m in report.missing if m.kind in FLAG_KINDS and m.confidence >= 0.5]


def _findings(report: CheckReport) -> list[str]:
    return sorted([m.text for m in report.missing] + [i.text for i in report.invented])


GENERIC = """@startuml
class Harbour<K, V> {
  - berths : int
}
class Ferry {
  - hull : int
}
Ferry --> Harbour
@enduml
"""


def test_a_generic_class_s_parameter_box_read_over_its_corner_is_no_name() -> None:
    # ``K, V`` in the small box over the top-right corner, read as one header word ``KV``
    # that rises over the box's top edge; then the same box found as a box of its own
    read: Read = [("Harbour", 60, 66, 160, 90, 0.99), ("KV", 200, 50, 232, 76, 0.95),
                  ("□ berths : int", 40, 104, 190, 124, 0.97),
                  ("Ferry", 460, 66, 530, 90, 0.99), ("□ hull : int", 440, 104, 560, 124, 0.97)]
    header_part = (_box(30, 60, 226, 140, 96), _box(430, 60, 620, 140, 96))
    own_box = (*header_part, _box(196, 48, 236, 74))
    for boxes in (header_part, own_box):
        ocr = _ocr(read, boxes)
        report = check_conversion(ocr, parse_plantuml(GENERIC).diagram)
        assert report.verdict == "clean", _flags(report)
        assert "KV" not in _findings(report)
        dropped = GENERIC.replace("class Ferry {\n  - hull : int\n}\n", "").replace(
            "Ferry --> Harbour\n", "")
        assert "Ferry" in _flags(check_conversion(ocr, parse_plantuml(dropped).diagram))


def test_a_centred_header_the_layout_s_top_edge_cuts_is_still_judged() -> None:
    # the layout found the box's top a little low, through the name: a name centred in
    # the header is no type parameter box, and dropping its class is found
    read: Read = [("Harbour", 90, 56, 170, 80, 0.99), ("□ berths : int", 40, 104, 190, 124, 0.97),
                  ("Ferry", 460, 66, 530, 90, 0.99), ("□ hull : int", 440, 104, 560, 124, 0.97)]
    ocr = _ocr(read, (_box(30, 62, 226, 140, 96), _box(430, 60, 620, 140, 96)))
    dropped = GENERIC.replace("class Harbour<K, V> {\n  - berths : int\n}\n", "").replace(
        "Ferry --> Harbour\n", "")
    assert "Harbour" in _flags(check_conversion(ocr, parse_plantuml(dropped).diagram))


def test_a_class_box_over_a_neighbour_s_corner_is_no_type_parameter_box() -> None:
    # Ferry's box, its rules not found (one compartment), reaches over the top edge of
    # Harbour's box at its right end: a class all the same, and dropping it is found
    read: Read = [("Harbour", 60, 106, 160, 130, 0.99), ("□ berths : int", 40, 144, 190, 164, 0.97),
                  ("Ferry", 200, 66, 260, 90, 0.99), ("□ hull : int", 180, 104, 300, 124, 0.97)]
    ocr = _ocr(read, (_box(30, 100, 226, 260, 136), _box(170, 60, 330, 150)))
    assert check_conversion(ocr, parse_plantuml(GENERIC).diagram).verdict == "clean"
    dropped = GENERIC.replace("class Ferry {\n  - hull : int\n}\n", "").replace(
        "Ferry --> Harbour\n", "")
    assert "Ferry" in _flags(check_conversion(ocr, parse_plantuml(dropped).diagram))


MEMBERS = """@startuml
class Lighthouse {
  - dock : String
  - mast : int
}
class Beacon {
  - dock : String
}
Beacon --> Lighthouse
@enduml
"""


def test_a_member_behind_its_icon_where_the_layout_missed_the_header_is_a_member() -> None:
    # the layout took the rule under Lighthouse's header for the box's top: its name is
    # read outside any box, its members in the box's first compartment, each behind the
    # visibility icon OCR reads as a sign (``□ dock : String``); OCR may also read a
    # member's type as a line of its own (``□ dock :`` and ``String``)
    members: Read = [("□ dock : String", 40, 104, 210, 124, 0.97),
                     ("□ mast : int", 40, 128, 190, 148, 0.97)]
    split: Read = [("□ dock :", 40, 104, 120, 124, 0.97), ("String", 126, 103, 190, 123, 0.99),
                   ("□ mast : int", 40, 128, 190, 148, 0.97)]
    for lines in (members, split):
        read: Read = [("Lighthouse", 60, 66, 180, 90, 0.99), *lines,
                      ("Beacon", 460, 66, 540, 90, 0.99),
                      ("□ dock : String", 440, 104, 610, 124, 0.97)]
        ocr = _ocr(read, (_box(30, 96, 226, 170), _box(430, 60, 620, 140, 96)))
        report = check_conversion(ocr, parse_plantuml(MEMBERS).diagram)
        assert report.verdict == "clean", _flags(report)
        dropped = MEMBERS.replace("  - mast : int\n", "")
        assert _flags(check_conversion(ocr, parse_plantuml(dropped).diagram)) == ["mast"]


PIECES = """@startuml
class Granary {
  - bays : int
}
class Courier {
  - bikes : int
}
class Parcel {
  - girth : int
}
Courier --> Granary : provisions
Courier --> Parcel : conveys
Parcel --> Granary : reaches
@enduml
"""


def test_a_name_read_as_two_lines_side_by_side_is_that_name() -> None:
    # OCR cut a header and a label each into two lines that meet end to start; a line
    # crossing a label left its two ends (``con``, ``eys``); ``$`` read for a final ``s``
    read: Read = [("Gran", 60, 66, 108, 90, 0.99), ("ary", 110, 66, 150, 90, 0.99),
                  ("□ bays : int", 40, 104, 160, 124, 0.97),
                  ("Courier", 460, 66, 540, 90, 0.99), ("□ bikes : int", 440, 104, 560, 124, 0.97),
                  ("Parcel", 260, 366, 330, 390, 0.99),
                  ("□ girth : int", 240, 404, 380, 424, 0.97),
                  ("provi", 300, 200, 350, 220, 0.98), ("sions", 352, 200, 402, 220, 0.98),
                  ("con", 480, 260, 510, 280, 0.98), ("eys", 524, 260, 554, 280, 0.98),
                  ("reache$", 150, 260, 220, 280, 0.98)]
    ocr = _ocr(read, (_box(30, 60, 226, 140, 96), _box(430, 60, 620, 140, 96),
                      _box(230, 360, 420, 440, 396)))
    report = check_conversion(ocr, parse_plantuml(PIECES).diagram)
    assert report.verdict == "clean", _flags(report)
    assert _findings(report) == []
    dropped = PIECES.replace("class Granary {\n  - bays : int\n}\n", "").replace(
        "Courier --> Granary : provisions\n", "").replace("Parcel --> Granary : reaches\n", "")
    assert {"Gran", "ary"} <= set(_flags(check_conversion(ocr, parse_plantuml(dropped).diagram)))
    renamed = check_conversion(ocr, parse_plantuml(PIECES.replace(": provisions", ": stocks")
                                                   ).diagram)
    assert "provi" in [m.text for m in renamed.missing]
    assert "stocks" in [i.text for i in renamed.invented]


SCHEDULE = """@startuml
class Rota {
  - slots : int
  + reschedule(day : int) : void
}
class Timetable {
  - sittings : int
}
Rota --> Timetable
@enduml
"""


def test_an_invented_class_is_found_when_its_name_is_inside_another_word() -> None:
    # ``Shift`` is a piece of no word here, ``Schedule`` of ``reschedule``, a method the
    # image shows: a class of that name is invented all the same
    read: Read = [("Rota", 60, 66, 140, 90, 0.99), ("□ slots : int", 40, 104, 170, 124, 0.97),
                  ("○ reschedule(day : int) : void", 40, 130, 320, 150, 0.97),
                  ("Timetable", 460, 66, 560, 90, 0.99),
                  ("□ sittings : int", 440, 104, 560, 124, 0.97)]
    ocr = _ocr(read, (_box(30, 60, 330, 160, 96, 126), _box(430, 60, 620, 140, 96)))
    assert check_conversion(ocr, parse_plantuml(SCHEDULE).diagram).verdict == "clean"
    for name in ("Shift", "Schedule"):
        invented = SCHEDULE.replace("Rota --> Timetable", f"class {name}\nRota --> {name}")
        report = check_conversion(ocr, parse_plantuml(invented).diagram)
        assert report.verdict == "flagged", name
        assert [i.text for i in report.invented if i.confidence >= 0.5] == [name]


def test_a_dropped_class_read_outside_any_box_is_no_piece_of_a_label() -> None:
    # no box found (a dark skin): ``Parcel`` is read as loose text beside the label
    # ``parcels``; a letter short of it, it is a word of its own, and its drop is found
    text = """@startuml
class Depot {
  - bays : int
}
class Parcel {
  - girth : int
}
Depot --> Parcel : parcels
@enduml
"""
    read: Read = [("Depot", 60, 66, 120, 90, 0.99), ("bays : int", 40, 104, 160, 124, 0.97),
                  ("parcels", 200, 200, 270, 220, 0.98), ("Parcel", 300, 300, 360, 324, 0.99),
                  ("girth : int", 280, 340, 400, 360, 0.97)]
    ocr = _ocr(read, ())
    assert check_conversion(ocr, parse_plantuml(text).diagram).verdict == "clean"
    dropped = text.replace("class Parcel {\n  - girth : int\n}\n", "").replace(
        "Depot --> Parcel : parcels\n", "Depot --> Depot : parcels\n")
    report = check_conversion(ocr, parse_plantuml(dropped).diagram)
    assert "Parcel" in [m.text for m in report.missing if m.confidence >= 0.5]
