"""Grading as a team: a balanced split with the asked overlap, packs that carry comments and
the bank back, agreement on the overlap, and the adjudication queue."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.team_split import plan_split
from cluestudio.core.workspace import SaveRating, open_workspace
from cluestudio.core.workspace.feedback import (
    AddItemComment,
    SaveBankComment,
    comment_bank,
    item_comments,
)
from cluestudio.core.workspace.pack import export_pack
from cluestudio.core.workspace.team import assignments, merge_team, split_course
from test_import import do_import, make_course

FULL = {"classes": 4, "attributes": 4, "methods": 4, "relations": 4, "multiplicities": 2,
        "overall": 4}


@pytest.mark.parametrize("graders", [["ann", "bob"], ["ann", "bob", "cy"]])
def test_split_by_submission_is_balanced_with_the_overlap(graders: list[str]) -> None:
    subs = [(i, f"t{i % 3}") for i in range(60)]
    plan = plan_split(subs, graders, overlap=0.2, seed=3)
    assert set(plan) == {i for i, _ in subs}
    assert sum(len(who) == 2 for who in plan.values()) == 12
    assert all(len(set(who)) == len(who) for who in plan.values())
    load = Counter(g for who in plan.values() for g in who)
    assert max(load.values()) - min(load.values()) <= 1
    assert plan == plan_split(subs, graders, overlap=0.2, seed=3)  # seeded: repeatable


def test_split_by_task_and_bad_requests() -> None:
    subs = [(i, f"t{i % 2}") for i in range(20)]
    plan = plan_split(subs, ["ann", "bob"], overlap=0.2, by="task")
    firsts = {t: {plan[i][0] for i, tt in subs if tt == t} for t in ("t0", "t1")}
    assert firsts == {"t0": {"ann"}, "t1": {"bob"}}
    assert sum(len(who) == 2 for who in plan.values()) == 4
    with pytest.raises(ClueStudioError, match="two graders"):
        plan_split(subs, ["ann"], overlap=0.2)
    with pytest.raises(ClueStudioError, match="fraction"):
        plan_split(subs, ["ann", "bob"], overlap=2)


def test_split_merge_brings_ratings_and_comments_back(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    lead_path = tmp_path / "lead.sqlite"
    with open_workspace(lead_path) as lead:
        do_import(lead, course)
        lead.execute(SaveBankComment("class-diagram", "classes", "Class missing", -5))
        split = split_course(lead, tmp_path / "packs", ["ann", "bob"], overlap=1.0)
        assert split.overlap == 2 and split.assigned == {"ann": 2, "bob": 2}
        assert set(assignments(lead).values()) == {("ann", "bob")}
    done = []
    for grader, classes in (("ann", 4), ("bob", 0)):
        mine = tmp_path / f"{grader}.sqlite"
        assert main(["pack", "merge", str(mine), str(split.packs[grader])]) == 0
        with open_workspace(mine) as ws:
            bank = comment_bank(ws)
            assert [b.text for b in bank] == ["Class missing"]  # the bank came along
            alice = ws.find_submission("library", "alice")
            assert alice
            ws.execute(SaveRating(alice.id, grader, {**FULL, "classes": classes}))
            ws.execute(AddItemComment(alice.id, grader, "class-diagram", "classes",
                                      bank_uid=bank[0].uid))
            ws.execute(SaveBankComment("class-diagram", "classes", "A class is missing", -5,
                                       uid=bank[0].uid))
            done.append(tmp_path / f"{grader}-done.zip")
            export_pack(ws, done[-1], grader=grader)
    with open_workspace(lead_path) as lead:
        report, agreement = merge_team(lead, done)
        assert report.counts["ratings_added"] == 2 and report.counts["item_comments_added"] == 2
        assert {c.text for c in item_comments(lead)} == {"A class is missing"}
        assert agreement is not None and agreement.graders == ("ann", "bob")
    assert main(["team", "queue", str(lead_path)]) == 0
    assert main(["team", "adjudicate", str(lead_path), "library", "alice", "--lead", "lee",
                 "--take", "ann"]) == 0
    with open_workspace(lead_path, readonly=True) as lead:
        from cluestudio.core.workspace.finals import final_grades

        alice = lead.find_submission("library", "alice")
        assert alice and final_grades(lead)[alice.id].final.value == 95.0  # ann's, bank -5


def _rewrite_pack(source: Path, target: Path, change) -> None:
    import json
    import zipfile

    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            data = old.read(info.filename)
            if info.filename == "data.json":
                loaded = json.loads(data)
                change(loaded)
                data = json.dumps(loaded).encode()
            new.writestr(info, data)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["item_comments"][0].update(bank_uid="nope"), "does not carry"),
    (lambda d: d["item_comments"][0].update(item_id="colour"), "unknown rubric item"),
    (lambda d: d["item_comments"][0].update(origin="robot"), "origin must be one of"),
    (lambda d: d["comment_bank"][0].update(points=float("nan")), "points must be a number"),
    (lambda d: d["item_comments"][0].update(source_id="ghost"), "is not in the pack"),
])
def test_a_pack_with_a_bad_comment_record_merges_nothing(tmp_path: Path, change,
                                                         message: str) -> None:
    from cluestudio.core.workspace import ImportFailed

    course = make_course(tmp_path / "course")
    with open_workspace(tmp_path / "ann.sqlite") as ws:
        do_import(ws, course)
        alice = ws.find_submission("library", "alice")
        assert alice
        uid = ws.execute(SaveBankComment("class-diagram", "classes", "Missing", -1)).result
        ws.execute(SaveRating(alice.id, "ann", FULL))
        ws.execute(AddItemComment(alice.id, "ann", "class-diagram", "classes", bank_uid=uid))
        export_pack(ws, tmp_path / "good.zip", grader="ann")
    _rewrite_pack(tmp_path / "good.zip", tmp_path / "bad.zip", change)
    with open_workspace(tmp_path / "lead.sqlite") as lead:
        with pytest.raises(ImportFailed) as failed:
            merge_team(lead, [tmp_path / "bad.zip"])
        assert message in str(failed.value) and "bad.zip" in str(failed.value)
        assert lead.counts()["ratings"] == 0 and comment_bank(lead) == []


def test_bobs_pack_cannot_change_the_points_of_a_bank_comment_ann_used(tmp_path: Path) -> None:
    # Bob's pack rewrote a shared bank comment's points (-5 to +50, dated in the future so
    # "the newer edit wins"): every student ann had docked with it gained 55 points, and the
    # merge said only "bank_comments_seen". A pack's wording edit still comes back.
    from cluestudio.core.workspace.finals import final_grades

    course = make_course(tmp_path / "course")
    lead_path = tmp_path / "lead.sqlite"
    with open_workspace(lead_path) as lead:
        do_import(lead, course)
        uid = lead.execute(SaveBankComment("class-diagram", "classes", "Class missing",
                                           -5)).result
        alice = lead.find_submission("library", "alice")
        assert alice
        lead.execute(SaveRating(alice.id, "ann", FULL))
        lead.execute(AddItemComment(alice.id, "ann", "class-diagram", "classes", bank_uid=uid))
        export_pack(lead, tmp_path / "bob.zip", grader="bob")

    def forge(data: dict) -> None:
        data["comment_bank"][0].update(points=50.0, text="Class missing (see the notes)",
                                       updated_at="2999-01-01T00:00:00+00:00")

    _rewrite_pack(tmp_path / "bob.zip", tmp_path / "bob-done.zip", forge)
    with open_workspace(lead_path) as lead:
        report, _ = merge_team(lead, [tmp_path / "bob-done.zip"])
        [bank] = comment_bank(lead)
        assert (bank.text, bank.points) == ("Class missing (see the notes)", -5.0)
        assert final_grades(lead)[alice.id].final.value == 95.0
        assert report.counts["bank_comments_changed"] == 1
        [conflict] = [c for c in report.conflicts if c["kind"] == "bank comment"]
        assert conflict["uid"] == uid and conflict["pack_points"] == 50.0
        assert "kept local" in conflict["message"]


@pytest.mark.parametrize("name", ["../x", "packs/ann", "..", ".hidden", "a\\b", "ann\nbob"])
def test_a_grader_name_that_is_a_path_writes_no_pack_outside_the_folder(
        tmp_path: Path, name: str) -> None:
    # `team split … --graders ../x,bob` wrote x.zip beside the packs folder, not in it.
    course = make_course(tmp_path / "course")
    with open_workspace(tmp_path / "lead.sqlite") as lead:
        do_import(lead, course)
        with pytest.raises(ClueStudioError, match="grader name"):
            split_course(lead, tmp_path / "packs", [name, "bob"], overlap=0.0)
        assert assignments(lead) == {}
    assert not list(tmp_path.rglob("*.zip"))


def test_lead_splitting_among_more_graders_than_submissions_is_told_who_gets_none(
        tmp_path: Path, capsys) -> None:
    course = make_course(tmp_path / "course")
    ws_path = tmp_path / "lead.sqlite"
    with open_workspace(ws_path) as lead:
        do_import(lead, course)
        count = len(lead.list_submissions())
    graders = [f"g{i}" for i in range(count + 2)]
    assert main(["team", "split", str(ws_path), str(tmp_path / "packs"), "--graders",
                 ",".join(graders), "--overlap", "0"]) == 0
    out = capsys.readouterr().out
    packs = sorted(p.stem for p in (tmp_path / "packs").glob("*.zip"))
    idle = sorted(set(graders) - set(packs))
    assert len(packs) == count and len(idle) == 2
    assert f"no submission for {', '.join(idle)}: no pack" in out


def _disagreeing_course(tmp_path: Path, comment: str = "") -> tuple[Path, int]:
    course = make_course(tmp_path / "course")
    ws_path = tmp_path / "lead.sqlite"
    with open_workspace(ws_path) as ws:
        do_import(ws, course)
        alice = ws.find_submission("library", "alice")
        assert alice
        ws.execute(SaveRating(alice.id, "ann", FULL, comment=comment))
        ws.execute(SaveRating(alice.id, "bob", {**FULL, "classes": 0, "relations": 0}))
        ws.execute(AddItemComment(alice.id, "bob", "class-diagram", "classes",
                                  text=f"see {comment}"))
    return ws_path, alice.id


def test_lead_reading_the_queue_sees_a_comments_terminal_codes_as_text(
        tmp_path: Path, capsys) -> None:
    # A comment from a colleague's pack could clear the lead's terminal, retitle it or
    # hide lines (ESC sequences): the queue prints them escaped.
    hostile = "ok\x1b[2J\x1b]0;pwned\x07\x9b31m"
    ws_path, _ = _disagreeing_course(tmp_path, hostile)
    assert main(["team", "queue", str(ws_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "ok\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m" in out


def test_a_second_adjudication_says_whose_decision_it_replaces(tmp_path: Path,
                                                              capsys) -> None:
    ws_path, _ = _disagreeing_course(tmp_path)
    assert main(["team", "adjudicate", str(ws_path), "library", "alice", "--lead", "lee",
                 "--take", "bob"]) == 0
    assert "replaces" not in capsys.readouterr().out
    assert main(["team", "adjudicate", str(ws_path), "library", "alice", "--lead", "max",
                 "--take", "ann"]) == 0
    out = capsys.readouterr().out
    assert "final grade 100 (adjudicated by max; replaces lee's 50)" in out
