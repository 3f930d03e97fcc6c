"""The check abstains instead of crying wolf (issue 29): what real diagrams write that is no
finding (keywords, stereotypes, constraints, names wrapped over two lines, garbled words),
and the verdicts it gives when it cannot judge name by name. Hand-made OCR lines, as in
tests/test_check.py; no OCR engine runs here."""

from __future__ import annotations

from cluestudio.core.check import check_conversion
from cluestudio.core.check.language import guess_language
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

Read = list[tuple[str, int, int]]


NO_LAYOUT = Layout()


def _ocr(read: Read, layout: Layout = NO_LAYOUT, confidence: float = 0.97,
         confidences: dict[str, float] | None = None) -> OcrResult:
    confidences = confidences or {}
    lines = tuple(TextLine(text, Box.from_rect(x, y, x + 8 * len(text), y + 16),
                           confidences.get(text, confidence)) for text, x, y in read)
    return OcrResult("0" * 64, "test-engine", 800, 600, lines, layout=layout)


def _box(x0: float, y0: float, x1: float, y1: float, header: float) -> ClassBox:
    return ClassBox((x0, y0, x1, y1), ((x0, y0, x1, header), (x0, header, x1, y1)))


UNIVERSITY = """@startuml
abstract class Employee {
  name : String
}
class AdministrativeEmployee
class ResearchAssociate {
  fieldOfStudy : String
}
Employee <|-- AdministrativeEmployee
Employee <|-- ResearchAssociate
@enduml
"""
# Boxes too narrow for the long names: the drawing wraps them over two lines.
UNIVERSITY_READ: Read = [
    ("{abstract}", 60, 5), ("Employee", 60, 22), ("+ name: String", 40, 50),
    ("Administrative", 10, 205), ("Employee", 20, 222),
    ("Research", 220, 205), ("Associate", 215, 222), ("+ fieldOfStudy: String", 200, 250),
]
UNIVERSITY_LAYOUT = Layout((_box(30, 0, 190, 80, 42), _box(0, 200, 130, 260, 242),
                            _box(195, 200, 390, 280, 242)))


def test_a_name_wrapped_over_two_lines_is_no_finding() -> None:
    report = check_conversion(_ocr(UNIVERSITY_READ, UNIVERSITY_LAYOUT),
                              parse_plantuml(UNIVERSITY).diagram)
    assert report.verdict == "clean", [m.text for m in report.missing]
    assert not any(m.kind == "class" for m in report.missing)
    assert not report.invented


def test_a_dropped_wrapped_class_is_still_found() -> None:
    dropped = UNIVERSITY.replace("class ResearchAssociate {\n  fieldOfStudy : String\n}\n",
                                 "").replace("Employee <|-- ResearchAssociate\n", "")
    report = check_conversion(_ocr(UNIVERSITY_READ, UNIVERSITY_LAYOUT),
                              parse_plantuml(dropped).diagram)
    assert report.verdict == "flagged"
    assert {"Research", "Associate"} & {m.text for m in report.missing if m.kind == "class"}


SHOP = """@startuml
interface Payable {
  pay() : void
}
enum Status {
  OPEN
  PAID
}
class Order {
  - total : double
  # count : int
}
Order "1" -- "*" Status
Order ..|> Payable
@enduml
"""


def test_keywords_stereotypes_and_constraints_are_no_findings() -> None:
    read: Read = [
        ("«interface»", 20, 5), ("Payable", 30, 22), ("+ pay() : void", 10, 50),
        ("<<enumeration>>", 220, 5), ("Status", 240, 22), ("OPEN", 230, 50),
        ("PAID", 230, 68), ("class Online Shopping", 0, 150), ("Order", 30, 205),
        ("protected double total", 10, 235), ("protected int count", 10, 253),
        ("{ordered, unique}", 120, 120), ("1", 90, 120), ("*", 200, 120),
    ]
    layout = Layout((_box(0, 0, 180, 80, 42), _box(200, 0, 380, 90, 42),
                     _box(0, 200, 200, 280, 225)))
    report = check_conversion(_ocr(read, layout), parse_plantuml(SHOP).diagram)
    flagged = [m.text for m in report.missing if m.kind in ("class", "attribute", "method")]
    assert flagged == [] and report.verdict == "clean"


PATIENT = """@startuml
class Patient {
  name : String
}
class Doctor {
  name : String
}
Patient -- Doctor
@enduml
"""
PATIENT_READ: Read = [("Patient", 20, 5), ("name : String", 10, 30), ("Doctor", 220, 5),
                      ("name : String", 210, 30), ("Invoice", 420, 5)]
PATIENT_LAYOUT = Layout((_box(0, 0, 180, 60, 25), _box(200, 0, 380, 60, 25),
                         _box(400, 0, 580, 60, 25)))


def test_a_garbled_word_is_no_finding_but_a_clear_one_is() -> None:
    diagram = parse_plantuml(PATIENT).diagram
    sure = check_conversion(_ocr(PATIENT_READ, PATIENT_LAYOUT), diagram)
    assert sure.verdict == "flagged" and [m.text for m in sure.missing] == ["Invoice"]
    unsure = check_conversion(_ocr(PATIENT_READ, PATIENT_LAYOUT,
                                   confidences={"Invoice": 0.7}), diagram)
    assert unsure.verdict == "clean"
    assert all(m.confidence < 0.5 for m in unsure.missing)


def test_a_one_letter_name_the_image_lacks_is_too_small_to_flag() -> None:
    text = PATIENT.replace("class Doctor {\n", "class Doctor {\n  x : int\n")
    read = [r for r in PATIENT_READ if r[0] != "Invoice"]
    report = check_conversion(_ocr(read, PATIENT_LAYOUT), parse_plantuml(text).diagram)
    x = [i for i in report.invented if i.text == "x"]
    assert len(x) == 1 and x[0].confidence < 0.5
    assert report.verdict == "clean"


def test_an_invented_class_is_found_among_many_words() -> None:
    """A diagram with many words always has one that looks a bit like the invented name
    (``Invitation`` for ``Invoice``); only a close spelling excuses it as misread."""
    read = [r for r in PATIENT_READ if r[0] != "Invoice"] + [
        ("Invitation", 10, 300), ("Office", 10, 330), ("Service", 10, 360)]
    text = PATIENT.replace("@enduml", "class Invoice\n@enduml")
    report = check_conversion(_ocr(read, PATIENT_LAYOUT), parse_plantuml(text).diagram)
    assert [i.text for i in report.invented if i.confidence >= 0.5] == ["Invoice"]


def test_a_display_name_class_is_read_by_its_words() -> None:
    text = 'class "Html (utility)" as Html {\n  render() : String\n}\n'
    diagram = parse_plantuml(f"@startuml\n{text}@enduml\n").diagram
    read: Read = [("Html", 20, 5), ("«utility»", 60, 5), ("+ render() : String", 10, 30)]
    report = check_conversion(_ocr(read, Layout((_box(0, 0, 180, 60, 25),))), diagram)
    assert not any(i.kind == "class" for i in report.invented)


BANK_EN = """@startuml
class Customer {
  firstName : String
  lastName : String
}
class Account {
  accountNumber : String
  balance : double
}
class SavingsAccount
class Branch {
  address : String
}
Customer "1" -- "*" Account
Account <|-- SavingsAccount
Branch "1" -- "*" Account
@enduml
"""
BANK_DE: Read = [
    ("Kunde", 20, 5), ("vorname : String", 10, 30), ("nachname : String", 10, 48),
    ("Konto", 220, 5), ("kontonummer : String", 210, 30), ("kontostand : double", 210, 48),
    ("Sparkonto", 220, 205), ("Filiale", 420, 5), ("anschrift : String", 410, 30),
]
BANK_LAYOUT = Layout((_box(0, 0, 180, 70, 25), _box(200, 0, 380, 70, 25),
                      _box(200, 200, 380, 240, 225), _box(400, 0, 580, 60, 25)))


def test_names_in_another_language_are_reported_as_such() -> None:
    report = check_conversion(_ocr(BANK_DE, BANK_LAYOUT), parse_plantuml(BANK_EN).diagram)
    assert report.verdict == "language" and report.language == "de"
    assert "German" in report.reason and "English" in report.reason
    assert report.flagged and report.triage == 1.0  # a person compares the structure
    assert report.to_dict()["verdict"] == "language"


def test_the_check_says_it_cannot_judge_an_image_ocr_garbled() -> None:
    garbled: Read = [("Cvsfomr", 20, 5), ("fistNane : Strng", 10, 30),
                     ("lasfNme : Sting", 10, 48), ("Acconut", 220, 5),
                     ("acuntNunber : Strin", 210, 30), ("balnce : dooble", 210, 48),
                     ("SavngsAcunt", 220, 205), ("Brnch", 420, 5)]
    report = check_conversion(_ocr(garbled, BANK_LAYOUT, confidence=0.6),
                              parse_plantuml(BANK_EN).diagram)
    assert report.verdict == "could not judge"
    assert report.reason.startswith("could not judge: OCR reads this image poorly")
    # the same words read confidently are findings: a conversion that lost its names
    sure = check_conversion(_ocr(garbled, BANK_LAYOUT, confidence=0.97),
                            parse_plantuml(BANK_EN).diagram)
    assert sure.verdict == "flagged"


def test_a_stored_verdict_survives_the_round_trip() -> None:
    from cluestudio.core.check import CheckReport

    report = check_conversion(_ocr(BANK_DE, BANK_LAYOUT), parse_plantuml(BANK_EN).diagram)
    again = CheckReport.from_dict(report.to_dict())
    assert (again.verdict, again.language, again.reason) == (
        report.verdict, report.language, report.reason)


def test_language_guesses_need_several_leaning_words() -> None:
    assert guess_language(["Kunde", "Konto", "Sparkonto", "Fahrzeug", "Wohnung"]) == "de"
    assert guess_language(["Customer", "Account", "Player", "Measurement", "Building"]) == "en"
    assert guess_language(["Utilisateur", "Stratégie", "Joueur", "Numéro"]) == "fr"
    assert guess_language(["Konto"]) == ""  # one word says nothing


def test_initial_values_drawn_in_the_image_are_no_findings() -> None:
    text = PATIENT.replace("  name : String\n}\nclass Doctor", '  name : String = "Admin"\n}'
                           "\nclass Doctor")
    read = [r for r in PATIENT_READ if r[0] != "Invoice"]
    read[1] = ('name : String = "Admin"', 10, 30)
    read.append(("count : int = 0x7F0", 210, 48))  # an attribute the PlantUML lacks
    report = check_conversion(_ocr(read, PATIENT_LAYOUT), parse_plantuml(text).diagram)
    findings = [m.text for m in report.missing if m.kind in ("class", "attribute", "method")]
    assert findings == ["count"]  # the name is a finding, its value is not


def test_members_of_a_class_ocr_barely_read_are_weak_evidence() -> None:
    """OCR read Order's name but none of its five members (small, low-contrast text): that
    is OCR's blind spot, not five invented members; one unread member among read ones is a
    finding."""
    members = ["total", "placedOn", "discount", "currency", "status"]
    text = "@startuml\nclass Customer {\n  name : String\n  email : String\n}\n"
    text += "class Order {\n" + "".join(f"  {m} : String\n" for m in members) + "}\n@enduml\n"
    diagram = parse_plantuml(text).diagram
    layout = Layout((_box(0, 0, 200, 140, 25), _box(300, 0, 500, 80, 25)))
    customer = [("Customer", 320, 5), ("name : String", 310, 30), ("email : String", 310, 48)]
    blind = check_conversion(_ocr([("Order", 20, 5), *customer], layout), diagram)
    assert blind.verdict == "clean", [(i.text, i.confidence) for i in blind.invented]
    read = [("Order", 20, 5), *customer] + [(f"{m} : String", 10, 30 + 18 * i)
                                            for i, m in enumerate(members[:4])]
    one_missing = check_conversion(_ocr(read, layout), diagram)
    assert one_missing.verdict == "flagged"
    assert [i.text for i in one_missing.invented if i.confidence >= 0.5] == ["status"]


def test_a_course_s_language_set_in_settings_decides_a_doubtful_guess() -> None:
    """Three German names are too few for the spelling guess, and the English PlantUML's
    names lean to no language: the check cannot say it is a translation until the user
    says in settings that the course's drawings are German."""
    from cluestudio.core.settings import settings_from_dict

    read = [("Kunde", 20, 5), ("Konto", 220, 5), ("Filiale", 420, 5)]
    layout = Layout((_box(0, 0, 180, 60, 25), _box(200, 0, 380, 60, 25),
                     _box(400, 0, 580, 60, 25)))
    text = "@startuml\nclass Customer\nclass Account\nclass Branch\n@enduml\n"
    diagram = parse_plantuml(text).diagram
    assert check_conversion(_ocr(read, layout), diagram).verdict == "flagged"
    settings, warnings = settings_from_dict({"ocr": {"language": "de"}})
    assert warnings == [] and settings.ocr.language == "de"
    told = check_conversion(_ocr(read, layout), diagram, language=settings.ocr.language)
    assert told.verdict == "language" and "German" in told.reason
    _, refused = settings_from_dict({"ocr": {"language": "klingon"}})
    assert refused and "not one of" in refused[0]
