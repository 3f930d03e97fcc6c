"""Similarity profiles: how strings become CLUE's σ, and the rules that go with it.

``paper`` (default) is OODEval Def. 4.2 as DESIGN §3 reads it: σ = 0.5·(cos + 1) over
mean-pooled vectors; both strings empty → 1, exactly one empty → 0; multiplicities match when
equal after trimming or when both contain ``*|many|much|multi`` (case-insensitive); a
relation end naming no class is compared by σ of the names.

``oodeval-code`` is the authors' package (``clue-oodeval`` 0.1.3) rule for rule, so their
published numbers are reproduced (docs/adr/0003): σ = raw cosine (may be negative); the
pooling a model declares for sentence-transformers (MiniLM: mean, BGE: [CLS]), else [CLS]
(bert-base-uncased, codebert-base); an empty string is embedded like any other; the
multiplicity search is case-sensitive and equality untrimmed; a relation end naming no class
falls back to class 0; an empty reference scores clue-attribute = clue-method = 0 (the
package's attribute thread divides by zero and leaves its initial 0); the package's own
full-precision weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cluestudio.core.clue.relations import (
    PACKAGE_MULTIPLICITY,
    PAPER_MULTIPLICITY,
    MultiplicityRule,
)

#: Ways to resolve a relation end that names no class of its diagram.
END_BY_NAME = "name"  # σ of the two end names
END_FIRST_CLASS = "first-class"  # class 0, as the authors' package silently does


@dataclass(frozen=True)
class SimilarityProfile:
    name: str
    pooling: str  # "mean" | "cls" | "declared", passed to neural embedders
    shifted: bool  # True: σ = 0.5·(cos + 1); False: σ = cos
    embed_empty: bool = False  # True: "" is embedded; False: empty-string rules
    multiplicity: MultiplicityRule = PAPER_MULTIPLICITY
    unknown_end: str = END_BY_NAME
    empty_reference_members: float = 1.0  # clue-attribute/-method of a class-less reference
    weights: str = "default"  # the shipped weight profile used when none is given

    def sigma_from_cos(self, cos: np.ndarray) -> np.ndarray:
        return 0.5 * (cos + 1.0) if self.shifted else cos


PROFILES: dict[str, SimilarityProfile] = {
    "paper": SimilarityProfile("paper", "mean", True),
    "oodeval-code": SimilarityProfile(
        "oodeval-code", "declared", False, embed_empty=True,
        multiplicity=PACKAGE_MULTIPLICITY, unknown_end=END_FIRST_CLASS,
        empty_reference_members=0.0, weights="oodeval-code"),
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

    ``full`` is σ between the distinct strings of both sides; the empty-string rules are
    applied here (both empty → 1, exactly one empty → 0). Under a profile that embeds ""
    no position is -1 and the rules never apply.
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
