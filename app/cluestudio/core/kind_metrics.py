"""The plugin metrics that apply to a diagram kind, run on one reference/candidate pair.

The GUI's scoring job and ``cluestudio score --kind`` share this. A metric is chosen when its
manifest's ``diagram_kinds`` match the kind and every input it declares can be supplied:
the PlantUML text (``plantuml``) for class and architecture kinds, the parsed class diagram
(``diagram``) for class diagrams only, the model text (``source``) for SysML v2 and code,
and a chat model (``llm``) only when an endpoint is configured; an LLM metric without one
is skipped with a one-line note, not an error. A metric that fails is reported by name and
the others still run (the registry's isolation, docs/adr/0006-plugin-manifests.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.metrics import MetricInput
from cluestudio.core.plugins import checked_metric_result, is_plugin_fault

#: Inputs the caller can give a metric, by diagram kind (besides "llm", see above).
GIVEN_INPUTS: dict[str, frozenset[str]] = {
    "class": frozenset({"plantuml", "diagram"}),
    "component": frozenset({"plantuml"}),
    "deployment": frozenset({"plantuml"}),
    "package": frozenset({"plantuml"}),
    "sysml": frozenset({"source"}),
    "code": frozenset({"source"}),
}
# Metrics that load neural models; with the "exact" embedder the user chose to run none.
NEURAL = frozenset({"torch", "transformers", "onnxruntime"})  # onnxruntime: the default encoder
NO_LLM_NOTE = ("skipped: no LLM endpoint configured ([llm] base_url and model in "
               "settings.toml; Settings → Model endpoint in the app)")


@dataclass(frozen=True)
class MetricRun:
    """One metric's outcome on one pair (values keyed as the metric reports them)."""

    name: str
    version: str
    values: dict[str, float | None]
    explanation: Any = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"metric": self.name, "version": self.version,
                               "values": dict(self.values)}
        if self.details:
            out["details"] = self.details
        if self.explanation is not None:
            out["explanation"] = self.explanation
        return out


def select_metrics(kind: str, registry: Any, *, llm: bool = False, embedder: str = "",
                   exclude: tuple[str, ...] = ("clue",)) -> tuple[list[Any], list[str]]:
    """(manifests to run, notes on the ones skipped for want of an LLM endpoint)."""
    given = GIVEN_INPUTS.get(kind, frozenset({"plantuml"}))
    chosen, notes = [], []
    for manifest in registry.manifests("metric", kind):
        inputs = set(manifest.inputs)
        if manifest.name in exclude or not inputs - {"llm"} <= given:
            continue
        if embedder == "exact" and NEURAL & set(manifest.optional_dependencies):
            continue
        if "llm" in inputs and not llm:
            notes.append(f"{manifest.title or manifest.name}: {NO_LLM_NOTE}")
            continue
        chosen.append(manifest)
    return chosen, notes


def configured_backend(settings: Any) -> Any | None:
    """The chat backend of the ``[llm]`` settings, or None when no endpoint is configured."""
    llm = settings.llm
    if not llm.base_url.strip() or not llm.model.strip():
        return None
    from cluestudio.core.vlm.factory import BackendOptions, endpoint_limits, make_backend

    return make_backend(BackendOptions(backend="openai", model=llm.model.strip(),
                                       base_url=llm.base_url.strip(), api_key=settings.api_key(),
                                       timeout_s=120.0, retries=2,
                                       **endpoint_limits(llm)))


class MetricRunner:
    """Runs chosen metrics pair after pair; LLM metrics get ``backend`` when one is given.

    ``errors`` collects one message per failing metric (name → text), however many pairs it
    failed on, so a window or a terminal can list each broken plugin once.
    """

    def __init__(self, registry: Any, backend: Any | None = None) -> None:
        self.registry = registry
        self.backend = backend
        self.errors: dict[str, str] = {}
        self._with_backend: dict[str, Any] = {}

    def run(self, manifests: list[Any], reference: MetricInput, candidate: MetricInput
            ) -> list[MetricRun]:
        runs = []
        for manifest in manifests:
            result = self._score(manifest, reference, candidate)
            if result is None:
                continue
            values = {k: None if v is None else float(v)
                      for k, v in getattr(result, "values", {}).items()}
            runs.append(MetricRun(manifest.name, manifest.version, values,
                                  getattr(result, "explanation", None),
                                  dict(getattr(result, "details", {}) or {})))
        return runs

    def _score(self, manifest: Any, reference: MetricInput, candidate: MetricInput) -> Any:
        name = manifest.name
        if "llm" in manifest.inputs and self.backend is not None:
            return self._score_with_backend(name, reference, candidate)
        result = self.registry.score(name, reference, candidate)
        if result is None:
            status = self.registry.status("metric", name)
            self.errors.setdefault(name, status.error or "the plugin could not be loaded")
        return result

    def _score_with_backend(self, name: str, reference: MetricInput, candidate: MetricInput
                            ) -> Any:
        """An LLM metric built with our backend (``cls(backend=...)``), errors caught."""
        try:
            metric = self._with_backend.get(name)
            if metric is None:
                cls = self.registry.load("metric", name)
                if cls is None:
                    status = self.registry.status("metric", name)
                    self.errors.setdefault(name, status.error or "the plugin could not be loaded")
                    return None
                try:
                    metric = cls(backend=self.backend)
                except TypeError:  # takes no backend: it reads the settings itself
                    metric = self.registry.instance("metric", name)
                    if metric is None:
                        status = self.registry.status("metric", name)
                        self.errors.setdefault(name, status.error or "could not be built")
                        return None
                self._with_backend[name] = metric
            return checked_metric_result(metric.score(reference, candidate))
        except BaseException as error:  # a plugin's failure must never end the batch
            if not is_plugin_fault(error):
                raise
            self.errors.setdefault(name, f"{type(error).__name__}: {error}")
            return None


def score_pair(kind: str, reference_text: str, candidate_text: str, registry: Any = None, *,
               backend: Any | None = None, embedder: str = "",
               names: tuple[str, ...] = ("reference", "candidate")
               ) -> tuple[list[MetricRun], list[str], dict[str, str]]:
    """(runs, notes, errors) of every applicable plugin metric on one pair of texts."""
    if registry is None:
        from cluestudio.core.plugins import get_registry

        registry = get_registry()
    manifests, notes = select_metrics(kind, registry, llm=backend is not None,
                                      embedder=embedder)
    runner = MetricRunner(registry, backend)
    runs = runner.run(manifests, MetricInput(reference_text, None, names[0]),
                      MetricInput(candidate_text, None, names[1]))
    return runs, notes, runner.errors
