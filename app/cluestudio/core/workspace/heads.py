"""A submission's head revision and what is already scored: each defined once, here.

**The head revision of a submission is its conversion with the greatest id**: the one
written last. Not the newest ``created_at``: two revisions saved in the same second carry
the same timestamp, and a pack brings in revisions with the timestamps of the machine that
wrote them, while ids follow the order this workspace stored them. Undoing a saved
revision deletes its row, so the head falls back to the revision before it. A submission
without a conversion has no head.

**A submission is already scored with a configuration when its head revision's text holds
a score computed with it**: for class-diagram tasks a CLUE value under the same embedder,
similarity profile, normalization and weights fingerprint (the metric version is not part
of it: a new engine version re-scores only when asked to); for tasks of any other kind, a
value of any metric (their metrics have no configuration).

Every reader (the submission list, ``head_revision``, the current scores, the latest
checks, the commands' default parent, the scoring plan) takes its SQL from this module.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from typing import Any

# ``h`` and ``head_of`` are this module's aliases; callers' queries may use any other.


def head_id_sql(submission_column: str) -> str:
    """An SQL expression: the id of the head revision of the submission whose id is in
    ``submission_column`` (a column of the caller's query, or ``?``)."""
    return (f"(SELECT max(head_of.id) FROM conversions head_of"
            f" WHERE head_of.submission_id = {submission_column})")


#: A table expression of every submission's head revision (all columns of ``conversions``),
#: to join as ``JOIN ({HEADS}) h ON h.submission_id = ...``.
HEADS = f"SELECT h.* FROM conversions h WHERE h.id = {head_id_sql('h.submission_id')}"

# a list of ids passed as one JSON parameter: no limit on how many (SQLite caps bound
# parameters, at 999 in older builds), and one cached statement for any length
ID_LIST = "(SELECT value FROM json_each(?))"


def ids_json(ids: Collection[int]) -> str:
    """The parameter of :data:`ID_LIST`."""
    return json.dumps(sorted({int(i) for i in ids}))


def _only(ids: Collection[int] | None, column: str) -> tuple[str, list[str]]:
    if ids is None:
        return "", []
    return f" AND {column} IN {ID_LIST}", [ids_json(ids)]


def head_revision_id(conn: sqlite3.Connection, submission_id: int) -> int | None:
    """The id of the submission's head revision, or None when it has none."""
    found = conn.execute(f"SELECT {head_id_sql('?')}", (submission_id,)).fetchone()
    return None if found is None or found[0] is None else int(found[0])


def head_row(conn: sqlite3.Connection, submission_id: int) -> dict[str, Any] | None:
    """The ``conversions`` row of the submission's head revision, or None."""
    cursor = conn.execute(f"SELECT * FROM conversions WHERE id = {head_id_sql('?')}",
                          (submission_id,))
    found = cursor.fetchone()
    # a plain dict like ops.row gives (this module imports nothing of the workspace: every
    # reader stands on it)
    return None if found is None else dict(zip([c[0] for c in cursor.description], found,
                                                strict=True))


def head_hashes(conn: sqlite3.Connection, submission_ids: Collection[int] | None = None
                ) -> dict[int, str]:
    """submission id → the content hash of its head revision, without reading the texts."""
    if submission_ids is not None and not submission_ids:
        return {}
    only, params = _only(submission_ids, "h.submission_id")
    return {int(sid): digest for sid, digest in conn.execute(
        f"SELECT h.submission_id, h.content_hash FROM ({HEADS}) h WHERE 1{only}", params)}


def head_texts(conn: sqlite3.Connection, submission_ids: Collection[int] | None = None
               ) -> dict[int, str]:
    """submission id → the PlantUML text of its head revision."""
    if submission_ids is not None and not submission_ids:
        return {}
    only, params = _only(submission_ids, "h.submission_id")
    return {int(sid): puml for sid, puml in conn.execute(
        f"SELECT h.submission_id, h.puml FROM ({HEADS}) h WHERE 1{only}", params)}


def already_scored(conn: sqlite3.Connection, *, embedder: str, profile: str,
                   normalization: str, weights_hash: str,
                   submission_ids: Collection[int] | None = None) -> set[int]:
    """The submissions whose head revision is already scored with this configuration (see
    the module docstring): the ones a "score what is missing" run skips."""
    if submission_ids is not None and not submission_ids:
        return set()
    only, params = _only(submission_ids, "h.submission_id")
    found = conn.execute(
        f"SELECT DISTINCT h.submission_id FROM ({HEADS}) h"
        " JOIN submissions u ON u.id = h.submission_id JOIN tasks t ON t.id = u.task_id"
        " JOIN scores s ON s.submission_id = h.submission_id"
        " AND s.content_hash = h.content_hash"
        " WHERE (t.diagram_kind != 'class' OR (s.metric = 'clue' AND s.embedder = ?"
        " AND s.profile = ? AND s.normalization = ? AND s.weights_hash = ?))" + only,
        [embedder, profile, normalization, weights_hash, *params])
    return {int(sid) for (sid,) in found}
