"""``cluestudio check``: image/PlantUML pairs, and a whole workspace checked, stored per
submission and revision, resumable and idempotent; a revision saved later is checked anew
(the table's migration v4 is tested in tests/test_workspace.py). Real OCR on a few small
rendered images."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app.checks import check_workspace, stored_report
from cluestudio.cli import main
from cluestudio.core.jobs import Cancelled, CancelToken, run_job
from cluestudio.core.workspace import SaveRevision, import_path, open_workspace

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.java, pytest.mark.xdist_group("ocr")]

SHOP = """@startuml
class Order {
  - placedOn : Date
  - total : double
}
class Customer {
  - email : String
}
Customer "1" -- "0..*" Order : places
@enduml
"""
ZOO = """@startuml
class Keeper {
  - badge : String
}
class Animal {
  - species : String
}
Keeper --> Animal : feeds
@enduml
"""
DROPPED = SHOP.replace("  - total : double\n", "")
FIXED = SHOP


def _image(puml: str) -> bytes:
    from cluestudio.core.synth import render_look

    return render_look(puml, "default", random.Random(0))


def make_course(root: Path) -> Path:
    """shop/s1: faithful; shop/s2: dropped an attribute; shop/s3: PlantUML without image;
    shop/s4: image + PlantUML that does not parse; zoo/s1: faithful; arch/c1: a component
    task (not checked)."""
    subs: dict[str, dict[str, str | bytes]] = {
        "shop": {"s1.png": _image(SHOP), "s1.puml": SHOP, "s2.png": _image(SHOP),
                 "s2.puml": DROPPED, "s3.puml": SHOP, "s4.png": _image(SHOP),
                 "s4.puml": "@startuml\nclass {\n@enduml"},
        "zoo": {"s1.png": _image(ZOO), "s1.puml": ZOO},
        "arch": {"c1.png": _image(ZOO), "c1.puml": "@startuml\n[Web] --> [Db]\n@enduml"},
    }
    for task, files in subs.items():
        folder = root / "tasks" / task
        (folder / "submissions").mkdir(parents=True)
        (folder / "requirement.md").write_text(f"# {task}\n", encoding="utf-8")
        (folder / "reference.puml").write_text(SHOP, encoding="utf-8")
        if task == "arch":
            (folder / "task.toml").write_text('diagram_kind = "component"\n', encoding="utf-8")
        for name, data in files.items():
            path = folder / "submissions" / name
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def course_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_course(tmp_path_factory.mktemp("course"))


@pytest.fixture
def course(course_folder: Path, tmp_path: Path) -> Path:
    path = tmp_path / "course.sqlite"
    with open_workspace(path) as ws:
        run_job(import_path(ws, course_folder))
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(["check", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out) if "--json" in argv else out


def _names(rows: list[dict[str, Any]]) -> list[str]:
    return [f"{r['task_id']}/{r['source_id']}" for r in rows]


def test_workspace_check_stores_results_and_a_rerun_checks_nothing(course, capsys) -> None:
    code, first = _run(capsys, "--workspace", str(course), "--json")
    assert code == 1  # one submission failed (its PlantUML does not parse)
    assert _names(first["checked"]) == ["shop/s1", "shop/s2", "zoo/s1"]
    assert _names(first["flagged"]) == ["shop/s2"]
    assert first["flagged"][0]["missing"] >= 1
    (failed,) = first["failed"]
    assert failed["source_id"] == "s4" and failed["reason"].startswith("shop/s4 revision ")
    assert ":2: " in failed["reason"]  # the PlantUML line that does not parse
    skipped = {f"{r['task_id']}/{r['source_id']}": r["reason"] for r in first["skipped"]}
    assert skipped == {"arch/c1": "a component task, not a class diagram",
                       "shop/s3": "no image A"}
    with open_workspace(course) as ws:
        rows = ws.check_results()
        assert len(rows) == 3
        report = stored_report(next(r for r in rows if r["flagged"]))
        assert "total" in {m.text for m in report.missing}
        latest = ws.latest_checks()
        ids = {f"{s.task_id}/{s.source_id}": s.id for s in ws.list_submissions()}
        assert latest[ids["shop/s2"]]["flagged"] and not latest[ids["shop/s1"]]["flagged"]
        assert latest[ids["shop/s2"]]["triage"] > latest[ids["shop/s1"]]["triage"]
        before = [(r["id"], r["created_at"]) for r in rows]

    code, again = _run(capsys, "--workspace", str(course), "--json")
    assert again["counts"]["checked"] == 0
    stored = [r for r in again["skipped"] if r.get("stored")]
    assert _names(stored) == ["shop/s1", "shop/s2", "zoo/s1"]
    assert _names(again["flagged"]) == ["shop/s2"]  # still reported from the stored row
    with open_workspace(course) as ws:
        assert [(r["id"], r["created_at"]) for r in ws.check_results()] == before


def test_a_revision_saved_later_is_checked_again_and_undo_drops_its_check(course,
                                                                          capsys) -> None:
    _run(capsys, "--workspace", str(course), "--task", "shop")
    with open_workspace(course) as ws:
        s2 = ws.find_submission("shop", "s2").id  # type: ignore[union-attr]
        ws.execute(SaveRevision(s2, FIXED, "reviewer"))
    _code, result = _run(capsys, "--workspace", str(course), "--task", "shop", "--json")
    assert _names(result["checked"]) == ["shop/s2"] and result["flagged"] == []
    with open_workspace(course) as ws:
        head = ws.head_revision(s2).id  # type: ignore[union-attr]
        assert ws.latest_checks()[s2]["conversion_id"] == head
        assert not ws.latest_checks()[s2]["flagged"]
        assert len(ws.check_results(s2)) == 2  # the old revision's check is kept
        ws.execute(SaveRevision(s2, DROPPED, "reviewer"))
        assert s2 not in ws.latest_checks()  # head changed: its check is due
        ws.undo()
        assert ws.latest_checks()[s2]["conversion_id"] == head
    with open_workspace(course) as ws:
        newest = ws.execute(SaveRevision(s2, DROPPED, "reviewer")).result
        run_job(check_workspace(ws, tasks=["shop"]))
        assert len(ws.check_results(s2)) == 3
        ws.undo()  # undoing the revision removes the check made of it
        assert [r["conversion_id"] for r in ws.check_results(s2)].count(newest) == 0


def test_redo_checks_again_and_unknown_tasks_are_named(course, capsys) -> None:
    _run(capsys, "--workspace", str(course), "--task", "zoo")
    _code, result = _run(capsys, "--workspace", str(course), "--task", "zoo", "--redo",
                         "--json")
    assert _names(result["checked"]) == ["zoo/s1"]
    with open_workspace(course) as ws:
        assert len(ws.check_results()) == 1  # same key: replaced, not duplicated
    assert main(["check", "--workspace", str(course), "--task", "nope"]) == 2
    assert "no task 'nope'" in capsys.readouterr().err


def test_a_cancelled_batch_keeps_what_finished_and_resumes(course) -> None:
    cancel = CancelToken()
    with open_workspace(course) as ws:
        job = check_workspace(ws, cancel, tasks=["shop"])
        next(job)  # the plan
        next(job)  # first submission checked and stored
        cancel.cancel()
        with pytest.raises(Cancelled):
            next(job)
        assert len(ws.check_results()) == 1
        summary = run_job(check_workspace(ws, tasks=["shop"]))
        assert [o.source_id for o in summary.having("checked")] == ["s2"]
        assert [o.source_id for o in summary.having("skipped") if o.stored] == ["s1"]


def test_files_mode_reports_boxes_and_lines(tmp_path: Path, capsys) -> None:
    image = tmp_path / "s2.png"
    image.write_bytes(_image(SHOP))
    puml = tmp_path / "s2.puml"
    puml.write_text(DROPPED.replace("- email : String", "- contact : String"), encoding="utf-8")
    code, result = _run(capsys, str(image), str(puml), "--json", "--fail-on-flag")
    assert code == 1
    (report,) = result
    assert report["image"] == str(image) and report["flagged"]
    missing = {m["text"]: m for m in report["missing"]}
    assert {"total", "email"} <= set(missing)
    x0, y0, x1, y1 = missing["total"]["rect"]
    assert 0 <= x0 < x1 <= report["width"] and 0 <= y0 < y1 <= report["height"]
    assert missing["total"]["owner"] == "Order" and missing["total"]["owner_line"] == 2
    assert [(i["text"], i["line"]) for i in report["invented"] if i["kind"] == "attribute"] \
        == [("contact", 6)]
    code, text = _run(capsys, str(image), str(puml))
    assert code == 0 and "FLAGGED" in text and "missing attribute 'total'" in text


def test_files_mode_errors_name_the_file(tmp_path: Path, capsys) -> None:
    puml = tmp_path / "a.puml"
    puml.write_text(SHOP, encoding="utf-8")
    svg = tmp_path / "a.png"
    svg.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    assert main(["check", str(svg), str(puml)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {svg}: an SVG") and err.count("\n") == 1
    assert main(["check", str(svg)]) == 2
    assert "IMAGE PUML pairs" in capsys.readouterr().err
    broken = tmp_path / "b.puml"
    broken.write_text("@startuml\nclass {\n@enduml\n", encoding="utf-8")
    image = tmp_path / "b.png"
    image.write_bytes(_image(SHOP))
    assert main(["check", str(image), str(broken)]) == 2
    assert f"{broken}:2" in capsys.readouterr().err
    assert main(["check", "--workspace", str(tmp_path / "none.sqlite")]) == 2
    assert "no such workspace" in capsys.readouterr().err




def test_check_submission_after_a_save_is_the_matching_alone(course) -> None:
    from cluestudio.app.checks import check_submission
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.ocr import OcrCache

    with open_workspace(course) as ws, OcrCache() as cache:
        s2 = ws.find_submission("shop", "s2").id  # type: ignore[union-attr]
        first = check_submission(ws, s2, cache=cache)
        assert first.flagged and cache.count() == 1
        ws.execute(SaveRevision(s2, FIXED, "reviewer"))
        second = check_submission(ws, s2, cache=cache)
        assert not second.flagged and cache.count() == 1  # image A was not read again
        assert ws.latest_checks()[s2]["conversion_id"] == ws.head_revision(s2).id  # type: ignore[union-attr]
        s3 = ws.find_submission("shop", "s3").id  # type: ignore[union-attr]
        with pytest.raises(ClueStudioError, match="shop/s3: no image A"):
            check_submission(ws, s3, cache=cache)
