"""The element diff of a workspace submission: its revision against its task's reference,
from the explanation stored with the CLUE score of exactly that text when there is one
(the configuration the user scored with), computed otherwise; and the coloured copy of the
revision's PlantUML. The pure algorithms are core's (:mod:`cluestudio.core.diff`); this
module reads the workspace and runs in the window's worker process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cluestudio.core.diff import (
    Annotation,
    DiagramDiff,
    DiffThresholds,
    annotate,
    diff_from_explanation,
    diff_texts,
)
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import Workspace, kinds
from cluestudio.core.workspace.ops import text_hash


class DiffUnavailable(ClueStudioError):
    """No element diff for this submission (not a class task, no PlantUML, no reference)."""


@dataclass(frozen=True)
class SubmissionDiff:
    """What the element-diff view shows for one submission's revision."""

    submission_id: int
    revision_id: int
    reference_text: str
    candidate_text: str
    diff: DiagramDiff
    annotated: Annotation  # the coloured candidate PlantUML


def stored_explanation(ws: Workspace, submission_id: int, text: str
                       ) -> tuple[dict[str, Any], str] | None:
    """(explanation, configuration label) of the newest ``clue`` score of exactly ``text``
    of this submission, or None when that text was never scored (or has no explanation)."""
    found = ws.scored_explanation(submission_id, text_hash(text), "clue")
    if found is None:
        return None
    raw, label = found
    try:
        explanation = json.loads(raw or "{}")
    except ValueError:
        return None
    if not isinstance(explanation, dict) or "classes" not in explanation:
        return None
    return explanation, label


def submission_diff(ws: Workspace, submission_id: int, *, revision_id: int | None = None,
                    embedder: str = "exact", thresholds: DiffThresholds | None = None,
                    legend: bool = True, members: bool = True) -> SubmissionDiff:
    """The element diff of a submission's revision (the head, i.e. image B, by default)
    against its task's reference, and the coloured copy of that revision's PlantUML.

    Uses the explanation stored with the CLUE score of that very text when there is one (the
    configuration the user scored with); computes one with ``embedder`` otherwise.
    Raises :class:`DiffUnavailable` for tasks that are not class diagrams, a task without a
    PlantUML reference, a submission without that revision; PlantUMLSyntaxError when a text
    does not parse.
    """
    submission = ws.submission(submission_id)
    if submission is None:
        raise DiffUnavailable(f"no submission {submission_id}")
    task = ws.task(submission.task_id)
    if task is None or not kinds.uses_class_parser(task.diagram_kind):
        kind = task.diagram_kind if task else "?"
        raise DiffUnavailable(f"the element diff compares class diagrams; task "
                              f"{submission.task_id!r} is a {kind} task")
    if not task.reference_puml.strip():
        raise DiffUnavailable(f"task {task.id!r} has no PlantUML reference to compare with")
    revisions = ws.revisions(submission_id)
    chosen = [r for r in revisions if revision_id is None or r.id == revision_id]
    if not chosen:
        raise DiffUnavailable(f"submission {submission_id} has no revision "
                              f"{revision_id if revision_id is not None else '(no PlantUML yet)'}")
    revision = chosen[-1]
    stored = stored_explanation(ws, submission_id, revision.puml)
    if stored is not None:
        diff = diff_from_explanation(stored[0], thresholds, origin="stored",
                                     configuration=stored[1])
    else:
        diff = diff_texts(task.reference_puml, revision.puml, embedder=embedder,
                          thresholds=thresholds)
    annotated = annotate(revision.puml, diff, legend=legend, members=members)
    return SubmissionDiff(submission_id, revision.id, task.reference_puml, revision.puml, diff,
                          annotated)


def diff_against(reference_text: str, candidate_text: str, *, embedder: str = "exact",
                 thresholds: DiffThresholds | None = None, legend: bool = True,
                 members: bool = True) -> tuple[DiagramDiff, Annotation]:
    """(diff, annotation) of any two texts: e.g. a group member against its representative,
    or an unsaved edit against the reference."""
    diff = diff_texts(reference_text, candidate_text, embedder=embedder, thresholds=thresholds)
    return diff, annotate(candidate_text, diff, legend=legend, members=members)


def submission_diff_job(workspace: str, submission_id: int, *, cancel: Any, emit: Any,
                        revision_id: int | None = None, embedder: str = "exact",
                        ) -> SubmissionDiff:
    """:func:`submission_diff` in the window's worker process, on a read-only view of the
    workspace file (the window keeps the writer); the result is plain picklable data."""
    from cluestudio.core.workspace import open_workspace

    cancel.raise_if_cancelled()
    ws = open_workspace(workspace, readonly=True)
    try:
        return submission_diff(ws, submission_id, revision_id=revision_id, embedder=embedder)
    finally:
        ws.close()
