"""The check abstains instead of crying wolf on real diagrams (issue 29): what other
people's renders, editor screenshots and cropped images show that is no finding, each with
the real drop it must still find. Hand-made OCR lines and class boxes, built here; no OCR
engine runs and no real image is read."""

from __future__ import annotations

from cluestudio.core.check import check_conversion, image_tokens
from cluestudio.core.check.doubtful import drawn_outside_model
from cluestudio.core.check.report import CheckReport, calibrated_triage
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

Read = list[tuple[str, int, int]]
FLAG_KINDS = ("class", "attribute", "method")
NO_LAYOUT = Layout()


def _ocr(read: Read, layout: Layout = NO_LAYOUT, confidences: dict[str, float] | None = None,
         size: tuple[int, int] = (800, 600)) -> OcrResult:
    confidences = confidences or {}
    lines = tuple(TextLine(text, Box.from_rect(x, y, x + 8 * len(text), y + 16),
                           confidences.get(text, 0.97)) for text, x, y in read)
    return OcrResult("0" * 64, "test-engine", size[0], size[1], lines, layout=layout)


def _box(x0: float, y0: float, x1: float, y1: float, header: float) -> ClassBox:
    return ClassBox((x0, y0, x1, y1), ((x0, y0, x1, header), (x0, header, x1, y1)))


def _flags(report: CheckReport) -> list[str]:
    return [m.text for m in report.missing if m.kind in FLAG_KINDS and m.confidence >= 0.5]


HANDLERS = """@startuml
abstract class AbstractHandler {
  kellyId : int
}
class LeftHandler {
  bus : String
}
AbstractHandler <|-- LeftHandler
@enduml
"""
HANDLERS_LAYOUT = Layout((_box(0, 0, 300, 80, 25), _box(0, 200, 400, 280, 225)))


def test_a_name_written_twice_pairs_with_its_own_class_box() -> None:
    """kellyId is also written inside LeftHandler's initial value, read more confidently:
    the PlantUML's kellyId is AbstractHandler's, read in AbstractHandler's box."""
    read: Read = [("AbstractHandler", 20, 5), ("kellyId : int", 10, 30),
                  ("LeftHandler", 20, 205), ("bus : String = «can0»,<<<kellyId>>>", 10, 230)]
    ocr = _ocr(read, HANDLERS_LAYOUT, {"kellyId : int": 0.96,
                                       "bus : String = «can0»,<<<kellyId>>>": 0.99})
    report = check_conversion(ocr, parse_plantuml(HANDLERS).diagram)
    assert report.verdict == "clean", _flags(report)
    dropped = HANDLERS.replace("  kellyId : int\n", "")
    assert _flags(check_conversion(ocr, parse_plantuml(dropped).diagram)) == ["kellyId"]


NEWS = """@startuml
class Author {
  bio : String
}
class News {
  author : Author
  title : String
}
News --> Author
@enduml
"""
NEWS_READ: Read = [("Author", 20, 5), ("bio : String", 10, 30), ("News", 220, 5),
                   ("author : Author", 210, 30), ("title : String", 210, 48)]
NEWS_LAYOUT = Layout((_box(0, 0, 180, 60, 25), _box(200, 0, 400, 80, 25)))


def test_a_dropped_class_that_is_still_a_type_elsewhere_is_found() -> None:
    without_author = NEWS.replace("class Author {\n  bio : String\n}\n", "").replace(
        "News --> Author\n", "")
    report = check_conversion(_ocr(NEWS_READ, NEWS_LAYOUT),
                              parse_plantuml(without_author).diagram)
    assert report.verdict == "flagged"
    assert "Author" in [m.text for m in report.missing if m.kind == "class"]


def test_an_attribute_dropped_from_one_class_that_another_has_is_found() -> None:
    """Author and News both have a title; the conversion drops Author's. The image shows
    it in Author's box: a finding, although the PlantUML states a title elsewhere (the
    window's old filter hid it; synthetic renders lost a third of such drops to it)."""
    text = NEWS.replace("  bio : String\n", "  bio : String\n  title : String\n")
    read = [*NEWS_READ, ("title : String", 10, 48)]
    faithful = check_conversion(_ocr(read, NEWS_LAYOUT), parse_plantuml(text).diagram)
    assert faithful.verdict == "clean", _flags(faithful)
    report = check_conversion(_ocr(read, NEWS_LAYOUT), parse_plantuml(NEWS).diagram)
    assert [(m.text, m.owner) for m in report.missing if m.kind == "attribute"] == [
        ("title", "Author")]


def test_an_older_check_s_name_read_twice_is_left_out_by_the_window() -> None:
    """A report stored by a check before version 3 (which paired names regardless of
    boxes) listed a name the PlantUML states under another class: the window leaves it
    out until the check runs again; a current report's finding is listed."""
    from dataclasses import replace

    from cluestudio.app.check_display import shown_findings
    from cluestudio.core.check.check import CHECK_VERSION
    from cluestudio.core.check.report import MissingName

    finding = MissingName("title", "attribute", Box.from_rect(10, 48, 130, 64), 0.97,
                          owner="Author", owner_line=2)
    old = CheckReport("0" * 64, "e", 800, 600, 5, 4, 5, 5, missing=(finding,),
                      version="2")
    assert shown_findings(old, NEWS).missing == () and shown_findings(old, NEWS).hidden == 1
    current = replace(old, version=CHECK_VERSION)
    assert shown_findings(current, NEWS).missing == (finding,)


def test_multiplicities_ocr_did_not_read_are_not_listed_as_invented() -> None:
    text = NEWS.replace("News --> Author", 'News "0..*" --> "1" Author')
    report = check_conversion(_ocr(NEWS_READ, NEWS_LAYOUT), parse_plantuml(text).diagram)
    assert not [i for i in report.invented if i.kind == "multiplicity"]
    assert report.set_aside == 2 and report.verdict == "clean"
    assert CheckReport.from_dict(report.to_dict()).set_aside == 2


LEGEND = """@startuml
title Library
legend right
|= Colour |
|<#D5F5D5> implemented |
endlegend
class Book {
  title : String
  init(mouse: str
}
class Loan
class Loan {
  due : Date
}
Book -- Loan
@enduml
"""


def test_what_the_plantuml_draws_outside_its_model_is_read_on_the_parsers_lines() -> None:
    """A form feed in a comment is no line break to PlantUML: counted as one, every later
    line was off by one, and a member the parser read passed for a legend's word (a
    dropped ``fee`` would then have been set aside)."""
    text = ("@startuml\n' drawn\fby hand\nclass Fine {\n  fee : double\n}\n"
            "legend\nPaid at the desk\nendlegend\n@enduml\n")
    drawn = drawn_outside_model(text, parse_plantuml(text).diagram)
    assert {"paid", "desk"} <= drawn
    assert not {"fee", "drawn", "hand"} & drawn, drawn


def test_a_legend_and_a_member_line_the_parser_skips_are_no_findings() -> None:
    diagram = parse_plantuml(LEGEND).diagram
    drawn = drawn_outside_model(LEGEND, diagram)
    assert {"colour", "implemented", "library"} <= drawn
    assert "loan" not in drawn  # a class name (declared twice) stays out of it
    read: Read = [("Book", 20, 5), ("title : String", 10, 30), ("init(mouse: str", 10, 48),
                  ("Loan", 220, 5), ("due : Date", 210, 30), ("Colour", 420, 5),
                  ("implemented", 410, 30)]
    layout = Layout((_box(0, 0, 180, 80, 25), _box(200, 0, 380, 60, 25),
                     _box(400, 0, 580, 60, 25)))
    report = check_conversion(_ocr(read, layout), diagram, also_drawn=drawn)
    assert report.verdict == "clean", _flags(report)
    # computed from the faithful pair, it leaves a dropped class to be found
    without_loan = parse_plantuml(LEGEND.replace("class Loan {\n  due : Date\n}\n", "")
                                  .replace("class Loan\n", "")
                                  .replace("Book -- Loan\n", "")).diagram
    dropped = check_conversion(_ocr(read, layout), without_loan, also_drawn=drawn)
    assert "Loan" in _flags(dropped)


def test_a_stereotype_whose_guillemets_ocr_read_as_letters_is_no_finding() -> None:
    text = "@startuml\nclass Atlas <<implemented>> {\n  path : String\n}\n@enduml\n"
    read: Read = [("simplementeds", 20, 5), ("Atlas", 30, 22), ("path : String", 10, 50)]
    layout = Layout((_box(0, 0, 180, 80, 42),))
    report = check_conversion(_ocr(read, layout), parse_plantuml(text).diagram)
    assert report.verdict == "clean", _flags(report)


LIBRARY = """@startuml
class Book {
  title : String
}
class Author {
  name : String
}
Book -- Author
@enduml
"""
# An editor's screenshot: its palette's sample shapes beside the diagram.
PALETTE_READ: Read = [
    ("Class", 20, 5), ("+ attribute: Type", 10, 30), ("+ method()", 10, 48),
    ("«enumeration»", 20, 105), ("Enumeration", 20, 122), ("Case 1", 10, 150),
    ("Class Diagram", 10, 205),
    ("Book", 420, 5), ("title : String", 410, 30), ("Author", 620, 5),
    ("name : String", 610, 30),
]
PALETTE_LAYOUT = Layout((_box(0, 0, 180, 70, 25), _box(0, 100, 180, 180, 142),
                         _box(0, 200, 180, 225, 225),
                         _box(400, 0, 580, 60, 25), _box(600, 0, 780, 60, 25)))


def test_an_editor_palette_s_sample_shapes_are_no_findings() -> None:
    report = check_conversion(_ocr(PALETTE_READ, PALETTE_LAYOUT),
                              parse_plantuml(LIBRARY).diagram)
    assert report.verdict == "clean", _flags(report)
    assert report.set_aside >= 5  # said, not hidden
    # a class with a name is no sample shape: dropped, it is found
    without_author = LIBRARY.replace("class Author {\n  name : String\n}\n", "").replace(
        "Book -- Author\n", "")
    dropped = check_conversion(_ocr(PALETTE_READ, PALETTE_LAYOUT),
                               parse_plantuml(without_author).diagram)
    assert "Author" in _flags(dropped)


WIDE = """@startuml
class Graph {
  adjacency : Map
  vertices : int
  addVertex() : void
}
class User {
  name : String
}
User -- Graph
@enduml
"""


def test_names_beyond_the_edge_of_a_cut_image_are_not_judged() -> None:
    """A render over PlantUML's size limit is cut through Graph's box: its members run
    off the right edge. What the image does not show cannot be called invented."""
    layout = Layout((_box(10, 10, 190, 60, 35), _box(700, 10, 800, 100, 35)))
    cut: Read = [("User", 40, 15), ("name : String", 20, 40), ("Gra", 776, 15),
                 ("+adj", 768, 40), ("+ver", 768, 58), ("+add", 768, 76)]
    report = check_conversion(_ocr(cut, layout), parse_plantuml(WIDE).diagram)
    assert report.verdict == "could not judge"
    assert "cut off at its right edge" in report.reason
    inside = [(t, x - 200, y) if x > 700 else (t, x, y) for t, x, y in cut]
    whole = check_conversion(_ocr(inside, layout), parse_plantuml(WIDE).diagram)
    assert whole.verdict == "flagged"  # not cut: the same reading is a finding


def test_type_keywords_are_labelled_as_such_not_as_stereotypes() -> None:
    read: Read = [("Order", 20, 5), ("protected double total", 10, 30), ("Frame", 220, 5)]
    layout = Layout((_box(0, 0, 180, 60, 25), _box(200, 0, 380, 60, 25)))
    kinds = {t.text: t.kind for t in image_tokens(_ocr(read, layout), layout)}
    assert kinds["double"] == "type keyword"
    assert kinds["protected"] == "keyword"
    assert kinds["Frame"] == "class"  # a keyword's spelling alone in a header: a name
    assert "stereotype" not in kinds.values()


def test_triage_is_a_calibrated_chance_that_rises_with_the_findings() -> None:
    values = [calibrated_triage(w) for w in (0.0, 0.5, 1.0, 3.0, 10.0, 100.0)]
    assert all(0.0 < v < 1.0 for v in values)
    assert values == sorted(values) and len(set(values)) == len(values)
    report = check_conversion(_ocr(NEWS_READ, NEWS_LAYOUT),
                              parse_plantuml(NEWS.replace("  title : String\n", "")).diagram)
    assert report.verdict == "flagged"
    assert report.triage == calibrated_triage(report.weighted_flags)


def test_the_window_lists_what_the_check_reports() -> None:
    """The window applies the check's own rules (no filter of its own): on a fresh report
    it leaves nothing more out, and counts what the check set aside."""
    from cluestudio.app.check_display import shown_findings

    text = NEWS.replace("News --> Author", 'News "0..*" --> "1" Author')
    read = [*NEWS_READ, ("rating : int", 10, 48)]
    report = check_conversion(_ocr(read, NEWS_LAYOUT), parse_plantuml(text).diagram)
    shown = shown_findings(report, text)
    assert [m.text for m in shown.missing if m.kind in FLAG_KINDS] == ["rating"]
    assert shown.missing == report.missing and shown.invented == report.invented
    assert shown.hidden == report.set_aside == 2  # the two multiplicities


def test_the_triage_fit_recovers_a_known_map_and_stays_finite_on_separable_data() -> None:
    import math
    import random

    from cluestudio.core.check.platt import fit_platt

    rng = random.Random(7)
    truth = (2.0, -3.0)
    data = []
    for _ in range(4000):
        w = rng.choice((0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0))
        p = 1.0 / (1.0 + math.exp(-(truth[0] * math.log1p(w) + truth[1])))
        data.append((w, rng.random() < p, 1.0))
    a, b = fit_platt(data)
    assert abs(a - truth[0]) < 0.3 and abs(b - truth[1]) < 0.4, (a, b)
    # faithful conversions never flagged, wrong ones always: a steep map, not an infinite one
    a, b = fit_platt([(0.0, False, 1.0)] * 30 + [(9.0, True, 1.0)] * 30)
    assert 0 < a < 100 and calibrated_triage(0.0, (a, b)) < 0.1 < 0.9 < calibrated_triage(
        9.0, (a, b))


def test_the_reliability_table_weighs_each_conversion_in_its_bin() -> None:
    from cluestudio.core.check.platt import reliability_table

    rows = reliability_table([(0.1, False, 2.0), (0.15, True, 1.0), (0.9, True, 1.0),
                              (1.0, False, 1.0)])
    assert [row[0] for row in rows] == ["0.0–0.2", "0.8–1.0"]  # empty bins are left out
    low, high = rows
    assert low[1] == 3.0 and abs(low[2] - 0.35 / 3) < 1e-12 and abs(low[3] - 1 / 3) < 1e-12
    assert high[1] == 2.0 and abs(high[2] - 0.95) < 1e-12 and high[3] == 0.5


def test_a_name_ocr_read_only_as_an_unsure_garble_is_not_invented() -> None:
    """OCR read Patient's birthDate as "brthDxx" and was unsure of it: that is the name
    misread, neither invented nor dropped. Read so with confidence, it is a rename."""
    text = "@startuml\nclass Patient {\n  name : String\n  birthDate : Date\n}\n@enduml\n"
    read: Read = [("Patient", 20, 5), ("name : String", 10, 30), ("brthDxx : Date", 10, 48)]
    layout = Layout((_box(0, 0, 180, 80, 25),))
    diagram = parse_plantuml(text).diagram
    unsure = check_conversion(_ocr(read, layout, {"brthDxx : Date": 0.8}), diagram)
    assert unsure.verdict == "clean", [(i.text, i.confidence) for i in unsure.invented]
    sure = check_conversion(_ocr(read, layout, {"brthDxx : Date": 0.99}), diagram)
    assert sure.verdict == "flagged"
    assert "birthDate" in [i.text for i in sure.invented if i.confidence >= 0.5]
