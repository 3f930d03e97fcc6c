"""Issue 29 in the submission navigator: a TA scanning the OCR column sees "⚑ 1.00" only for
a conversion the check flagged. One it could not judge (a blank scan) shows "?" with the
check's reason in the tooltip and no triage number, as if it had judged; sorting the column
keeps those together, apart from the flags and the clean ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from cluestudio.app.checks import store_check
from cluestudio.app.submissions import list_rows
from cluestudio.core.check import check_conversion
from cluestudio.core.jobs import run_job
from cluestudio.core.ocr import Box, Layout, OcrResult, TextLine
from cluestudio.core.plantuml import parse_plantuml
from cluestudio.core.workspace import import_path, open_workspace, sample_course_path

pytestmark = [pytest.mark.gui]

PUML = "@startuml\nclass Customer {\n  name : String\n}\nclass Account\n@enduml\n"


def _read(*texts: str) -> OcrResult:
    lines = tuple(TextLine(t, Box.from_rect(20, 5 + 20 * i, 20 + 8 * len(t), 21 + 20 * i), 0.97)
                  for i, t in enumerate(texts))
    return OcrResult("0" * 64, "test-engine", 600, 300, lines, layout=Layout())


def test_a_ta_scanning_the_ocr_column_tells_could_not_judge_from_a_flag(qtbot,
                                                                       tmp_path: Path) -> None:
    from cluestudio.gui.submission_model import Row, SubmissionModel

    diagram = parse_plantuml(PUML).diagram
    blank = check_conversion(_read(), diagram)
    invented = parse_plantuml(PUML.replace("@enduml", "class Warehouse\n@enduml")).diagram
    flagged = check_conversion(_read("Customer", "name : String", "Account"), invented)
    clean = check_conversion(_read("Customer", "name : String", "Account"), diagram)
    assert (blank.verdict, flagged.verdict, clean.verdict) == (
        "could not judge", "flagged", "clean")
    ws = open_workspace(tmp_path / "ws")
    try:
        run_job(import_path(ws, sample_course_path()))
        subs = ws.list_submissions()[:4]
        for sub, report in zip(subs, (blank, flagged, clean), strict=False):
            head, image = ws.head_revision(sub.id), ws.submission(sub.id).image_hash  # type: ignore[union-attr]
            assert head is not None and image
            store_check(ws, sub.id, head.id, image, report)
        rows = {r.summary.id: Row.of(r) for r in list_rows(ws, "ta")}
    finally:
        ws.close()
    model = SubmissionModel()
    model.set_rows(list(rows.values()))
    ocr = 4

    def shown(sid: int, role: Qt.ItemDataRole = Qt.ItemDataRole.DisplayRole) -> str:
        where = next(i for i, r in enumerate(model.rows) if r.summary.id == sid)
        return str(model.data(model.index(where, ocr), role))

    blank_id, flagged_id, clean_id, unchecked_id = (s.id for s in subs)
    assert shown(blank_id) == "?"
    tip = shown(blank_id, Qt.ItemDataRole.ToolTipRole)
    assert "could not judge: OCR read almost nothing in image A" in tip
    assert "triage" not in tip
    assert shown(flagged_id).startswith("⚑ ")
    assert not shown(clean_id).startswith(("⚑", "?"))
    assert shown(unchecked_id) == ""
    model.sort(ocr, Qt.SortOrder.DescendingOrder)
    order = [r.summary.id for r in model.rows if r.summary.id in (blank_id, flagged_id,
                                                                    clean_id, unchecked_id)]
    assert order == [blank_id, flagged_id, clean_id, unchecked_id]
