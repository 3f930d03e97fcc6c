"""Scoring for the GUI: CLUE plus the baseline metric plugins that fit the task's diagram kind.

No Qt here; :func:`score_submissions` is a core-style job the workbench runs on the batch
lane. CLUE comes from the scoring engine; the baselines (BLEU, ROUGE-L, …) from the plugin
registry, whose failures are caught, collected per plugin and handed back as
``plugin_errors`` so the window can list them instead of crashing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.workspace import Workspace
from cluestudio.gui.services import SUB_SCORES, explanation_for_panel, parse, text_hash

# Inputs the GUI can give a metric: the PlantUML text and its parsed diagram.
_GIVEN_INPUTS = frozenset({"plantuml", "diagram"})
# Metrics that load neural models; with the "exact" embedder the user chose to run none.
_NEURAL = frozenset({"torch", "transformers"})


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
    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    chosen = []
    for manifest in registry.manifests("metric", diagram_kind):
        if manifest.name == "clue" or not set(manifest.inputs) <= _GIVEN_INPUTS:
            continue  # CLUE has its own engine; "llm"/"source" inputs need more than a pair
        if embedder == "exact" and _NEURAL & set(manifest.optional_dependencies):
            continue
        chosen.append(manifest)
    return chosen


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


def score_submissions(ws: Workspace, submission_ids: list[int], embedder: str, device: str,
                      profile: str, cancel: CancelToken, registry: Any = None
                      ) -> Job[dict[int, dict[str, Any]]]:
    """Score each submission's head revision against its task reference and store the scores.

    The result maps submission id → metric-panel dict; a pair whose text does not parse gets
    ``{"error": ...}``. Baseline plugin failures come back under the key ``"plugin_errors"``
    (plugin name → message), once per plugin however many pairs it failed on.
    """
    from cluestudio.core.clue import ClueScorer
    from cluestudio.core.workspace import ops

    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    pairs: list[_Pair] = []
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
                tasks[submission.task_id] = (task.diagram_kind if task else "class", text,
                                             parse(text).diagram)
            kind, reference_text, reference = tasks[submission.task_id]
            candidate = parse(head.puml).diagram
        except ClueStudioError as error:
            out[sid] = {"error": str(error)}
            continue
        pairs.append(_Pair(sid, text_hash(head.puml), reference_text, head.puml, reference,
                           candidate, kind))
        yield Progress(done + 1, len(submission_ids), "parsing")
    errors: dict[str, str] = {}
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
    for pair, result in zip(pairs, results, strict=True):
        data = result.to_dict()
        settings = data["settings"]

        def store(conn: Any, pair: _Pair = pair, data: dict[str, Any] = data,
                  settings: dict[str, Any] = settings) -> None:
            for metric, value in data["scores"].items():
                ops.put_score(conn, pair.submission_id, pair.digest, metric, value,
                              embedder=settings.get("embedder", ""),
                              weights_hash=str(settings.get("weights_fingerprint", "")),
                              explanation=data["explanation"] if metric == "clue" else None)
            for metric, value in pair.baselines.items():
                ops.put_score(conn, pair.submission_id, pair.digest, metric, value,
                              metric_version=_version_of(metric, versions))

        ws.write(store)
        panel: dict[str, Any] = {SUB_SCORES[k]: v for k, v in data["scores"].items()
                                 if k in SUB_SCORES}
        panel["explanation"] = explanation_for_panel(data["explanation"])
        if pair.baselines:
            panel["baselines"] = dict(pair.baselines)
        out[pair.submission_id] = panel
    if errors:
        out["plugin_errors"] = errors
    return out


def _version_of(value_key: str, versions: dict[str, str]) -> str:
    """The version of the metric plugin that reports ``value_key`` (e.g. rouge-l-recall)."""
    for name in sorted(versions, key=len, reverse=True):
        if value_key == name or value_key.startswith(name + "-"):
            return versions[name]
    return ""
