"""Gradebooks an LMS imports: one row per student, every student listed, nothing dropped."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.roster import read_roster
from cluestudio.core.workspace import Report, SaveRating, open_workspace
from cluestudio.core.workspace.students import replace_roster
from test_import import do_import, make_course

FULL = {"classes": 4, "attributes": 4, "methods": 4, "relations": 4, "multiplicities": 2,
        "overall": 4}
ROSTER = ("student_id,name,email,section,username\n"
          "alice,Alice Archer,alice@uni.example,A,aarcher\n"
          "bob,Bob Baker,bob@uni.example,B,\n"
          "carol,Carol Cole,carol@uni.example,A,\n")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    course = make_course(tmp_path / "course")
    (course / "tasks" / "library" / "submissions" / "zed.puml").write_text(
        (course / "tasks" / "library" / "reference.puml").read_text())
    path = tmp_path / "w.sqlite"
    with open_workspace(path) as ws:
        do_import(ws, course)
        roster_csv = tmp_path / "roster.csv"
        roster_csv.write_text(ROSTER, encoding="utf-8")
        replace_roster(ws, read_roster(roster_csv, Report()))
        alice = ws.find_submission("library", "alice")
        bob = ws.find_submission("library", "bob")
        assert alice and bob
        ws.execute(SaveRating(alice.id, "ann", FULL, comment="Well done"))
        ws.execute(SaveRating(bob.id, "ann", FULL))
        ws.execute(SaveRating(bob.id, "ben", {**FULL, "classes": 0, "relations": 0}))
    return path


def _read(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_moodle_gradebook(workspace: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "moodle.csv"
    assert main(["grades", str(workspace), "--format", "moodle", "-o", str(out)]) == 0
    rows = _read(out)
    assert rows[0] == ["First name", "Last name", "ID number", "Email address",
                       "Assignment: Library (Real)", "Assignment: Library (Feedback)"]
    body = {r[2]: r for r in rows[1:]}
    assert sorted(body) == ["alice", "bob", "carol"] and len(rows) == 4  # once each
    assert body["alice"][4:] == ["100.00", "Well done"]
    assert body["bob"][4] == "" and body["carol"][4] == ""  # disagreement, no submission
    err = capsys.readouterr().err
    assert "bob library (needs adjudication)" in err
    assert "carol library (no submission)" in err
    assert "library/zed (no roster student matches)" in err


def test_canvas_gradebook(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "canvas.csv"
    assert main(["grades", str(workspace), "--format", "canvas", "-o", str(out)]) == 0
    rows = _read(out)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Library"]
    assert rows[1][0].strip() == "Points Possible" and rows[1][5] == "100"
    assert rows[2] == ["Archer, Alice", "", "alice", "aarcher", "A", "100.00"]
    assert [r[2] for r in rows[2:]] == ["alice", "bob", "carol"]


def test_blackboard_and_plain_csv(workspace: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "bb.csv"
    assert main(["grades", str(workspace), "--format", "blackboard", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[0] == ('"Last Name","First Name","Username","Student ID",'
                                    '"Library [Total Pts: 100 Score]","Feedback to Learner",'
                                    '"Feedback Format"')
    capsys.readouterr()
    plain = tmp_path / "plain.csv"
    assert main(["grades", str(workspace), "--format", "csv", "-o", str(plain),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unmatched"] == [{"task_id": "library", "source_id": "zed",
                                    "why": "no roster student matches"}]
    with open(plain, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["library status"] for r in rows] == ["single rating", "needs adjudication",
                                                   "no submission", "unmatched"]
    assert rows[3]["library submission"] == "zed"


def test_no_roster_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "w.sqlite"
    with open_workspace(path) as ws:
        do_import(ws, make_course(tmp_path / "course"))
    assert main(["grades", str(path), "-o", str(tmp_path / "g.csv")]) == 2
    assert "no roster" in capsys.readouterr().err
