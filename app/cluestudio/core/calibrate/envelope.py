"""Two-weight OptMatches (attributes, parameters) as upper envelopes of a few lines.

ES_ca = w_an·σ(names) + w_at·σ(types) and ES_mp = w_pn·σ(names) + w_pt·σ(types) have two
weights each, so the best matching sum of one problem is max over matchings π of
w₁·α_π + w₂·β_π, with α_π, β_π the two σ sums along π: a convex, piecewise-linear function
of the weight ratio with only a handful of pieces. We find those pieces once (Eisner and
Severance's chord method: a matching at each end, then one at each chord's crossing until
no new line appears) and evaluate every problem under any weights as an elementwise max
over a few lines, with no assignment solved per evaluation at all.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from cluestudio.core.jobs import CancelToken

# A crossing value no better than the chord's by this much adds no line (the envelope is
# then exact to within it; the tests compare to the engine at 1e-9).
_TOLERANCE = 1e-12
Line = tuple[float, float]


def envelope_lines(a: np.ndarray, b: np.ndarray) -> list[Line]:
    """(α, β) of every matching that is optimal for some ratio of the two weights.

    ``max(w1·α + w2·β for α, β in lines)`` is the best matching sum of w1·a + w2·b for any
    w1, w2 ≥ 0 (a, b: n×m σ matrices of one problem).
    """
    n, m = a.shape
    if n == 0 or m == 0:
        return [(0.0, 0.0)]

    def best(t: float) -> Line:
        es = (1.0 - t) * a + t * b
        if n == 1 or m == 1:
            k = int(np.argmax(es))
            return float(a.flat[k]), float(b.flat[k])
        rows, cols = linear_sum_assignment(es, maximize=True)
        return float(a[rows, cols].sum()), float(b[rows, cols].sum())

    left, right = best(0.0), best(1.0)
    lines = {left, right}
    segments = [(left, right)]
    while segments:
        lo, hi = segments.pop()
        slope_lo, slope_hi = lo[1] - lo[0], hi[1] - hi[0]
        if slope_hi - slope_lo <= _TOLERANCE:
            continue  # the same line, or parallel ones of which one already dominates
        t = (hi[0] - lo[0]) / (slope_lo - slope_hi) if slope_lo != slope_hi else 0.5
        t = min(1.0, max(0.0, t))
        mid = best(t)
        chord = lo[0] + t * slope_lo
        if mid[0] + t * (mid[1] - mid[0]) <= chord + _TOLERANCE or mid in lines:
            continue
        lines.add(mid)
        segments += [(lo, mid), (mid, hi)]
    return sorted(lines)


class LinePlan:
    """The envelope lines of a fixed set of two-weight problems, padded into one array.

    Problem q is the n[q]×m[q] block at ``base[q] + (row0[q] + r)·stride[q] + col0[q] + c``
    of the flat component arrays ``first`` and ``second`` (the σ leaves of the two weights);
    every cell belongs to at most one problem. The chord method runs for all problems at
    once: each round solves every problem at its own weight ratio with one batched
    :class:`~cluestudio.core.calibrate.assign.AssignmentPlan` call (a Python loop over a
    million parameter problems would take minutes), so rounds ≈ 2 × the most lines.
    """

    def __init__(self, first: np.ndarray, second: np.ndarray, base: np.ndarray,
                 stride: np.ndarray, row0: np.ndarray, n: np.ndarray, col0: np.ndarray,
                 m: np.ndarray, cancel: CancelToken | None = None) -> None:
        from cluestudio.core.calibrate.assign import AssignmentPlan

        self.n = np.asarray(n, dtype=np.int64)
        self.m = np.asarray(m, dtype=np.int64)
        self.count = count = len(self.n)
        plan = AssignmentPlan(base, stride, row0, self.n, col0, self.m, keep_matching=True)
        owner = np.full(len(first), -1, dtype=np.int64)
        for q_ids, cells in _problem_cells(base, stride, row0, self.n, col0, self.m):
            owner[cells] = q_ids

        def lines_at(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """(α, β) of each problem's optimal matching at its own ratio t."""
            if cancel is not None:
                cancel.raise_if_cancelled()
            tc = t[np.maximum(owner, 0)]
            _, cells = plan.solve((1.0 - tc) * first + tc * second)
            assert cells is not None
            who = owner[cells]
            return (np.bincount(who, first[cells], count),
                    np.bincount(who, second[cells], count))

        lo_a, lo_b = lines_at(np.zeros(count))
        hi_a, hi_b = lines_at(np.ones(count))
        found_q = [np.arange(count), np.arange(count)]
        found_a, found_b = [lo_a, hi_a], [lo_b, hi_b]
        # Pending segments (problem, lo line, hi line) whose crossing is still to check.
        seg = np.flatnonzero((hi_b - hi_a) - (lo_b - lo_a) > _TOLERANCE)
        segs = (seg, lo_a[seg], lo_b[seg], hi_a[seg], hi_b[seg])
        while segs[0].size:
            q, la, lb, ha, hb = segs
            _, first_of = np.unique(q, return_index=True)  # one segment per problem a round
            now = np.zeros(len(q), dtype=bool)
            now[first_of] = True
            s_lo, s_hi = lb - la, hb - ha
            t = np.clip((ha - la) / np.where(s_lo != s_hi, s_lo - s_hi, -1.0), 0.0, 1.0)
            t_problem = np.zeros(count)
            t_problem[q[now]] = t[now]
            mid_a, mid_b = lines_at(t_problem)
            ma, mb = mid_a[q], mid_b[q]
            better = now & (ma + t * (mb - ma) > la + t * s_lo + _TOLERANCE)
            found_q.append(q[better])
            found_a.append(ma[better])
            found_b.append(mb[better])
            keep = ~now
            parts = [(q[keep], la[keep], lb[keep], ha[keep], hb[keep]),
                     (q[better], la[better], lb[better], ma[better], mb[better]),
                     (q[better], ma[better], mb[better], ha[better], hb[better])]
            segs = tuple(np.concatenate([p[i] for p in parts]) for i in range(5))  # type: ignore[assignment]
        self.alpha, self.beta = _pad_lines(np.concatenate(found_q), np.concatenate(found_a),
                                           np.concatenate(found_b), count)

    @property
    def width(self) -> int:
        return int(self.alpha.shape[0])

    def solve(self, w_first: float, w_second: float) -> np.ndarray:
        """Best matching sum of every problem under ``w_first·first + w_second·second``."""
        best = w_first * self.alpha[0] + w_second * self.beta[0]
        for k in range(1, self.width):
            np.maximum(best, w_first * self.alpha[k] + w_second * self.beta[k], out=best)
        return best


def _problem_cells(base: np.ndarray, stride: np.ndarray, row0: np.ndarray, n: np.ndarray,
                   col0: np.ndarray, m: np.ndarray):
    """(problem ids, their cells) grouped by shape, for mapping cells back to problems."""
    shapes = n * (int(m.max(initial=0)) + 1) + m
    for key in np.unique(shapes):
        ids = np.flatnonzero(shapes == key)
        rows, cols = int(n[ids[0]]), int(m[ids[0]])
        if rows == 0 or cols == 0:
            continue
        r = np.arange(rows)[None, :, None]
        c = np.arange(cols)[None, None, :]
        cells = (base[ids, None, None] + (row0[ids, None, None] + r) * stride[ids, None, None]
                 + col0[ids, None, None] + c)
        yield np.broadcast_to(ids[:, None, None], cells.shape).ravel(), cells.ravel()


def _pad_lines(q: np.ndarray, a: np.ndarray, b: np.ndarray, count: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """(lines, problems) arrays; a problem's spare slots repeat its first line (max-safe)."""
    # Drop duplicates (both ends may be one line) so the width is the real line count.
    order = np.lexsort((b, a, q))
    q, a, b = q[order], a[order], b[order]
    dup = np.zeros(len(q), dtype=bool)
    dup[1:] = (q[1:] == q[:-1]) & (np.abs(a[1:] - a[:-1]) <= _TOLERANCE) & (
        np.abs(b[1:] - b[:-1]) <= _TOLERANCE)
    q, a, b = q[~dup], a[~dup], b[~dup]
    per = np.bincount(q, minlength=count)
    width = max(1, int(per.max(initial=1)))
    start = np.concatenate([[0], np.cumsum(per)])[:-1]
    slot = np.arange(len(q)) - start[q]
    alpha = np.repeat(a[start][None, :], width, axis=0) if len(q) else np.zeros((1, count))
    beta = np.repeat(b[start][None, :], width, axis=0) if len(q) else np.zeros((1, count))
    alpha[slot, q] = a
    beta[slot, q] = b
    return np.ascontiguousarray(alpha), np.ascontiguousarray(beta)


class LineValues:
    """OptMatch values (normalised, empty rules applied) of a :class:`LinePlan`'s problems.

    Most problems have one line (one parameter or none on a side: ~74% of the 1.3 M
    parameter problems of 1,000 realistic pairs), so the problems ``order`` names are kept
    sorted by their number of lines, most first: line k is then evaluated on a prefix of
    them, not over the padded width for all (18 ms → well under 1). :meth:`values` gives
    the problems in that sorted order, :attr:`order`; ``values(...)[back]`` in ``order``'s.
    """

    def __init__(self, lines: LinePlan, normalization: str,
                 order: np.ndarray | None = None) -> None:
        from cluestudio.core.clue.optmatch import denominator

        pick = np.arange(lines.count) if order is None else np.asarray(order, np.int64)
        differs = (lines.alpha[1:, pick] != lines.alpha[0, pick]) | (
            lines.beta[1:, pick] != lines.beta[0, pick])  # spare slots repeat line 0
        sort = np.argsort(-differs.sum(axis=0), kind="stable")
        self.order = pick = pick[sort]
        self.back = np.argsort(sort)
        n, m = lines.n[pick], lines.m[pick]
        scale = 1.0 / np.maximum(denominator(n, m, normalization), 1)
        alpha, beta = lines.alpha[:, pick] * scale, lines.beta[:, pick] * scale
        # Empty rules of OptMatch: n = 0 → 1, m = 0 → 0, whatever the weights (w₁ + w₂ = 1).
        empty_ref, empty_cand = n == 0, (m == 0) & (n > 0)
        alpha[:, empty_ref] = beta[:, empty_ref] = 1.0
        alpha[:, empty_cand] = beta[:, empty_cand] = 0.0
        self.first = (np.ascontiguousarray(alpha[0]), np.ascontiguousarray(beta[0]))
        self.more: list[tuple[int, np.ndarray, np.ndarray]] = []
        for k, has in enumerate(differs[:, sort].sum(axis=1).tolist(), start=1):
            if has:
                self.more.append((has, alpha[k, :has].copy(), beta[k, :has].copy()))

    def values(self, w_first: float, w_second: float) -> np.ndarray:
        out = self.first[0] * w_first
        out += self.first[1] * w_second
        for has, a, b in self.more:
            line = a * w_first
            line += b * w_second
            np.maximum(out[:has], line, out=out[:has])
        return out
