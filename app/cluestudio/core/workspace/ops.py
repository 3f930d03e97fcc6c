"""Low-level writes, each run inside a transaction the caller opened on the writer thread.

Import, pack merge and the undoable commands compose these, so a whole import is one
transaction and an undo restores exactly the row a command replaced.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import Iterator
from typing import Any

from cluestudio.core.workspace.images import CheckedImage
from cluestudio.core.workspace.records import Task, now_iso


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_status(puml: str) -> tuple[bool | None, str | None]:
    """(parsed?, error) for a PlantUML text; (None, None) while no parser is installed."""
    try:
        from cluestudio.core.plantuml import parse_plantuml
    except ImportError:
        return None, None
    from cluestudio.core.errors import ClueStudioError

    try:
        parse_plantuml(puml)
    except ClueStudioError as error:
        return False, str(error)
    except Exception as error:  # a parser bug must not lose the student's text
        return False, f"parser failed: {error!r}"
    return True, None


def row(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
    cursor = conn.execute(sql, params)
    found = cursor.fetchone()
    if found is None:
        return None
    return dict(zip([c[0] for c in cursor.description], found, strict=True))


def rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [c[0] for c in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def stream_rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()
                ) -> Iterator[dict[str, Any]]:
    """:func:`rows`, read a batch at a time: memory follows the batch, not the table."""
    cursor = conn.execute(sql, params)
    names = [c[0] for c in cursor.description]
    while batch := cursor.fetchmany(500):
        for values in batch:
            yield dict(zip(names, values, strict=True))


def put_blob(conn: sqlite3.Connection, image: CheckedImage) -> str:
    conn.execute(
        "INSERT OR IGNORE INTO blobs(hash, mime, width, height, size, data) VALUES (?,?,?,?,?,?)",
        (image.hash, image.mime, image.width, image.height, len(image.data), image.data))
    return image.hash


def upsert_task(conn: sqlite3.Connection, task: Task) -> str:
    """'added', 'updated' or 'unchanged'."""
    old = row(conn, "SELECT * FROM tasks WHERE id = ?", (task.id,))
    values = (task.title, task.requirement, task.reference_puml, task.reference_image,
              task.diagram_kind)
    if old is None:
        conn.execute("INSERT INTO tasks(id, title, requirement, reference_puml, reference_image,"
                     " diagram_kind, created_at) VALUES (?,?,?,?,?,?,?)",
                     (task.id, *values, now_iso()))
        return "added"
    if (old["title"], old["requirement"], old["reference_puml"], old["reference_image"],
            old["diagram_kind"]) == values:
        return "unchanged"
    conn.execute("UPDATE tasks SET title=?, requirement=?, reference_puml=?, reference_image=?,"
                 " diagram_kind=? WHERE id=?", (*values, task.id))
    return "updated"


def ensure_submission(conn: sqlite3.Connection, task_id: str, source_id: str, origin: str,
                      image_hash: str | None, meta: dict[str, Any] | None = None
                      ) -> tuple[int, str]:
    """(submission id, 'added' | 'updated' | 'unchanged'), keyed by (task, source id)."""
    meta_text = json.dumps(meta or {}, sort_keys=True)
    old = row(conn, "SELECT id, origin, image_hash, meta FROM submissions "
                    "WHERE task_id = ? AND source_id = ?", (task_id, source_id))
    if old is None:
        cursor = conn.execute(
            "INSERT INTO submissions(task_id, source_id, origin, image_hash, meta, created_at)"
            " VALUES (?,?,?,?,?,?)", (task_id, source_id, origin, image_hash, meta_text, now_iso()))
        return int(cursor.lastrowid or 0), "added"
    if (old["origin"], old["image_hash"], old["meta"]) == (origin, image_hash, meta_text):
        return int(old["id"]), "unchanged"
    conn.execute("UPDATE submissions SET origin=?, image_hash=?, meta=? WHERE id=?",
                 (origin, image_hash, meta_text, old["id"]))
    return int(old["id"]), "updated"


def add_revision(conn: sqlite3.Connection, submission_id: int, puml: str, author: str,
                 author_kind: str, parent_id: int | None = None, *, uid: str | None = None,
                 created_at: str | None = None, dedupe: bool = False) -> tuple[int, bool]:
    """(revision id, added?). ``dedupe`` reuses an existing revision with the same text."""
    digest = text_hash(puml)
    if dedupe:
        old = row(conn, "SELECT id FROM conversions WHERE submission_id = ? AND content_hash = ?",
                  (submission_id, digest))
        if old is not None:
            return int(old["id"]), False
    ok, error = parse_status(puml) if _class_task(conn, submission_id) else (None, None)
    cursor = conn.execute(
        "INSERT INTO conversions(uid, submission_id, parent_id, puml, content_hash, author,"
        " author_kind, parse_ok, parse_error, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (uid or uuid.uuid4().hex, submission_id, parent_id, puml, digest, author, author_kind,
         None if ok is None else int(ok), error, created_at or now_iso()))
    return int(cursor.lastrowid or 0), True


def _class_task(conn: sqlite3.Connection, submission_id: int) -> bool:
    """Whether the submission's task is a class diagram: only those get the class parser's
    verdict; a component or SysML text is not a broken class diagram (parse_ok stays NULL)."""
    found = row(conn, "SELECT t.diagram_kind FROM submissions s JOIN tasks t ON t.id = s.task_id"
                      " WHERE s.id = ?", (submission_id,))
    return found is None or found["diagram_kind"] == "class"


RATING_COLUMNS = ("uid", "submission_id", "grader", "rubric_id", "scores", "total", "comment",
                  "seconds", "synthetic", "created_at", "group_key", "group_from")
#: The group-applied mark of a rating (schema v6); absent from older packs and callers.
RATING_GROUP_COLUMNS = ("group_key", "group_from")


def get_rating(conn: sqlite3.Connection, submission_id: int, grader: str, rubric_id: str
               ) -> dict[str, Any] | None:
    return row(conn, "SELECT * FROM ratings WHERE submission_id=? AND grader=? AND rubric_id=?",
               (submission_id, grader, rubric_id))


def put_rating(conn: sqlite3.Connection, values: dict[str, Any]) -> None:
    """Insert or replace the rating of (submission, grader, rubric). A rating written without
    a group mark (``group_key``/``group_from`` absent or None) is an individual one."""
    cols = ", ".join(RATING_COLUMNS)
    marks = ", ".join("?" for _ in RATING_COLUMNS)
    updates = ", ".join(f"{c}=excluded.{c}" for c in RATING_COLUMNS
                        if c not in ("submission_id", "grader", "rubric_id"))
    conn.execute(f"INSERT INTO ratings({cols}) VALUES ({marks}) ON CONFLICT"
                 f"(submission_id, grader, rubric_id) DO UPDATE SET {updates}",
                 tuple(values.get(c) if c in RATING_GROUP_COLUMNS else values[c]
                       for c in RATING_COLUMNS))


def delete_rating(conn: sqlite3.Connection, submission_id: int, grader: str, rubric_id: str
                  ) -> None:
    conn.execute("DELETE FROM ratings WHERE submission_id=? AND grader=? AND rubric_id=?",
                 (submission_id, grader, rubric_id))


REVIEW_COLUMNS = ("submission_id", "conversion_id", "reviewer", "verdict", "tags", "comment",
                  "created_at")


def get_review(conn: sqlite3.Connection, submission_id: int, reviewer: str
               ) -> dict[str, Any] | None:
    return row(conn, "SELECT * FROM reviews WHERE submission_id=? AND reviewer=?",
               (submission_id, reviewer))


def put_review(conn: sqlite3.Connection, values: dict[str, Any]) -> None:
    cols = ", ".join(REVIEW_COLUMNS)
    marks = ", ".join("?" for _ in REVIEW_COLUMNS)
    updates = ", ".join(f"{c}=excluded.{c}" for c in REVIEW_COLUMNS
                        if c not in ("submission_id", "reviewer"))
    conn.execute(f"INSERT INTO reviews({cols}) VALUES ({marks}) ON CONFLICT"
                 f"(submission_id, reviewer) DO UPDATE SET {updates}",
                 tuple(values[c] for c in REVIEW_COLUMNS))


def delete_review(conn: sqlite3.Connection, submission_id: int, reviewer: str) -> None:
    conn.execute("DELETE FROM reviews WHERE submission_id=? AND reviewer=?",
                 (submission_id, reviewer))


def put_score(conn: sqlite3.Connection, submission_id: int, content_hash: str, metric: str,
              value: float | None, *, metric_version: str = "", embedder: str = "",
              profile: str = "", normalization: str = "", weights_hash: str = "",
              explanation: dict[str, Any] | None = None) -> None:
    """Store a metric score of one text under one configuration. Scoring it again writes a
    new row (the old one goes), so row ids follow computation order: the newest row of the
    head revision's text is the current score (core/workspace/scores.py)."""
    key = (submission_id, content_hash, metric, metric_version, embedder, profile,
           normalization, weights_hash)
    conn.execute("DELETE FROM scores WHERE submission_id=? AND content_hash=? AND metric=?"
                 " AND metric_version=? AND embedder=? AND profile=? AND normalization=?"
                 " AND weights_hash=?", key)
    conn.execute(
        "INSERT INTO scores(submission_id, content_hash, metric, metric_version, embedder,"
        " profile, normalization, weights_hash, value, explanation, created_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (*key, value, json.dumps(explanation or {}, sort_keys=True), now_iso()))


def put_probe_result(conn: sqlite3.Connection, submission_id: int, probe: str, model: str,
                     input_hash: str, *, em: float | None, rel_acc: float | None,
                     result: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO probe_results(submission_id, probe, model, input_hash, em, rel_acc, result,"
        " created_at) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(submission_id, probe, model,"
        " input_hash) DO UPDATE SET em=excluded.em, rel_acc=excluded.rel_acc,"
        " result=excluded.result, created_at=excluded.created_at",
        (submission_id, probe, model, input_hash, em, rel_acc, json.dumps(result), now_iso()))


def put_check_result(conn: sqlite3.Connection, submission_id: int, conversion_id: int,
                     image_hash: str, report: dict[str, Any]) -> None:
    """Store an offline conversion check (a ``CheckReport.to_dict()``); checking the same
    revision, image, check version and engine again replaces the earlier row."""
    counts = report.get("counts", {})
    conn.execute(
        "INSERT INTO check_results(submission_id, conversion_id, image_hash, check_version,"
        " engine, triage, flagged, text_recall, name_precision, missing, invented, result,"
        " created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(submission_id,"
        " conversion_id, image_hash, check_version, engine) DO UPDATE SET"
        " triage=excluded.triage, flagged=excluded.flagged, text_recall=excluded.text_recall,"
        " name_precision=excluded.name_precision, missing=excluded.missing,"
        " invented=excluded.invented, result=excluded.result, created_at=excluded.created_at",
        (submission_id, conversion_id, image_hash, str(report["version"]),
         str(report["engine"]), float(report["triage"]), int(bool(report["flagged"])),
         report.get("text_recall"), report.get("name_precision"),
         int(counts.get("missing", 0)), int(counts.get("invented", 0)),
         json.dumps(report, ensure_ascii=False), now_iso()))


def put_audit_result(conn: sqlite3.Connection, record: dict[str, Any]) -> None:
    """Store one prior-bias audit answer (a record of ``cluestudio.core.vlm.audit``).

    The key is (model, prompt version, seed, instance, condition, relation, scale); asking
    the same item again replaces the earlier answer.
    """
    em, correct = record.get("em"), record.get("correct")
    conn.execute(
        "INSERT INTO audit_results(model, prompt_version, seed, instance_id, condition,"
        " relation, scale, em, correct, record, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT(model, prompt_version, seed, instance_id, condition, relation, scale)"
        " DO UPDATE SET em=excluded.em, correct=excluded.correct, record=excluded.record,"
        " created_at=excluded.created_at",
        (str(record["model"]), str(record["prompt_version"]), int(record["seed"]),
         str(record["instance_id"]), str(record["condition"]), str(record["relation"]),
         float(record["scale"]), None if em is None else int(bool(em)),
         None if correct is None else int(bool(correct)),
         json.dumps(record, ensure_ascii=False, sort_keys=True),
         str(record.get("created_at") or now_iso())))


def audit(conn: sqlite3.Connection, actor: str, action: str, entity: str, entity_id: object,
          before: Any = None, after: Any = None) -> None:
    conn.execute(
        "INSERT INTO audit_log(at, actor, action, entity, entity_id, before, after)"
        " VALUES (?,?,?,?,?,?,?)",
        (now_iso(), actor, action, entity, str(entity_id),
         None if before is None else json.dumps(before, default=str),
         None if after is None else json.dumps(after, default=str)))
