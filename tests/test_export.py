"""Tidy exports and packs: round trip, merge of several graders, conflicts, unsafe zips."""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.workspace import (
    ImportFailed,
    SaveRating,
    SaveRevision,
    SetReviewVerdict,
    open_workspace,
)
from cluestudio.core.workspace.export import export_tables
from cluestudio.core.workspace.pack import export_pack, merge_packs
from test_import import do_import, make_course

SCORES = {"classes": 4, "attributes": 3, "methods": 2, "relations": 4, "multiplicities": 1,
          "overall": 3.5}


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return make_course(tmp_path / "course")


def graded(path: Path, course: Path, grader: str, classes: int = 4):
    ws = open_workspace(path)
    do_import(ws, course)
    alice = ws.find_submission("library", "alice")
    assert alice is not None
    ws.execute(SaveRating(alice.id, grader, {**SCORES, "classes": classes}, seconds=30))
    return ws, alice.id


def test_tidy_csv_has_one_row_per_item_plus_total(tmp_path: Path, course: Path) -> None:
    ws, sid = graded(tmp_path / "w.sqlite", course, "ann")
    ws.execute(SetReviewVerdict(sid, "ann", "needs_fix", ["class_missing", "keyword_error"]))
    written = export_tables(ws, tmp_path / "out")
    ws.close()
    with open(written["ratings.csv"], newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["item"] for r in rows) == sorted([*SCORES, "total"])
    assert {r["grader"] for r in rows} == {"ann"}
    reviews = json.loads(written["reviews.json"].read_text())
    assert [r["tag"] for r in reviews] == ["class_missing", "keyword_error"]


def test_merging_two_graders_packs_keeps_both_ratings(tmp_path: Path, course: Path) -> None:
    for grader, classes in (("ann", 4), ("ben", 2)):
        ws, _ = graded(tmp_path / f"{grader}.sqlite", course, grader, classes)
        export_pack(ws, tmp_path / f"{grader}.zip", grader=grader)
        ws.close()
    with open_workspace(tmp_path / "merged.sqlite") as merged:
        report = merge_packs(merged, [tmp_path / "ann.zip", tmp_path / "ben.zip"])
        assert not report.conflicts
        totals = {r.grader: r.scores["classes"] for r in merged.ratings()}
        assert totals == {"ann": 4, "ben": 2}
        alice = merged.find_submission("library", "alice")
        assert alice is not None and merged.image(alice.image_hash or "")
        assert len(merged.revisions(alice.id)) == 1  # both imported the same text
        before = merged.counts()
        merge_packs(merged, [tmp_path / "ann.zip"])  # merging again changes nothing
        assert merged.counts() == before


def test_conflicting_edits_of_one_revision_are_reported_not_overwritten(
        tmp_path: Path, course: Path) -> None:
    base, sid = graded(tmp_path / "base.sqlite", course, "ann")
    export_pack(base, tmp_path / "base.zip")
    base.execute(SaveRevision(sid, "@startuml\nclass Ann\n@enduml", "ann"))
    export_pack(base, tmp_path / "ann.zip")
    base.close()
    with open_workspace(tmp_path / "ben.sqlite") as ben:
        merge_packs(ben, [tmp_path / "base.zip"])
        ben_sid = ben.find_submission("library", "alice").id  # type: ignore[union-attr]
        ben.execute(SaveRevision(ben_sid, "@startuml\nclass Ben\n@enduml", "ben"))
        report = merge_packs(ben, [tmp_path / "ann.zip"])
        (conflict,) = report.conflicts
        assert conflict["kind"] == "revision" and set(conflict["authors"]) == {"ann", "ben"}
        texts = {r.puml for r in ben.revisions(ben_sid)}
        assert {"@startuml\nclass Ann\n@enduml", "@startuml\nclass Ben\n@enduml"} <= texts


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/passwd", "images/../../x.png",
                                  "C:/windows/x.png", "images\\..\\x.png"])
def test_zip_with_unsafe_paths_is_refused(tmp_path: Path, name: str) -> None:
    pack = tmp_path / "evil.zip"
    with zipfile.ZipFile(pack, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "cluestudio-pack", "version": 1}))
        zf.writestr("data.json", "{}")
        zf.writestr(name, b"x")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        with pytest.raises(ImportFailed, match=r"unsafe path|unexpected member"):
            merge_packs(ws, [pack])
        assert ws.counts()["tasks"] == 0
    assert not (tmp_path.parent / "evil.txt").exists()


def test_cli_pack_and_export_round_trip(tmp_path: Path, course: Path, capsys) -> None:
    ws, _ = graded(tmp_path / "w.sqlite", course, "ann")
    ws.close()
    assert main(["pack", "export", str(tmp_path / "w.sqlite"), str(tmp_path / "p.zip"),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["ratings"] == 1
    assert main(["pack", "merge", str(tmp_path / "m.sqlite"), str(tmp_path / "p.zip"),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["ratings_added"] == 1
    assert main(["export", str(tmp_path / "m.sqlite"), str(tmp_path / "out"), "--json"]) == 0
    assert "ratings.csv" in json.loads(capsys.readouterr().out)["written"]
