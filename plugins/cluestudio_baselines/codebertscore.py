"""CodeBERTScore (Zhou et al. 2023), BERTScore-style: greedy matching of token embeddings.

Every token of reference and candidate PlantUML gets a contextual vector from the encoder
(default: the shipped MiniLM; ``encoder=`` any model name or folder, e.g. CodeBERT);
precision = mean over candidate tokens of the best cosine to a reference token, recall the
other way round, F1 their harmonic mean. No IDF weighting and no baseline rescaling.
torch is imported only when a score is computed.

Token vectors come from the shared embedding layer (:class:`~cluestudio.core.embed.TokenVectors`):
a reference shared by a whole course is encoded once, and every text once per machine (the
on-disk cache), so re-scoring costs only the similarity matrices.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest


class CodeBertScoreMetric:
    manifest: ClassVar[MetricManifest] = metric_manifest("cluestudio_baselines", "codebertscore")

    def __init__(self, encoder: str = "minilm", device: str = "auto",
                 cache: Any = True) -> None:
        self._encoder_name = encoder
        self._device = device
        self._encoder: Any = None
        self._cache_arg = cache  # True: the user's cache; False/None: none; or a cache
        self._vectors: Any = None

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from cluestudio.core.embed import get_embedder

            self._encoder = get_embedder(self._encoder_name, device=self._device)
        return self._encoder

    @property
    def vectors(self) -> Any:
        """The token vectors of each text, encoded once (:class:`TokenVectors`)."""
        if self._vectors is None:
            from cluestudio.core.embed import EmbeddingCache, TokenVectors

            cache = self._cache_arg
            if cache is True:
                cache = EmbeddingCache()
            self._vectors = TokenVectors(self.encoder, cache or None)
        return self._vectors

    def prepare(self, texts: list[str]) -> None:
        """Fetch or encode the token vectors of ``texts`` now (a batch about to be scored),
        so the cache is asked once for all of them."""
        self.vectors.get_many(texts)

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        found = self.vectors.get_many([reference.plantuml, candidate.plantuml])
        ref, cand = found[reference.plantuml], found[candidate.plantuml]
        if len(ref) == 0 or len(cand) == 0:
            value = 1.0 if len(ref) == len(cand) else 0.0
            return MetricResult({"codebertscore": value, "codebertscore-precision": value,
                                 "codebertscore-recall": value})
        sim = cand @ ref.T  # unit vectors: cosine
        precision = float(np.mean(sim.max(axis=1)))
        recall = float(np.mean(sim.max(axis=0)))
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        return MetricResult(
            {"codebertscore": f1, "codebertscore-precision": precision,
             "codebertscore-recall": recall},
            details={"encoder": self.encoder.id})
