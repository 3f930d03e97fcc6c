"""Issue 29: a verdict "agrees" never comes with a triage that says "likely wrong". Findings
that cannot raise the flag (labels, stereotypes, types, notes; a name read too unsurely)
do not drive the calibrated chance up: a clean report's triage stays in the band of a
report with no findings, far below every flagged one's.
Hand-made OCR lines, as in tests/test_check.py."""

from __future__ import annotations

from cluestudio.core.check import check_conversion
from cluestudio.core.check.report import (
    CLEAN_SPREAD,
    FLAG_CONFIDENCE,
    FLAG_KINDS,
    calibrated_triage,
)
from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml

PUML = """@startuml
class Customer {
  name : String
}
class Account {
  balance : double
}
Customer "owner" -- "accounts" Account : holds
@enduml
"""
LAYOUT = Layout((ClassBox((0, 0, 180, 60), ((0, 0, 180, 25), (0, 25, 180, 60))),
                 ClassBox((300, 0, 480, 60), ((300, 0, 480, 25), (300, 25, 480, 60)))))


def _ocr(read: list[tuple[str, int, int]]) -> OcrResult:
    lines = tuple(TextLine(t, Box.from_rect(x, y, x + 8 * len(t), y + 16), 0.97)
                  for t, x, y in read)
    return OcrResult("0" * 64, "test-engine", 800, 600, lines, layout=LAYOUT)


CLASSES = [("Customer", 20, 5), ("name : String", 10, 30), ("Account", 320, 5),
           ("balance : double", 310, 30)]


def test_a_conversion_differing_only_in_labels_agrees_with_a_low_triage() -> None:
    """The image shows other relation labels and a stereotype than the PlantUML: findings
    a reviewer may read, but none raises the flag, so none says "likely wrong"."""
    read = [*CLASSES, ("«entity»", 20, -12), ("«entity»", 320, -12), ("keeps", 220, 100),
            ("client", 190, 80), ("deposits", 260, 80), ("ledger", 230, 120)]
    report = check_conversion(_ocr(read), parse_plantuml(PUML).diagram)
    assert report.verdict == "clean"
    assert report.missing or report.invented  # it has findings, of kinds that cannot flag
    assert not any(f.kind in FLAG_KINDS and f.confidence >= FLAG_CONFIDENCE
                   for f in (*report.missing, *report.invented))
    labels = [("owner", 190, 80), ("accounts", 260, 80), ("holds", 220, 100)]
    nothing = check_conversion(_ocr([*CLASSES, *labels]), parse_plantuml(PUML).diagram)
    assert nothing.verdict == "clean" and not nothing.missing and not nothing.invented
    # the labels order it above a conversion with no findings, within the band of no flag
    assert calibrated_triage(0.0) == nothing.triage < report.triage
    assert report.triage <= CLEAN_SPREAD * calibrated_triage(0.0) < 0.1
    flagged = check_conversion(_ocr(CLASSES), parse_plantuml(
        PUML.replace("@enduml", "class Branch\n@enduml")).diagram)
    assert flagged.verdict == "flagged" and flagged.triage > report.triage
