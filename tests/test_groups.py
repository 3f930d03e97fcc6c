"""Grade by group (issue 17, "go beyond the peers"; issue 24: never a wrong grade): a group
holds only submissions whose diagrams say the same (equal canonical forms); CLUE between
submissions (both ways, cheaply) only suggests near members, listed with their differences;
one grader's rating is applied to a group in one undoable command, each member marked and
still individually editable."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app.groups import (
    group_job,
    group_rating_command,
    group_submissions,
    preview_group_rating,
)
from cluestudio.core.clue import ClueScorer
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.groups import (
    DEFAULT_THRESHOLD,
    GroupItem,
    GroupOptions,
    clue_upper_bound,
    group_items,
    leaders,
)
from cluestudio.core.jobs import Cancelled, CancelToken, Progress, run_job
from cluestudio.core.plantuml import parse_plantuml
from cluestudio.core.rubric import get_rubric
from cluestudio.core.workspace import (
    SCHEMA_VERSION,
    ApplyGroupRating,
    CommandError,
    SaveRating,
    Task,
    open_workspace,
    ops,
    schema,
)
from cluestudio.core.workspace.export import rating_rows
from cluestudio.core.workspace.pack import export_pack, merge_packs
from cluestudio.resources_path import annotations_dir

SAMPLE = annotations_dir() / "sample"
BASE = """@startuml
class Book {
  - title : String
  - isbn : String
}
class Member {
  - name : String
}
class Loan {
  - due : Date
}
Member "1" -- "*" Loan : borrows
Loan --> Book
@enduml
"""
# The same diagram: other order, layout, arrow length, comments, whitespace, case, styling.
REORDERED = """@startuml
skinparam classAttributeIconSize 0
' the same design, written in another order
class Loan {
  -   due :   date
}
Loan -right-> Book
class Member {
  - name : String
}
Member  "1" --- "*"   Loan : Borrows >
class Book {
  - isbn : String
  - title : String
}
@enduml
"""
NEAR = BASE.replace("  - isbn : String\n", "  - isbn : String\n  - year : int\n")
FAR = BASE.replace("Member", "Reader").replace("Loan", "Lending")
FULL = {"classes": 4, "attributes": 4, "methods": 4, "relations": 4, "multiplicities": 2,
        "overall": 4}
LOWER = {**FULL, "relations": 2}


def clue_both_ways(a: str, b: str) -> float:
    scorer = ClueScorer("exact", cache=False)
    try:
        da, db = parse_plantuml(a).diagram, parse_plantuml(b).diagram
        return min(scorer.score(da, db).scores.as_dict()["clue"],
                   scorer.score(db, da).scores.as_dict()["clue"])
    finally:
        scorer.close()


def items(*texts: str) -> list[GroupItem]:
    return [GroupItem(i + 1, f"s{i + 1}", text) for i, text in enumerate(texts)]


# --- grouping -------------------------------------------------------------------------------


def test_identical_diagrams_share_a_bucket_and_are_never_scored() -> None:
    result = run_job(group_items(items(BASE, REORDERED, BASE), "t"))
    assert result.distinct == 1 and result.pairs_scored == 0 and result.pairs_possible == 3
    (group,) = result.groups
    assert group.submission_ids == (1, 2, 3) and group.representative == 1
    assert all(m.identical and m.similarity == 1.0 for m in group.members)
    assert group.near == () and group.key.startswith("g-") and result.singletons == []


def test_near_diagrams_are_only_suggested_with_their_differences() -> None:
    near = clue_both_ways(BASE, NEAR)
    assert 0.97 < near < 0.999  # an extra attribute: near by CLUE, not the same diagram
    assert clue_both_ways(BASE, FAR) < 0.9
    texts = items(NEAR, BASE, FAR, REORDERED)
    result = run_job(group_items(texts, "t", options=GroupOptions(0.97)))
    group = result.group_of(2)
    assert group is not None and result.group_of(4) is group
    # The group proper is the same diagram only; NEAR is suggested, apart, with what differs.
    assert group.submission_ids == (2, 4) and group.representative == 2
    assert group.identical_ids == (2, 4) and group.near_ids == (1,)
    (member,) = group.near
    assert not member.identical and member.similarity == pytest.approx(near, abs=1e-9)
    assert member.differences == ("extra attribute Book: -year : int",)
    # NEAR leads a group of its own of one, with BASE's two as its suggestions.
    own = result.group_of(1)
    assert own is not None and own.submission_ids == (1,) and own.near_ids == (2, 4)
    assert own.near[0].differences == ("missing attribute Book: -year : int",)
    assert result.singletons == [3] and result.group_of(3) is None
    strict = run_job(group_items(texts, "t", options=GroupOptions(round(near, 6) + 1e-6)))
    assert [(g.submission_ids, g.near_ids) for g in strict.groups] == [((2, 4), ())]
    assert strict.singletons == [1, 3]
    json.dumps(result.to_dict())  # the CLI and the worker send it as JSON


def test_near_suggestions_are_near_the_group_not_only_to_each_other() -> None:
    # A ~ B and B ~ C but not A ~ C: single linkage would chain all three.
    b = BASE.replace("  - name : String\n", "  - name : String\n  - email : String\n")
    c = b.replace("  - due : Date\n", "  - due : Date\n  - fee : int\n")
    ab, bc, ac = clue_both_ways(BASE, b), clue_both_ways(b, c), clue_both_ways(BASE, c)
    threshold = (max(ac, 0.0) + min(ab, bc)) / 2
    assert ac < threshold <= min(ab, bc)
    result = run_job(group_items(items(BASE, BASE, b, c), "t",
                                 options=GroupOptions(threshold)))
    by_members = {g.submission_ids: g.near_ids for g in result.groups}
    assert by_members == {(1, 2): (3,), (3,): (1, 2)}
    assert result.singletons == [4]


def _sample_diagrams(task: str) -> list[Any]:
    folder = SAMPLE / "tasks" / task / "submissions"
    return [parse_plantuml(p.read_text(encoding="utf-8")).diagram
            for p in sorted(folder.glob("*.puml"))]


@pytest.mark.parametrize("task", ["library_loans", "online_shop"])
def test_the_pruning_bound_is_never_below_the_real_clue(task: str) -> None:
    diagrams = _sample_diagrams(task)
    reference = parse_plantuml(
        (SAMPLE / "tasks" / task / "reference.puml").read_text(encoding="utf-8")).diagram
    diagrams.append(reference)
    pairs = list(itertools.permutations(diagrams, 2))
    scorer = ClueScorer("exact", cache=False)
    try:
        results = run_job(scorer.score_pairs(pairs))
        weights = scorer.weights
    finally:
        scorer.close()
    tight = 0
    for (ref, cand), result in zip(pairs, results, strict=True):
        value = result.scores.as_dict()["clue"]
        for sigma in (0.5, 1.0):
            bound = clue_upper_bound([c.name for c in ref.classes], len(ref.relations),
                                     [c.name for c in cand.classes], len(cand.relations),
                                     weights, sigma)
            assert bound >= value - 1e-9, (value, bound)
        tight += bound - value < 0.05
    assert tight > len(pairs) // 4  # and it is close enough to prune


def test_pruning_changes_no_group(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = []
    for task in ("library_loans", "hospital_appointments"):
        folder = SAMPLE / "tasks" / task / "submissions"
        texts += [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.puml"))]
    texts += texts[:5]  # a few exact duplicates
    pruned = run_job(group_items(items(*texts), "t"))
    monkeypatch.setattr(leaders, "_bound", lambda *args: 1.0)  # score every pair it meets
    everything = run_job(group_items(items(*texts), "t"))
    assert 0 < pruned.pairs_scored < everything.pairs_scored / 3
    assert everything.pairs_scored < everything.distinct * (everything.distinct - 1) // 2
    assert [g.to_dict() for g in everything.groups] == [g.to_dict() for g in pruned.groups]
    assert everything.singletons == pruned.singletons


def test_unreadable_texts_are_reported_and_left_out() -> None:
    broken = "@startuml\nclass A {\n  x : int\n"  # body never closed
    result = run_job(group_items(items(BASE, "", broken, BASE), "t"))
    assert set(result.unreadable) == {2, 3}
    assert result.unreadable[2] == "no PlantUML yet"
    assert "never closed" in result.unreadable[3]
    assert [g.submission_ids for g in result.groups] == [(1, 4)]


def test_non_class_tasks_group_equal_texts_only() -> None:
    component = "@startuml\ncomponent Web\ncomponent Db\n[Web] --> [Db]\n@enduml\n"
    spaced = "@startuml\n' a comment\n  component Web\n\ncomponent Db\n[Web] --> [Db]\n@enduml"
    other = component.replace("Db", "Cache")
    result = run_job(group_items(items(component, other, spaced), "t", "component"))
    assert [g.submission_ids for g in result.groups] == [(1, 3)]
    assert result.singletons == [2] and result.pairs_scored == 0


def test_progress_and_cancel() -> None:
    texts = items(BASE, NEAR, FAR, REORDERED,
                  BASE.replace("title", "name"), NEAR.replace("year", "pages"))
    seen: list[Progress] = []
    run_job(group_items(texts, "t"), on_progress=seen.append)
    assert any("compared" in p.message for p in seen)
    assert seen[-1].message.endswith("groups")
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        run_job(group_items(texts, "t", cancel=token))
    with pytest.raises(ClueStudioError, match="threshold"):
        GroupOptions(1.5)


# --- a workspace ----------------------------------------------------------------------------


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Any]:
    workspace = open_workspace(tmp_path / "course.sqlite")

    def seed(conn: sqlite3.Connection) -> dict[str, int]:
        ops.upsert_task(conn, Task("lib", "Library", "", BASE))
        ops.upsert_task(conn, Task("other", "Other", "", BASE))
        ids = {}
        for source, text in (("s1", BASE), ("s2", REORDERED), ("s3", NEAR), ("s4", FAR),
                             ("s5", BASE)):
            sid = ops.ensure_submission(conn, "lib", source, "student", None)[0]
            ops.add_revision(conn, sid, text, "import", "import")
            ids[source] = sid
        ids["x1"] = ops.ensure_submission(conn, "other", "x1", "student", None)[0]
        ids["s6"] = ops.ensure_submission(conn, "lib", "s6", "student", None)[0]  # no text
        return ids

    workspace.ids = workspace.write(seed)  # type: ignore[attr-defined]
    yield workspace
    workspace.close()


def test_group_a_workspace_task_here_and_in_the_worker(ws) -> None:
    ids = ws.ids
    result = run_job(group_submissions(ws, "lib"))
    group = result.groups[0]
    assert group.submission_ids == (ids["s1"], ids["s2"], ids["s5"])
    assert group.near_ids == (ids["s3"],)
    assert group.representative == ids["s1"] and group.members[0].source_id == "s1"
    assert result.group_of(ids["s3"]).near_ids == group.submission_ids
    assert result.singletons == [ids["s4"]] and set(result.unreadable) == {ids["s6"]}
    # The worker's entry point reads a read-only view while this writer holds the file.
    again = run_job(group_job(str(ws.path), "lib", cancel=CancelToken(), emit=None))
    assert [g.to_dict() for g in again.groups] == [g.to_dict() for g in result.groups]
    with pytest.raises(ClueStudioError, match="no task 'nope'"):
        run_job(group_submissions(ws, "nope"))


def _group(ws: Any) -> Any:
    return run_job(group_submissions(ws, "lib")).group_of(ws.ids["s1"])


def _with_near(group: Any) -> tuple[int, ...]:
    """The members and the near suggestions: what the grader chose after seeing them."""
    return (*group.submission_ids, *group.near_ids)


def test_apply_a_rating_to_a_group_with_preview_undo_and_redo(ws) -> None:
    ids = ws.ids
    group = _group(ws)
    source, s2, s3, s5 = ids["s1"], ids["s2"], ids["s3"], ids["s5"]
    with pytest.raises(CommandError, match="has not rated submission"):
        preview_group_rating(ws, source, group.submission_ids, "ta")
    ws.execute(SaveRating(source, "ta", FULL, comment="all there", seconds=40))
    ws.execute(SaveRating(s3, "ta", LOWER))  # already rated: kept
    ws.execute(SaveRating(s2, "other-ta", LOWER))  # another grader's: untouched
    preview = preview_group_rating(ws, source, _with_near(group), "ta")
    assert (preview.would_write, preview.already_rated, preview.count) == ((s2, s5), (s3,), 2)
    assert preview.total == 100
    changes = ws.execute(group_rating_command(group, source, "ta",
                                              member_ids=_with_near(group)))
    assert changes.ratings == frozenset({s2, s5})
    assert changes.result.kept == (s3,)
    for sid in (s2, s5):
        rating = ws.rating(sid, "ta", "class-diagram")
        assert (rating.total, rating.comment, rating.seconds) == (100, "all there", None)
        assert (rating.group_key, rating.group_from) == (group.key, "s1")
        assert rating.group_applied
    assert ws.rating(s3, "ta", "class-diagram").total == get_rubric().total(LOWER)
    assert not ws.rating(source, "ta", "class-diagram").group_applied
    assert ws.rating(s2, "other-ta", "class-diagram").total == get_rubric().total(LOWER)
    assert [a["action"] for a in ws.audit_log(2)] == ["apply_group_rating"] * 2
    undone = ws.undo()
    assert undone.ratings == frozenset({s2, s5})
    assert ws.rating(s2, "ta", "class-diagram") is None
    assert ws.rating(s5, "ta", "class-diagram") is None
    ws.redo()
    assert ws.rating(s5, "ta", "class-diagram").group_key == group.key


def test_overwrite_replaces_this_graders_ratings_and_undo_restores_them(ws) -> None:
    ids = ws.ids
    group = _group(ws)
    source, s3 = ids["s1"], ids["s3"]
    ws.execute(SaveRating(source, "ta", FULL))
    ws.execute(SaveRating(s3, "ta", LOWER, comment="mine"))
    before = ws.rating(s3, "ta", "class-diagram")
    preview = preview_group_rating(ws, source, _with_near(group), "ta", overwrite=True)
    assert s3 in preview.would_write and preview.already_rated == (s3,)
    changes = ws.execute(group_rating_command(group, source, "ta", overwrite=True,
                                              member_ids=_with_near(group)))
    assert s3 in changes.ratings and changes.result.replaced == (s3,)
    replaced = ws.rating(s3, "ta", "class-diagram")
    assert (replaced.total, replaced.group_from, replaced.uid) == (100, "s1", before.uid)
    ws.undo()
    assert ws.rating(s3, "ta", "class-diagram") == before


def test_an_individual_save_clears_the_mark_and_its_undo_brings_it_back(ws) -> None:
    ids = ws.ids
    group = _group(ws)
    ws.execute(SaveRating(ids["s1"], "ta", FULL))
    ws.execute(group_rating_command(group, ids["s1"], "ta"))
    ws.execute(SaveRating(ids["s5"], "ta", LOWER))  # the grader looked again
    rating = ws.rating(ids["s5"], "ta", "class-diagram")
    assert not rating.group_applied and rating.group_from is None
    ws.undo()
    assert ws.rating(ids["s5"], "ta", "class-diagram").group_key == group.key


def test_group_commands_refuse_bad_groups_and_write_nothing(ws) -> None:
    ids = ws.ids
    ws.execute(SaveRating(ids["s1"], "ta", FULL))
    before = ws.counts()["ratings"]
    with pytest.raises(CommandError, match="belongs to task 'other'"):
        ws.execute(ApplyGroupRating(ids["s1"], [ids["s2"], ids["x1"]], "ta", "g-x"))
    with pytest.raises(CommandError, match="no submission with id 999"):
        ws.execute(ApplyGroupRating(ids["s1"], [ids["s2"], 999], "ta", "g-x"))
    with pytest.raises(CommandError, match="has not rated"):
        ws.execute(ApplyGroupRating(ids["s2"], [ids["s1"], ids["s5"]], "ta", "g-x"))
    with pytest.raises(CommandError, match="needs the group's key"):
        ApplyGroupRating(ids["s1"], [ids["s2"]], "ta", "")
    with pytest.raises(ClueStudioError, match="is not in group"):
        group_rating_command(_group(ws), ids["s4"], "ta")
    assert ws.counts()["ratings"] == before
    assert ws.undo_stack.undo_label == f"Rate submission {ids['s1']}"


def test_the_mark_travels_in_packs_and_exports(ws, tmp_path: Path) -> None:
    ids = ws.ids
    group = _group(ws)
    ws.execute(SaveRating(ids["s1"], "ta", FULL))
    ws.execute(group_rating_command(group, ids["s1"], "ta"))
    rows = [r for r in rating_rows(ws) if r["item"] == "total"]
    marks = {r["source_id"]: (r["group_key"], r["group_from"]) for r in rows}
    assert marks["s2"] == (group.key, "s1") and marks["s1"] == (None, None)
    export_pack(ws, tmp_path / "ta.zip", grader="ta")
    with open_workspace(tmp_path / "other.sqlite") as other:
        report = merge_packs(other, [tmp_path / "ta.zip"])
        assert report.counts["ratings_added"] == 3
        merged = {other.submission(r.submission_id).source_id: r for r in other.ratings()}
        assert (merged["s5"].group_key, merged["s5"].group_from) == (group.key, "s1")
        assert not merged["s1"].group_applied


def test_a_pack_from_before_group_grading_merges_and_bad_marks_are_refused(
        ws, tmp_path: Path) -> None:
    import zipfile

    ws.execute(SaveRating(ws.ids["s1"], "ta", FULL))
    export_pack(ws, tmp_path / "p.zip")
    with zipfile.ZipFile(tmp_path / "p.zip") as zf:
        content = {n: zf.read(n) for n in zf.namelist()}
    data = json.loads(content["data.json"])

    def write(name: str, changed: dict[str, Any]) -> Path:
        with zipfile.ZipFile(tmp_path / name, "w") as zf:
            for member, raw in content.items():
                zf.writestr(member, json.dumps(changed) if member == "data.json" else raw)
        return tmp_path / name

    old = json.loads(json.dumps(data))
    for rating in old["ratings"]:
        del rating["group_key"], rating["group_from"]
    with open_workspace(tmp_path / "a.sqlite") as target:
        merge_packs(target, [write("old.zip", old)])
        assert [r.group_key for r in target.ratings()] == [None]
    bad = json.loads(json.dumps(data))
    bad["ratings"][0]["group_key"] = 7
    from cluestudio.core.workspace import ImportFailed

    with open_workspace(tmp_path / "b.sqlite") as target:
        with pytest.raises(ImportFailed, match=r"ratings\[0\]: bad 'group_key'"):
            merge_packs(target, [write("bad.zip", bad)])
        assert target.ratings() == []


def test_migration_v6_from_a_v5_database_keeps_ratings(tmp_path: Path) -> None:
    path = tmp_path / "v5.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, target=5) == [1, 2, 3, 4, 5]
    conn.execute("INSERT INTO tasks(id, title, created_at) VALUES ('t', 'T', 'now')")
    conn.execute("INSERT INTO submissions(task_id, source_id, origin, created_at)"
                 " VALUES ('t', 's1', 'student', 'now')")
    conn.execute("INSERT INTO ratings(uid, submission_id, grader, rubric_id, scores, total,"
                 " created_at) VALUES ('u1', 1, 'ta', 'class-diagram', '{}', 70, 'now')")
    conn.close()
    with open_workspace(path) as ws:
        assert schema.user_version(ws._reader()) == SCHEMA_VERSION >= 6
        (rating,) = ws.ratings()
        assert (rating.total, rating.group_key, rating.group_from) == (70, None, None)
        ws.write(lambda c: c.execute("UPDATE ratings SET group_key = 'g-1', group_from = 's0'"))
        assert ws.ratings()[0].group_applied


def test_cli_group_lists_the_groups(ws, capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.cli import main
    from cluestudio.cli.cmd_group import DEFAULT_THRESHOLD as CLI_THRESHOLD

    assert CLI_THRESHOLD == DEFAULT_THRESHOLD
    path = str(ws.path)
    assert main(["group", path, "lib", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    group, alone = data["groups"]
    assert [m["source_id"] for m in group["members"]] == ["s1", "s2", "s5"]
    assert [(m["source_id"], m["differences"]) for m in group["near"]] == [
        ("s3", ["extra attribute Book: -year : int"])]
    assert [m["source_id"] for m in alone["members"]] == ["s3"]
    assert data["singletons"] == [ws.ids["s4"]]
    assert main(["group", path, "lib"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(x.startswith("  g-") and x.endswith("[3]: s1, s2, s5") for x in out)
    assert any(x.startswith("      near, differs: s3 (0.9") and
               x.endswith("extra attribute Book: -year : int") for x in out)
    assert main(["group", path, "lib", "--threshold", "1.0"]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("  g-")]
    assert line.endswith("[3]: s1, s2, s5")
    assert main(["group", path, "nope"]) == 2
    assert "no task 'nope'" in capsys.readouterr().err


def test_a_component_task_groups_equal_texts_and_applies_its_architecture_rating(
        tmp_path: Path) -> None:
    from cluestudio.core.rubric import rubric_for_kind

    component = "@startuml\ncomponent Web\ncomponent Db\n[Web] --> [Db]\n@enduml\n"
    with open_workspace(tmp_path / "arch.sqlite") as ws:
        def seed(conn: sqlite3.Connection) -> list[int]:
            ops.upsert_task(conn, Task("shop", "Shop", "", component,
                                       diagram_kind="component"))
            ids = []
            for source, text in (("a", component), ("b", "' same\n" + component),
                                 ("c", component.replace("Db", "Cache"))):
                sid = ops.ensure_submission(conn, "shop", source, "student", None)[0]
                ops.add_revision(conn, sid, text, "import", "import")
                ids.append(sid)
            return ids

        a, b, c = ws.write(seed)
        (group,) = run_job(group_submissions(ws, "shop")).groups
        assert group.submission_ids == (a, b)
        scores = {"components": 4, "connectors": 3, "layering": 4, "responsibilities": 4,
                  "naming": 2, "overall": 3.5}
        ws.execute(SaveRating(a, "ta", scores, rubric=rubric_for_kind("component")))
        assert preview_group_rating(ws, a, group.submission_ids, "ta").would_write == (b,)
        ws.execute(group_rating_command(group, a, "ta"))
        copied = ws.rating(b, "ta", "architecture")
        assert copied is not None and copied.scores == ws.rating(a, "ta", "architecture").scores
        assert ws.rating(c, "ta", "architecture") is None
