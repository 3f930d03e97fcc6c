"""The CLUE scoring API: a configured :class:`ClueScorer` scores one pair or a batch job.

    scorer = ClueScorer(embedder="minilm")            # or "exact", a model name or folder
    result = scorer.score(reference, candidate)       # ClueResult: .scores, .explanation
    results = run_job(scorer.score_pairs(pairs, CancelToken()), on_progress=print)

A batch collects the distinct strings of all pairs, embeds them once (cache first), builds
each pair's leaf σ matrices, then evaluates all pairs together (:mod:`.batch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from cluestudio.core.clue.batch import ClueScores, LeafBatch, PairMatrices
from cluestudio.core.clue.explain import ClueExplanation, explain
from cluestudio.core.clue.leaves import DiagramIndex, pair_leaves
from cluestudio.core.clue.optmatch import NORMALIZATIONS
from cluestudio.core.clue.relations import load_lut
from cluestudio.core.clue.similarity import get_profile
from cluestudio.core.clue.weights import ClueWeights
from cluestudio.core.embed import (
    Embedder,
    EmbeddingCache,
    embed_strings,
    get_embedder,
)
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress, run_job
from cluestudio.core.model import ClassDiagram

Pair = tuple[ClassDiagram, ClassDiagram]  # (reference, candidate)


@dataclass(frozen=True, eq=False)
class ClueResult:
    """The five CLUE scores of one pair, with the matchings that explain them."""

    scores: ClueScores
    matrices: PairMatrices
    settings: dict[str, Any]

    @cached_property
    def explanation(self) -> ClueExplanation:
        return explain(self.matrices)

    def to_dict(self, *, explain: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"scores": self.scores.as_dict(), "settings": self.settings}
        if explain:
            out["explanation"] = self.explanation.to_dict()
        return out


class ClueScorer:
    """CLUE with one embedder, similarity profile, normalization and weight profile."""

    def __init__(self, embedder: Embedder | str = "minilm", *, profile: str = "paper",
                 normalization: str = "reference", weights: ClueWeights | None = None,
                 device: str = "auto", cache: EmbeddingCache | bool | None = True,
                 lut: np.ndarray | None = None) -> None:
        if normalization not in NORMALIZATIONS:
            raise ClueStudioError(f"unknown normalization {normalization!r}; use one of "
                                  f"{', '.join(NORMALIZATIONS)}")
        self.profile = get_profile(profile)
        self.embedder = (get_embedder(embedder, pooling=self.profile.pooling, device=device)
                         if isinstance(embedder, str) else embedder)
        self.normalization = normalization
        self.weights = weights or ClueWeights.shipped(self.profile.weights)
        self.lut = load_lut() if lut is None else lut
        self._cache_arg = cache
        self._cache: EmbeddingCache | None = None

    @property
    def cache(self) -> EmbeddingCache | None:
        """The on-disk cache, opened on first use (``cache=False`` turns it off)."""
        if self._cache is None and self._cache_arg is not False and self._cache_arg is not None:
            self._cache = (self._cache_arg if isinstance(self._cache_arg, EmbeddingCache)
                           else EmbeddingCache())
        return self._cache

    def settings(self) -> dict[str, Any]:
        return {"embedder": self.embedder.id, "profile": self.profile.name,
                "normalization": self.normalization, "weights": self.weights.name,
                "weights_version": self.weights.version,
                "weights_fingerprint": self.weights.fingerprint()}

    # -- jobs -------------------------------------------------------------------------------
    def build_leaves(self, pairs: Sequence[Pair],
                     cancel: CancelToken | None = None) -> Job[LeafBatch]:
        """Embed every distinct string once and compute each pair's leaf σ matrices."""
        cancel = cancel or CancelToken()
        indexes: dict[int, DiagramIndex] = {}  # a reference shared by many pairs: index once
        for diagram in (d for pair in pairs for d in pair):
            if id(diagram) not in indexes:
                indexes[id(diagram)] = DiagramIndex.of(diagram, self.profile.embed_empty)
        strings = {s for index in indexes.values() for s in index.strings()}
        vectors = yield from embed_strings(self.embedder, strings, self.cache, cancel,
                                           keep_empty=self.profile.embed_empty)
        ids = {key: vectors.ids(index.distinct) for key, index in indexes.items()}
        leaves = []
        for i, (ref, cand) in enumerate(pairs):
            if i % 100 == 0:
                cancel.raise_if_cancelled()
                yield Progress(i, len(pairs), "comparing strings", phase="comparing strings")
            leaves.append(pair_leaves(indexes[id(ref)], indexes[id(cand)], vectors,
                                      self.profile, self.lut, ids[id(ref)], ids[id(cand)]))
        return LeafBatch(leaves)

    def score_pairs(self, pairs: Sequence[Pair],
                    cancel: CancelToken | None = None) -> Job[list[ClueResult]]:
        """Score many (reference, candidate) pairs; results in input order."""
        cancel = cancel or CancelToken()
        batch = yield from self.build_leaves(pairs, cancel)
        cancel.raise_if_cancelled()
        yield Progress(0, len(pairs), "matching", phase="matching")
        results = self.evaluate(batch)
        yield Progress(len(pairs), len(pairs), "matching", phase="matching")
        return results

    def evaluate(self, batch: LeafBatch, weights: ClueWeights | None = None
                 ) -> list[ClueResult]:
        """Results for already-built leaves, optionally under other weights (no embedding)."""
        weights = weights or self.weights
        settings = self.settings()
        if weights is not self.weights:
            settings.update(weights=weights.name, weights_version=weights.version,
                            weights_fingerprint=weights.fingerprint())
        return [ClueResult(scores, matrices, settings)
                for scores, matrices in batch.evaluate(weights, self.normalization)]

    # -- one pair ---------------------------------------------------------------------------
    def score(self, reference: ClassDiagram, candidate: ClassDiagram) -> ClueResult:
        return run_job(self.score_pairs([(reference, candidate)]))[0]

    def close(self) -> None:
        if self._cache is not None and self._cache is not self._cache_arg:
            self._cache.close()
        self._cache = None


def score(reference: ClassDiagram, candidate: ClassDiagram, *,
          embedder: Embedder | str = "minilm", **options: Any) -> ClueResult:
    """One-off convenience: ``ClueScorer(embedder, **options).score(reference, candidate)``."""
    scorer = ClueScorer(embedder, **options)
    try:
        return scorer.score(reference, candidate)
    finally:
        scorer.close()
