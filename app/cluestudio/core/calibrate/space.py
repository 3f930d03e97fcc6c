"""The calibration search space: OODEval eq. 11–13, nine free weights and their complements.

x = (w_e, w_n, w_a, w_at, w_mp, w_mn, w_pt, w_rt, w_rm) = (a, b, c, d, e, f, g, h, k); the
other six weights follow from the sum-to-one groups (w_r = 1 − w_e, w_m = 1 − w_n − w_a,
w_an = 1 − w_at, w_mt = 1 − w_mp − w_mn, w_pn = 1 − w_pt, w_rn = 1 − w_rt − w_rm). The
feasible set X is where the 18 constraints g1..g18 ≤ 0 hold.

The optimiser searches the unit cube u ∈ [0, 1]⁹ instead and maps it onto X (:func:`to_free`):
pairs directly, each three-weight group (a 2-simplex) with the transform that sends uniform
u to uniform points of the simplex (first weight 1 − √(1 − u₁), second (1 − first)·u₂). Every
trial is then feasible by construction and TPE's uniform prior is uniform over X, where
rejecting infeasible samples would waste about half of them (ADR 0008).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from cluestudio.core.clue import ClueWeights

#: A free vector x or a unit-cube point u: nine numbers.
Vector = Sequence[float] | np.ndarray

FREE_NAMES: tuple[str, ...] = ("w_e", "w_n", "w_a", "w_at", "w_mp", "w_mn", "w_pt", "w_rt",
                               "w_rm")
# (first, second) free weights of each three-weight group, as positions in FREE_NAMES.
_TRIPLES: tuple[tuple[int, int], ...] = ((1, 2), (4, 5), (7, 8))


def constraints(x: Vector) -> np.ndarray:
    """g1..g18 of eq. 13 (feasible where every entry is ≤ 0)."""
    a, b, c, d, e, f, g, h, k = (float(v) for v in x)
    return np.array([-a, a - 1, -b, b - 1, b + c - 1, -c,
                     -d, d - 1, -e, e - 1, e + f - 1, -f,
                     -g, g - 1, -h, h - 1, h + k - 1, -k])


def is_feasible(x: Vector, tolerance: float = 1e-12) -> bool:
    return bool(np.all(constraints(x) <= tolerance))


def to_weights(x: Vector, *, name: str = "calibrated", version: int = 1
               ) -> ClueWeights:
    """The 15 weights of a feasible free vector x (complements from the group sums)."""
    if not is_feasible(x, 1e-9):
        bad = [i + 1 for i, v in enumerate(constraints(x)) if v > 1e-9]
        raise ValueError(f"weights violate eq. 13 constraint(s) g{', g'.join(map(str, bad))}")
    v = dict(zip(FREE_NAMES, (min(1.0, max(0.0, float(t))) for t in x), strict=True))
    return ClueWeights(
        w_e=v["w_e"], w_r=1.0 - v["w_e"],
        w_n=v["w_n"], w_a=v["w_a"], w_m=max(0.0, 1.0 - v["w_n"] - v["w_a"]),
        w_an=1.0 - v["w_at"], w_at=v["w_at"],
        w_mn=v["w_mn"], w_mt=max(0.0, 1.0 - v["w_mp"] - v["w_mn"]), w_mp=v["w_mp"],
        w_pn=1.0 - v["w_pt"], w_pt=v["w_pt"],
        w_rt=v["w_rt"], w_rn=max(0.0, 1.0 - v["w_rt"] - v["w_rm"]), w_rm=v["w_rm"],
        name=name, version=version)


def from_weights(weights: ClueWeights) -> np.ndarray:
    """The free vector x of a weight profile."""
    return np.array([getattr(weights, k) for k in FREE_NAMES], dtype=float)


def to_free(u: Vector) -> np.ndarray:
    """Map the unit cube onto the feasible set X (uniform to uniform)."""
    x = np.clip(np.asarray(u, dtype=float), 0.0, 1.0).copy()
    for i, j in _TRIPLES:
        first = 1.0 - math.sqrt(1.0 - x[i])
        x[i], x[j] = first, (1.0 - first) * x[j]
    return x


def to_unit(x: Vector) -> np.ndarray:
    """Inverse of :func:`to_free` (for seeding the optimiser with known weights)."""
    u = np.clip(np.asarray(x, dtype=float), 0.0, 1.0).copy()
    for i, j in _TRIPLES:
        first, second = u[i], u[j]
        u[i] = 1.0 - (1.0 - first) ** 2
        u[j] = second / (1.0 - first) if first < 1.0 else 0.0
    return np.clip(u, 0.0, 1.0)


def uniform_free() -> np.ndarray:
    """Uniform weights (½ per pair group, ⅓ per triple): the paper's starting point."""
    third = 1.0 / 3.0
    return np.array([0.5, third, third, 0.5, third, third, 0.5, third, third])
