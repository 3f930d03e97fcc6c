"""The final grade, defined once: adjudicated, else single, else the graders' mean when they
agree within the threshold, else needs adjudication; bank points count; exports use it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.final_grade import Basis, GraderTotal, final_grade
from cluestudio.core.workspace import SaveRating, open_workspace
from cluestudio.core.workspace.adjudication import Adjudicate, adjudication_queue
from cluestudio.core.workspace.course_settings import set_course_settings
from cluestudio.core.workspace.export import export_tables
from cluestudio.core.workspace.feedback import AddItemComment, SaveBankComment
from cluestudio.core.workspace.finals import final_grades
from test_import import do_import, make_course

FULL = {"classes": 4, "attributes": 4, "methods": 4, "relations": 4, "multiplicities": 2,
        "overall": 4}


def test_the_rule_in_each_case() -> None:
    assert final_grade([]).basis is Basis.UNGRADED
    one = final_grade([GraderTotal("ann", 70)])
    assert (one.value, one.basis) == (70, Basis.SINGLE)
    close = final_grade([GraderTotal("ann", 70), GraderTotal("bob", 80)], threshold=10)
    assert (close.value, close.basis, close.spread) == (75, Basis.MEAN, 10)
    far = final_grade([GraderTotal("ann", 70), GraderTotal("bob", 81)], threshold=10)
    assert (far.value, far.basis) == (None, Basis.NEEDS_ADJUDICATION)
    settled = final_grade([GraderTotal("ann", 70), GraderTotal("bob", 81)], 77)
    assert (settled.value, settled.basis) == (77, Basis.ADJUDICATED)


def test_workspace_final_grades_adjudication_bank_points_and_export(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        do_import(ws, course)
        alice = ws.find_submission("library", "alice")
        bob = ws.find_submission("library", "bob")
        assert alice and bob
        ws.execute(SaveRating(alice.id, "ann", FULL))
        ws.execute(SaveRating(alice.id, "bob", {**FULL, "classes": 0, "relations": 0}))
        ws.execute(SaveRating(bob.id, "oracle", FULL, synthetic=True))  # not a grader
        grades = final_grades(ws)
        assert grades[alice.id].final.basis is Basis.NEEDS_ADJUDICATION
        assert grades[bob.id].final.basis is Basis.UNGRADED
        queue = adjudication_queue(ws)
        assert [e.submission_id for e in queue] == [alice.id]
        assert {r.grader for r in queue[0].ratings} == {"ann", "bob"}

        ws.execute(Adjudicate(alice.id, "lee", total=72, comment="settled"))
        assert final_grades(ws)[alice.id].final.value == 72
        assert not adjudication_queue(ws)
        ws.undo()
        assert final_grades(ws)[alice.id].final.basis is Basis.NEEDS_ADJUDICATION
        ws.redo()

        # a bank comment with points lowers ann's total; editing the bank moves it again
        uid = ws.execute(SaveBankComment("class-diagram", "classes", "Missing Book", -5)).result
        ws.execute(AddItemComment(bob.id, "ann", "class-diagram", "classes", bank_uid=uid))
        ws.execute(SaveRating(bob.id, "ann", FULL))
        assert final_grades(ws)[bob.id].final.value == 95
        ws.execute(SaveBankComment("class-diagram", "classes", "No class Book", -10, uid=uid))
        assert final_grades(ws)[bob.id].final.value == 90
        ws.undo()
        assert final_grades(ws)[bob.id].final.value == 95

        written = export_tables(ws, tmp_path / "out", ("final",), ("csv",))
        with open(written["final.csv"], newline="", encoding="utf-8") as handle:
            rows = {r["source_id"]: r for r in csv.DictReader(handle)}
        assert rows["alice"]["basis"] == "adjudicated" and float(rows["alice"]["final"]) == 72
        assert float(rows["bob"]["final"]) == 95


def test_threshold_is_a_course_setting(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        do_import(ws, course)
        alice = ws.find_submission("library", "alice")
        assert alice
        ws.execute(SaveRating(alice.id, "ann", FULL))
        ws.execute(SaveRating(alice.id, "bob", {**FULL, "classes": 3}))  # 6.25 points apart
        assert final_grades(ws)[alice.id].final.basis is Basis.MEAN
        set_course_settings(ws, final_grade_threshold=5)
        assert final_grades(ws)[alice.id].final.basis is Basis.NEEDS_ADJUDICATION
        with pytest.raises(ClueStudioError, match=r"0\.\.100"):
            set_course_settings(ws, final_grade_threshold=500)
