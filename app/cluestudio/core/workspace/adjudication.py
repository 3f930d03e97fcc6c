"""The adjudication queue and the lead grader's final rating (issue 27).

Where two or more graders rated a submission and their totals lie further apart than the
course's threshold, the final grade waits (core/final_grade.py). The queue lists those
submissions with every rating and comment side by side; :class:`Adjudicate` records the
lead's rating, which becomes the final grade. It is an undoable command like a rating.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cluestudio.core.final_grade import Basis
from cluestudio.core.rubric import get_rubric, rubric_id_for_kind
from cluestudio.core.workspace import ops
from cluestudio.core.workspace.commands import Changes, CommandError
from cluestudio.core.workspace.finals import GradedRating, final_grades
from cluestudio.core.workspace.records import now_iso
from cluestudio.core.workspace.store import Workspace

ADJUDICATION_COLUMNS = ("submission_id", "rubric_id", "lead", "scores", "total", "comment",
                        "created_at")


@dataclass(frozen=True)
class QueueEntry:
    submission_id: int
    task_id: str
    source_id: str
    rubric_id: str
    spread: float
    ratings: tuple[GradedRating, ...]
    item_comments: dict[str, dict[str, list[str]]]  # grader → item → comments


def adjudication_queue(ws: Workspace, *, threshold: float | None = None) -> list[QueueEntry]:
    """Submissions whose graders differ by more than the threshold and that no lead has
    settled yet, the widest disagreement first."""
    from cluestudio.core.workspace.feedback import item_comments

    out = []
    for grade in final_grades(ws, threshold=threshold).values():
        if grade.final.basis is not Basis.NEEDS_ADJUDICATION:
            continue
        comments: dict[str, dict[str, list[str]]] = {}
        for comment in item_comments(ws, grade.submission_id):
            comments.setdefault(comment.grader, {}).setdefault(comment.item_id, []).append(
                comment.text)
        out.append(QueueEntry(grade.submission_id, grade.task_id, grade.source_id,
                              grade.rubric_id, grade.final.spread or 0.0, grade.ratings,
                              comments))
    return sorted(out, key=lambda e: (-e.spread, e.task_id, e.source_id))


class Adjudicate:
    """Record the lead grader's final rating of a submission: item scores, a total, or both
    (a grader's rating taken as it is: its items, and its total with bank adjustments)."""

    def __init__(self, submission_id: int, lead: str, *,
                 scores: Mapping[str, float] | None = None, total: float | None = None,
                 comment: str = "", rubric_id: str | None = None) -> None:
        if scores is None and total is None:
            raise CommandError("an adjudication gives item scores, a total, or both")
        self.submission_id, self.lead, self.comment = submission_id, lead, comment
        self.raw_scores, self.raw_total, self.rubric_id = scores, total, rubric_id
        self.label = f"Adjudicate submission {submission_id}"
        self._before: dict[str, Any] | None = None
        self._values: dict[str, Any] | None = None

    def _values_for(self, conn: sqlite3.Connection) -> dict[str, Any]:
        found = ops.row(conn, "SELECT t.diagram_kind FROM submissions s JOIN tasks t"
                              " ON t.id = s.task_id WHERE s.id = ?", (self.submission_id,))
        if found is None:
            raise CommandError(f"no submission with id {self.submission_id}")
        rubric = get_rubric(self.rubric_id or rubric_id_for_kind(found["diagram_kind"]))
        scores = {} if self.raw_scores is None else rubric.validate(self.raw_scores)
        total = (rubric.total(scores) if self.raw_total is None
                 else rubric.validate_total(float(self.raw_total)))
        return {"submission_id": self.submission_id, "rubric_id": rubric.id,
                "lead": self.lead, "scores": json.dumps(scores, sort_keys=True),
                "total": total, "comment": self.comment, "created_at": now_iso()}

    def do(self, conn: sqlite3.Connection) -> Changes:
        if self._values is None:
            self._values = self._values_for(conn)
        values = self._values
        self._before = ops.row(conn, "SELECT * FROM adjudications WHERE submission_id = ? AND"
                                     " rubric_id = ?", (self.submission_id, values["rubric_id"]))
        _put(conn, values)
        ops.audit(conn, self.lead, "adjudicate", "adjudication", self.submission_id,
                  self._before, values)
        return Changes(self.label, ratings=frozenset({self.submission_id}),
                       result=values["total"])

    def undo(self, conn: sqlite3.Connection) -> Changes:
        assert self._values is not None
        if self._before is None:
            conn.execute("DELETE FROM adjudications WHERE submission_id = ? AND rubric_id = ?",
                         (self.submission_id, self._values["rubric_id"]))
        else:
            _put(conn, self._before)
        ops.audit(conn, self.lead, "undo_adjudicate", "adjudication", self.submission_id,
                  self._values, self._before)
        return Changes(f"Undo {self.label.lower()}", ratings=frozenset({self.submission_id}))


def _put(conn: sqlite3.Connection, values: Mapping[str, Any]) -> None:
    conn.execute(
        f"INSERT INTO adjudications({', '.join(ADJUDICATION_COLUMNS)}) VALUES"
        f" ({', '.join('?' for _ in ADJUDICATION_COLUMNS)}) ON CONFLICT(submission_id,"
        " rubric_id) DO UPDATE SET lead=excluded.lead, scores=excluded.scores,"
        " total=excluded.total, comment=excluded.comment, created_at=excluded.created_at",
        tuple(values[c] for c in ADJUDICATION_COLUMNS))
