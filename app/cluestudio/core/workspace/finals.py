"""Final grades of a workspace's submissions (the rule: core/final_grade.py).

Reads each submission's human ratings under its task's rubric, adds the point adjustments of
the comment-bank comments each rating uses, and the lead's adjudication, then applies the rule
once; every hand-back and summary calls :func:`final_grades`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cluestudio.core.final_grade import (
    FinalGrade,
    GraderTotal,
    adjusted_total,
    final_grade,
)
from cluestudio.core.rubric import RubricError, get_rubric, rubric_id_for_kind
from cluestudio.core.workspace.course_settings import course_settings
from cluestudio.core.workspace.ops import rows, stream_rows
from cluestudio.core.workspace.store import Workspace


@dataclass(frozen=True)
class GradedRating:
    """A human grader's rating as the final grade sees it."""

    grader: str
    scores: dict[str, float]
    total: float  # the rubric total
    adjusted: float  # with the bank comments' point adjustments
    comment: str


@dataclass(frozen=True)
class SubmissionGrade:
    submission_id: int
    task_id: str
    source_id: str
    rubric_id: str
    final: FinalGrade
    ratings: tuple[GradedRating, ...]
    adjudication: dict[str, Any] | None  # lead, scores, total, comment

    @property
    def comment(self) -> str:
        """The overall comment a student reads: the adjudicator's, else the graders'."""
        if self.adjudication and self.adjudication["comment"]:
            return str(self.adjudication["comment"])
        return "\n\n".join(r.comment for r in self.ratings if r.comment)


def _rubric_id(kind: str) -> str:
    try:
        return rubric_id_for_kind(kind)
    except RubricError:
        return ""


def bank_adjustments(ws: Workspace) -> dict[tuple[int, str, str], list[float]]:
    """(submission, grader, rubric) → the point adjustments of the bank comments it uses."""
    out: dict[tuple[int, str, str], list[float]] = {}
    for r in rows(ws._reader(), "SELECT c.submission_id, c.grader, c.rubric_id, b.points"
                  " FROM item_comments c JOIN comment_bank b ON b.uid = c.bank_uid"):
        out.setdefault((int(r["submission_id"]), r["grader"], r["rubric_id"]), []).append(
            float(r["points"]))
    return out


def final_grades(ws: Workspace, *, threshold: float | None = None
                 ) -> dict[int, SubmissionGrade]:
    """Every submission's final grade, by submission id (ungraded ones included)."""
    return {g.submission_id: g for g in iter_final_grades(ws, threshold=threshold)}


def iter_final_grades(ws: Workspace, *, threshold: float | None = None,
                      comments: bool = True) -> Iterator[SubmissionGrade]:
    """Each submission's final grade in task and source order, read a submission at a time
    (an export or the analysis of a large course never holds every rating); without the
    graders' ``comments`` when the caller shows none (issue 25)."""
    limit = course_settings(ws).final_grade_threshold if threshold is None else threshold
    conn = ws._reader()
    adjustments = bank_adjustments(ws)
    adjudicated = {(int(a["submission_id"]), a["rubric_id"]): a for a in rows(
        conn, "SELECT submission_id, rubric_id, lead, scores, total, comment"
              " FROM adjudications")}
    # Both in the same order (task, source: unique), walked side by side.
    rated = stream_rows(conn, "SELECT r.submission_id, r.grader, r.rubric_id, r.scores, r.total, "
                          + ("r.comment" if comments else "'' AS comment")
                          + " FROM ratings r JOIN submissions s ON s.id = r.submission_id"
                          " WHERE r.synthetic = 0 AND r.total IS NOT NULL"
                          " ORDER BY s.task_id, s.source_id, r.grader")
    pending = next(rated, None)
    for s in stream_rows(conn, "SELECT s.id, s.task_id, s.source_id, t.diagram_kind FROM"
                           " submissions s JOIN tasks t ON t.id = s.task_id"
                           " ORDER BY s.task_id, s.source_id"):
        sid = int(s["id"])
        rubric_id = _rubric_id(s["diagram_kind"])
        found: list[GradedRating] = []
        while pending is not None and int(pending["submission_id"]) == sid:
            r, pending = pending, next(rated, None)
            if r["rubric_id"] != rubric_id:
                continue
            extra = adjustments.get((sid, r["grader"], r["rubric_id"]), [])
            found.append(GradedRating(
                r["grader"], json.loads(r["scores"]), float(r["total"]),
                adjusted_total(float(r["total"]), extra, _total_max(r["rubric_id"])),
                r["comment"]))
        mine = tuple(found)
        adjudication = adjudicated.get((sid, rubric_id))
        final = final_grade([GraderTotal(r.grader, r.adjusted) for r in mine],
                            None if adjudication is None else float(adjudication["total"]),
                            threshold=limit)
        if adjudication is not None:
            adjudication = {**adjudication, "scores": json.loads(adjudication["scores"])}
        yield SubmissionGrade(sid, s["task_id"], s["source_id"], rubric_id, final, mine,
                              adjudication)



def _total_max(rubric_id: str) -> float:
    try:
        return get_rubric(rubric_id).total_max
    except RubricError:
        return 100.0


def final_rows(ws: Workspace) -> Iterator[dict[str, Any]]:
    """The tidy export's ``final`` table: one row per submission, graded or not."""
    return ({"task_id": g.task_id, "source_id": g.source_id, "rubric_id": g.rubric_id,
             "final": g.final.value, "basis": g.final.basis.value,
             "graders": ";".join(g.final.graders), "spread": g.final.spread}
            for g in iter_final_grades(ws, comments=False))
