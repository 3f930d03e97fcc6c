"""One larger OptMatch per pair (classes, relations), most of them without a solver call.

A pair's class or relation matrix (8–14 a side for realistic diagrams) is too large to
enumerate, and scipy's ``linear_sum_assignment`` costs ~2 µs a call plus the Python around
it: 2,000 calls per evaluation of 1,000 pairs. But every row of the short side must be
matched, so Σ over those rows of their best cell bounds the optimum from above; where the
rows' best cells lie in different columns, that matching attains the bound and is optimal.
The test is one padded (pairs, short, long) array and a few vectorised steps; it settles
35–60% of the class matrices and ~10% of the relation ones of bench_clue's realistic pairs,
and the others go to scipy (the engine's solver), one call each. A numpy-batched Hungarian
and a stronger certificate were measured and cost more than the calls they saved (ADR 0008).
"""

from __future__ import annotations

import numpy as np

# The engine's loader of scipy's compiled solver (no scipy.optimize import), called
# directly: the public ``assign`` maximises, which copies every matrix once more.
from cluestudio.core.clue.optmatch import hungarian_solver

_I = np.int64


class MatrixPlan:
    """Problem q is the whole n[q]×m[q] row-major matrix at ``base[q]`` of a flat array."""

    def __init__(self, base: np.ndarray, n: np.ndarray, m: np.ndarray, *,
                 keep_matching: bool = False) -> None:
        self.n = np.asarray(n, dtype=_I)
        self.m = np.asarray(m, dtype=_I)
        self.count = count = len(self.n)
        self.keep_matching = keep_matching
        base = np.asarray(base, dtype=_I)
        self.short = short = np.minimum(self.n, self.m)
        self.long = long = np.maximum(self.n, self.m)
        rows, cols = int(short.max(initial=0)), int(long.max(initial=0))
        r = np.arange(rows)[None, :, None]
        c = np.arange(cols)[None, None, :]
        tr = (self.n > self.m)[:, None, None]
        # Cell (r, c) of the short-side-first view; outside the matrix: a -inf sentinel
        # appended to the flat array (its position is planned on the first call).
        self.index = base[:, None, None] + np.where(tr, c * self.m[:, None, None] + r,
                                                    r * self.m[:, None, None] + c)
        self.outside = (r >= short[:, None, None]) | (c >= long[:, None, None])
        self.real_row = np.arange(rows)[None, :] < short[:, None]
        # A padded row's "best column" is its own, past every real one: never a clash.
        self.spare = np.broadcast_to(cols + np.arange(rows), (count, rows))
        self.solver_calls = 0  # problems the last solve left to scipy (for the benchmark)
        self._take: tuple[int, np.ndarray] | None = None

    def solve(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Best matching sum per problem, and (``keep_matching``) the matched cells."""
        if self._take is None or self._take[0] != len(flat):
            self._take = (len(flat), np.where(self.outside, len(flat), self.index))
        values = np.append(flat, -np.inf)[self._take[1]]
        col = (values.argmax(axis=2) if values.size
               else np.zeros(self.real_row.shape, dtype=_I))
        # Rows on distinct best columns: optimal (it attains Σ of the row maxima).
        ordered = np.sort(np.where(self.real_row, col, self.spare), axis=1)
        hard = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        self.solver_calls = len(hard)
        if hard.size:
            # scipy's solver minimises; negated once here, not per call (maximize=True
            # copies each matrix again: ~20% of the calls' time).
            cost, solve = -values[hard], hungarian_solver()
            for k, (problem, s, ell) in enumerate(zip(
                    hard.tolist(), self.short[hard].tolist(), self.long[hard].tolist(),
                    strict=True)):
                col[problem, :s] = solve(cost[k, :s, :ell])[1]
        col = np.where(self.real_row, col, 0)
        picked = np.take_along_axis(values, col[:, :, None], 2)[:, :, 0]
        # Row by row from 0.0, as the engine sums a matching (padded rows add nothing).
        sums = np.zeros(self.count)
        for row in range(picked.shape[1]):
            sums += np.where(self.real_row[:, row], picked[:, row], 0.0)
        if not self.keep_matching:
            return sums, None
        q, r = np.nonzero(self.real_row)
        return sums, self.index[q, r, col[q, r]]
