"""Scoring for the GUI: CLUE plus the baseline metric plugins that fit the task's diagram kind.

No Qt here; :func:`score_submissions` is a core-style job the workbench runs on the batch
lane. Class-diagram tasks get CLUE from the scoring engine and the baselines (BLEU, ROUGE-L,
…) from the plugin registry. Tasks of other kinds (component, deployment, package, SysML,
code) are never parsed as class diagrams and get no CLUE: they get the registry's metrics
for their kind (:mod:`cluestudio.core.kind_metrics`: R2ABench, SysMEval, …), LLM metrics only
when an ``[llm]`` endpoint is configured. Plugin failures are caught, collected per plugin
and handed back as ``plugin_errors`` so the window can list them instead of crashing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.workspace import Workspace
from cluestudio.gui.services import (
    SUB_SCORES,
    explanation_for_panel,
    parse,
    stored_plugin_explanation,
    text_hash,
)

STORE_CHUNK = 50  # pairs written per transaction

@dataclass
class _Pair:
    submission_id: int
    digest: str
    reference_text: str
    candidate_text: str
    reference: Any
    candidate: Any
    diagram_kind: str
    baselines: dict[str, float | None] = field(default_factory=dict)


def baseline_metrics(diagram_kind: str, embedder: str, registry: Any = None) -> list[Any]:
    """Manifests of the registry's metrics to run beside CLUE for a task of ``diagram_kind``."""
    from cluestudio.core.kind_metrics import select_metrics

    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    # CLUE has its own engine; "llm"/"source" inputs need more than a class-diagram pair.
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


def run_baselines(pair: _Pair, manifests: list[Any], registry: Any,
                  errors: dict[str, str]) -> dict[str, float | None]:
    """Every baseline value of one pair; a failing plugin adds to ``errors`` and is skipped."""
    from cluestudio.core.metrics import MetricInput

    reference = MetricInput(pair.reference_text, pair.reference, "reference")
    candidate = MetricInput(pair.candidate_text, pair.candidate, "candidate")
    values: dict[str, float | None] = {}
    for manifest in manifests:
        result = registry.score(manifest.name, reference, candidate)
        if result is None:
            status = registry.status("metric", manifest.name)
            errors.setdefault(manifest.name, status.error or "the plugin could not be loaded")
            continue
        for key, value in getattr(result, "values", {}).items():
            values[key] = None if value is None else float(value)
    return values


@dataclass
class _KindPair:
    """A pair of a non-class task: texts only (no class parse, no CLUE)."""

    submission_id: int
    digest: str
    reference_text: str
    candidate_text: str
    diagram_kind: str


def score_submissions(ws: Workspace, submission_ids: list[int], embedder: str, device: str,
                      profile: str, cancel: CancelToken, registry: Any = None, *,
                      settings: Any = None, llm_backend: Any = None,
                      focus: Collection[int] | None = None
                      ) -> Job[dict[int, dict[str, Any]]]:
    """Score each submission's head revision against its task reference and store the scores.

    The result maps submission id → metric-panel dict (only for the ids in ``focus`` when
    given: the panel of any other submission is read back from the workspace when it is
    shown, and keeping a thousand explanations alive made Python's full garbage collections
    stall the UI thread for 100–250 ms each); a pair whose text does not parse gets
    ``{"error": ...}`` whatever ``focus`` says. Plugin failures come back under the key
    ``"plugin_errors"`` (plugin name → message), once per plugin however many pairs it
    failed on. LLM metrics (SysMEval, the R2A judge) use ``llm_backend``, else the ``[llm]``
    endpoint of ``settings``; with neither they are skipped and the panel says so.
    """
    from cluestudio.core.workspace import kinds

    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    pairs: list[_Pair] = []
    others: list[_KindPair] = []
    out: dict[Any, Any] = {}
    tasks: dict[str, tuple[str, str, Any]] = {}  # id → (kind, reference text, diagram)
    for done, sid in enumerate(submission_ids):
        cancel.raise_if_cancelled()
        submission = ws.submission(sid)
        head = ws.head_revision(sid)
        if submission is None or head is None:
            continue
        try:
            if submission.task_id not in tasks:
                task = ws.task(submission.task_id)
                text = task.reference_puml if task else ""
                kind = task.diagram_kind if task else "class"
                tasks[submission.task_id] = (kind, text, parse(text).diagram
                                             if kinds.uses_class_parser(kind) else None)
            kind, reference_text, reference = tasks[submission.task_id]
            if not kinds.uses_class_parser(kind):
                others.append(_KindPair(sid, text_hash(head.puml), reference_text, head.puml,
                                        kind))
                yield Progress(done + 1, len(submission_ids), "reading")
                continue
            candidate = parse(head.puml).diagram
        except ClueStudioError as error:
            out[sid] = {"error": str(error)}
            continue
        pairs.append(_Pair(sid, text_hash(head.puml), reference_text, head.puml, reference,
                           candidate, kind))
        yield Progress(done + 1, len(submission_ids), "parsing")
    errors: dict[str, str] = {}
    if others:
        if llm_backend is None and settings is not None:
            from cluestudio.core.kind_metrics import configured_backend

            llm_backend = configured_backend(settings)
        yield from _score_other_kinds(ws, others, embedder, registry, llm_backend, cancel, out,
                                      errors, focus)
    if pairs:
        yield from _score_class_pairs(ws, pairs, embedder, device, profile, registry, cancel,
                                      out, errors, focus)
    if errors:
        out["plugin_errors"] = errors
    return out


def _score_class_pairs(ws: Workspace, pairs: list[_Pair], embedder: str, device: str,
                       profile: str, registry: Any, cancel: CancelToken,
                       out: dict[Any, Any], errors: dict[str, str],
                       focus: Collection[int] | None) -> Job[None]:
    """CLUE and the baselines of class-diagram pairs, stored and put into ``out``."""
    from cluestudio.core.clue import ClueScorer

    by_kind: dict[str, list[Any]] = {}
    for number, pair in enumerate(pairs):
        cancel.raise_if_cancelled()
        if pair.diagram_kind not in by_kind:
            by_kind[pair.diagram_kind] = baseline_metrics(pair.diagram_kind, embedder, registry)
        pair.baselines = run_baselines(pair, by_kind[pair.diagram_kind], registry, errors)
        yield Progress(number + 1, len(pairs), "baselines")
    scorer = ClueScorer(embedder, device=device, profile=profile)
    try:
        results = yield from scorer.score_pairs([(p.reference, p.candidate) for p in pairs],
                                                cancel)
    finally:
        scorer.close()
    versions = {m.name: m.version for kind in by_kind.values() for m in kind}
    todo: list[Any] = list(results)
    del results
    # What is alive now (diagrams, results) stays alive until the loop ends; Python's full
    # collections would scan it again and again while the results are stored, stalling the
    # UI thread 100-250 ms each time with 1,000 pairs (benchmarks/bench_gui.py). Frozen
    # objects are skipped by the collector; nothing is leaked, they return at unfreeze.
    import gc

    gc.freeze()
    try:
        for start in range(0, len(pairs), STORE_CHUNK):
            stop = min(start + STORE_CHUNK, len(pairs))
            chunk = [(pairs[i], todo[i].to_dict()) for i in range(start, stop)]
            todo[start:start + STORE_CHUNK] = [None] * len(chunk)  # let each result go once stored

            def store(conn: Any, chunk: list[tuple[_Pair, dict[str, Any]]] = chunk) -> None:
                for pair, data in chunk:
                    _store_class_pair(conn, pair, data, versions)

            ws.write(store)  # one transaction per chunk
            for pair, data in chunk:
                if focus is None or pair.submission_id in focus:
                    out[pair.submission_id] = _class_panel(pair, data)
            yield Progress(stop, len(pairs), "storing")
    finally:
        gc.unfreeze()


def _store_class_pair(conn: Any, pair: _Pair, data: dict[str, Any],
                      versions: dict[str, str]) -> None:
    from cluestudio.core.workspace import ops

    settings = data["settings"]
    for metric, value in data["scores"].items():
        ops.put_score(conn, pair.submission_id, pair.digest, metric, value,
                      embedder=settings.get("embedder", ""),
                      weights_hash=str(settings.get("weights_fingerprint", "")),
                      explanation=data["explanation"] if metric == "clue" else None)
    for metric, value in pair.baselines.items():
        ops.put_score(conn, pair.submission_id, pair.digest, metric, value,
                      metric_version=_version_of(metric, versions))


def _class_panel(pair: _Pair, data: dict[str, Any]) -> dict[str, Any]:
    panel: dict[str, Any] = {SUB_SCORES[k]: v for k, v in data["scores"].items()
                             if k in SUB_SCORES}
    panel["explanation"] = explanation_for_panel(data["explanation"])
    if pair.baselines:
        panel["baselines"] = dict(pair.baselines)
    return panel


def _score_other_kinds(ws: Workspace, pairs: list[_KindPair], embedder: str, registry: Any,
                       backend: Any, cancel: CancelToken, out: dict[Any, Any],
                       errors: dict[str, str], focus: Collection[int] | None) -> Job[None]:
    """The kind's plugin metrics on each pair; every value stored with its metric's version,
    the explanation (SysMEval's claims and verdicts, R2A's alignment) on its first value."""
    from cluestudio.core.kind_metrics import MetricRunner, select_metrics
    from cluestudio.core.metrics import MetricInput
    from cluestudio.core.workspace import ops

    runner = MetricRunner(registry, backend)
    chosen: dict[str, tuple[list[Any], list[str]]] = {}
    for number, pair in enumerate(pairs):
        cancel.raise_if_cancelled()
        kind = pair.diagram_kind
        if kind not in chosen:
            chosen[kind] = select_metrics(kind, registry, llm=backend is not None,
                                          embedder=embedder)
        manifests, notes = chosen[kind]
        runs = runner.run(manifests, MetricInput(pair.reference_text, None, "reference"),
                          MetricInput(pair.candidate_text, None, "candidate"))

        def store(conn: Any, pair: _KindPair = pair, runs: list[Any] = runs) -> None:
            for run in runs:
                for index, (key, value) in enumerate(run.values.items()):
                    ops.put_score(conn, pair.submission_id, pair.digest, key, value,
                                  metric_version=run.version,
                                  explanation=stored_plugin_explanation(run) if index == 0
                                  else None)

        ws.write(store)
        panel: dict[str, Any] = {"diagram_kind": kind, "metrics": {
            k: v for run in runs for k, v in run.values.items()}}
        panel["plugin_explanations"] = {run.name: run.explanation for run in runs
                                        if run.explanation is not None}
        if notes or not manifests:
            panel["notes"] = list(notes) or [f"no metric plugin applies to {kind} diagrams"]
        if focus is None or pair.submission_id in focus:
            out[pair.submission_id] = panel
        yield Progress(number + 1, len(pairs), f"{kind} metrics")
    for name, message in runner.errors.items():
        errors.setdefault(name, message)


def _version_of(value_key: str, versions: dict[str, str]) -> str:
    """The version of the metric plugin that reports ``value_key`` (e.g. rouge-l-recall)."""
    for name in sorted(versions, key=len, reverse=True):
        if value_key == name or value_key.startswith(name + "-"):
            return versions[name]
    return ""
