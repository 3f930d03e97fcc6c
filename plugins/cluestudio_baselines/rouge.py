"""ROUGE-L on PlantUML token streams: LCS-based precision, recall and F1 (β = 1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest
from cluestudio_baselines.tokens import plantuml_tokens


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (rapidfuzz when present, else plain DP)."""
    try:
        from rapidfuzz.distance import LCSseq
    except ImportError:
        previous = [0] * (len(b) + 1)
        for x in a:
            current = [0]
            for j, y in enumerate(b):
                current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
            previous = current
        return previous[-1]
    return int(LCSseq.similarity(list(a), list(b)))


class RougeLMetric:
    manifest: ClassVar[MetricManifest] = metric_manifest("cluestudio_baselines", "rouge-l")

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        ref = plantuml_tokens(reference.plantuml)
        cand = plantuml_tokens(candidate.plantuml)
        if not ref and not cand:
            return MetricResult({"rouge-l": 1.0, "rouge-l-precision": 1.0,
                                 "rouge-l-recall": 1.0})
        lcs = lcs_length(ref, cand)
        precision = lcs / len(cand) if cand else 0.0
        recall = lcs / len(ref) if ref else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return MetricResult({"rouge-l": f1, "rouge-l-precision": precision,
                             "rouge-l-recall": recall})
