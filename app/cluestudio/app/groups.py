"""Grade by group, the workspace side of one job: plan, run, store (the grouping itself is
core's pure algorithm, :mod:`cluestudio.core.groups`).

:func:`plan_grouping` reads one task's current texts; :func:`group_submissions` groups them
in this process (``cluestudio group``), :func:`group_job` in the window's worker process
("Find groups"), both with the one plan and core's :func:`~cluestudio.core.groups.group_items`.
Nothing is stored by grouping; what a grader then stores is a rating applied to a group:
:func:`preview_group_rating` says what applying it would touch; the undoable command is
``core.workspace.commands.ApplyGroupRating`` (:func:`group_rating_command`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.groups import (
    DEFAULT_THRESHOLD,
    Grouping,
    GroupItem,
    GroupOptions,
    SubmissionGroup,
    group_items,
)
from cluestudio.core.jobs import CancelToken, Job
from cluestudio.core.workspace import Workspace
from cluestudio.core.workspace.commands import ApplyGroupRating, GroupTargets, group_targets

# --- plan and run ----------------------------------------------------------------------------


def plan_grouping(ws: Workspace, task_id: str) -> tuple[list[GroupItem], str]:
    """(the task's submissions with their current texts, the task's diagram kind)."""
    task = ws.task(task_id)
    if task is None:
        raise ClueStudioError(f"no task {task_id!r} in {ws.path}")
    heads = ws.head_revisions()
    items = [GroupItem(s.id, s.source_id, heads.get(s.id, ""))
             for s in ws.list_submissions(task_id)]
    return items, task.diagram_kind


def group_submissions(ws: Workspace, task_id: str, options: GroupOptions | None = None,
                      cancel: CancelToken | None = None) -> Job[Grouping]:
    """Group one task's submissions of ``ws`` in this process."""
    items, kind = plan_grouping(ws, task_id)
    return (yield from group_items(items, task_id, kind, options, cancel))


def group_job(workspace: str, task_id: str, *, cancel: CancelToken, emit: Any,
              threshold: float = DEFAULT_THRESHOLD, embedder: str = "exact") -> Job[Grouping]:
    """:func:`group_submissions` in the worker process, on a read-only view of the file."""
    from cluestudio.core.workspace import open_workspace

    ws = open_workspace(workspace, readonly=True)
    try:
        items, kind = plan_grouping(ws, task_id)
    finally:
        ws.close()
    return (yield from group_items(items, task_id, kind, GroupOptions(threshold, embedder),
                                   cancel))


# --- store: applying one rating to a group ------------------------------------------------


@dataclass(frozen=True)
class GroupPreview:
    """What applying ``grader``'s rating of ``source`` to a group would do."""

    source: int
    total: float | None  # the rating that would be copied
    would_write: tuple[int, ...]  # submissions whose rating would be written
    already_rated: tuple[int, ...]  # members this grader rated: kept (or replaced: overwrite)
    overwrite: bool

    @property
    def count(self) -> int:
        return len(self.would_write)


def preview_group_rating(ws: Workspace, source_submission_id: int, member_ids: Sequence[int],
                         grader: str, rubric_id: str | None = None, *,
                         overwrite: bool = False) -> GroupPreview:
    """How many submissions applying the rating would touch, and which members already have
    a rating by ``grader`` (kept unless ``overwrite``). Reads only."""
    rubric_id = rubric_id or _rubric_of(ws, source_submission_id)
    targets: GroupTargets = group_targets(ws._reader(), source_submission_id, member_ids,
                                          grader, rubric_id, overwrite=overwrite)
    rated = tuple(sorted(targets.kept + targets.replaced))
    return GroupPreview(source_submission_id, targets.rating["total"], targets.write, rated,
                        overwrite)


def group_rating_command(group: SubmissionGroup, source_submission_id: int, grader: str, *,
                         rubric_id: str | None = None, overwrite: bool = False,
                         member_ids: Sequence[int] | None = None) -> ApplyGroupRating:
    """The undoable command that applies ``grader``'s rating of ``source_submission_id`` (a
    member, usually the representative) to ``member_ids``: by default the rest of ``group``
    (its members of the same diagram); the grader may take members out and include near
    ones whose differences they saw. ``ws.execute(command)``."""
    if source_submission_id not in group.submission_ids:
        raise ClueStudioError(f"submission {source_submission_id} is not in group {group.key}")
    chosen = group.submission_ids if member_ids is None else tuple(member_ids)
    strangers = set(chosen) - set(group.submission_ids) - set(group.near_ids)
    if strangers:
        raise ClueStudioError(f"submission(s) {sorted(strangers)} are neither members of group "
                              f"{group.key} nor suggested near it")
    return ApplyGroupRating(source_submission_id, {source_submission_id, *chosen}, grader,
                            group.key, rubric_id=rubric_id, overwrite=overwrite)


def _rubric_of(ws: Workspace, submission_id: int) -> str:
    from cluestudio.core.rubric import rubric_id_for_kind

    submission = ws.submission(submission_id)
    if submission is None:
        raise ClueStudioError(f"no submission {submission_id}")
    task = ws.task(submission.task_id)
    return rubric_id_for_kind(task.diagram_kind if task else "class")
