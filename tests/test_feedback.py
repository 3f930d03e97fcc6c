"""Feedback a student reads: item comments, a comment bank whose edits propagate (undoable),
element-diff suggestions that need a grader's acceptance, and self-contained pages."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from cluestudio.app.feedback_suggestions import accept, suggest
from cluestudio.app.handback import export_feedback
from cluestudio.cli import main
from cluestudio.core.jobs import run_job
from cluestudio.core.roster import read_roster
from cluestudio.core.workspace import CommandError, Report, SaveRating, open_workspace
from cluestudio.core.workspace.course_settings import set_course_settings
from cluestudio.core.workspace.feedback import (
    AddItemComment,
    RemoveItemComment,
    SaveBankComment,
    SetOverallComment,
    comment_bank,
    item_comments,
)
from test_import import do_import, make_course

FULL = {"classes": 4, "attributes": 4, "methods": 4, "relations": 4, "multiplicities": 2,
        "overall": 4}
NO_MEMBER = "@startuml\nclass Book {\n  - title : String\n}\nclass Patron\n@enduml\n"


@pytest.fixture
def ws(tmp_path: Path):
    course = make_course(tmp_path / "course")
    (course / "tasks" / "library" / "submissions" / "bob.puml").write_text(NO_MEMBER)
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,email,participant_id\n"
                      "alice,Alice Archer,alice@uni.example,101\n"
                      "bob,Bob Baker,bob@uni.example,\n", encoding="utf-8")
    workspace = open_workspace(tmp_path / "w.sqlite")
    do_import(workspace, course)
    from cluestudio.core.workspace.students import replace_roster

    replace_roster(workspace, read_roster(roster, Report()))
    yield workspace
    workspace.close()


def _id(ws, source: str) -> int:
    found = ws.find_submission("library", source)
    assert found is not None
    return int(found.id)


def test_bank_edit_reaches_every_use_and_undo_brings_it_back(ws) -> None:
    alice, bob = _id(ws, "alice"), _id(ws, "bob")
    uid = ws.execute(SaveBankComment("class-diagram", "relations", "Arrow the wrong way")).result
    for sid in (alice, bob):
        ws.execute(AddItemComment(sid, "ann", "class-diagram", "relations", bank_uid=uid))
    changes = ws.execute(SaveBankComment("class-diagram", "relations",
                                         "Navigability reversed", uid=uid))
    assert changes.ratings == {alice, bob}  # both views redraw
    assert {c.text for c in item_comments(ws)} == {"Navigability reversed"}
    assert comment_bank(ws, item_id="relations")[0].uses == 2
    ws.undo()
    assert {c.text for c in item_comments(ws)} == {"Arrow the wrong way"}
    with pytest.raises(CommandError, match="belongs to item"):
        ws.execute(AddItemComment(alice, "ann", "class-diagram", "classes", bank_uid=uid))
    with pytest.raises(CommandError, match="no item"):
        AddItemComment(alice, "ann", "class-diagram", "colour", text="x")


def test_free_comment_remove_and_overall_comment_are_undoable(ws) -> None:
    alice = _id(ws, "alice")
    uid = ws.execute(AddItemComment(alice, "ann", "class-diagram", "classes",
                                    text="Good names")).result
    ws.execute(RemoveItemComment(uid))
    assert item_comments(ws, alice) == []
    ws.undo()
    assert [c.text for c in item_comments(ws, alice)] == ["Good names"]
    with pytest.raises(CommandError, match="rate it first"):
        ws.execute(SetOverallComment(alice, "ann", "class-diagram", "Nice"))
    ws.execute(SaveRating(alice, "ann", FULL))
    ws.execute(SetOverallComment(alice, "ann", "class-diagram", "Nice work"))
    assert ws.rating(alice, "ann", "class-diagram").comment == "Nice work"
    ws.undo()
    assert ws.rating(alice, "ann", "class-diagram").comment == ""


def test_suggestions_need_acceptance_before_a_student_sees_them(ws, tmp_path: Path) -> None:
    bob = _id(ws, "bob")
    found = suggest(ws, bob, "ann")
    texts = [s.text for s in found]
    assert "Missing class Member" in texts
    assert any(s.item_id == "relations" and "Missing relation" in s.text for s in found)
    ws.execute(SaveRating(bob, "ann", {**FULL, "classes": 2}))
    set_course_settings(ws, show_reference=True)
    out = tmp_path / "fb"
    run_job(export_feedback(ws, out, course="Design 101"))
    page = (out / "bob.html").read_text(encoding="utf-8")
    assert "Missing class Member" not in page.split("In the reference solution")[0]
    member = next(s for s in found if s.text == "Missing class Member")
    accept(ws, bob, "ann", member)
    assert member not in suggest(ws, bob, "ann")  # accepted: no longer suggested
    run_job(export_feedback(ws, out, course="Design 101"))
    page = (out / "bob.html").read_text(encoding="utf-8")
    assert "Missing class Member" in page.split("<h3>The requirement")[0]


def test_feedback_pages_are_self_contained_with_the_diff_image(ws, tmp_path: Path) -> None:
    alice, bob = _id(ws, "alice"), _id(ws, "bob")
    ws.execute(SaveRating(alice, "ann", FULL, comment="Well done <b>really</b>"))
    ws.execute(SaveRating(bob, "ann", {**FULL, "classes": 2}))
    out = tmp_path / "fb"
    result = run_job(export_feedback(ws, out, course="Design 101"))
    hidden = (out / "alice.html").read_text(encoding="utf-8")
    assert "reference solution" not in hidden  # the course switch is off by default
    set_course_settings(ws, show_reference=True)
    result = run_job(export_feedback(ws, out, course="Design 101"))
    assert sorted(p.name for p in result.pages) == ["alice.html", "bob.html"]
    page = (out / "bob.html").read_text(encoding="utf-8")
    sources = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert len(sources) == 2 and all(s.startswith("data:image/png;base64,") for s in sources)
    outside = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
    assert "://" not in outside and "url(" not in outside and "<script" not in outside
    assert "Element diff against the reference" in page and "class Member" in page
    assert "&lt;b&gt;really" in (out / "alice.html").read_text(encoding="utf-8")
    # Moodle's zip: only students with a participant id, named as Moodle's upload parses it
    with zipfile.ZipFile(out / "moodle" / "library.zip") as archive:
        assert archive.namelist() == [
            "Alice Archer_101_assignsubmission_file_feedback-library.html"]
    assert "bob: no Moodle participant id, not in moodle/library.zip" in result.skipped


def test_cli_feedback_and_comments(ws, tmp_path: Path, capsys) -> None:
    path = str(ws.path)
    ws.execute(SaveRating(_id(ws, "alice"), "ann", FULL))
    ws.close()
    assert main(["comments", "bank", path, "--add", "classes", "Class missing", "--points",
                 "-4"]) == 0
    uid = capsys.readouterr().out.strip()
    assert main(["comments", "add", path, "library", "alice", "classes", "--grader", "ann",
                 "--bank", uid]) == 0
    assert main(["comments", "suggest", path, "library", "bob", "--grader", "ann"]) == 0
    assert "Missing class Member" in capsys.readouterr().out
    assert main(["feedback", path, "--show-reference", "on"]) == 0
    out = tmp_path / "cli-fb"
    assert main(["feedback", path, str(out), "--pdf"]) == 0
    text = (out / "alice.html").read_text(encoding="utf-8")
    assert "Class missing" in text and "(-4 points)" in text and "96.00 / 100" in text
    said = capsys.readouterr().out
    assert "1 pages" in said and ("PDFs printed" in said or "no PDF engine" in said)


def test_ta_rewording_a_bank_comment_from_the_cli_keeps_its_points(ws, capsys) -> None:
    # `comments bank --edit UID TEXT` (no --points) set the adjustment to 0: alice's grade
    # rose by 4 points with the new wording.
    from cluestudio.core.workspace.finals import final_grades

    path = str(ws.path)
    alice = _id(ws, "alice")
    ws.execute(SaveRating(alice, "ann", FULL))
    ws.close()
    assert main(["comments", "bank", path, "--add", "classes", "Class missing", "--points",
                 "-4"]) == 0
    uid = capsys.readouterr().out.strip()
    assert main(["comments", "add", path, "library", "alice", "classes", "--grader", "ann",
                 "--bank", uid]) == 0
    assert main(["comments", "bank", path, "--edit", uid, "A class is missing"]) == 0
    with open_workspace(Path(path), readonly=True) as again:
        [bank] = comment_bank(again)
        assert (bank.text, bank.points) == ("A class is missing", -4.0)
        assert final_grades(again)[alice].final.value == 96.0
    assert main(["comments", "bank", path, "--edit", uid, "A class is missing", "--points",
                 "-3"]) == 0
    with open_workspace(Path(path), readonly=True) as again:
        assert comment_bank(again)[0].points == -3.0


@pytest.mark.parametrize(("first", "second"), [("a b", "a_b"), ("S7", "s7"), ("CON", "con.")])
def test_two_students_whose_ids_make_the_same_file_name_each_get_their_own_page(
        ws, tmp_path: Path, first: str, second: str) -> None:
    # `a b` and `a_b` both became a_b.html (and S7/s7 on a case-blind disk): the second
    # student's page replaced the first's, which then went to the wrong student.
    from cluestudio.core.workspace.students import replace_roster

    roster = tmp_path / "ids.csv"
    roster.write_text("student_id,name,email,submissions\n"
                      f"{first},First Student,f@uni.example,library/alice\n"
                      f"{second},Second Student,s@uni.example,library/bob\n",
                      encoding="utf-8")
    report = Report()
    replace_roster(ws, read_roster(roster, report))
    assert not report.errors
    for source in ("alice", "bob"):
        ws.execute(SaveRating(_id(ws, source), "ann", FULL))
    result = run_job(export_feedback(ws, tmp_path / "fb"))
    names = [p.name.casefold() for p in result.pages]
    assert len(set(names)) == 2
    assert not any(n.split(".")[0] in ("con", "prn", "aux", "nul") for n in names)
    firsts = sorted("First Student" in p.read_text(encoding="utf-8") for p in result.pages)
    assert firsts == [False, True]  # one page each, neither overwritten
