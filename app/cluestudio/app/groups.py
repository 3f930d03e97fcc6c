"""Grade by group: submissions of a task whose diagrams say the same, so one rating serves them.

Gradescope's answer groups and Artemis Compass's clusters, for diagrams, with one rule that
keeps a bulk rating from ever being a wrong one: **a group holds only submissions whose
diagrams are equal once layout, declaration order, whitespace and case are ignored** (their
canonical forms, :mod:`cluestudio.core.canonical`: the same classes with the same attributes
and operations, the same relations with type, direction, multiplicities and roles, the same
notes). CLUE near 1 is not "the same diagram": it forgives wrong relation types,
multiplicities and renamed members by design, which is what a rubric marks down. So CLUE only
*suggests*: submissions at CLUE ≥ ``threshold`` both ways from a group's diagram are listed as
"near, differs" with their element differences (:func:`cluestudio.core.canonical.differences`),
and they get the group's rating only when the grader has seen those differences and
included them.

Cost: submissions of equal form share one bucket (never scored). Suggestions come from leader
clustering over the buckets (most common diagram first, each free bucket joining the first
leader it is near: the leader suggests those, they suggest the leader), so each suggestion
is near the group it is listed under (no chaining). A pair of buckets is scored only if an upper
bound of CLUE from their class-name sets and sizes (:func:`clue_upper_bound`) reaches the
threshold both ways: exact arithmetic on the weights, so pruning never drops a suggestion.

Non-class tasks (component, SysML, …) have no canonical form nor CLUE: their submissions
group when their texts are equal line by line, ignoring indentation, blank lines and ``'``
comments.

:func:`group_submissions` runs in this process; :func:`group_job` in the window's worker
process (the CLI and the window use the same function). :func:`preview_group_rating` says
what applying a rating would touch; the undoable command is
``core.workspace.commands.ApplyGroupRating`` (:func:`group_rating_command`).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.canonical import canonical_form, differences
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress, within
from cluestudio.core.model import ClassDiagram
from cluestudio.core.workspace import Workspace, kinds
from cluestudio.core.workspace.commands import ApplyGroupRating, GroupTargets, group_targets

DEFAULT_THRESHOLD = 0.97  # CLUE both ways, for suggesting near members only
_CHUNK = 256  # bucket pairs per CLUE batch: progress and cancel between batches


@dataclass(frozen=True)
class GroupOptions:
    threshold: float = DEFAULT_THRESHOLD  # CLUE, both directions: near suggestions
    embedder: str = "exact"  # fast and deterministic; a neural one also suggests synonyms

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
    similarity: float  # min of CLUE both ways against the representative (1.0 for its form)
    identical: bool  # the same diagram as the representative (equal canonical forms)
    differences: tuple[str, ...] = ()  # near members: what differs from the representative


@dataclass(frozen=True)
class SubmissionGroup:
    key: str  # stable across workspaces: from the representative diagram's content
    task_id: str
    members: tuple[GroupMember, ...]  # the representative, then every submission of its form
    near: tuple[GroupMember, ...] = ()  # "near, differs": CLUE suggests, the grader decides

    @property
    def representative(self) -> int:
        return self.members[0].submission_id

    @property
    def submission_ids(self) -> tuple[int, ...]:
        """The group proper: what a rating is applied to unless the grader changes it."""
        return tuple(m.submission_id for m in self.members)

    @property
    def near_ids(self) -> tuple[int, ...]:
        return tuple(m.submission_id for m in self.near)

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def identical_ids(self) -> tuple[int, ...]:
        """The representative and the members whose diagram equals it (all members)."""
        return tuple(m.submission_id for m in self.members if m.identical)

    def member(self, submission_id: int) -> GroupMember | None:
        return next((m for m in (*self.members, *self.near)
                     if m.submission_id == submission_id), None)

    def to_dict(self) -> dict[str, Any]:
        def entry(m: GroupMember) -> dict[str, Any]:
            return {"submission_id": m.submission_id, "source_id": m.source_id,
                    "similarity": round(m.similarity, 6), "identical": m.identical,
                    "differences": list(m.differences)}

        return {"key": self.key, "task_id": self.task_id, "representative": self.representative,
                "members": [entry(m) for m in self.members],
                "near": [entry(m) for m in self.near]}


@dataclass
class Grouping:
    task_id: str
    threshold: float
    embedder: str
    groups: list[SubmissionGroup] = field(default_factory=list)  # largest first
    singletons: list[int] = field(default_factory=list)  # no twin and no near suggestion
    unreadable: dict[int, str] = field(default_factory=dict)  # submission id → why
    distinct: int = 0  # distinct diagrams (buckets)
    pairs_possible: int = 0  # submission pairs n·(n−1)/2
    pairs_scored: int = 0  # diagram pairs CLUE scored (both directions count once)
    seconds: float = 0.0

    def group_of(self, submission_id: int) -> SubmissionGroup | None:
        """The group ``submission_id`` belongs to (as a member, not as a near suggestion)."""
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
    ids: tuple[int, ...]  # submission ids with this form, ascending
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

    Groups are the buckets of equal canonical form. For the near suggestions, leader
    clustering over the buckets, most common diagram first: each bucket not yet in a cluster
    leads one and takes every other free bucket near it. A leader's suggestions are the
    buckets that joined it, a joined bucket's its leader: every suggestion is near the group
    it is listed under (no chaining), and no pair beyond leader–free bucket is scored.
    """
    options = options or GroupOptions()
    cancel = cancel or CancelToken()
    started = time.perf_counter()
    result = Grouping(task_id, options.threshold, options.embedder)
    result.pairs_possible = len(items) * (len(items) - 1) // 2
    yield Progress(0, None, "reading diagrams", phase="grouping")
    buckets = _buckets(items, diagram_kind, result)
    result.distinct = len(buckets)
    compare = (_Comparer(buckets, options, result) if kinds.uses_class_parser(diagram_kind)
               else None)
    source_ids = {item.submission_id: item.source_id for item in items}
    free = list(range(len(buckets)))
    near: dict[int, dict[int, float]] = {b: {} for b in range(len(buckets))}
    try:
        while free:
            cancel.raise_if_cancelled()
            leader, others = free[0], free[1:]
            joined = (yield from compare.near(leader, others, cancel)) if compare else {}
            free = [b for b in others if b not in joined]
            for other, value in joined.items():
                near[leader][other] = near[other][leader] = value
            done = len(buckets) - len(free)
            yield Progress(done, len(buckets), f"grouped {done} of {len(buckets)} diagrams",
                           phase="grouping")
    finally:
        if compare is not None:
            compare.close()
    for index in range(len(buckets)):
        _add_group(buckets, index, near[index], task_id, source_ids, result)
    result.groups.sort(key=lambda g: (-g.size, g.representative))
    result.singletons.sort()
    result.seconds = time.perf_counter() - started
    yield Progress(len(buckets), len(buckets), f"{len(result.groups)} groups", phase="grouping")
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
            digest = canonical_form(diagram).digest
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
    """min(CLUE both ways) between buckets, scored in batches."""

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

    def _may_be_near(self, a: int, b: int) -> bool:
        weights, sigma = self.scorer.weights, self.sigma
        first, second = self.buckets[a], self.buckets[b]
        return min(_bound(first, second, weights, sigma),
                   _bound(second, first, weights, sigma)) >= self.threshold

    def _score(self, pairs: list[tuple[int, int]], cancel: CancelToken, what: str
               ) -> Job[dict[tuple[int, int], float]]:
        """min(CLUE both ways) of each pair whose bound allows it reaching the threshold."""
        candidates = [p for p in pairs if self._may_be_near(*p)]
        scores: dict[tuple[int, int], float] = {}
        for start in range(0, len(candidates), _CHUNK):
            cancel.raise_if_cancelled()
            chunk = candidates[start:start + _CHUNK]
            firsts = [self.buckets[a].diagram or ClassDiagram() for a, _ in chunk]
            seconds = [self.buckets[b].diagram or ClassDiagram() for _, b in chunk]
            directed = list(zip(firsts, seconds, strict=True)) + list(
                zip(seconds, firsts, strict=True))
            scored = yield from within(self.scorer.score_pairs(directed, cancel), start,
                                       len(candidates), what)
            values = [r.scores.as_dict()["clue"] for r in scored]
            self.result.pairs_scored += len(chunk)
            for k, pair in enumerate(chunk):
                scores[pair] = min(values[k], values[k + len(chunk)])
        return scores

    def near(self, leader: int, others: list[int], cancel: CancelToken
             ) -> Job[dict[int, float]]:
        """Free buckets near ``leader``, with their similarity."""
        scores = yield from self._score([(leader, o) for o in others], cancel, "comparing: ")
        return {b: value for (_, b), value in scores.items() if value >= self.threshold}


def _add_group(buckets: list[_Bucket], index: int, near: dict[int, float], task_id: str,
               source_ids: dict[int, str], result: Grouping) -> None:
    bucket = buckets[index]
    if len(bucket.ids) < 2 and not near:
        result.singletons.append(bucket.ids[0])
        return
    members = tuple(GroupMember(sid, source_ids.get(sid, ""), 1.0, True)
                    for sid in bucket.ids)
    suggested = []
    for other, value in near.items():
        diagram, theirs = bucket.diagram or ClassDiagram(), buckets[other].diagram
        what = tuple(str(d) for d in differences(diagram, theirs or ClassDiagram()))
        suggested += [GroupMember(sid, source_ids.get(sid, ""), min(1.0, value), False, what)
                      for sid in buckets[other].ids]
    suggested.sort(key=lambda m: (-m.similarity, m.submission_id))
    key = "g-" + _digest((task_id, bucket.view_digest))[:16]
    result.groups.append(SubmissionGroup(key, task_id, members, tuple(suggested)))


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
