"""The conversion check's logic on hand-made OCR lines: pairing words with PlantUML names
through OCR noise, missing and invented names with boxes and lines, triage. No OCR engine
runs here (tests/test_ocr.py reads real images)."""

from __future__ import annotations

import pytest

from cluestudio.core.check import CheckReport, check_conversion, diagram_names, image_tokens
from cluestudio.core.check.match import near_spelling
from cluestudio.core.check.report import calibrated_triage
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

PUML = """@startuml
class Patient {
  - patientNo : String
  - birthDate : Date
  + book(doctor : Doctor, at : DateTime) : Appointment
}
class Doctor {
  - name : String
}
class Appointment
Patient "1" -- "0..*" Appointment : books
Doctor "1" -- "0..*" Appointment : employs
@enduml
"""
# What OCR reads in the rendered image, line by line: (text, left, top), 8 px a character.
READ = [
    ("(C) Patient", 60, 5), ("□ patientNo : String", 5, 30), ("□ birthDate : Date", 5, 48),
    ("• book(doctor : Doctor, at : DateTime) : Appointment", 5, 70),
    ("(C) Doctor", 300, 5), ("□ name : String", 300, 30), ("(C) Appointment", 160, 200),
    ("1", 100, 120), ("0..*", 150, 180), ("books", 120, 150), ("1", 280, 120),
    ("0..*", 250, 180), ("employs", 260, 150),
]


NO_LAYOUT = Layout()


def _ocr(read: list[tuple[str, int, int]] = READ, layout: Layout = NO_LAYOUT,
         confidence: float = 0.95) -> OcrResult:
    lines = tuple(TextLine(text, Box.from_rect(x, y, x + 8 * len(text), y + 16), confidence)
                  for text, x, y in read)
    return OcrResult("0" * 64, "test-engine", 500, 300, lines, layout=layout)


def _diagram(text: str = PUML):
    return parse_plantuml(text).diagram


def _replace(old: str, new: str) -> list[tuple[str, int, int]]:
    return [(t.replace(old, new), x, y) for t, x, y in READ]


def test_the_faithful_conversion_agrees_with_its_image() -> None:
    report = check_conversion(_ocr(), _diagram())
    assert report.missing == () and report.invented == ()
    assert report.text_recall == 1.0 and report.name_precision == 1.0
    # triage is the calibrated chance of a wrong conversion (issue 29): with no finding at
    # all it is the lowest the score gives, the check's own miss rate, not a certainty
    assert report.readable and not report.flagged
    assert report.triage == calibrated_triage(0.0) < 0.05


def test_names_cover_every_kind_with_lines() -> None:
    names = diagram_names(_diagram())
    kinds = {(n.text, n.kind) for n in names}
    assert {("Patient", "class"), ("patientNo", "attribute"), ("book", "method"),
            ("doctor", "parameter"), ("DateTime", "type"), ("Appointment", "type"),
            ("books", "label"), ("0..*", "multiplicity")} <= kinds
    assert {n.line for n in names if n.owner == "Patient" and n.kind == "attribute"} == {3, 4}
    # two String attributes draw "String" twice: names are counted, not deduplicated
    assert sum(1 for n in names if n.text == "String") == 2


@pytest.mark.parametrize("noisy", [
    "patlentNo",  # l for i
    "patientN0",  # zero for O
    "opatientNo",  # an icon glued on
    "patient_no",  # underscore spelling of camelCase
    "patientNo.",  # trailing dot
])
def test_ocr_noise_in_a_name_is_not_a_difference(noisy: str) -> None:
    report = check_conversion(_ocr(_replace("patientNo", noisy)), _diagram())
    assert [m.text for m in report.missing] == [] and report.invented == ()


def test_rn_read_as_m_is_noise() -> None:
    diagram = _diagram(PUML.replace("birthDate", "returnedOn"))
    report = check_conversion(_ocr(_replace("birthDate", "retumedOn")), diagram)
    assert report.missing == () and report.invented == ()


def test_glued_and_split_words_are_paired() -> None:
    read = [r for r in READ if r[0] not in ("books", "employs")] + [("booksemploys", 150, 150)]
    read = [(("□ patient No : String" if "patientNo" in t else t), x, y) for t, x, y in read]
    report = check_conversion(_ocr(read), _diagram())
    assert report.missing == () and report.invented == ()


def test_a_dropped_attribute_is_missing_with_its_box_and_class() -> None:
    diagram = _diagram(PUML.replace("  - birthDate : Date\n", ""))
    layout = Layout((ClassBox((0, 0, 460, 95), ((0, 0, 460, 25), (0, 25, 460, 66),
                                                (0, 66, 460, 95))),))
    report = check_conversion(_ocr(layout=layout), diagram)
    missing = {m.text: m for m in report.missing}
    assert set(missing) == {"birthDate", "Date"}
    born = missing["birthDate"]
    assert born.kind == "attribute" and born.owner == "Patient" and born.owner_line == 2
    x0, y0, x1, y1 = born.box.rect
    # "□ birthDate : Date" starts at x=5; the word is characters 2..11 of the line
    assert (x0, y0, x1, y1) == pytest.approx((5 + 2 * 8, 48, 5 + 11 * 8, 64))
    assert report.flagged and report.triage > 0.3 and report.text_recall < 1.0
    assert report.invented == ()


def test_an_invented_class_and_a_rename_carry_their_plantuml_lines() -> None:
    helper = "class Appointment\nclass Helper {\n  - id : int\n}\n"
    text = PUML.replace("class Appointment\n", helper)
    text = text.replace("- name : String", "- fullName : String")
    report = check_conversion(_ocr(), _diagram(text))
    invented = {i.text: i for i in report.invented}
    assert invented["Helper"].kind == "class" and invented["Helper"].line == 11
    assert invented["id"].kind == "attribute" and invented["id"].owner == "Helper"
    assert invented["fullName"].line == 8 and invented["fullName"].nearest == "name"
    assert [m.text for m in report.missing] == ["name"]
    assert report.flagged and report.name_precision < 1.0


def test_a_renamed_prefix_is_a_difference_not_noise() -> None:
    assert not near_spelling("myname", "name")
    assert not near_spelling("mylanguage", "language")
    assert near_spelling("retumedon", "returnedon")
    assert not near_spelling("id", "ld")  # short names must be exact


def test_multiplicities_count_and_tolerate_lost_dots() -> None:
    read = _replace("0..*", "0.*")
    report = check_conversion(_ocr(read), _diagram())
    assert report.missing == () and report.invented == ()
    dropped = _diagram(PUML.replace('Doctor "1" -- "0..*" Appointment', 'Doctor "1" -- '
                                                                          'Appointment'))
    report = check_conversion(_ocr(), dropped)
    assert [(m.text, m.kind) for m in report.missing] == [("0..*", "multiplicity")]


def test_visibility_icons_and_class_circles_are_not_words() -> None:
    tokens = image_tokens(_ocr([("αname : String", 0, 0), ("(C) Doctor", 0, 20),
                                ("ασ", 0, 40), ("©Prescription", 0, 60)]))
    counted = [t.text for t in tokens if not t.weak]
    assert counted == ["name", "String", "Doctor", "Prescription"]


def test_token_kinds_from_the_line_shape() -> None:
    tokens = image_tokens(_ocr([("+ op(p : T, q : Item) : Result", 0, 0),
                                ("- due : Date", 0, 20)]))
    assert [(t.text, t.kind) for t in tokens if not t.weak] == [
        ("op", "method"), ("Item", "type"), ("Result", "type"), ("due", "attribute"),
        ("Date", "type")]
    assert [(t.text, t.kind) for t in tokens if t.weak] == [
        ("p", "parameter"), ("T", "type"), ("q", "parameter")]


def test_an_unreadable_image_is_reported_not_blamed_on_the_plantuml() -> None:
    report = check_conversion(_ocr([]), _diagram())
    assert not report.readable and report.flagged and report.triage == 1.0
    assert report.text_recall is None


def test_an_empty_diagram_against_a_blank_image_is_fine() -> None:
    report = check_conversion(_ocr([]), _diagram("@startuml\n@enduml\n"))
    assert report.readable and not report.flagged and report.name_precision is None


def test_triage_orders_worse_conversions_higher() -> None:
    one = check_conversion(_ocr(), _diagram(PUML.replace("  - birthDate : Date\n", "")))
    without_doctor = PUML.replace("class Doctor {\n  - name : String\n}\n", "").replace(
        'Doctor "1" -- "0..*" Appointment : employs\n', "")
    two = check_conversion(_ocr(), _diagram(without_doctor))
    assert {m.text for m in two.missing} >= {"Doctor", "name", "employs"}
    assert 0 < one.triage < two.triage <= 1


def test_report_round_trips_through_json() -> None:
    report = check_conversion(_ocr(), _diagram(PUML.replace("  - birthDate : Date\n", "")))
    again = CheckReport.from_dict(report.to_dict())
    assert again.to_dict() == report.to_dict()
    assert again.missing[0].box == report.missing[0].box


def _piece(text: str, left: float, top: float, width: float, line: int):
    from cluestudio.core.check.tokens import ImageToken

    box = Box(((left, top), (left + width, top), (left + width, top + 10),
               (left, top + 10)))
    return ImageToken(text, "multiplicity", box, 0.99, line, 0)


def test_a_multiplicity_ocr_cut_in_two_pieces_is_one_name() -> None:
    """PlantUML 1.2026 draws the ``*`` of ``0..*`` raised: OCR reads ``0..`` and ``*`` as
    two lines. Side by side they are the one multiplicity; a ``*`` elsewhere is not."""
    from cluestudio.core.check.match import match
    from cluestudio.core.check.names import ModelName

    names = [ModelName("1", "multiplicity", 3, ""), ModelName("0..*", "multiplicity", 3, "")]
    beside = [_piece("1", 10, 10, 6, 0), _piece("0..", 60, 112, 14, 1),
              _piece("*", 75, 108, 6, 2)]
    pairs = match(beside, names)
    assert sorted(t for p in pairs for t in p.tokens) == [0, 1, 2]
    assert any(p.tokens == (1, 2) and p.names == (1,) and p.how == "split" for p in pairs)
    far = [_piece("1", 10, 10, 6, 0), _piece("0..", 60, 112, 14, 1),
           _piece("*", 300, 20, 6, 2)]
    assert 2 not in {t for p in match(far, names) for t in p.tokens}
