"""One larger OptMatch per pair (classes, relations), most of them without a solver call.

A pair's class or relation matrix (8–14 a side for realistic diagrams) is too large to
enumerate, and scipy's ``linear_sum_assignment`` costs ~2 µs a call plus the Python around
it: 2,000 calls per evaluation of 1,000 pairs. But every row of the short side must be
matched, so Σ over those rows of their best cell bounds the optimum from above; where the
rows' best cells lie in different columns, that matching attains the bound and is optimal.
Student diagrams are mostly close to their reference, so this holds for most pairs; the
test is one padded (pairs, short, long) array and a few vectorised steps, and only the
other pairs go to scipy (the engine's solver).
"""

from __future__ import annotations

import numpy as np

from cluestudio.core.clue.optmatch import assign

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
        # Cell (r, c) of the short-side-first view; outside the matrix: the -inf sentinel,
        # whose position is only known per call (the flat array's length).
        self.index = base[:, None, None] + np.where(tr, c * self.m[:, None, None] + r,
                                                    r * self.m[:, None, None] + c)
        self.outside = (r >= short[:, None, None]) | (c >= long[:, None, None])
        self.real_row = np.arange(rows)[None, :] < short[:, None]
        # A padded row's "best column" is its own, past every real one: never a clash.
        self.spare = np.broadcast_to(cols + np.arange(rows), (count, rows))
        self.solver_calls = 0  # problems the last solve left to scipy (for the benchmark)

    def solve(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Best matching sum per problem, and (``keep_matching``) the matched cells."""
        values = np.append(flat, -np.inf)[np.where(self.outside, len(flat), self.index)]
        best = values.argmax(axis=2) if values.size else np.zeros(self.real_row.shape, _I)
        best = np.where(self.real_row, best, self.spare)
        ordered = np.sort(best, axis=1)
        clash = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        top = np.take_along_axis(values, best[:, :, None].clip(max=max(values.shape[2] - 1,
                                                                           0)), 2)[:, :, 0]
        sums = np.where(self.real_row, top, 0.0).sum(axis=1) if top.size else np.zeros(
            self.count)
        hard = np.flatnonzero(clash)
        self.solver_calls = len(hard)
        matched: list[np.ndarray] = []
        if self.keep_matching and top.size:
            q, r = np.nonzero(self.real_row & ~clash[:, None])
            matched.append(self.index[q, r, best[q, r]])
        for q in hard:
            s, ell = int(self.short[q]), int(self.long[q])
            block = values[q, :s, :ell]
            rows, cols = assign(block)
            sums[q] = block[rows, cols].sum()
            if self.keep_matching:
                matched.append(self.index[q, rows, cols])
        if not self.keep_matching:
            return sums, None
        return sums, (np.concatenate(matched) if matched else np.zeros(0, dtype=_I))
