"""The metric plugin contract (DESIGN §1, §4): a static manifest and ``score(ref, cand)``.

Metrics register in the entry-point group ``cluestudio.metrics`` (built-ins too). A metric
class has a class attribute ``manifest`` and can be built without arguments; ``score`` takes
two :class:`MetricInput` and returns a :class:`MetricResult`. Nothing here imports a plugin:
the registry (issue 9) reads the manifest after loading the entry point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from cluestudio.core.model import ClassDiagram

METRICS_GROUP = "cluestudio.metrics"
InputKind = Literal["plantuml", "diagram"]


@dataclass(frozen=True)
class MetricManifest:
    """What a metric is and needs, readable without running it."""

    name: str  # the entry-point name, e.g. "clue", "bleu"
    version: str
    kind: str = "metric"
    inputs: tuple[InputKind, ...] = ("plantuml",)
    # Distributions the metric imports lazily (e.g. "torch"); a missing one disables it.
    optional_dependencies: tuple[str, ...] = ()
    values: tuple[str, ...] = ()  # the keys of MetricResult.values, e.g. ("bleu",)
    description: str = ""


@dataclass(frozen=True)
class MetricInput:
    """One side of a comparison: the PlantUML text and, when available, the parsed diagram."""

    plantuml: str = ""
    diagram: ClassDiagram | None = None
    source: str | None = None  # file name for messages

    def require_diagram(self) -> ClassDiagram:
        """The diagram, parsing the PlantUML text if it was not given."""
        if self.diagram is not None:
            return self.diagram
        from cluestudio.core.plantuml.parser import parse_plantuml

        return parse_plantuml(self.plantuml, source=self.source).diagram


@dataclass(frozen=True)
class MetricResult:
    values: dict[str, float]
    explanation: Any = None  # JSON-serialisable, or None
    details: dict[str, Any] = field(default_factory=dict)  # e.g. settings used

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"values": dict(self.values)}
        if self.details:
            out["details"] = self.details
        if self.explanation is not None:
            out["explanation"] = self.explanation
        return out


@runtime_checkable
class Metric(Protocol):
    manifest: ClassVar[MetricManifest]

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult: ...
