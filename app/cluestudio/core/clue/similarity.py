"""Similarity profiles: how an embedder's cosine becomes CLUE's string similarity σ.

``paper`` (default) is OODEval Def. 4.2: σ = 0.5·(cos + 1) over mean-pooled vectors.
``oodeval-code`` matches the authors' published package: σ = cos over [CLS] vectors, so
their published numbers can be reproduced (σ may then be negative; DESIGN §3).
Both apply the empty-string rules: both empty → 1, exactly one empty → 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SimilarityProfile:
    name: str
    pooling: str  # "mean" | "cls", passed to neural embedders
    shifted: bool  # True: σ = 0.5·(cos + 1); False: σ = cos

    def sigma_from_cos(self, cos: np.ndarray) -> np.ndarray:
        return 0.5 * (cos + 1.0) if self.shifted else cos


PROFILES: dict[str, SimilarityProfile] = {
    "paper": SimilarityProfile("paper", "mean", True),
    "oodeval-code": SimilarityProfile("oodeval-code", "cls", False),
}


def get_profile(name: str) -> SimilarityProfile:
    from cluestudio.core.errors import ClueStudioError

    try:
        return PROFILES[name]
    except KeyError:
        raise ClueStudioError(
            f"unknown similarity profile {name!r}; use one of {', '.join(PROFILES)}") from None


def sigma_block(full: np.ndarray, pos_a: np.ndarray, pos_b: np.ndarray) -> np.ndarray:
    """σ of two string lists given as positions into ``full`` (-1 = empty string).

    ``full`` is σ between the distinct non-empty strings of both sides; the empty-string
    rules are applied here (both empty → 1, exactly one empty → 0).
    """
    if not len(pos_a) or not len(pos_b):
        return np.zeros((len(pos_a), len(pos_b)))
    empty_a, empty_b = pos_a < 0, pos_b < 0
    any_a, any_b = bool(empty_a.any()), bool(empty_b.any())
    if full.size:
        out = full.take(np.maximum(pos_a, 0) if any_a else pos_a, axis=0)
        out = out.take(np.maximum(pos_b, 0) if any_b else pos_b, axis=1)
    else:
        out = np.zeros((len(pos_a), len(pos_b)))
    if any_a or any_b:
        out[empty_a[:, None] ^ empty_b[None, :]] = 0.0
        out[empty_a[:, None] & empty_b[None, :]] = 1.0
    return out
