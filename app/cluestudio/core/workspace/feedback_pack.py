"""Comments in packs: a grader's item comments and the course's comment bank travel with
their ratings, so a team's feedback comes back with the merge (core/workspace/pack.py).

Every pack carries the whole bank (a grader's own bank edits come back; the newer edit of a
bank comment wins) and the item comments of the packed ratings' grader. Each record is
checked before anything is merged, like the rest of a pack (pack_check.py).
"""

from __future__ import annotations

import math
import sqlite3
from typing import Any

from cluestudio.core.rubric import RubricError, get_rubric
from cluestudio.core.workspace import ops
from cluestudio.core.workspace.feedback import (
    MAX_COMMENT_CHARS,
    ORIGINS,
    insert_bank,
    insert_comment,
)
from cluestudio.core.workspace.report import Report


def pack_feedback(conn: sqlite3.Connection, key: dict[int, tuple[str, str]],
                  grader: str | None) -> dict[str, list[dict[str, Any]]]:
    bank = [{k: r[k] for k in ("uid", "rubric_id", "item_id", "text", "points", "created_at",
                               "updated_at")}
            for r in ops.rows(conn, "SELECT * FROM comment_bank ORDER BY id")]
    comments = [{"uid": r["uid"], "task_id": key[r["submission_id"]][0],
                 "source_id": key[r["submission_id"]][1], "grader": r["grader"],
                 "rubric_id": r["rubric_id"], "item_id": r["item_id"], "text": r["text"],
                 "bank_uid": r["bank_uid"], "origin": r["origin"],
                 "created_at": r["created_at"]}
                for r in ops.rows(conn, "SELECT * FROM item_comments ORDER BY id")
                if r["submission_id"] in key and (grader is None or r["grader"] == grader)]
    return {"comment_bank": bank, "item_comments": comments}


def _item_known(rubric_id: Any, item_id: Any) -> bool:
    try:
        get_rubric(str(rubric_id)).item(str(item_id))
    except (RubricError, KeyError):
        return False
    return True


def _text_ok(value: Any, empty: bool = False) -> bool:
    return isinstance(value, str) and (empty or bool(value.strip())) and \
        len(value) <= MAX_COMMENT_CHARS


def _key(record: dict[str, Any]) -> tuple[str, str] | None:
    """(task, source) of a record, or None when they are not text (a hostile pack can put
    a list there, which no set can hold)."""
    task, source = record.get("task_id"), record.get("source_id")
    return (task, source) if isinstance(task, str) and isinstance(source, str) else None


def check_feedback(data: Any, source: str, report: Report) -> None:
    """Report every malformed bank or item comment record of a pack."""
    if not isinstance(data, dict):
        return
    bank, comments = data.get("comment_bank", []), data.get("item_comments", [])
    if not isinstance(bank, list) or not isinstance(comments, list):
        report.error(source, "comment_bank and item_comments must be lists")
        return
    uids = set()
    for index, b in enumerate(bank):
        where = f"comment_bank[{index}]"
        if not isinstance(b, dict) or not all(isinstance(b.get(k), str) and b.get(k)
                                              for k in ("uid", "created_at", "updated_at")):
            report.error(source, f"{where}: not a bank comment")
            continue
        points = b.get("points")
        if not _item_known(b.get("rubric_id"), b.get("item_id")):
            report.error(source, f"{where}: unknown rubric item {b.get('item_id')!r}")
        elif not _text_ok(b.get("text")):
            report.error(source, f"{where}: empty or overlong text")
        elif (not isinstance(points, int | float) or isinstance(points, bool)
              or not math.isfinite(points) or abs(points) > 100):
            report.error(source, f"{where}: points must be a number within ±100")
        uids.add(b["uid"])
    subs = {_key(s) for s in data.get("submissions", []) if isinstance(s, dict)}
    for index, c in enumerate(comments):
        where = f"item_comments[{index}]"
        if not isinstance(c, dict) or not all(isinstance(c.get(k), str) and c.get(k) for k in
                                              ("uid", "grader", "created_at")):
            report.error(source, f"{where}: not an item comment")
        elif _key(c) is None or _key(c) not in subs:
            report.error(source, f"{where}: submission {c.get('task_id')}/"
                                 f"{c.get('source_id')} is not in the pack")
        elif not _item_known(c.get("rubric_id"), c.get("item_id")):
            report.error(source, f"{where}: unknown rubric item {c.get('item_id')!r}")
        elif c.get("origin") not in ORIGINS:
            report.error(source, f"{where}: origin must be one of {', '.join(ORIGINS)}")
        elif c.get("bank_uid") is not None and c.get("bank_uid") not in uids:
            report.error(source, f"{where}: uses bank comment {c.get('bank_uid')!r}, which "
                                 "the pack does not carry")
        elif not _text_ok(c.get("text"), empty=c.get("bank_uid") is not None):
            report.error(source, f"{where}: empty or overlong text")


def merge_feedback(conn: sqlite3.Connection, data: dict[str, Any], report: Report,
                   source: str = "") -> None:
    """Add the pack's bank (newer wording wins) and the item comments not yet known.

    A known bank comment keeps its local points: they change the grade of every rating that
    uses it, other graders' too, and a pack's dates are the sender's word (issue 25). A pack
    that differs is a conflict in the report; the lead changes points in their workspace."""
    for b in data.get("comment_bank", []):
        local = ops.row(conn, "SELECT text, points, updated_at FROM comment_bank WHERE uid = ?",
                        (b["uid"],))
        points = float(b["points"])
        if local is None:
            report.counts["bank_comments_added"] += 1
        else:
            if points != float(local["points"]):
                report.counts["bank_points_conflicting"] += 1
                report.conflicts.append({
                    "kind": "bank comment", "source": source, "uid": b["uid"],
                    "item_id": b["item_id"], "local_points": float(local["points"]),
                    "pack_points": points,
                    "message": "a pack may not change a bank comment's points; kept local"})
                points = float(local["points"])
            newer = b["updated_at"] > local["updated_at"]
            key = ("bank_comments_changed" if newer and b["text"] != local["text"]
                   else "bank_comments_same")
            report.counts[key] += 1
        insert_bank(conn, {**b, "points": points})
    for c in data.get("item_comments", []):
        if ops.row(conn, "SELECT id FROM item_comments WHERE uid = ?", (c["uid"],)):
            report.counts["item_comments_same"] += 1
            continue
        found = ops.row(conn, "SELECT id FROM submissions WHERE task_id = ? AND source_id = ?",
                        (c["task_id"], c["source_id"]))
        assert found is not None  # checked: the pack defines it, merged before this
        insert_comment(conn, {**c, "submission_id": int(found["id"])})
        report.counts["item_comments_added"] += 1
