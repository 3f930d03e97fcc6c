"""Comments the element diff suggests, for a grader to accept or reject (issue 27).

"Missing class Payment", "Relation Order -- LineItem: composition in the reference": each
element the diff finds missing, extra or partly matched becomes a suggestion on the rubric
item it concerns. A suggestion is only a proposal: it reaches a student once a grader accepts
it (stored as an item comment with origin ``suggestion``, core/workspace/feedback.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from cluestudio.app.diagram_diff import DiffUnavailable, submission_diff
from cluestudio.core.diff import DiagramDiff, Status
from cluestudio.core.rubric import get_rubric, rubric_id_for_kind
from cluestudio.core.workspace import Workspace
from cluestudio.core.workspace.feedback import AddItemComment, item_comments

#: element kind → the rubric item (class-diagram rubric) its comment belongs to
ITEM_OF_KIND = {"class": "classes", "attribute": "attributes", "method": "methods",
                "relation": "relations"}


@dataclass(frozen=True)
class Suggestion:
    item_id: str
    text: str


def _describe(kind: str, status: Status, text: str, owner: str, why: str) -> str | None:
    where = f" in {owner}" if owner and kind in ("attribute", "method") else ""
    if status is Status.MISSING:
        return f"Missing {kind} {text}{where}"
    if status is Status.EXTRA:
        return f"The {kind} {text}{where} is not asked for by the requirement"
    if status is Status.PARTLY:
        return f"{kind.capitalize()} {text}{where}: {why}" if why else None
    return None


def suggestions_from_diff(diff: DiagramDiff, item_ids: set[str]) -> list[Suggestion]:
    """One suggestion per missing, extra or (with a reason) partly matched element whose
    rubric item exists, in the diff's order: missing elements first."""
    out: list[Suggestion] = []
    for element in (*diff.missing, *diff.elements):
        item = ITEM_OF_KIND.get(element.kind)
        if item not in item_ids:
            continue
        text = _describe(element.kind, element.status, element.text, element.owner,
                         element.why)
        if text and Suggestion(item, text) not in out:
            out.append(Suggestion(item, text))
    return out


def suggest(ws: Workspace, submission_id: int, grader: str | None = None) -> list[Suggestion]:
    """Suggestions for a submission, without those already accepted (by ``grader``)."""
    submission = ws.submission(submission_id)
    task = ws.task(submission.task_id) if submission else None
    if task is None:
        raise DiffUnavailable(f"no submission {submission_id}")
    rubric = get_rubric(rubric_id_for_kind(task.diagram_kind))
    diff = submission_diff(ws, submission_id).diff
    taken = {(c.item_id, c.text) for c in item_comments(ws, submission_id, grader)}
    return [s for s in suggestions_from_diff(diff, {i.id for i in rubric.items})
            if (s.item_id, s.text) not in taken]


def accept(ws: Workspace, submission_id: int, grader: str, suggestion: Suggestion) -> str:
    """Store an accepted suggestion as the grader's comment (undoable); its uid."""
    submission = ws.submission(submission_id)
    task = ws.task(submission.task_id) if submission else None
    if task is None:
        raise DiffUnavailable(f"no submission {submission_id}")
    rubric_id = rubric_id_for_kind(task.diagram_kind)
    changes = ws.execute(AddItemComment(submission_id, grader, rubric_id, suggestion.item_id,
                                        text=suggestion.text, origin="suggestion"))
    return str(changes.result)
