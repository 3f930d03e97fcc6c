"""Scoring a workspace: CLUE and the metric plugins that apply to each task's diagram kind.

Three steps, so the same code runs in this process (``cluestudio score --workspace``), in
the window's worker process, or on a cluster:

- :func:`plan_scoring` (client; reads the workspace): one :class:`ScoreItem` per submission,
  holding every text a worker needs;
- :func:`score_items` (pure; no workspace): parses and scores items chunk by chunk and hands
  each chunk of :class:`ScoredItem` to a ``sink``;
- :func:`store_scored` (client; the workspace's single writer): one transaction per chunk.
  Storing is idempotent: the same text scored with the same configuration replaces its row.

:func:`score_workspace` composes them in this process. Class-diagram tasks get CLUE from the
engine and the baselines (BLEU, ROUGE-L, …) from the plugin registry; tasks of other kinds
get the registry's metrics for their kind (R2ABench, SysMEval, …). A failing plugin is
reported once by name and every other value is still stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress, within
from cluestudio.core.workspace import Workspace, kinds
from cluestudio.core.workspace.ops import text_hash

DEFAULT_CHUNK = 50  # pairs per chunk: scored, handed to the sink, stored, then dropped
CLUE_METRICS = ("clue", "clue-class", "clue-attribute", "clue-method", "clue-relation")


@dataclass(frozen=True)
class ScoringOptions:
    """How to score; picklable, so a worker process gets exactly the caller's choice."""

    embedder: str = "minilm"
    device: str = "auto"
    profile: str = "paper"  # similarity profile (paper | oodeval-code)
    normalization: str = "reference"
    weights_file: str = ""  # calibrated weights (TOML); "" = the profile's shipped weights
    settings: Any = None  # core.settings.Settings, for an [llm] endpoint (LLM metrics)

    @classmethod
    def from_settings(cls, settings: Any) -> ScoringOptions:
        """The user's ``[scoring]`` choice; ``calibrated`` needs ``weights_file``."""
        scoring = settings.scoring
        profile, weights = scoring.weight_profile, scoring.weights_file
        if profile == "calibrated":
            if not weights:
                raise ClueStudioError(
                    "weight profile 'calibrated' needs [scoring] weights_file in settings.toml "
                    "(the file `cluestudio calibrate -o FILE` wrote)")
            profile = "paper"
        return cls(scoring.embedder, scoring.device, profile, "reference", weights, settings)

    def embedder_id(self) -> str:
        """The id scores are stored under (no model is loaded to learn it)."""
        from cluestudio.core.clue.similarity import get_profile
        from cluestudio.core.embed import get_embedder

        return get_embedder(self.embedder, pooling=get_profile(self.profile).pooling,
                            device=self.device).id

    def weights(self) -> Any:
        from cluestudio.core.clue import ClueWeights
        from cluestudio.core.clue.similarity import get_profile

        if self.weights_file:
            from pathlib import Path

            return ClueWeights.load(Path(self.weights_file))
        return ClueWeights.shipped(get_profile(self.profile).weights)


@dataclass(frozen=True)
class ScoreItem:
    """One submission's head revision against its task's reference: all a worker needs."""

    submission_id: int
    label: str  # "task · source", for messages
    diagram_kind: str
    reference: str
    candidate: str
    content_hash: str  # of ``candidate``: the key its scores are stored under


@dataclass(frozen=True)
class ScoredRow:
    metric: str
    value: float | None
    metric_version: str = ""
    embedder: str = ""
    profile: str = ""
    normalization: str = ""
    weights_hash: str = ""
    explanation: Any = None


@dataclass
class ScoredItem:
    submission_id: int
    content_hash: str
    rows: list[ScoredRow] = field(default_factory=list)
    error: str | None = None  # the pair could not be scored (a text that does not parse)


@dataclass
class ScoreSummary:
    planned: int = 0
    scored: list[int] = field(default_factory=list)  # submission ids with stored values
    skipped: int = 0  # already scored with this configuration (only_missing)
    failed: dict[int, str] = field(default_factory=dict)  # submission id → why
    plugin_errors: dict[str, str] = field(default_factory=dict)  # plugin → first message
    notes: dict[str, list[str]] = field(default_factory=dict)  # diagram kind → notes
    metric_seconds: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0

    def merge(self, other: ScoreSummary) -> None:
        """Add a chunk's summary (a worker's) to this one."""
        self.scored += other.scored
        self.failed.update(other.failed)
        for name, message in other.plugin_errors.items():
            self.plugin_errors.setdefault(name, message)
        for kind, notes in other.notes.items():
            self.notes.setdefault(kind, notes)
        for name, seconds in other.metric_seconds.items():
            self.metric_seconds[name] = self.metric_seconds.get(name, 0.0) + seconds

    def to_dict(self) -> dict[str, Any]:
        return {"planned": self.planned, "scored": len(self.scored), "skipped": self.skipped,
                "failed": {str(k): v for k, v in sorted(self.failed.items())},
                "plugin_errors": dict(sorted(self.plugin_errors.items())),
                "notes": self.notes,
                "metric_seconds": {k: round(v, 3) for k, v in
                                   sorted(self.metric_seconds.items())},
                "seconds": round(self.seconds, 3)}


# --- plan (client) --------------------------------------------------------------------------


def plan_scoring(ws: Workspace, options: ScoringOptions, *,
                 submission_ids: Sequence[int] | None = None, task_id: str | None = None,
                 diagram_kind: str | None = None, only_missing: bool = False,
                 ) -> tuple[list[ScoreItem], ScoreSummary]:
    """What to score: each chosen submission with a PlantUML revision, and a summary that
    already counts what was skipped (``only_missing``: scored with this configuration)."""
    summary = ScoreSummary()
    tasks = {t.id: t for t in ws.tasks()}
    wanted = set(submission_ids) if submission_ids is not None else None
    heads = ws.head_revisions()
    done = _scored_with(ws, options) if only_missing else set()
    items = []
    for sub in ws.list_submissions(task_id):
        task = tasks.get(sub.task_id)
        if (wanted is not None and sub.id not in wanted) or task is None:
            continue
        if diagram_kind is not None and task.diagram_kind != diagram_kind:
            continue
        head = heads.get(sub.id)
        if head is None:
            summary.failed[sub.id] = "no PlantUML yet (convert image A first)"
            continue
        digest = text_hash(head)
        if (sub.id, digest) in done:
            summary.skipped += 1
            continue
        items.append(ScoreItem(sub.id, f"{sub.task_id} · {sub.source_id}", task.diagram_kind,
                               task.reference_puml, head, digest))
    summary.planned = len(items)
    return items, summary


def _scored_with(ws: Workspace, options: ScoringOptions) -> set[tuple[int, str]]:
    """(submission, text) pairs already scored with this configuration: CLUE under the same
    embedder, profile, normalization and weights for class tasks; any value for others."""
    weights = options.weights().fingerprint()
    clue = {(int(sid), h) for sid, h in ws._reader().execute(
        "SELECT submission_id, content_hash FROM scores WHERE metric = 'clue' AND embedder = ?"
        " AND profile = ? AND normalization = ? AND weights_hash = ?",
        (options.embedder_id(), options.profile, options.normalization, weights))}
    others = {(int(sid), h) for sid, h in ws._reader().execute(
        "SELECT s.submission_id, s.content_hash FROM scores s JOIN submissions u ON u.id ="
        " s.submission_id JOIN tasks t ON t.id = u.task_id WHERE t.diagram_kind != 'class'")}
    return clue | others


# --- score (pure) ---------------------------------------------------------------------------


Sink = Callable[[list[ScoredItem]], None]


def _chunks(items: Sequence[ScoreItem], size: int) -> Iterator[Sequence[ScoreItem]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


class _Timer:
    """Seconds spent per metric, for ``--profile-metrics`` and the job panel."""

    def __init__(self, seconds: dict[str, float]) -> None:
        self.seconds = seconds

    def run(self, name: str, work: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        try:
            return work()
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started


def score_items(items: Sequence[ScoreItem], options: ScoringOptions, cancel: CancelToken,
                sink: Sink, *, chunk_size: int = DEFAULT_CHUNK, registry: Any = None,
                llm_backend: Any = None) -> Job[ScoreSummary]:
    """Score ``items`` a chunk at a time, handing each finished chunk to ``sink``; nothing of
    a chunk is kept after that, so memory does not grow with the number of pairs."""
    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    summary = ScoreSummary(planned=len(items))
    timer = _Timer(summary.metric_seconds)
    state = _ScoringState(options, registry, llm_backend, timer, summary)
    started = time.perf_counter()
    done = 0
    try:
        for chunk in _chunks(items, chunk_size):
            cancel.raise_if_cancelled()
            scored = yield from state.score_chunk(chunk, cancel, done, len(items))
            sink(scored)
            summary.scored += [s.submission_id for s in scored if s.rows]
            summary.failed.update({s.submission_id: s.error for s in scored if s.error})
            done += len(chunk)
            yield Progress(done, len(items), f"scored {done} of {len(items)}")
    finally:
        state.close()
        summary.seconds = time.perf_counter() - started
    return summary


class _ScoringState:
    """What lives across chunks: the CLUE scorer (its embedder and cache), parsed references,
    the metric choice per kind, the plugin runner."""

    def __init__(self, options: ScoringOptions, registry: Any, llm_backend: Any,
                 timer: _Timer, summary: ScoreSummary) -> None:
        from cluestudio.core.kind_metrics import MetricRunner

        self.options, self.registry, self.timer, self.summary = (options, registry, timer,
                                                                  summary)
        if llm_backend is None and options.settings is not None:
            from cluestudio.core.kind_metrics import configured_backend

            llm_backend = configured_backend(options.settings)
        self.runner = MetricRunner(registry, llm_backend)
        self.llm = llm_backend is not None
        self._scorer: Any = None
        self._references: dict[str, Any] = {}
        self._chosen: dict[str, tuple[list[Any], list[str]]] = {}

    def close(self) -> None:
        if self._scorer is not None:
            self._scorer.close()
        for name, message in self.runner.errors.items():
            self.summary.plugin_errors.setdefault(name, message)

    def metrics_for(self, kind: str) -> list[Any]:
        from cluestudio.core.kind_metrics import select_metrics

        if kind not in self._chosen:
            # CLUE has its own engine; class tasks get the plugins beside it.
            llm = self.llm and kind != "class"
            self._chosen[kind] = select_metrics(kind, self.registry, llm=llm,
                                                embedder=self.options.embedder)
            if self._chosen[kind][1]:
                self.summary.notes[kind] = list(self._chosen[kind][1])
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

    def parse(self, text: str) -> Any:
        from cluestudio.core.plantuml import parse_plantuml

        return parse_plantuml(text).diagram

    def reference(self, text: str) -> Any:
        if text not in self._references:
            self._references[text] = self.parse(text)
        return self._references[text]

    def score_chunk(self, chunk: Sequence[ScoreItem], cancel: CancelToken, done: int,
                    total: int) -> Job[list[ScoredItem]]:
        out = [ScoredItem(item.submission_id, item.content_hash) for item in chunk]
        class_pairs: list[tuple[int, Any, Any]] = []  # (index in chunk, reference, candidate)
        yield Progress(done, total, "parsing")
        for index, item in enumerate(chunk):
            if not kinds.uses_class_parser(item.diagram_kind):
                continue
            try:
                reference = self.timer.run("parse", partial(self.reference, item.reference))
                candidate = self.timer.run("parse", partial(self.parse, item.candidate))
            except ClueStudioError as error:
                out[index].error = f"{item.label}: {error}"
                continue
            class_pairs.append((index, reference, candidate))
        if class_pairs:
            yield from self._clue(chunk, class_pairs, out, cancel, done, total)
        for index, item in enumerate(chunk):
            if out[index].error is None:
                cancel.raise_if_cancelled()
                out[index].rows += self._plugins(item, class_pairs, index)
        return out

    def _clue(self, chunk: Sequence[ScoreItem], pairs: list[tuple[int, Any, Any]],
              out: list[ScoredItem], cancel: CancelToken, done: int, total: int) -> Job[None]:
        scorer = self.scorer()
        started = time.perf_counter()
        results = yield from within(scorer.score_pairs([(r, c) for _, r, c in pairs], cancel),
                                    done, total, "CLUE: ")
        self.timer.seconds["clue"] = (self.timer.seconds.get("clue", 0.0)
                                      + time.perf_counter() - started)
        settings = scorer.settings()
        for (index, _, _), result in zip(pairs, results, strict=True):
            data = result.to_dict()
            for metric, value in data["scores"].items():
                out[index].rows.append(ScoredRow(
                    metric, value, embedder=settings["embedder"], profile=settings["profile"],
                    normalization=settings["normalization"],
                    weights_hash=str(settings["weights_fingerprint"]),
                    explanation=data["explanation"] if metric == "clue" else None))

    def _plugins(self, item: ScoreItem, class_pairs: list[tuple[int, Any, Any]],
                 index: int) -> list[ScoredRow]:
        from cluestudio.core.metrics import MetricInput

        diagrams = {i: (r, c) for i, r, c in class_pairs}
        reference_diagram, candidate_diagram = diagrams.get(index, (None, None))
        reference = MetricInput(item.reference, reference_diagram, "reference")
        candidate = MetricInput(item.candidate, candidate_diagram, item.label)
        rows = []
        for manifest in self.metrics_for(item.diagram_kind):
            runs = self.timer.run(manifest.name, partial(self.runner.run, [manifest],
                                                          reference, candidate))
            for run in runs:
                for number, (key, value) in enumerate(run.values.items()):
                    rows.append(ScoredRow(
                        key, value, metric_version=run.version,
                        explanation={"plugin": run.name, "explanation": run.explanation,
                                     "details": run.details}
                        if number == 0 and run.explanation is not None else None))
        return rows



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
                    only_missing: bool = False, chunk_size: int = DEFAULT_CHUNK,
                    registry: Any = None, llm_backend: Any = None,
                    on_stored: Callable[[frozenset[int]], None] | None = None,
                    ) -> Job[ScoreSummary]:
    """Plan, score and store in this process; each chunk is stored as soon as it is scored,
    so an interrupted run keeps what it finished (``only_missing`` then resumes it)."""
    cancel = cancel or CancelToken()
    items, summary = plan_scoring(ws, options, submission_ids=submission_ids, task_id=task_id,
                                  diagram_kind=diagram_kind, only_missing=only_missing)

    def sink(scored: list[ScoredItem]) -> None:
        changed = store_scored(ws, scored)
        if on_stored is not None and changed:
            on_stored(changed)

    result = yield from score_items(items, options, cancel, sink, chunk_size=chunk_size,
                                    registry=registry, llm_backend=llm_backend)
    result.skipped = summary.skipped
    result.failed = {**summary.failed, **result.failed}
    return result


def score_job(items: Sequence[ScoreItem], options: ScoringOptions, *, cancel: CancelToken,
              emit: Callable[[str, Any], None], chunk_size: int = DEFAULT_CHUNK,
              ) -> Job[ScoreSummary]:
    """:func:`score_items` for the worker process: each scored chunk goes back to the
    caller as ``emit("scored", chunk)``, and the caller stores it."""
    return score_items(items, options, cancel, lambda chunk: emit("scored", chunk),
                       chunk_size=chunk_size)


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
