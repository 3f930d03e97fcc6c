"""Rosters: reading the registrar's CSV, and which submission belongs to which student."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.roster import read_roster
from cluestudio.core.workspace import Report, open_workspace
from cluestudio.core.workspace.students import identity, owners, replace_roster, roster
from test_import import do_import, make_course

ROSTER = ("Student ID,Name,Email,Section,Participant\n"
          "alice,Alice Archer,alice@uni.example,A,Participant 101\n"
          "s-bob,Bob Baker,bob@uni.example,B,\n"
          "carol,Carol Cole,carol@uni.example,A,103\n")


def test_roster_reads_aliases_and_participant_numbers(tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    report = Report()
    students = read_roster(path, report)
    assert not report.problems
    assert [s.student_id for s in students] == ["alice", "s-bob", "carol"]
    assert students[0].participant_id == "101" and students[2].participant_id == "103"
    assert students[1].first_last == ("Bob", "Baker")


@pytest.mark.parametrize(("text", "line", "message"), [
    ("student_id,name\nx,X\n", 1, "missing column(s) email"),
    ("student_id,name,email\nx,X,not-an-address\n", 2, "is not an address"),
    ("student_id,name,email\nx,X,x@a.example\nx,Y,y@a.example\n", 3, "appears twice"),
    ("student_id,name,email\n,X,x@a.example\n", 2, "empty student_id"),
    ("student_id,name,email,participant_id\nx,X,x@a.example,P-9\n", 2, "participant_id"),
    # two students under one Moodle participant: one's feedback would reach the other
    ("student_id,name,email,participant_id\nx,X,x@a.example,Participant 7\n"
     "y,Y,y@a.example,7\n", 3, "participant 7 is also line 2's"),
])
def test_bad_roster_rows_name_file_and_line(tmp_path: Path, text: str, line: int,
                                            message: str) -> None:
    path = tmp_path / "r.csv"
    path.write_text(text, encoding="utf-8")
    report = Report()
    read_roster(path, report)
    assert report.errors and report.errors[0].line == line
    assert message in report.errors[0].message and report.errors[0].source == str(path)


def test_submission_owner_by_metadata_roster_column_and_file_name(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    subs = course / "tasks" / "library" / "submissions"
    # bob's file says who he is in its metadata; alice is found by her file name
    (subs / "bob.json").write_text(json.dumps({"student_id": "s-bob"}))
    (subs / "x17.puml").write_text((subs / "alice.puml").read_text())
    roster_csv = tmp_path / "roster.csv"
    roster_csv.write_text("student_id,name,email,submissions\n"
                          "alice,Alice Archer,alice@uni.example,\n"
                          "s-bob,Bob Baker,bob@uni.example,\n"
                          "carol,Carol Cole,carol@uni.example,library/x17\n", encoding="utf-8")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        do_import(ws, course)
        report = Report()
        replace_roster(ws, read_roster(roster_csv, report))
        assert not report.errors
        found = {o.source_id: (o.student_id, o.how) for o in owners(ws)}
        assert found == {"alice": ("alice", "file name"), "bob": ("s-bob", "metadata"),
                         "x17": ("carol", "roster")}
        assert identity(roster(ws)[0], blind=True) == ""
        assert "Alice Archer" in identity(roster(ws)[0], blind=False)


def test_cli_roster_stores_nothing_on_a_bad_row(tmp_path: Path, capsys) -> None:
    course = make_course(tmp_path / "course")
    ws_path = tmp_path / "w.sqlite"
    with open_workspace(ws_path) as ws:
        do_import(ws, course)
    good = tmp_path / "good.csv"
    good.write_text(ROSTER, encoding="utf-8")
    assert main(["roster", str(ws_path), str(good)]) == 0
    assert "no submission: carol" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,name,email\nz,Zed,zed\n", encoding="utf-8")
    assert main(["roster", str(ws_path), str(bad)]) == 2
    assert f"{bad}:2" in capsys.readouterr().err
    with open_workspace(ws_path, readonly=True) as ws:
        assert len(roster(ws)) == 3  # the good roster is still there


def test_ta_whose_roster_gives_one_submission_to_two_students_is_told_both_lines(
        tmp_path: Path) -> None:
    # Who owns library/x17 must not depend on the order of the rows: refuse, naming both.
    path = tmp_path / "r.csv"
    path.write_text("student_id,name,email,submissions\n"
                    "alice,Alice Archer,alice@uni.example,library/x17\n"
                    "s-bob,Bob Baker,bob@uni.example,x9; library/x17\n", encoding="utf-8")
    report = Report()
    read_roster(path, report)
    assert [(e.source, e.line) for e in report.errors] == [(str(path), 3)]
    assert "library/x17" in report.errors[0].message
    assert "line 2" in report.errors[0].message


def test_ta_with_a_semicolon_roster_from_a_european_spreadsheet_gets_it_read(
        tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes("\ufeffStudent ID;Name;Email;Submissions\r\n"
                     "alice;Archer, Alice;alice@uni.example;library/x17\r\n".encode())
    report = Report()
    students = read_roster(path, report)
    assert not report.problems
    assert [(s.student_id, s.name, s.submissions) for s in students] == [
        ("alice", "Archer, Alice", ("library/x17",))]


def test_ta_with_one_bad_roster_row_reads_one_line_naming_file_and_line(
        tmp_path: Path, capsys) -> None:
    course = make_course(tmp_path / "course")
    ws_path = tmp_path / "w.sqlite"
    with open_workspace(ws_path) as ws:
        do_import(ws, course)
    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,name,email\nz,Zed,zed\n", encoding="utf-8")
    assert main(["roster", str(ws_path), str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # not "nothing to do": the roster was refused
    assert len(err.strip().splitlines()) == 1 and f"{bad}:2" in err
