"""Scoring a workspace: CLUE and the metric plugins that apply to each task's diagram kind.

Three steps, so the same code runs in this process (``cluestudio score --workspace``), in
the window's worker process, or on a cluster:

- :func:`plan_scoring` (client; reads the workspace): one :class:`ScoreItem` per submission,
  holding every text a worker needs;
- :func:`score_items` (pure; no workspace): parses and scores items chunk by chunk and hands
  each chunk of :class:`ScoredItem` to a ``sink``; :func:`score_on` does the same with the
  chunks scored on an executor (:mod:`cluestudio.app.executors`);
- :func:`store_scored` (client; the workspace's single writer): one transaction per chunk.
  Storing is idempotent: the same text scored with the same configuration replaces its row.

:func:`score_workspace` composes them in this process. Class-diagram tasks get CLUE from the
engine and the baselines (BLEU, ROUGE-L, …) from the plugin registry; tasks of other kinds
get the registry's metrics for their kind (R2ABench, SysMEval, …). A failing plugin is
reported once by name and every other value is still stored.

The records the steps pass on live in :mod:`cluestudio.app.scoring_records` and the pure
step in :mod:`cluestudio.app.score_chunk`; both sit below this module and never import it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from itertools import islice
from typing import Any, TypeVar

from cluestudio.app.executors import ChunkSizer, Executor, run_chunks
from cluestudio.app.score_chunk import ChunkOutcome, ChunkScorer, score_chunk_on_worker
from cluestudio.app.scoring_records import ScoredItem, ScoreItem, ScoreSummary, ScoringOptions
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.workspace import Workspace
from cluestudio.core.workspace.ops import text_hash

T = TypeVar("T")

DEFAULT_CHUNK = 50  # pairs per chunk: scored, handed to the sink, stored, then dropped


# --- plan (client) --------------------------------------------------------------------------

PLAN_PAGE = 500  # head revisions read per query while a plan is consumed


class ScoringPlan:
    """The submissions to score, read from the workspace a page at a time as the plan is
    iterated, so a plan of 100,000 submissions never holds 100,000 texts.

    ``total`` (the number of items) and ``summary`` (what is skipped or cannot be scored)
    are known at once: the first pass reads only ids and content hashes.
    """

    def __init__(self, ws: Workspace, options: ScoringOptions, *,
                 submission_ids: Sequence[int] | None = None, task_id: str | None = None,
                 diagram_kind: str | None = None, only_missing: bool = False,
                 page: int = PLAN_PAGE) -> None:
        self.ws, self.page = ws, page
        self.summary = ScoreSummary()
        self.tasks = {t.id: t for t in ws.tasks()}
        wanted = set(submission_ids) if submission_ids is not None else None
        heads = ws.head_hashes()
        done = _already_scored(ws, options) if only_missing else set()
        self._todo: list[tuple[int, str, str]] = []  # (submission id, label, content hash)
        self._task_of: dict[int, str] = {}
        for sub in ws.list_submissions(task_id):
            task = self.tasks.get(sub.task_id)
            if (wanted is not None and sub.id not in wanted) or task is None:
                continue
            if diagram_kind is not None and task.diagram_kind != diagram_kind:
                continue
            digest = heads.get(sub.id)
            if digest is None:
                self.summary.failed[sub.id] = "no PlantUML yet (convert image A first)"
                continue
            if sub.id in done:
                self.summary.skipped += 1
                continue
            self._todo.append((sub.id, f"{sub.task_id} · {sub.source_id}", digest))
            self._task_of[sub.id] = sub.task_id
        self.summary.planned = len(self._todo)

    @property
    def total(self) -> int:
        return len(self._todo)

    def __len__(self) -> int:
        return len(self._todo)

    def __iter__(self) -> Iterator[ScoreItem]:
        for start in range(0, len(self._todo), self.page):
            page = self._todo[start:start + self.page]
            texts = self.ws.head_revisions([sid for sid, _, _ in page])
            for sid, label, digest in page:
                text = texts.get(sid)
                if text is None or text_hash(text) != digest:
                    # Edited (or undone) since the plan was made: said, not silently left.
                    self.summary.failed[sid] = ("its PlantUML changed while the job ran; "
                                                "score again to score the new text")
                    continue
                task = self.tasks[self._task_of[sid]]
                yield ScoreItem(sid, label, task.diagram_kind, task.reference_puml, text,
                                digest)


def plan_scoring(ws: Workspace, options: ScoringOptions, *,
                 submission_ids: Sequence[int] | None = None, task_id: str | None = None,
                 diagram_kind: str | None = None, only_missing: bool = False,
                 ) -> tuple[list[ScoreItem], ScoreSummary]:
    """What to score: each chosen submission with a PlantUML revision, and a summary that
    already counts what was skipped (``only_missing``: scored with this configuration)."""
    plan = ScoringPlan(ws, options, submission_ids=submission_ids, task_id=task_id,
                       diagram_kind=diagram_kind, only_missing=only_missing)
    items = list(plan)
    plan.summary.planned = len(items)
    return items, plan.summary


def _already_scored(ws: Workspace, options: ScoringOptions) -> set[int]:
    """The submissions whose head revision is scored with these options (the workspace's
    definition: core/workspace/heads.py)."""
    return ws.already_scored(embedder=options.embedder_id(), profile=options.profile,
                             normalization=options.normalization,
                             weights_hash=options.weights().fingerprint())


# --- score (pure) ---------------------------------------------------------------------------


Sink = Callable[[list[ScoredItem]], None]


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size``, read lazily (a plan may be a generator)."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def score_items(items: Iterable[ScoreItem], options: ScoringOptions, cancel: CancelToken,
                sink: Sink, *, chunk_size: int = DEFAULT_CHUNK, registry: Any = None,
                llm_backend: Any = None, total: int | None = None) -> Job[ScoreSummary]:
    """Score ``items`` a chunk at a time, handing each finished chunk to ``sink``; nothing of
    a chunk is kept after that, so memory does not grow with the number of pairs.

    ``items`` may be a generator (``total`` then gives the progress bar its length).
    """
    if total is None and isinstance(items, Sized):
        total = len(items)
    summary = ScoreSummary(planned=total or 0)
    scorer = ChunkScorer(options, registry, llm_backend)
    started = time.perf_counter()
    done = 0
    try:
        for chunk in chunked(items, chunk_size):
            cancel.raise_if_cancelled()
            scored = yield from scorer.score_chunk(chunk, cancel, done, total, summary)
            sink(scored)
            summary.scored += [s.submission_id for s in scored if s.rows]
            summary.failed.update({s.submission_id: s.error for s in scored if s.error})
            done += len(chunk)
            yield Progress(done, total, f"scored {done} of {total or done}", "scoring")
    finally:
        scorer.report(summary)
        scorer.close()
        summary.planned = max(summary.planned, done)
        summary.seconds = time.perf_counter() - started
    return summary


def score_on(executor: Executor, items: Iterable[ScoreItem], options: ScoringOptions,
             cancel: CancelToken, sink: Sink, *, total: int | None = None,
             chunk_size: int | None = None, retries: int = 3,
             target_seconds: float = 5.0) -> Job[ScoreSummary]:
    """:func:`score_items` with the chunks scored on ``executor``: each chunk comes back
    (scores and what they cost), goes to ``sink`` on this thread (the workspace's one
    writer), and its summary is merged. ``chunk_size`` fixes the size; by default it adapts
    to the cost of the texts (:class:`~cluestudio.app.executors.ChunkSizer`)."""
    summary = ScoreSummary(planned=total or 0)
    workers: set[str] = set()
    started = time.perf_counter()

    def on_result(chunk: list[ScoreItem], outcome: ChunkOutcome) -> str:
        sink(outcome.scored)
        summary.merge(outcome.summary)
        summary.scored += [s.submission_id for s in outcome.scored if s.rows]
        summary.failed.update({s.submission_id: s.error for s in outcome.scored if s.error})
        workers.add(outcome.worker)
        return (f"{len(chunk)} pairs scored on {outcome.worker} in "
                f"{outcome.seconds:.1f} s ({executor.describe()})")

    def on_failure(chunk: list[ScoreItem], error: BaseException) -> str:
        why = f"its chunk failed on the {executor.name} executor: {error}"
        summary.failed.update({item.submission_id: f"{item.label}: {why}" for item in chunk})
        return f"{len(chunk)} pairs not scored: {error}"

    sizer = ChunkSizer(target_seconds, fixed=chunk_size)
    yield Progress(0, total, f"on {executor.describe()}", "scoring")
    try:
        done = yield from run_chunks(
            executor, score_chunk_on_worker, items, (options,), cancel, on_result=on_result,
            on_failure=on_failure, size_of=lambda item: len(item.candidate) + 1,
            sizer=sizer, retries=retries, total=total)
    finally:
        summary.seconds = time.perf_counter() - started
    summary.planned = max(summary.planned, done)
    summary.workers = sorted(workers)
    return summary


# --- store (client) -------------------------------------------------------------------------


def store_scored(ws: Workspace, scored: Sequence[ScoredItem]) -> frozenset[int]:
    """Write a chunk's values in one transaction; the submission ids whose scores changed."""
    from cluestudio.core.workspace import ops

    def write(conn: Any) -> None:
        for item in scored:
            for row in item.rows:
                ops.put_score(conn, item.submission_id, item.content_hash, row.metric,
                              row.value, metric_version=row.metric_version,
                              embedder=row.embedder, profile=row.profile,
                              normalization=row.normalization, weights_hash=row.weights_hash,
                              explanation=row.explanation)

    if any(item.rows for item in scored):
        ws.write(write)
    return frozenset(item.submission_id for item in scored if item.rows)


def score_workspace(ws: Workspace, options: ScoringOptions, cancel: CancelToken | None = None,
                    *, submission_ids: Sequence[int] | None = None,
                    task_id: str | None = None, diagram_kind: str | None = None,
                    only_missing: bool = False, chunk_size: int | None = DEFAULT_CHUNK,
                    registry: Any = None, llm_backend: Any = None,
                    on_stored: Callable[[frozenset[int]], None] | None = None,
                    executor: Any = None) -> Job[ScoreSummary]:
    """Plan, score and store; each chunk is stored as soon as it is scored, so an
    interrupted run keeps what it finished (``only_missing`` then resumes it).

    ``executor`` (:mod:`cluestudio.app.executors`) scores the chunks elsewhere — worker
    processes, a Dask or Ray cluster; this process stays the workspace's only writer. There
    ``chunk_size=None`` lets the chunk size follow the cost of the texts.
    """
    cancel = cancel or CancelToken()
    plan = ScoringPlan(ws, options, submission_ids=submission_ids, task_id=task_id,
                       diagram_kind=diagram_kind, only_missing=only_missing)
    store_time = 0.0

    def sink(scored: list[ScoredItem]) -> None:
        nonlocal store_time
        started = time.perf_counter()
        changed = store_scored(ws, scored)
        store_time += time.perf_counter() - started
        if on_stored is not None and changed:
            on_stored(changed)

    if executor is None:
        job = score_items(plan, options, cancel, sink, chunk_size=chunk_size or DEFAULT_CHUNK,
                          registry=registry, llm_backend=llm_backend, total=plan.total)
    else:
        job = score_on(executor, plan, options, cancel, sink, total=plan.total,
                       chunk_size=chunk_size)
    result = yield from job
    result.stage_seconds["store"] = result.stage_seconds.get("store", 0.0) + store_time
    result.skipped = plan.summary.skipped
    result.failed = {**plan.summary.failed, **result.failed}
    return result


def plan_and_score_job(workspace: str, options: ScoringOptions,
                       submission_ids: Sequence[int] | None = None, *, cancel: CancelToken,
                       emit: Callable[[str, Any], None], chunk_size: int = DEFAULT_CHUNK,
                       ) -> Job[ScoreSummary]:
    """Plan and score in the worker process, planning on a read-only view of the workspace
    file: the window sends submission ids, not texts, so nothing big is read or pickled on
    its UI thread. Scored chunks come back as ``emit("scored", chunk)``; the caller stores
    them (its process holds the writer)."""
    from cluestudio.core.workspace import open_workspace

    ws = open_workspace(workspace, readonly=True)
    try:
        items, planned = plan_scoring(ws, options, submission_ids=submission_ids)
    finally:
        ws.close()
    summary = yield from score_items(items, options, cancel,
                                     lambda chunk: emit("scored", chunk),
                                     chunk_size=chunk_size)
    summary.skipped = planned.skipped
    summary.failed = {**planned.failed, **summary.failed}
    return summary


def baseline_metrics(diagram_kind: str, embedder: str, registry: Any = None) -> list[Any]:
    """Manifests of the registry's metrics to run beside CLUE for a task of ``diagram_kind``."""
    from cluestudio.core.kind_metrics import select_metrics

    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    return select_metrics(diagram_kind, registry, llm=False, embedder=embedder)[0]


def warm_baselines(registry: Any = None) -> list[str]:
    """Score one tiny pair with the light baselines, so their imports (sacrebleu alone holds
    the GIL ~200 ms) happen at start-up rather than in the middle of someone's grading."""
    from cluestudio.core.metrics import MetricInput

    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    text = "@startuml\nclass Warm\n@enduml\n"
    return [m.name for m in baseline_metrics("class", "exact", registry)
            if registry.score(m.name, MetricInput(text), MetricInput(text)) is not None]
