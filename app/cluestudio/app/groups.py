"""Grade by group: near-identical submissions of a task, so one rating serves them all.

Gradescope's answer groups and Artemis Compass's clusters, for diagrams. Two submissions
are near-identical when CLUE between their current PlantUML texts reaches ``threshold`` in
both directions (each taken once as the reference); a group is a representative (the most
common diagram, lowest submission id) and every submission near-identical to it.

Cost: n submissions give n·(n−1)/2 pairs (60 → 1,770; 300 → 44,850). Most are never
scored: submissions whose diagrams are equal as CLUE sees them (names, members, relation
types, ends and multiplicities; order and layout ignored) share one bucket, and a pair of
buckets is scored only if an upper bound of CLUE from their class-name sets and sizes
(:func:`clue_upper_bound`) reaches the threshold both ways. The bound is exact arithmetic
on the weights, so pruning never drops a pair that would have qualified.

Non-class tasks (component, SysML, …) have no CLUE: their submissions group when their
texts are equal line by line, ignoring indentation, blank lines and ``'`` comments.

:func:`group_submissions` runs in this process; :func:`group_job` in the window's worker
process. :func:`preview_group_rating` says what applying a rating would touch; the undoable
command is ``core.workspace.commands.ApplyGroupRating`` (:func:`group_rating_command`).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress, within
from cluestudio.core.model import ClassDiagram
from cluestudio.core.workspace import Workspace, kinds
from cluestudio.core.workspace.commands import ApplyGroupRating, GroupTargets, group_targets

DEFAULT_THRESHOLD = 0.97
_CHUNK = 256  # bucket pairs per CLUE batch: progress and cancel between batches


@dataclass(frozen=True)
class GroupOptions:
    threshold: float = DEFAULT_THRESHOLD  # CLUE, both directions
    embedder: str = "exact"  # fast and deterministic; a neural one also groups synonyms

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ClueStudioError(f"group threshold must be in (0, 1], not {self.threshold!r}")


@dataclass(frozen=True)
class GroupItem:
    """One submission's current PlantUML text: all the grouping needs."""

    submission_id: int
    source_id: str
    text: str


@dataclass(frozen=True)
class GroupMember:
    submission_id: int
    source_id: str
    similarity: float  # min of CLUE both ways against the representative (1.0 for itself)
    identical: bool  # the same diagram as the representative, as CLUE sees it


@dataclass(frozen=True)
class SubmissionGroup:
    key: str  # stable across workspaces: from the representative diagram's content
    task_id: str
    members: tuple[GroupMember, ...]  # representative, identical twins, the most similar

    @property
    def representative(self) -> int:
        return self.members[0].submission_id

    @property
    def submission_ids(self) -> tuple[int, ...]:
        return tuple(m.submission_id for m in self.members)

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def identical_ids(self) -> tuple[int, ...]:
        """The representative and the members whose diagram equals it as CLUE sees it."""
        return tuple(m.submission_id for m in self.members if m.identical)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "task_id": self.task_id, "representative": self.representative,
                "members": [{"submission_id": m.submission_id, "source_id": m.source_id,
                             "similarity": round(m.similarity, 6), "identical": m.identical}
                            for m in self.members]}


@dataclass
class Grouping:
    task_id: str
    threshold: float
    embedder: str
    groups: list[SubmissionGroup] = field(default_factory=list)  # largest first
    singletons: list[int] = field(default_factory=list)  # near-identical to no other
    unreadable: dict[int, str] = field(default_factory=dict)  # submission id → why
    distinct: int = 0  # distinct diagrams (buckets)
    pairs_possible: int = 0  # submission pairs n·(n−1)/2
    pairs_scored: int = 0  # diagram pairs CLUE scored (both directions count once)
    seconds: float = 0.0

    def group_of(self, submission_id: int) -> SubmissionGroup | None:
        for group in self.groups:
            if submission_id in group.submission_ids:
                return group
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "threshold": self.threshold,
                "embedder": self.embedder, "groups": [g.to_dict() for g in self.groups],
                "singletons": self.singletons,
                "unreadable": {str(k): v for k, v in sorted(self.unreadable.items())},
                "distinct": self.distinct, "pairs_possible": self.pairs_possible,
                "pairs_scored": self.pairs_scored, "seconds": round(self.seconds, 3)}


# --- what CLUE sees of a diagram ------------------------------------------------------------


def clue_view(diagram: ClassDiagram) -> tuple[Any, ...]:
    """The diagram as CLUE compares it, order-free: two diagrams with the same view score
    1.0 both ways. Kinds, visibility, packages, relation names and notes are not in it."""
    classes = sorted(
        (c.name, tuple(sorted((a.name, a.type) for a in c.attributes)),
         tuple(sorted((m.name, m.return_type, tuple((p.name, p.type) for p in m.params))
                      for m in c.methods)))
        for c in diagram.classes)
    relations = sorted((r.type.value, r.begin, r.end, r.label.from_, r.label.to)
                       for r in diagram.relations)
    return tuple(classes), tuple(relations)


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode("utf-8")).hexdigest()


_COMMENT = re.compile(r"^\s*'.*$")


def text_view(text: str) -> tuple[str, ...]:
    """A non-class text compared line by line: indentation, blank lines, comments dropped."""
    return tuple(line.strip() for line in text.splitlines()
                 if line.strip() and not _COMMENT.match(line))


@dataclass(frozen=True)
class _Bucket:
    view_digest: str
    ids: tuple[int, ...]  # submission ids with this view, ascending
    diagram: ClassDiagram | None
    names: tuple[str, ...]  # class names, as CLUE compares them
    n_relations: int


def clue_upper_bound(reference_names: Sequence[str], reference_relations: int,
                     candidate_names: Sequence[str], candidate_relations: int,
                     weights: Any, different_name_sigma: float = 1.0) -> float:
    """An upper bound of CLUE(reference → candidate) from class names and sizes only.

    Each matched class pair scores at most 1 when the names are equal and at most
    w_n·σ_diff + w_a + w_m when they differ (σ_diff: the embedder's σ of two different
    names, 0.5 for ``exact``; 1 when unknown); at most |names ∩| pairs can have equal names
    and at most min(n, m) classes are matched; OptMatch divides by n (reference
    normalization). Relations: at most min(n_r, m_r)/n_r. CLUE = w_e·class + w_r·relation.
    """
    n, m = len(reference_names), len(candidate_names)
    if n == 0:
        class_bound = 1.0
    else:
        same = sum((Counter(name.strip() for name in reference_names)
                    & Counter(name.strip() for name in candidate_names)).values())
        other = min(n, m) - same
        differing = weights.w_n * different_name_sigma + weights.w_a + weights.w_m
        class_bound = (same + other * min(1.0, differing)) / n
    nr, mr = reference_relations, candidate_relations
    relation_bound = 1.0 if nr == 0 else min(nr, mr) / nr
    return float(weights.w_e * class_bound + weights.w_r * relation_bound)


def _bound(reference: _Bucket, candidate: _Bucket, weights: Any, sigma: float) -> float:
    return clue_upper_bound(reference.names, reference.n_relations, candidate.names,
                            candidate.n_relations, weights, sigma)


# --- grouping (pure) ------------------------------------------------------------------------


def group_items(items: Sequence[GroupItem], task_id: str, diagram_kind: str = "class",
                options: GroupOptions | None = None, cancel: CancelToken | None = None,
                ) -> Job[Grouping]:
    """Group ``items`` (one task's submissions); yields progress, honours ``cancel``.

    Leader clustering over the buckets, most common diagram first: each bucket not yet in a
    group leads one and takes every other free bucket near-identical to it, so every member
    is near-identical to the representative (single linkage could chain A~B~C with A and C
    far apart). Only leader-to-free-bucket pairs are ever scored, and only those whose bound
    reaches the threshold both ways.
    """
    options = options or GroupOptions()
    cancel = cancel or CancelToken()
    started = time.perf_counter()
    result = Grouping(task_id, options.threshold, options.embedder)
    result.pairs_possible = len(items) * (len(items) - 1) // 2
    yield Progress(0, None, "reading diagrams")
    buckets = _buckets(items, diagram_kind, result)
    result.distinct = len(buckets)
    compare = (_Comparer(buckets, options, result) if kinds.uses_class_parser(diagram_kind)
               else None)
    source_ids = {item.submission_id: item.source_id for item in items}
    free = list(range(len(buckets)))
    try:
        while free:
            cancel.raise_if_cancelled()
            leader, others = free[0], free[1:]
            joined = (yield from compare.near(leader, others, cancel)) if compare else {}
            free = [b for b in others if b not in joined]
            _add_group(buckets, leader, joined, task_id, source_ids, result)
            done = len(buckets) - len(free)
            yield Progress(done, len(buckets), f"grouped {done} of {len(buckets)} diagrams")
    finally:
        if compare is not None:
            compare.close()
    result.groups.sort(key=lambda g: (-g.size, g.representative))
    result.singletons.sort()
    result.seconds = time.perf_counter() - started
    yield Progress(len(buckets), len(buckets), f"{len(result.groups)} groups")
    return result


def _buckets(items: Sequence[GroupItem], diagram_kind: str, result: Grouping) -> list[_Bucket]:
    from cluestudio.core.plantuml import parse_plantuml

    by_view: dict[str, list[int]] = {}
    diagrams: dict[str, ClassDiagram | None] = {}
    for item in sorted(items, key=lambda i: i.submission_id):
        if not item.text.strip():
            result.unreadable[item.submission_id] = "no PlantUML yet"
            continue
        diagram: ClassDiagram | None = None
        if kinds.uses_class_parser(diagram_kind):
            try:
                diagram = parse_plantuml(item.text).diagram
            except ClueStudioError as error:
                result.unreadable[item.submission_id] = str(error)
                continue
            digest = _digest(clue_view(diagram))
        else:
            digest = _digest(text_view(item.text))
        by_view.setdefault(digest, []).append(item.submission_id)
        diagrams.setdefault(digest, diagram)
    buckets = []
    for digest, ids in by_view.items():
        diagram = diagrams[digest]
        names = tuple(c.name for c in diagram.classes) if diagram else ()
        buckets.append(_Bucket(digest, tuple(ids), diagram, names,
                               len(diagram.relations) if diagram else 0))
    # Most common diagram first, then by first submission: the order leaders are chosen in.
    buckets.sort(key=lambda b: (-len(b.ids), b.ids[0]))
    return buckets


class _Comparer:
    """min(CLUE both ways) between a leader and free buckets, scored in batches."""

    def __init__(self, buckets: list[_Bucket], options: GroupOptions, result: Grouping
                 ) -> None:
        from cluestudio.core.clue import ClueScorer

        self.buckets, self.result = buckets, result
        self.scorer = ClueScorer(options.embedder, cache=options.embedder != "exact")
        self.sigma = 0.5 if options.embedder == "exact" else 1.0
        # Float sums of equal diagrams may land a hair below an exact threshold of 1.0.
        self.threshold = options.threshold - 1e-9

    def close(self) -> None:
        self.scorer.close()

    def near(self, leader: int, others: list[int], cancel: CancelToken
             ) -> Job[dict[int, float]]:
        """Free buckets near-identical to ``leader``, with their similarity."""
        weights, head, sigma = self.scorer.weights, self.buckets[leader], self.sigma
        candidates = [o for o in others
                      if min(_bound(head, self.buckets[o], weights, sigma),
                             _bound(self.buckets[o], head, weights, sigma)) >= self.threshold]
        joined: dict[int, float] = {}
        lead = head.diagram or ClassDiagram()
        for start in range(0, len(candidates), _CHUNK):
            cancel.raise_if_cancelled()
            chunk = candidates[start:start + _CHUNK]
            diagrams = [self.buckets[o].diagram or ClassDiagram() for o in chunk]
            directed = [(lead, d) for d in diagrams] + [(d, lead) for d in diagrams]
            scored = yield from within(self.scorer.score_pairs(directed, cancel), start,
                                       len(candidates), "comparing: ")
            values = [r.scores.as_dict()["clue"] for r in scored]
            self.result.pairs_scored += len(chunk)
            for k, other in enumerate(chunk):
                value = min(values[k], values[k + len(chunk)])
                if value >= self.threshold:
                    joined[other] = value
        return joined


def _add_group(buckets: list[_Bucket], leader: int, joined: dict[int, float], task_id: str,
               source_ids: dict[int, str], result: Grouping) -> None:
    ids = [(sid, 1.0, True) for sid in buckets[leader].ids]
    ids += [(sid, value, False) for other, value in joined.items() for sid in buckets[other].ids]
    if len(ids) < 2:
        result.singletons.append(ids[0][0])
        return
    # The representative, its identical twins, then the others, most similar first.
    ordered = [ids[0], *sorted(ids[1:], key=lambda e: (not e[2], -e[1], e[0]))]
    members = tuple(GroupMember(sid, source_ids.get(sid, ""), min(1.0, value), same)
                    for sid, value, same in ordered)
    key = "g-" + _digest((task_id, buckets[leader].view_digest))[:16]
    result.groups.append(SubmissionGroup(key, task_id, members))


# --- the workspace side ---------------------------------------------------------------------


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


# --- applying one rating to a group ---------------------------------------------------------


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
                         rubric_id: str | None = None, overwrite: bool = False
                         ) -> ApplyGroupRating:
    """The undoable command that applies ``grader``'s rating of ``source_submission_id`` (a
    member, usually the representative) to the rest of ``group``: ``ws.execute(command)``."""
    if source_submission_id not in group.submission_ids:
        raise ClueStudioError(f"submission {source_submission_id} is not in group {group.key}")
    return ApplyGroupRating(source_submission_id, group.submission_ids, grader, group.key,
                            rubric_id=rubric_id, overwrite=overwrite)


def _rubric_of(ws: Workspace, submission_id: int) -> str:
    from cluestudio.core.rubric import rubric_id_for_kind

    submission = ws.submission(submission_id)
    if submission is None:
        raise ClueStudioError(f"no submission {submission_id}")
    task = ws.task(submission.task_id)
    return rubric_id_for_kind(task.diagram_kind if task else "class")
