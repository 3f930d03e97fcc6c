"""An upper bound of CLUE from class names and sizes alone: what lets grading by group skip
a pair of diagrams without scoring it (:mod:`cluestudio.core.groups.leaders`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any


def clue_upper_bound(reference_names: Sequence[str], reference_relations: int,
                     candidate_names: Sequence[str], candidate_relations: int,
                     weights: Any, different_name_sigma: float = 1.0) -> float:
    """An upper bound of CLUE(reference → candidate) from class names and sizes only.

    Each matched class pair scores at most 1 when the names are equal and at most
    w_n·σ_diff + w_a + w_m when they differ (σ_diff: the embedder's σ of two different
    names, 0.5 for ``exact``; 1 when unknown); at most |names ∩| pairs can have equal names
    and at most min(n, m) classes are matched; OptMatch divides by n (reference
    normalization). Relations: at most min(n_r, m_r)/n_r. CLUE = w_e·class + w_r·relation.
    """
    n, m = len(reference_names), len(candidate_names)
    if n == 0:
        class_bound = 1.0
    else:
        same = sum((Counter(name.strip() for name in reference_names)
                    & Counter(name.strip() for name in candidate_names)).values())
        other = min(n, m) - same
        differing = weights.w_n * different_name_sigma + weights.w_a + weights.w_m
        class_bound = (same + other * min(1.0, differing)) / n
    nr, mr = reference_relations, candidate_relations
    relation_bound = 1.0 if nr == 0 else min(nr, mr) / nr
    return float(weights.w_e * class_bound + weights.w_r * relation_bound)
