"""Issue 29: where image A carries the PlantUML it was rendered from, the check compares the
conversion with it model to model (no OCR, certain findings with the source's lines), the
offline draft is that source; ``--pixels`` / ``[ocr] embedded_source = false`` read the
pixels all the same, and every report says which evidence it used."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.check import check_image_and_text
from cluestudio.core.embedded.compare import EMBEDDED_ENGINE, compare_with_embedded
from cluestudio.core.embedded.source import read_embedded
from cluestudio.core.plantuml import parse_plantuml
from test_embedded_png import SOURCE, png

# The conversion dropped Customer's attribute, renamed Order's, lost the relation's label
# and invented a class.
CONVERTED = """@startuml
class Order {
  - totl : double
}
class Customer
class Warehouse
Customer "1" -- "*" Order
@enduml
"""


def _compare(conversion: str):
    embedded = read_embedded(png(), "s1.png").diagram
    assert embedded is not None
    return compare_with_embedded(embedded, parse_plantuml(conversion).diagram,
                                 image=png())


def test_a_faithful_conversion_agrees_with_the_source_a_carries() -> None:
    report = _compare(SOURCE.replace("class Customer", "' reordered\nclass Customer"))
    assert report.evidence == "embedded" and report.engine == EMBEDDED_ENGINE
    assert report.verdict == "clean" and not report.missing and not report.invented
    assert "compared with the PlantUML image A carries" in report.evidence_note


def test_a_display_name_converted_without_its_space_is_the_same_class() -> None:
    source = "@startuml\nclass \"Order Line\" as L\nclass Cart\nCart -- L\n@enduml\n"
    embedded = read_embedded(png(source, boxes=2), "s2.png").diagram
    assert embedded is not None
    faithful = "@startuml\nclass OrderLine\nclass Cart\nCart -- OrderLine\n@enduml\n"
    report = compare_with_embedded(embedded, parse_plantuml(faithful).diagram)
    assert not report.missing and not report.invented
    renamed = compare_with_embedded(
        embedded, parse_plantuml(faithful.replace("OrderLine", "OrderItem")).diagram)
    assert ("Order Line", "class") in {(m.text, m.kind) for m in renamed.missing}


def test_what_the_conversion_dropped_and_invented_is_listed_with_lines_for_sure() -> None:
    report = _compare(CONVERTED)
    dropped = {(m.text, m.kind): m for m in report.missing}
    invented = {(i.text, i.kind): i for i in report.invented}
    assert set(dropped) == {("email", "attribute"), ("String", "type"), ("total", "attribute"),
                            ("places", "label")}
    assert set(invented) == {("totl", "attribute"), ("Warehouse", "class")}
    assert dropped[("email", "attribute")].source_line == 6  # the source's line
    assert dropped[("email", "attribute")].box is None  # no box: no pixels were read
    assert dropped[("email", "attribute")].owner_line == 5  # Customer in the conversion
    assert invented[("Warehouse", "class")].line == 6  # the conversion's line
    assert invented[("totl", "attribute")].nearest == "total"
    assert all(f.confidence == 1.0 for f in (*report.missing, *report.invented))
    assert report.verdict == "flagged" and report.triage > 0.9


def test_a_relation_dropped_or_turned_into_another_kind_is_a_finding() -> None:
    report = _compare(SOURCE.replace('Customer "1" -- "*" Order : places',
                                     "Customer <|-- Order"))
    assert [(m.kind, m.text) for m in report.missing] == [("relation", "Customer -- Order")]
    assert [(i.kind, i.text) for i in report.invented] == [("relation", "Order --|> Customer")]
    assert report.missing[0].source_line == 8
    assert report.flagged  # a dropped relation is a real error, and certain


def test_the_report_round_trips_with_its_evidence() -> None:
    from cluestudio.core.check.report import CheckReport

    report = _compare(CONVERTED)
    again = CheckReport.from_dict(report.to_dict())
    assert again.evidence == "embedded" and again.evidence_note == report.evidence_note
    assert again.missing == report.missing and again.invented == report.invented


def test_checking_an_image_that_carries_its_plantuml_runs_no_ocr(monkeypatch) -> None:
    import cluestudio.core.ocr.service as service

    def no_ocr(*_a: object, **_k: object) -> None:
        raise AssertionError("OCR ran")

    monkeypatch.setattr(service, "read_image", no_ocr)
    report = check_image_and_text(png(), CONVERTED, image_source="s1.png")
    assert report.evidence == "embedded" and report.flagged


@pytest.fixture
def ocr_installed() -> None:
    pytest.importorskip("rapidocr", reason="the ocr extra is not installed")


@pytest.mark.parametrize("boxes", [0, 1, 11])
def test_pixels_that_do_not_look_like_the_source_are_read_instead(ocr_installed,
                                                                   boxes: int) -> None:
    """A PNG edited after it was rendered can keep the source: where its class boxes are
    fewer than the source's classes, or far more, the pixels are read and the note says so."""
    from cluestudio.core.draft import draft_from_image

    data = png(boxes=boxes, size=(360, 240))
    report = check_image_and_text(data, SOURCE, image_source="s1.png")
    assert report.evidence == "pixels"
    assert report.evidence_note == (
        f"s1.png: its pixels show {boxes} box(es) where the PlantUML it carries draws 2 "
        "class(es): it may have been edited after it was rendered; read from the pixels")
    draft = draft_from_image(data, "s1.png")
    assert draft.evidence == "pixels" and "may have been edited" in draft.warnings[0]


def test_pixels_that_look_like_the_source_let_it_be_used() -> None:
    report = check_image_and_text(png(boxes=3), SOURCE, image_source="s1.png")  # a note's box
    assert report.evidence == "embedded" and report.verdict == "clean"


def test_pixels_forces_ocr_and_a_source_that_does_not_parse_falls_back_saying_why(
        ocr_installed, tmp_path: Path) -> None:
    forced = check_image_and_text(png(), CONVERTED, image_source="s1.png", pixels=True)
    assert forced.evidence == "pixels" and forced.evidence_note == ""
    broken = check_image_and_text(png("@startuml\nclass A {\n@enduml\n"), CONVERTED,
                                  image_source="s1.png")
    assert broken.evidence == "pixels"
    assert broken.evidence_note.startswith("s1.png (the PlantUML it carries):2:")
    assert broken.evidence_note.endswith("read from the pixels")


def test_the_draft_of_an_image_carrying_its_plantuml_is_that_source() -> None:
    from cluestudio.core.draft import draft_from_image

    draft = draft_from_image(png(SOURCE + "\nPlantUML version 1.2025.4\n"), "image A")
    assert draft.evidence == "embedded" and draft.puml == SOURCE
    assert draft.doubts == () and "' ?" not in draft.puml  # every element certain
    assert draft.warnings[0] == ("image A carries the PlantUML it was rendered from; "
                                 "drafted from it, not from the pixels")
    assert draft.classes == 2 and draft.relations == 1


def test_the_offline_draft_plugin_says_where_its_draft_came_from() -> None:
    from cluestudio.core.draft.plugin import OfflineDraftConverter
    from cluestudio.core.vlm.backend import ImageInput, VLMRequest

    answer = OfflineDraftConverter(shared_cache=False).complete(
        VLMRequest("convert", images=(ImageInput(png()),)))
    assert answer.refusal is None
    assert "class Customer" in answer.text
    assert "' image A carries the PlantUML it was rendered from" in answer.text


def test_the_draft_of_a_source_that_does_not_parse_comes_from_the_pixels(
        ocr_installed) -> None:
    from cluestudio.core.draft import draft_from_image

    draft = draft_from_image(png("@startuml\nclass A {\n@enduml\n"), "s9.png")
    assert draft.evidence == "pixels"
    assert draft.warnings[0].startswith("s9.png (the PlantUML it carries):2:")
    assert draft.warnings[0].endswith("drafted from the pixels")


def _course(root: Path) -> Path:
    subs = root / "tasks" / "shop" / "submissions"
    subs.mkdir(parents=True)
    (subs.parent / "requirement.md").write_text("# Shop\n", encoding="utf-8")
    (subs.parent / "reference.puml").write_text(SOURCE, encoding="utf-8")
    (subs / "s1.puml").write_text(CONVERTED, encoding="utf-8")
    (subs / "s1.png").write_bytes(png(size=(240, 160)))
    return root


def test_a_workspace_check_uses_the_source_and_pixels_makes_it_due_again(
        ocr_installed, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.app.checks import check_submission, latest_report, plan_checks
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import import_path, open_workspace

    ws = open_workspace(tmp_path / "shop.sqlite")
    run_job(import_path(ws, _course(tmp_path / "course")))
    sid = ws.list_submissions()[0].id
    report = check_submission(ws, sid)
    assert report.evidence == "embedded" and report.flagged
    assert not plan_checks(ws, [sid]).items  # done: the source has not changed
    assert plan_checks(ws, [sid], pixels=True).items  # the pixels were never read
    stored = latest_report(ws, sid)
    assert stored is not None and stored.evidence == "embedded"
    ws.close()
    code = main(["check", "--workspace", str(tmp_path / "shop.sqlite"), "--no-cache",
                 "--redo"])
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0
    assert "s1: flagged (triage" in captured.err  # the progress line says it too
    assert "compared with the PlantUML image A carries" in captured.err
    assert "FLAGGED #1 shop/s1" in out and "compared with the PlantUML image A carries" in out


def test_the_cli_says_which_evidence_it_used_and_pixels_reads_them(
        ocr_installed, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, puml = tmp_path / "s1.png", tmp_path / "s1.puml"
    image.write_bytes(png(size=(240, 160)))
    puml.write_text(CONVERTED, encoding="utf-8")
    assert main(["check", str(image), str(puml), "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "FLAGGED" in out and "compared with the PlantUML image A carries (no OCR)" in out
    assert "missing attribute 'email' (line 6 of the source A carries) in Customer" in out
    assert main(["check", str(image), str(puml), "--no-cache", "--pixels"]) == 0
    out = capsys.readouterr().out
    assert "compared with the PlantUML" not in out
    assert "OCR read almost nothing" in out  # a blank image: the pixels were read


def test_the_setting_turns_the_source_off(ocr_installed, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.core.settings import settings_path

    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[ocr]\nembedded_source = false\n", encoding="utf-8")
    image, puml = tmp_path / "s1.png", tmp_path / "s1.puml"
    image.write_bytes(png(size=(240, 160)))
    puml.write_text(CONVERTED, encoding="utf-8")
    assert main(["check", str(image), str(puml), "--no-cache"]) == 0
    assert "compared with the PlantUML" not in capsys.readouterr().out


def test_a_ztxt_bomb_given_to_the_check_is_refused_in_one_line_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pillow refuses a text chunk that inflates past 1 MiB (its MAX_TEXT_CHUNK) before a
    pixel is decoded, so such a file never reaches the check or a workspace."""
    import zlib

    from test_embedded_png import bare, chunk, with_chunk

    packer = zlib.compressobj(9)
    bomb = b"".join(packer.compress(b"\0" * (1 << 20)) for _ in range(64)) + packer.flush()
    image, puml = tmp_path / "bomb.png", tmp_path / "s1.puml"
    image.write_bytes(with_chunk(bare(), chunk(b"zTXt", b"plantuml\0\0" + bomb)))
    puml.write_text(CONVERTED, encoding="utf-8")
    assert main(["check", str(image), str(puml), "--no-cache"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(image) in err[0] and "Traceback" not in err[0]


def test_a_ta_drafting_a_plantuml_png_offline_is_told_it_came_from_its_source(
        tmp_path: Path) -> None:
    from cluestudio.app import model_jobs
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.settings import Settings
    from cluestudio.core.workspace import import_path, open_workspace

    ws = open_workspace(tmp_path / "shop.sqlite")
    try:
        run_job(import_path(ws, _course(tmp_path / "course")))
        sid = ws.list_submissions()[0].id
        request = model_jobs.plan_request(ws, "convert", sid, "offline-draft-1")
        answers: list[tuple[str, object]] = []
        run_job(model_jobs.ask_job(request, Settings(), True, cancel=CancelToken(),
                                   emit=lambda _tag, answer: answers.append(answer)))
        model_id, result = answers[0]
        outcome = model_jobs.store_answer(ws, request, model_id, result)
        assert outcome.summary == ("offline-draft-1: valid PlantUML; image A carries the "
                                   "PlantUML it was rendered from; drafted from it, not from "
                                   "the pixels")
        assert ws.head_revision(sid).puml.strip() == SOURCE.strip()
    finally:
        ws.close()
