"""Head revision and "already scored", defined once (core/workspace/heads.py): every reader
that once spelled its own SQL agrees on a workspace where the newest timestamp, the order of
the ids and an undone revision would each tell a different story."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app.scoring import ScoringOptions, ScoringPlan
from cluestudio.core.workspace import SaveRevision, SetReviewVerdict, Task, open_workspace, ops
from cluestudio.core.workspace.ops import text_hash

EXACT = ScoringOptions(embedder="exact", device="cpu")
X = "@startuml\nclass X\n@enduml"
Y = "@startuml\nclass Y\n@enduml"
P = "@startuml\nclass P\n@enduml"
Q = "@startuml\nclass Q\n@enduml"
NOON = "2024-05-01T12:00:00+00:00"


@pytest.fixture
def ws(tmp_path: Path) -> Any:
    workspace = open_workspace(tmp_path / "heads.sqlite")

    def seed(conn: sqlite3.Connection) -> dict[str, Any]:
        ops.upsert_task(conn, Task("t1", "Task one", "req", X))
        conn.execute("INSERT INTO blobs(hash, mime, width, height, size, data)"
                     " VALUES ('img', 'image/png', 1, 1, 1, x'00')")
        sid = {name: ops.ensure_submission(conn, "t1", name, "student", "img")[0]
               for name in ("same_second", "undone", "none", "single")}
        # two revisions in one second, then the first text again from a pack written on a
        # machine whose clock was behind: the head is the last stored, not the newest stamp
        first, _ = ops.add_revision(conn, sid["same_second"], X, "a", "human", created_at=NOON)
        second, _ = ops.add_revision(conn, sid["same_second"], Y, "a", "human", first,
                                     created_at=NOON)
        third, _ = ops.add_revision(conn, sid["same_second"], X, "pack", "import", second,
                                    created_at="2023-01-01T00:00:00+00:00")
        kept, _ = ops.add_revision(conn, sid["undone"], P, "a", "human", created_at=NOON)
        single, _ = ops.add_revision(conn, sid["single"], Q, "a", "model")
        return {"sid": sid, "head": {sid["same_second"]: third, sid["undone"]: kept,
                                     sid["single"]: single},
                "older": {sid["same_second"]: (first, second), sid["undone"]: ()}}

    workspace.seeded = workspace.write(seed)
    # a revision saved and undone: its row is deleted, the head falls back to its parent
    workspace.execute(SaveRevision(workspace.seeded["sid"]["undone"], Q, "a"))
    workspace.undo()
    yield workspace
    workspace.close()


def _expected(ws: Any) -> tuple[dict[int, int], dict[int, str]]:
    heads: dict[int, int] = ws.seeded["head"]
    texts = {sid: ws._reader().execute("SELECT puml FROM conversions WHERE id = ?",
                                       (rid,)).fetchone()[0] for sid, rid in heads.items()}
    return heads, texts


def test_every_reader_names_the_same_head_revision(ws: Any) -> None:
    heads, texts = _expected(ws)
    none = ws.seeded["sid"]["none"]
    assert texts[ws.seeded["sid"]["same_second"]] == X  # the pack's, not Y of the same second

    listed = {s.id: s.head_revision_id for s in ws.list_submissions()}
    assert listed == {**heads, none: None}
    assert {sid: ws.head_revision(sid).id for sid in heads} == heads
    assert ws.head_revision(none) is None
    assert ws.head_revisions() == texts
    assert ws.head_revisions([none, *heads]) == texts
    assert ws.head_hashes() == {sid: text_hash(t) for sid, t in texts.items()}


def test_current_scores_and_latest_checks_follow_the_head(ws: Any) -> None:
    heads, texts = _expected(ws)

    def store(conn: sqlite3.Connection) -> None:
        for sid, rid in heads.items():
            for old in (rid, *ws.seeded["older"].get(sid, ())):
                # the older revisions are checked and scored last: the newest row of each
                # belongs to a text that is not the head's
                ops.put_check_result(conn, sid, old, "img", {
                    "version": "1", "engine": "e", "triage": float(old), "flagged": False})
                puml = conn.execute("SELECT puml FROM conversions WHERE id = ?",
                                    (old,)).fetchone()[0]
                ops.put_score(conn, sid, text_hash(puml), "clue", float(old))

    ws.write(store)
    current = ws.current_scores()
    assert {sid: s["clue"].content_hash for sid, s in current.items()} == {
        sid: text_hash(t) for sid, t in texts.items()}
    assert {sid: c["conversion_id"] for sid, c in ws.latest_checks().items()} == heads


def test_commands_default_to_the_head(ws: Any) -> None:
    heads, _ = _expected(ws)
    for sid, rid in heads.items():
        ws.execute(SetReviewVerdict(sid, "rev", "accept"))
        assert ws.reviews(sid)[0].conversion_id == rid
        new = ws.execute(SaveRevision(sid, f"@startuml\nclass N{sid}\n@enduml", "a")).result
        saved = ws.revisions(sid)[-1]
        assert (saved.id, saved.parent_id) == (new, rid)
        assert ws.head_revision(sid).id == new


def test_scoring_plan_reads_the_head_and_skips_only_what_is_already_scored(ws: Any) -> None:
    heads, texts = _expected(ws)
    items = list(ScoringPlan(ws, EXACT))
    assert {i.submission_id: (i.content_hash, i.candidate) for i in items} == {
        sid: (text_hash(t), t) for sid, t in texts.items()}

    same, undone = ws.seeded["sid"]["same_second"], ws.seeded["sid"]["undone"]
    config = {"embedder": EXACT.embedder_id(), "profile": EXACT.profile,
              "normalization": EXACT.normalization,
              "weights_hash": EXACT.weights().fingerprint()}

    def store(conn: sqlite3.Connection) -> None:
        # same_second: its head text (X) scored with these options → already scored
        ops.put_score(conn, same, text_hash(X), "clue", 0.5, **config)
        # undone: only the undone revision's text (Q) scored → its head (P) is not
        ops.put_score(conn, undone, text_hash(Q), "clue", 0.5, **config)
        # single: its head scored, but with another embedder → not scored with these options
        ops.put_score(conn, ws.seeded["sid"]["single"], text_hash(Q), "clue", 0.5,
                      **{**config, "embedder": "other"})

    ws.write(store)
    assert ws.already_scored(**config) == {same}
    plan = ScoringPlan(ws, EXACT, only_missing=True)
    assert {i.submission_id for i in plan} == set(heads) - {same}
    assert plan.summary.skipped == 1
    assert ws.already_scored(**config, submission_ids=[undone]) == set()
