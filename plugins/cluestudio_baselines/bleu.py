"""BLEU on PlantUML token streams (baseline of OODEval Table 7), via sacrebleu.

Our own tokens (:mod:`.tokens`) joined by spaces are fed to ``sentence_bleu`` with
``tokenize="none"``, so sacrebleu only counts n-grams (up to 4, exponential smoothing, its
defaults). The value is scaled to [0, 1].
"""

from __future__ import annotations

from typing import ClassVar

from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest
from cluestudio_baselines.tokens import plantuml_tokens


class BleuMetric:
    manifest: ClassVar[MetricManifest] = metric_manifest("cluestudio_baselines", "bleu")

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        from sacrebleu.metrics import BLEU

        ref = " ".join(plantuml_tokens(reference.plantuml))
        hyp = " ".join(plantuml_tokens(candidate.plantuml))
        if not ref and not hyp:
            return MetricResult({"bleu": 1.0})
        if not ref or not hyp:
            return MetricResult({"bleu": 0.0})
        bleu = BLEU(tokenize="none", effective_order=True).sentence_score(hyp, [ref])
        return MetricResult({"bleu": bleu.score / 100.0},
                            details={"signature": "sacrebleu tokenize=none, smooth=exp"})
