"""CLUE as a metric plugin (entry point ``clue`` in ``cluestudio.metrics``)."""

from __future__ import annotations

from typing import Any, ClassVar

from cluestudio.core.clue.scorer import ClueScorer
from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest


class ClueMetric:
    manifest: ClassVar[MetricManifest] = metric_manifest("cluestudio", "clue")

    def __init__(self, embedder: str = "minilm", **options: Any) -> None:
        self._embedder = embedder
        self._options = options
        self._scorer: ClueScorer | None = None

    @property
    def scorer(self) -> ClueScorer:
        if self._scorer is None:  # built on first use: loading a model is slow
            self._scorer = ClueScorer(self._embedder, **self._options)
        return self._scorer

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        result = self.scorer.score(reference.require_diagram(), candidate.require_diagram())
        return MetricResult(values=result.scores.as_dict(),
                            explanation=result.explanation.to_dict(),
                            details=result.settings)
