"""A TA reviewed a whiteboard photo's conversion that dropped two attributes: the check pane
said "no flag". The check was right not to flag them (the photo's member lines lay outside
the class boxes it found, so it kept them as labels, which raise no flag), but "no flag"
read as "the attributes are fine". Where the check does not judge a kind of name it says
so ("attributes not judged: pages, release, …"), and "no flag" says it covers only what it
judged. Hand-made OCR lines (as tests/test_check_abstain.py): no OCR engine runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def _photo_report(puml: str, engine: str = "test-engine"):
    """The check of ``puml`` against a photo whose Book box the layout found only as its
    header: Book's two attribute lines lie below it, outside every box."""
    from cluestudio.core.check import check_conversion
    from cluestudio.core.ocr import Box, ClassBox, Layout, OcrResult, TextLine
    from cluestudio.core.plantuml import parse_plantuml

    read = [("Book", 40, 10), ("Loan", 260, 10), ("due : Date", 250, 50),
            ("pages : int", 30, 120), ("release : date", 30, 150)]
    lines = tuple(TextLine(text, Box.from_rect(x, y, x + 8 * len(text), y + 16), 0.97)
                  for text, x, y in read)
    layout = Layout((ClassBox((20, 0, 180, 40), ((20, 0, 180, 40),)),
                     ClassBox((240, 0, 400, 90), ((240, 0, 400, 35), (240, 35, 400, 90)))))
    ocr = OcrResult("0" * 64, engine, 520, 360, lines, layout=layout)
    return check_conversion(ocr, parse_plantuml(puml).diagram)


def test_a_ta_reviewing_a_photo_whose_draft_dropped_attributes_is_told_they_were_not_judged(
        session, tmp_path: Path) -> None:
    from cluestudio.app.checks import store_check
    from cluestudio.core.workspace import open_workspace

    path = _course_workspace(tmp_path, tasks=("library_loans",))
    ws = open_workspace(path)
    try:
        sid = next(s.id for s in ws.list_submissions() if s.source_id == "s02")
        s02, head = ws.submission(sid), ws.head_revision(sid)
        assert s02 is not None and head is not None and s02.image_hash
        report = _photo_report(head.puml)
        assert report.verdict == "clean"  # rightly no flag: it could not weigh them
        store_check(ws, s02.id, head.id, s02.image_hash, report)
    finally:
        ws.close()

    window = session.open(path)
    window.resize(1024, 700)
    window.navigator.select(s02.id)
    review = window.review
    session.qtbot.waitUntil(lambda: review.view is not None
                            and review.view.submission.id == s02.id, timeout=10_000)
    review.tabs.setCurrentWidget(review.check)
    panel = review.check
    session.qtbot.waitUntil(lambda: "triage" in panel.summary.text(), timeout=10_000)
    said = panel.not_judged
    session.qtbot.waitUntil(said.isVisible)
    assert "attributes not judged: pages, release" in said.text(), said.text()
    assert "outside the class boxes" in said.text()
    assert "no flag on what it judged" in panel.summary.text()
    # whole on a 1024-pixel screen: it wraps rather than running out of the pane
    assert said.width() <= panel.width() and said.height() >= said.heightForWidth(said.width())
    # the list's OCR column, where a TA triages: the low number says it is partial
    from cluestudio.gui.qt import Qt
    from cluestudio.gui.submission_model import COLUMNS

    model, row = window.navigator.model, window.navigator.row(s02.id)
    assert row is not None
    ocr = COLUMNS.index("OCR")
    assert model.text(row, ocr) == f"{report.triage:.2f} ?", model.text(row, ocr)
    where = model.index(model.rows.index(row), ocr)
    tip = str(model.data(where, Qt.ItemDataRole.ToolTipRole))
    assert "attributes not judged: pages, release" in tip, tip


def test_the_cli_and_the_stored_report_say_what_the_check_did_not_judge() -> None:
    from cluestudio.core.check.report import CheckReport

    report = _photo_report("@startuml\nclass Book\nclass Loan {\n  due : Date\n}\n@enduml\n")
    assert report.not_judged and report.reason.startswith("no flag on what it judged; "
                                                          "attributes not judged: pages")
    again = CheckReport.from_dict(report.to_dict())  # as the workspace keeps it
    assert again.not_judged == report.not_judged and again.reason == report.reason
    faithful = _photo_report("@startuml\nclass Book {\n  pages : int\n  release : date\n}\n"
                             "class Loan {\n  due : Date\n}\n@enduml\n")
    assert faithful.verdict == "clean" and not faithful.not_judged  # nothing left unweighed
    assert faithful.reason == "no flag"


def test_a_ta_checking_a_workspace_from_the_command_line_is_told_what_was_not_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``cluestudio check --workspace`` listed only the flagged conversions and counts: the
    photo whose attributes it did not judge passed as checked and fine. (And its
    ``--submission ID`` checked every submission: the id was not passed on.)"""
    pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
    import json

    from cluestudio.app.checks import store_check
    from cluestudio.cli import main
    from cluestudio.core.ocr.engine import installed_engine_id
    from cluestudio.core.workspace import open_workspace

    path = _course_workspace(tmp_path, tasks=("library_loans",))
    with open_workspace(path) as ws:
        sid = next(s.id for s in ws.list_submissions() if s.source_id == "s02")
        s02, head = ws.submission(sid), ws.head_revision(sid)
        assert s02 is not None and head is not None and s02.image_hash
        engine = installed_engine_id()
        assert engine is not None
        # checked earlier (a stored report of this revision, image and engine): kept
        store_check(ws, sid, head.id, s02.image_hash, _photo_report(head.puml, engine))
    assert main(["check", "--workspace", str(path), "--submission", str(sid)]) == 0
    out = capsys.readouterr().out
    assert "library_loans/s02: attributes not judged: pages, release" in out, out
    assert main(["check", "--workspace", str(path), "--submission", str(sid), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["skipped"]
    # --submission: that one alone, not the whole workspace
    assert [row["source_id"] for row in listed] == ["s02"], listed
    assert listed[0]["not_judged"][0].startswith("attributes not judged: pages, release")
