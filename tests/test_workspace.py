"""Workspace file: creation, migrations, version and lock guards, undoable commands."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cluestudio.core.rubric import RubricError
from cluestudio.core.workspace import (
    SCHEMA_VERSION,
    CommandError,
    SaveRating,
    SaveRevision,
    SetReviewVerdict,
    Task,
    WorkspaceError,
    WorkspaceInUse,
    WorkspaceTooNew,
    open_workspace,
    ops,
    schema,
)

SCORES = {"classes": 4, "attributes": 3, "methods": 2, "relations": 4, "multiplicities": 1,
          "overall": 3.5}


@pytest.fixture
def ws(tmp_path: Path):
    workspace = open_workspace(tmp_path / "course.sqlite")

    def seed(conn: sqlite3.Connection) -> int:
        ops.upsert_task(conn, Task("t1", "Task one", "req", "@startuml\nclass A\n@enduml"))
        return ops.ensure_submission(conn, "t1", "alice", "student", None)[0]

    workspace.sid = workspace.write(seed)  # type: ignore[attr-defined]
    yield workspace
    workspace.close()


def test_new_workspace_is_wal_with_foreign_keys_at_current_version(tmp_path: Path) -> None:
    with open_workspace(tmp_path / "w.sqlite") as ws:
        conn = ws._reader()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert schema.user_version(conn) == SCHEMA_VERSION
        with pytest.raises(sqlite3.IntegrityError):  # FK on for the writer too
            ws.write(lambda c: ops.ensure_submission(c, "nope", "x", "student", None))


def test_migration_v2_from_a_v1_database(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=1)
    conn.execute("INSERT INTO tasks(id, title, created_at) VALUES ('t', 'T', 'now')")
    conn.close()
    with open_workspace(path) as ws:
        assert schema.user_version(ws._reader()) == SCHEMA_VERSION
        assert ws.tasks()[0].diagram_kind == "class"


def test_migration_v3_from_a_v2_database_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, target=2) == [1, 2]
    conn.execute("INSERT INTO tasks(id, title, created_at, diagram_kind)"
                 " VALUES ('t', 'T', 'now', 'class')")
    conn.execute("INSERT INTO submissions(task_id, source_id, origin, created_at)"
                 " VALUES ('t', 's1', 'student', 'now')")
    conn.execute("INSERT INTO conversions(uid, submission_id, puml, content_hash, author,"
                 " author_kind, created_at) VALUES ('u', 1, '@startuml\nclass A\n@enduml',"
                 " 'h', 'alice', 'human', 'now')")
    conn.close()
    assert SCHEMA_VERSION >= 3  # later steps run on top
    with open_workspace(path) as ws:
        assert schema.user_version(ws._reader()) == SCHEMA_VERSION
        assert [t.id for t in ws.tasks()] == ["t"]
        assert ws.head_revision(1).puml == "@startuml\nclass A\n@enduml"  # type: ignore[union-attr]
        assert ws.counts()["audit_results"] == 0
        record = {"model": "m", "prompt_version": "p@1", "seed": 0, "instance_id": "i1",
                  "condition": "prior-conform", "relation": "inheritance", "scale": 1.5,
                  "em": True, "correct": False}
        ws.write(lambda c: ops.put_audit_result(c, record))
        ws.write(lambda c: ops.put_audit_result(c, {**record, "correct": True}))  # replaces
        assert ws.audit_results(model="m") == [{**record, "correct": True}]
        assert ws.audit_results(model="other") == []


def test_migration_v5_from_a_v4_database_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, target=4) == [1, 2, 3, 4]
    conn.execute("INSERT INTO tasks(id, title, created_at, diagram_kind)"
                 " VALUES ('t', 'T', 'now', 'class')")
    conn.execute("INSERT INTO submissions(task_id, source_id, origin, image_hash, created_at)"
                 " VALUES ('t', 's1', 'student', 'abc', 'now')")
    conn.execute("INSERT INTO conversions(uid, submission_id, puml, content_hash, author,"
                 " author_kind, created_at) VALUES ('u', 1, '@startuml\nclass A\n@enduml',"
                 " 'h', 'alice', 'human', 'now')")
    conn.close()
    with open_workspace(path) as ws:
        assert schema.user_version(ws._reader()) == SCHEMA_VERSION >= 5
        assert ws.head_revision(1).puml == "@startuml\nclass A\n@enduml"  # type: ignore[union-attr]
        assert ws.check_results() == [] and ws.latest_checks() == {}
        report = {"version": "1", "engine": "e", "triage": 0.5, "flagged": True,
                  "text_recall": 0.9, "name_precision": 1.0,
                  "counts": {"missing": 1, "invented": 0}}
        ws.write(lambda c: ops.put_check_result(c, 1, 1, "abc", report))
        ws.write(lambda c: ops.put_check_result(c, 1, 1, "abc", {**report, "triage": 0.25}))
        assert [r["triage"] for r in ws.check_results()] == [0.25]  # replaced
        assert ws.latest_checks()[1]["triage"] == 0.25


def test_newer_workspace_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(WorkspaceTooNew, match="newer"):
        open_workspace(path)
    assert path.read_bytes() == before
    assert not (tmp_path / "new.sqlite.lock").exists()


def test_foreign_sqlite_and_non_sqlite_files_are_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE x(a)")
    conn.close()
    with pytest.raises(WorkspaceError, match="not a ClueStudio workspace"):
        open_workspace(other)
    text = tmp_path / "notes.sqlite"
    text.write_text("hello, this is not a database")
    with pytest.raises(WorkspaceError, match="not an SQLite file"):
        open_workspace(text)


def test_second_writer_gets_in_use_but_readers_may_open(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with open_workspace(path):
        with pytest.raises(WorkspaceInUse, match=r"in use by pid \d+ on host"):
            open_workspace(path)
        with open_workspace(path, readonly=True) as reader:
            assert reader.tasks() == []
    with open_workspace(path):  # released on close
        pass


def test_other_process_holding_the_workspace_blocks_us(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    code = (f"import sys,time; from cluestudio.core.workspace import open_workspace; "
            f"ws = open_workspace({str(path)!r}); print('open', flush=True); "
            f"sys.stdin.readline(); ws.close()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
        with pytest.raises(WorkspaceInUse, match=f"pid {proc.pid}"):
            open_workspace(path)
    finally:
        proc.communicate("\n", timeout=30)
    with open_workspace(path):
        pass


def test_save_rating_undo_redo_returns_changes(ws) -> None:
    sid = ws.sid
    changes = ws.execute(SaveRating(sid, "alice", SCORES, comment="ok", seconds=42))
    assert changes.ratings == {sid} and changes.result == pytest.approx(82.5)
    assert ws.rating(sid, "alice", "class-diagram").total == pytest.approx(82.5)
    ws.execute(SaveRating(sid, "alice", {**SCORES, "classes": 0}))
    assert ws.rating(sid, "alice", "class-diagram").scores["classes"] == 0
    assert ws.undo().ratings == {sid}
    assert ws.rating(sid, "alice", "class-diagram").scores["classes"] == 4
    ws.undo()
    assert ws.rating(sid, "alice", "class-diagram") is None
    ws.redo()
    assert ws.rating(sid, "alice", "class-diagram").comment == "ok"
    assert [e["action"] for e in ws.audit_log()][:2] == ["save_rating", "undo_save_rating"]


def test_out_of_range_score_is_a_clear_error_and_writes_nothing(ws) -> None:
    with pytest.raises(RubricError, match="score 7 for 'classes' is out of range"):
        ws.execute(SaveRating(ws.sid, "alice", {**SCORES, "classes": 7}))
    with pytest.raises(RubricError, match="missing score"):
        ws.execute(SaveRating(ws.sid, "alice", {"classes": 1}))
    assert ws.ratings() == []


def test_revisions_form_a_chain_and_undo_only_the_tip(ws) -> None:
    sid = ws.sid
    first = ws.execute(SaveRevision(sid, "@startuml\nclass A\n@enduml", "model-x",
                                    author_kind="model")).result
    second = ws.execute(SaveRevision(sid, "@startuml\nclass B\n@enduml", "bob")).result
    revisions = ws.revisions(sid)
    assert [r.id for r in revisions] == [first, second]
    assert revisions[1].parent_id == first and revisions[1].author == "bob"
    assert ws.head_revision(sid).id == second
    ws.undo()
    assert ws.head_revision(sid).id == first


def test_undo_of_a_reviewed_revision_is_refused_and_stays_undoable(ws) -> None:
    rev = ws.execute(SaveRevision(ws.sid, "@startuml\nclass A\n@enduml", "bob")).result
    ws.write(lambda c: c.execute("INSERT INTO reviews(submission_id, conversion_id, reviewer,"
                                 " verdict, created_at) VALUES (?,?,?,?,?)",
                                 (ws.sid, rev, "carol", "accept", "now")))
    with pytest.raises(CommandError, match="undo those first"):
        ws.undo()
    assert ws.undo_stack.undo_label is not None


def test_review_verdict_with_taxonomy_tags_undoes_to_previous(ws) -> None:
    sid = ws.sid
    ws.execute(SetReviewVerdict(sid, "carol", "needs_fix", ["class_missing", "semantic_bias"]))
    ws.execute(SetReviewVerdict(sid, "carol", "accept"))
    assert ws.reviews(sid)[0].verdict == "accept"
    changes = ws.undo()
    assert changes is not None and changes.reviews == {sid}
    review = ws.reviews(sid)[0]
    assert review.verdict == "needs_fix" and review.tags == ("class_missing", "semantic_bias")
    with pytest.raises(Exception, match="unknown issue tag"):
        SetReviewVerdict(sid, "carol", "accept", ["typo_tag"])
    with pytest.raises(CommandError, match="verdict must be"):
        SetReviewVerdict(sid, "carol", "maybe")


def test_rescoring_the_same_content_replaces_the_score(ws) -> None:
    for value in (0.5, 0.7):
        ws.write(lambda c, v=value: ops.put_score(c, ws.sid, "h1", "clue", v,
                                                  metric_version="1", embedder="e",
                                                  weights_hash="w", explanation={"v": v}))
    ws.write(lambda c: ops.put_score(c, ws.sid, "h2", "clue", 0.1))
    values = sorted(s["value"] for s in ws.scores(ws.sid))
    assert values == [0.1, 0.7]


def test_metric_values_gives_the_current_value_of_the_head_revision(ws) -> None:
    other = ws.write(lambda c: ops.ensure_submission(c, "t1", "bob", "student", None)[0])
    old, new, bobs = "class A\n", "class A\nclass B\n", "class C\n"
    for sid, text in ((ws.sid, old), (ws.sid, new), (other, bobs)):
        ws.write(lambda c, sid=sid, text=text: ops.add_revision(c, sid, text, "a", "human"))
    ws.write(lambda c: ops.put_score(c, ws.sid, ops.text_hash(old), "clue", 0.2))
    ws.write(lambda c: ops.put_score(c, other, ops.text_hash(bobs), "clue", 0.9))
    ws.write(lambda c: ops.put_score(c, ws.sid, ops.text_hash(new), "clue", 0.4))
    ws.write(lambda c: ops.put_score(c, ws.sid, ops.text_hash(new), "bleu", 0.1))
    # Computed last, but of the older revision: not what the submission shows now.
    ws.write(lambda c: ops.put_score(c, ws.sid, ops.text_hash(old), "clue", 0.7,
                                     embedder="other"))
    assert ws.metric_values("clue") == {ws.sid: 0.4, other: 0.9}
    assert ws.metric_values("bleu") == {ws.sid: 0.1}
    ws.write(lambda c: ops.put_score(c, other, ops.text_hash(bobs), "clue", None,
                                     embedder="minilm"))  # the newest has no value: none
    assert ws.metric_values("clue") == {ws.sid: 0.4}


def test_migration_v4_keeps_scores_in_the_order_they_were_computed(tmp_path: Path) -> None:
    path = tmp_path / "v3.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=3)
    conn.execute("INSERT INTO tasks(id, title, created_at) VALUES ('t', 'T', 'now')")
    conn.execute("INSERT INTO submissions(task_id, source_id, origin, created_at)"
                 " VALUES ('t', 's1', 'student', 'now')")
    conn.execute("INSERT INTO conversions(uid, submission_id, puml, content_hash, author,"
                 " author_kind, created_at) VALUES ('u', 1, 'class A', 'h', 'a', 'human', 'x')")
    # Version 3 updated a re-scored row in place: its id is old, its time is new.
    for rowid, embedder, value, when in ((1, "exact", 0.8, "2026-01-03"),
                                         (2, "minilm", 0.6, "2026-01-02")):
        conn.execute("INSERT INTO scores(id, submission_id, content_hash, metric, embedder,"
                     " value, created_at) VALUES (?, 1, 'h', 'clue', ?, ?, ?)",
                     (rowid, embedder, value, when))
    conn.close()
    with open_workspace(path) as ws:
        current = ws.current_scores()[1]["clue"]
        assert (current.value, current.config.embedder) == (0.8, "exact")  # the newest
        columns = [r[1] for r in ws._reader().execute("PRAGMA table_info(scores)")]
        assert {"profile", "normalization"} <= set(columns)
        assert ws.counts()["scores"] == 2


def test_probe_results_are_read_back_per_submission_and_rerun_replaces(ws) -> None:
    other = ws.write(lambda c: ops.ensure_submission(c, "t1", "bob", "student", None)[0])
    for em in (0.25, 0.75):  # the same probe, model and input: the rerun replaces the row
        ws.write(lambda c, em=em: ops.put_probe_result(
            c, ws.sid, "relations", "m1", "in1", em=em, rel_acc=None, result={"em": em}))
    ws.write(lambda c: ops.put_probe_result(c, other, "relations", "m1", "in2", em=0.0,
                                            rel_acc=0.5, result={}))
    mine = ws.probe_results(ws.sid)
    assert [(r["probe"], r["em"], r["result"]) for r in mine] == [
        ("relations", 0.75, '{"em": 0.75}')]
    assert sorted(r["submission_id"] for r in ws.probe_results()) == sorted([ws.sid, other])


def test_list_submissions_summarises_each_row(ws) -> None:
    ws.execute(SaveRating(ws.sid, "alice", SCORES))
    ws.execute(SetReviewVerdict(ws.sid, "carol", "accept"))
    (row,) = ws.list_submissions(task_id="t1")
    assert (row.source_id, row.ratings, row.verdicts, row.has_image) == (
        "alice", 1, ("accept",), False)


def test_rows_of_chosen_submissions_take_any_number_of_ids(ws) -> None:
    """The list refreshes only the rows a scoring chunk touched: the narrowed queries give
    exactly those, for more ids than SQLite binds as parameters (999 in older builds)."""
    def seed(conn: sqlite3.Connection) -> list[int]:
        return [ops.ensure_submission(conn, "t1", f"s{i:04d}", "student", None)[0]
                for i in range(1200)]

    ids = ws.write(seed)
    ws.execute(SaveRating(ids[5], "alice", SCORES))
    ws.execute(SaveRating(ids[6], "bob", SCORES))
    wanted = set(ids[:1100]) | {10**9}  # one id that does not exist
    assert {r.id for r in ws.list_submissions(submission_ids=wanted)} == set(ids[:1100])
    assert ws.list_submissions(submission_ids=[]) == []
    assert [r.source_id for r in ws.list_submissions(submission_ids=[ids[7]])] == ["s0007"]
    assert set(ws.ratings_by("alice", "class-diagram", wanted)) == {ids[5]}
    assert set(ws.ratings_by("alice", "class-diagram", [ids[6]])) == set()
    assert set(ws.ratings_by("bob", "class-diagram")) == {ids[6]}
    assert ws.latest_checks(submission_ids=wanted) == {}


def test_a_revision_too_large_to_parse_is_refused_and_nothing_is_stored(ws) -> None:
    from cluestudio.core.plantuml.parser import MAX_PARSE_BYTES

    huge = "@startuml\n" + "class A\n" * (MAX_PARSE_BYTES // 8) + "@enduml\n"
    with pytest.raises(CommandError, match=r"bytes; a revision may have at most"):
        ws.execute(SaveRevision(ws.sid, huge, "alice"))
    assert ws.revisions(ws.sid) == [] and ws.undo_stack.undo_label is None
    ws.execute(SaveRevision(ws.sid, "@startuml\nclass A\n@enduml\n", "alice"))
    assert len(ws.revisions(ws.sid)) == 1


def test_closed_workspace_refuses_work(tmp_path: Path) -> None:
    ws = open_workspace(tmp_path / "w.sqlite")
    ws.close()
    with pytest.raises(WorkspaceError, match="closed"):
        ws.tasks()
    with pytest.raises(WorkspaceError, match="closed"):
        ws.write(lambda c: None)
