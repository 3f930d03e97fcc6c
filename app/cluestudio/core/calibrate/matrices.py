"""One larger OptMatch per pair (classes, relations), most of them without a solver call.

A pair's class or relation matrix (8–14 a side for realistic diagrams) is too large to
enumerate, and scipy's ``linear_sum_assignment`` costs ~2–3 µs a call on such a matrix:
2,000 calls per evaluation of 1,000 pairs. Two certificates settle most of them in a few
vectorised steps over the rows of every short side, padded to the longest side:

- every row of the short side is matched, so Σ over those rows of their best cell bounds
  the optimum from above; where the rows' best cells lie in different columns, that
  matching attains the bound (35–60% of the class and ~10% of the relation matrices of
  bench_clue's realistic pairs);
- otherwise a few rows share a best column. Of each such group the row that would lose
  most by moving keeps the column and the others move to their best column that no row
  chose (again, up to 3 rounds, where moved rows meet). That matching is optimal if
  column prices v ≥ 0 exist with every row's matched cell its best of (value − v) and
  v = 0 on the unmatched columns (LP duality). The least such prices are longest paths
  from the moved rows, found by a few rounds that touch only the rows whose column price
  rose (~95% of the class and ~88% of the relation matrices with clashing rows). Where
  the matching is kept (classes: clue-attribute and clue-method are read along it), it
  must also be the unique optimum, so that scipy breaks ties, as in the engine.

The rest go to scipy (the engine's solver), one call each on a view of the negated values.
A numpy-batched Hungarian was measured and cost more than the calls it saved (ADR 0008).
"""

from __future__ import annotations

import numpy as np

# The engine's loader of scipy's compiled solver (no scipy.optimize import), called
# directly: the public ``assign`` maximises, which copies every matrix once more.
from cluestudio.core.clue.optmatch import hungarian_solver

_I = np.int64
# Rounds of price updates before a matrix goes to scipy instead: a price that still rises
# then is on a long path or a cycle (the greedy matching is not optimal).
_PRICE_ROUNDS = 4
# Cells within this of tight count as tight when a kept matching must be the unique
# optimum (prices carry rounding: an exact tie may come out an ulp apart).
_TIE = 1e-12
# Rounds of moving rows off a shared column before a matrix goes to scipy instead.
_CLASH_ROUNDS = 3


class MatrixPlan:
    """Problem q is the whole n[q]×m[q] row-major matrix at ``base[q]`` of a flat array."""

    def __init__(self, base: np.ndarray, n: np.ndarray, m: np.ndarray, *,
                 keep_matching: bool = False) -> None:
        self.n = np.asarray(n, dtype=_I)
        self.m = np.asarray(m, dtype=_I)
        self.count = len(self.n)
        self.keep_matching = keep_matching
        self.base = base = np.asarray(base, dtype=_I)
        short, long = np.minimum(self.n, self.m), np.maximum(self.n, self.m)
        self.width = cols = int(long.max(initial=0))
        # The rows of the short side of every problem, problem by problem, padded to the
        # longest side: cell c of row (q, r) is at start + c·step of the flat array (past
        # the matrix: a -inf sentinel appended to it, its position planned on first use).
        self.row_problem, self.row = np.nonzero(
            np.arange(int(short.max(initial=0)))[None, :] < short[:, None])
        q, r = self.row_problem, self.row
        tr = self.n[q] > self.m[q]
        self.start = base[q] + np.where(tr, r, r * self.m[q])
        self.step = np.where(tr, self.m[q], 1)
        self.cells = self.start[:, None] + np.arange(cols) * self.step[:, None]
        self.outside = np.arange(cols)[None, :] >= long[:, None]  # per problem
        self.solver_calls = 0  # problems the last solve left to scipy (for the benchmark)
        self._take: tuple[int, np.ndarray] | None = None

    def solve(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Best matching sum per problem, and (``keep_matching``) the matched cells."""
        if self._take is None or self._take[0] != len(flat):
            self._take = (len(flat), np.where(self.outside[self.row_problem], len(flat),
                                              self.cells))
        values = np.take(np.append(flat, -np.inf), self._take[1])  # (rows, cols)
        col = values.argmax(axis=1) if values.size else np.zeros(len(values), dtype=_I)
        cols = self.width
        key = self.row_problem * cols + col
        chosen = np.bincount(key, minlength=self.count * cols)
        clash = np.flatnonzero(chosen[key] > 1)
        self.solver_calls = 0
        if clash.size:
            blocked = (chosen > 0) | self.outside.ravel()
            col, hard = self._certify(values, col, clash, blocked)
            self.solver_calls = len(hard)
            if hard.size:
                col = self._scipy(flat, col, hard)
        # Row by row from 0.0 (bincount adds in order), as the engine sums a matching.
        cells = self.start + col * self.step
        sums = np.bincount(self.row_problem, flat[cells], self.count)
        return sums, (cells if self.keep_matching else None)

    def _certify(self, values: np.ndarray, best: np.ndarray, clash: np.ndarray,
                 blocked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The greedy matching of the problems with clashing rows, and those of them whose
        matching the prices do not prove optimal: (matched column per row, problems).
        ``best``: each row's best column; ``blocked`` (problem·cols + column): the columns
        some row chose and those past the matrix.
        """
        cols, col = self.width, best.copy()
        for _ in range(_CLASH_ROUNDS):
            # In each group sharing a column, the row losing most by moving to its best
            # free column keeps it (the first such row on a tie); the others move there.
            q = self.row_problem[clash]
            cells = values[clash]
            free = np.where(blocked.reshape(-1, cols)[q], -np.inf, cells)
            move_to = free.argmax(axis=1)
            at = np.arange(len(clash))
            loss = cells[at, col[clash]] - free[at, move_to]
            group = q * cols + col[clash]
            most = np.full(self.count * cols, -np.inf)
            np.maximum.at(most, group, loss)
            first = np.full(self.count * cols, len(clash))
            np.minimum.at(first, group, np.where(loss == most[group], at, len(clash)))
            moves = first[group] != at
            clash, target = clash[moves], move_to[moves]
            col[clash] = target
            key = q[moves] * cols + target
            blocked[key] = True
            clash = clash[np.bincount(key)[key] > 1]  # rows that moved to one column
            if not clash.size:
                break
        failed = np.zeros(self.count, dtype=bool)
        failed[self.row_problem[clash]] = True
        # Least prices: longest paths from the moved rows (only they have cells above
        # their matched one at zero prices); a row joins when its column's price rises.
        row_at = np.full(self.count * cols, -1, dtype=_I)
        row_at[self.row_problem * cols + col] = np.arange(len(col))
        price = np.zeros(self.count * cols)
        active = np.flatnonzero(col != best)
        active = active[~failed[self.row_problem[active]]]
        touched = np.zeros(len(col), dtype=bool)
        for _ in range(_PRICE_ROUNDS):
            if not active.size:
                break
            touched[active] = True
            p = self.row_problem[active] * cols
            gain = values[active]
            gain -= (gain[np.arange(len(active)), col[active]] - price[p + col[active]])[:, None]
            raised = price.copy()
            np.maximum.at(raised, (p[:, None] + np.arange(cols)).ravel(), gain.ravel())
            rose = np.flatnonzero(raised != price)
            price = raised
            nxt = row_at[rose]
            failed[rose[nxt < 0] // cols] = True  # an unmatched column would need a price
            active = nxt[(nxt >= 0) & ~failed[rose // cols]]
        failed[self.row_problem[active]] = True
        if self.keep_matching:
            self._fail_ties(values, col, price, touched, failed)
        return col, np.flatnonzero(failed)

    def _fail_ties(self, values: np.ndarray, col: np.ndarray, price: np.ndarray,
                   touched: np.ndarray, failed: np.ndarray) -> None:
        """Mark the settled problems whose optimum may not be unique: only then is it sure to
        be the matching scipy (the engine) returns.

        Another optimum would use only tight cells (value − price as high as the row's
        matched one), entering some column off the matching. The least prices make one
        such cell tight per priced column (the one that set its price); a second one, or
        one into an unpriced column, may close an alternating cycle or path of equal sum.
        Only the rows the prices touched can have such cells, apart from exact ties of a
        row's best value, which the row-maxima bound leaves as they come too.
        """
        cols = self.width
        rows = np.flatnonzero(touched & ~failed[self.row_problem])
        problem = self.row_problem[rows]
        net = values[rows] - price.reshape(-1, cols)[problem]
        at = np.arange(len(rows))
        tight = net >= net[at, col[rows]][:, None] - _TIE
        tight[at, col[rows]] = False
        where, column = np.nonzero(tight)
        key = problem[where] * cols + column
        entering = np.bincount(key, minlength=self.count * cols)
        failed[key[entering[key] > (price[key] > _TIE)] // cols] = True

    def _scipy(self, flat: np.ndarray, col: np.ndarray, hard: np.ndarray) -> np.ndarray:
        """``col`` with the matchings of ``hard`` from scipy, one call each."""
        # scipy's solver minimises; negated once here, not per call (maximize=True
        # copies each matrix again: ~20% of the calls' time).
        cost, solve = -flat, hungarian_solver()
        first_row = np.searchsorted(self.row_problem, hard).tolist()
        rows, matched = [], []
        for start, at, n, m in zip(first_row, self.base[hard].tolist(),
                                   self.n[hard].tolist(), self.m[hard].tolist(),
                                   strict=True):
            a, b = solve(cost[at:at + n * m].reshape(n, m))
            # (row, matched long-side position) of the short side: a for n ≤ m, else b.
            rows.append((b if n > m else a) + start)
            matched.append(a if n > m else b)
        col = col.copy()
        col[np.concatenate(rows)] = np.concatenate(matched)
        return col
