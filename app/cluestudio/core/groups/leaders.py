"""Leader clustering of one task's submissions into groups of equal diagrams, with CLUE's
near suggestions (the algorithm in :mod:`cluestudio.core.groups`). Pure: items in, a
:class:`~cluestudio.core.groups.records.Grouping` out; no workspace."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cluestudio.core.canonical import canonical_form, differences
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.groups.bound import clue_upper_bound
from cluestudio.core.groups.records import (
    Grouping,
    GroupItem,
    GroupMember,
    GroupOptions,
    SubmissionGroup,
)
from cluestudio.core.jobs import CancelToken, Job, Progress, within
from cluestudio.core.model import ClassDiagram
from cluestudio.core.workspace import kinds

_CHUNK = 256  # bucket pairs per CLUE batch: progress and cancel between batches


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
