"""Scoring one chunk of pairs: the pure step of :mod:`cluestudio.app.scoring`, the same in
this process, the window's worker process and an executor's workers.

A :class:`ChunkScorer` lives as long as a run (or a worker process): it holds the CLUE scorer
(its encoder and embedding cache), the metric plugins (their models, the warm JVM), and a
bounded memo of parsed references. Nothing of a chunk is kept once it is returned, so memory
does not grow with the number of pairs. The first chunk of each diagram kind pays the
start-ups (loading an encoder, starting the JVM, importing a plugin); they are timed apart
from the metrics (``ScoreSummary.stage_seconds``), so ``--profile-metrics`` shows what each
metric costs per pair. Progress messages name the metric running, for the job panel.
"""

from __future__ import annotations

import os
import socket
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from cluestudio.app.scoring_records import (
    ScoredItem,
    ScoredRow,
    ScoreItem,
    ScoreSummary,
    ScoringOptions,
)
from cluestudio.core.embed.base import release_freed_memory
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress, run_job, within
from cluestudio.core.workspace import kinds

T = TypeVar("T")
REFERENCE_MEMO = 256  # parsed references kept (a study has few; a generated set may not)


class Clock:
    """Seconds per metric and per stage (start-ups, parsing) of one summary.

    Encoders load when first needed (a warm run whose vectors are all cached never loads
    one); the load is moved out of the metric that triggered it into "model load"."""

    def __init__(self, summary: ScoreSummary) -> None:
        self.summary = summary

    def add(self, name: str, seconds: float, *, stage: bool = False, loading: float = 0.0
            ) -> None:
        table = self.summary.stage_seconds if stage else self.summary.metric_seconds
        table[name] = table.get(name, 0.0) + seconds - loading
        if loading > 0:
            stages = self.summary.stage_seconds
            stages["model load"] = stages.get("model load", 0.0) + loading

    def run(self, name: str, work: Callable[[], T], *, stage: bool = False) -> T:
        started, loaded = time.perf_counter(), _load_seconds()
        try:
            return work()
        finally:
            self.add(name, time.perf_counter() - started, stage=stage,
                     loading=_load_seconds() - loaded)

    def job(self, name: str, job: Job[T]) -> Job[T]:
        """Drive ``job``, counting only the time spent inside it, not in its consumer (a
        progress bar, the window's message pipe) between its steps."""
        while True:
            started, loaded = time.perf_counter(), _load_seconds()
            try:
                step = next(job)
            except StopIteration as stop:
                self.add(name, time.perf_counter() - started, loading=_load_seconds() - loaded)
                return stop.value
            except BaseException:
                self.add(name, time.perf_counter() - started, loading=_load_seconds() - loaded)
                raise
            self.add(name, time.perf_counter() - started, loading=_load_seconds() - loaded)
            yield step


def _load_seconds() -> float:
    from cluestudio.core.embed.hf import load_seconds

    return load_seconds()


class ChunkScorer:
    """What lives across chunks: the CLUE scorer, the plugin runner, the metric choice per
    kind, a bounded memo of parsed references, and which kinds already started up."""

    def __init__(self, options: ScoringOptions, registry: Any = None,
                 llm_backend: Any = None) -> None:
        from cluestudio.core.kind_metrics import MetricRunner

        if registry is None:
            from cluestudio.core.plugins import get_registry

            registry = get_registry()
        if llm_backend is None and options.settings is not None:
            from cluestudio.core.kind_metrics import configured_backend

            llm_backend = configured_backend(options.settings)
        self.options, self.registry = options, registry
        self.runner = MetricRunner(registry, llm_backend)
        self.llm = llm_backend is not None
        self._scorer: Any = None
        self._references: OrderedDict[str, Any] = OrderedDict()
        self._chosen: dict[str, tuple[list[Any], list[str]]] = {}
        self._started: set[str] = set()

    def close(self) -> None:
        if self._scorer is not None:
            self._scorer.close()
            self._scorer = None

    def report(self, summary: ScoreSummary) -> None:
        """Copy the plugin failures and notes seen so far into ``summary``."""
        for name, message in self.runner.errors.items():
            summary.plugin_errors.setdefault(name, message)
        for kind, (_, notes) in self._chosen.items():
            if notes:
                summary.notes.setdefault(kind, list(notes))

    # -- what to run ------------------------------------------------------------------------
    def metrics_for(self, kind: str) -> list[Any]:
        from cluestudio.core.kind_metrics import select_metrics

        if kind not in self._chosen:
            # CLUE has its own engine; class tasks get the plugins beside it.
            llm = self.llm and kind != "class"
            self._chosen[kind] = select_metrics(kind, self.registry, llm=llm,
                                                embedder=self.options.embedder)
        return self._chosen[kind][0]

    def scorer(self) -> Any:
        if self._scorer is None:
            from cluestudio.core.clue import ClueScorer

            options = self.options
            self._scorer = ClueScorer(options.embedder, device=options.device,
                                      profile=options.profile,
                                      normalization=options.normalization,
                                      weights=options.weights())
        return self._scorer

    def _start(self, kind: str, clock: Clock) -> Job[None]:
        """Pay the start-ups of ``kind`` once, timed apart: each plugin's import and its
        ``warm_up()`` (the JVM), if it has one. Encoders are not loaded here: a run whose
        vectors are all cached needs none (see :class:`Clock`)."""
        if kind in self._started:
            return
        self._started.add(kind)
        for manifest in self.metrics_for(kind):
            name = manifest.name
            if name in self._started:
                continue
            self._started.add(name)
            yield Progress(0, None, f"{_title(manifest)}", "starting metrics")
            clock.run(f"{name} start-up", partial(self._warm, name), stage=True)

    def _warm(self, name: str) -> None:
        instance = self.registry.instance("metric", name)
        if instance is not None and callable(getattr(instance, "warm_up", None)):
            self.registry.call("metric", name, lambda metric: metric.warm_up())

    # -- one chunk --------------------------------------------------------------------------
    def score_chunk(self, chunk: Sequence[ScoreItem], cancel: CancelToken, done: int,
                    total: int | None, summary: ScoreSummary) -> Job[list[ScoredItem]]:
        """Score ``chunk``; metric and stage seconds, failures and notes go to ``summary``."""
        clock = Clock(summary)
        out = [ScoredItem(item.submission_id, item.content_hash) for item in chunk]
        for kind in dict.fromkeys(item.diagram_kind for item in chunk):
            for step in self._start(kind, clock):
                yield Progress(done, total, step.message, step.phase)
        yield Progress(done, total, f"parsing {len(chunk)} pairs", "scoring")
        diagrams = clock.run("parse", lambda: self._parse_all(chunk, out), stage=True)
        if diagrams:
            yield from self._clue(diagrams, out, cancel, clock, done, total)
        yield from self._plugins(chunk, diagrams, out, cancel, clock, done, total)
        self.report(summary)
        release_freed_memory()
        return out

    def _parse_all(self, chunk: Sequence[ScoreItem], out: list[ScoredItem]
                   ) -> dict[int, tuple[Any, Any]]:
        """index in chunk → (reference, candidate) diagrams of the class-diagram pairs."""
        from cluestudio.core.plantuml import parse_plantuml

        diagrams = {}
        for index, item in enumerate(chunk):
            if not kinds.uses_class_parser(item.diagram_kind):
                continue
            try:
                reference = self._reference(item.reference)
                candidate = parse_plantuml(item.candidate).diagram
            except ClueStudioError as error:
                out[index].error = f"{item.label}: {error}"
                continue
            diagrams[index] = (reference, candidate)
        return diagrams

    def _reference(self, text: str) -> Any:
        from cluestudio.core.plantuml import parse_plantuml

        found = self._references.get(text)
        if found is None:
            found = self._references[text] = parse_plantuml(text).diagram
            if len(self._references) > REFERENCE_MEMO:
                self._references.popitem(last=False)
        else:
            self._references.move_to_end(text)
        return found

    def _clue(self, diagrams: dict[int, tuple[Any, Any]], out: list[ScoredItem],
              cancel: CancelToken, clock: Clock, done: int, total: int | None) -> Job[None]:
        scorer = self.scorer()
        pairs = list(diagrams.values())
        results = yield from clock.job("clue", within(scorer.score_pairs(pairs, cancel),
                                                      done, total, "CLUE: "))
        settings = scorer.settings()
        started = time.perf_counter()
        for index, result in zip(diagrams, results, strict=True):
            data = result.to_dict()
            for metric, value in data["scores"].items():
                out[index].rows.append(ScoredRow(
                    metric, value, embedder=settings["embedder"], profile=settings["profile"],
                    normalization=settings["normalization"],
                    weights_hash=str(settings["weights_fingerprint"]),
                    explanation=data["explanation"] if metric == "clue" else None))
        clock.add("clue", time.perf_counter() - started)  # the explanations are CLUE's cost

    def _plugins(self, chunk: Sequence[ScoreItem], diagrams: dict[int, tuple[Any, Any]],
                 out: list[ScoredItem], cancel: CancelToken, clock: Clock, done: int,
                 total: int | None) -> Job[None]:
        """Metric after metric over the chunk (not pair after pair), so the job panel can
        say which one is running and a metric can fetch what the whole chunk needs."""
        from cluestudio.core.metrics import MetricInput

        inputs = {}
        for index, item in enumerate(chunk):
            if out[index].error is None:
                reference_diagram, candidate_diagram = diagrams.get(index, (None, None))
                inputs[index] = (MetricInput(item.reference, reference_diagram, "reference"),
                                 MetricInput(item.candidate, candidate_diagram, item.label))
        by_metric: OrderedDict[str, tuple[Any, list[int]]] = OrderedDict()
        for index in inputs:
            for manifest in self.metrics_for(chunk[index].diagram_kind):
                by_metric.setdefault(manifest.name, (manifest, []))[1].append(index)
        for name, (manifest, indexes) in by_metric.items():
            yield Progress(done, total, f"{_title(manifest)}: {len(indexes)} pairs", "scoring")
            texts = [t for i in indexes for t in (inputs[i][0].plantuml, inputs[i][1].plantuml)]
            clock.run(name, partial(self._prepare, name, texts))
            for index in indexes:
                cancel.raise_if_cancelled()
                runs = clock.run(name, partial(self.runner.run, [manifest], *inputs[index]))
                out[index].rows += _rows(runs)

    def _prepare(self, name: str, texts: list[str]) -> None:
        """A metric's optional ``prepare(texts)``: fetch what a whole chunk needs at once."""
        instance = self.registry.instance("metric", name)
        if instance is not None and callable(getattr(instance, "prepare", None)):
            self.registry.call("metric", name, lambda metric: metric.prepare(texts))


def _title(manifest: Any) -> str:
    return str(getattr(manifest, "title", "") or manifest.name)


def _rows(runs: list[Any]) -> list[ScoredRow]:
    rows = []
    for run in runs:
        for number, (key, value) in enumerate(run.values.items()):
            rows.append(ScoredRow(
                key, value, metric_version=run.version,
                explanation={"plugin": run.name, "explanation": run.explanation,
                             "details": run.details}
                if number == 0 and run.explanation is not None else None))
    return rows


# --- chunks on executor workers ----------------------------------------------------------


@dataclass
class ChunkOutcome:
    """What a worker sends back for one chunk: the scored items and what it cost."""

    chunk_id: int
    scored: list[ScoredItem]
    summary: ScoreSummary
    worker: str = ""  # host:pid, for the report and the tests
    seconds: float = 0.0
    items: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


_WORKER_SCORERS: dict[str, ChunkScorer] = {}


def worker_scorer(options: ScoringOptions) -> ChunkScorer:
    """This process's scorer for ``options``: a worker loads each model once and keeps its
    own embedding cache (its machine's cache folder) across every chunk it is given."""
    key = repr(options)  # options arrive pickled: equal by value, never the same object
    found = _WORKER_SCORERS.get(key)
    if found is None:
        found = _WORKER_SCORERS[key] = ChunkScorer(options)
    return found


def score_chunk_on_worker(chunk_id: int, items: Sequence[ScoreItem],
                          options: ScoringOptions) -> ChunkOutcome:
    """Score one chunk where this function runs (an executor's worker) and return it."""
    started = time.perf_counter()
    summary = ScoreSummary(planned=len(items))
    scored = run_job(worker_scorer(options).score_chunk(items, CancelToken(), 0, len(items),
                                                        summary))
    seconds = time.perf_counter() - started
    summary.seconds = seconds
    return ChunkOutcome(chunk_id, scored, summary, f"{socket.gethostname()}:{os.getpid()}",
                        seconds, len(items))
