"""Many small maximum-weight assignments solved together, planned once, re-solved often.

Calibration evaluates the same OptMatch problems (same cells, same shapes) hundreds of times
with different weights. Everything that depends only on the structure is computed once by
:class:`AssignmentPlan`: problems with few injections are solved by brute force over a
precomputed index array (one gather, one sum, one argmax per shape), medium ones as
chunks of one block-diagonal sparse matching (scipy's LAPJVsp), its pattern built once.
A scipy ``linear_sum_assignment`` call per problem costs ~3-5 µs of Python overhead; with
a few hundred thousand parameter/attribute/method problems per thousand pairs that alone
would be a second per evaluation. The few large problems (a class or relation matrix per
pair) go through scipy one call each, as the engine does.

Since issue 28 an evaluation uses :mod:`.subsets` and :mod:`.matrices` instead; this plan
still finds the envelope lines (:class:`~.envelope.LinePlan`) and serves
``LeafCache.scores_previous``, the tests' and the benchmark's reference.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import permutations

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

# Brute force a shape when (injections × matched cells) is at most this many gathered
# values per problem; beyond it the sparse matching is cheaper (measured on 2 cores:
# 4×4 brute force ≈ 0.5 µs/problem, sparse ≈ 1 µs for 6×6 and ≈ 3 µs for 10×10).
BRUTE_FORCE_LIMIT = 200
# Problems with a side this long are solved one scipy call each (see _LoopPlan).
LOOP_FROM = 8
# Added to every sparse entry: LAPJVsp needs explicit positive weights, and every full
# matching of a block has the same number of cells, so a constant shift changes no
# optimum. σ may be as low as -1 under the ``oodeval-code`` profile.
_SHIFT = 4.0


@lru_cache(maxsize=128)
def _injections(short: int, long: int) -> np.ndarray:
    """All injective maps of ``short`` items into ``long`` slots, shape (count, short)."""
    return np.array(list(permutations(range(long), short)), dtype=np.int64).reshape(-1, short)


class AssignmentPlan:
    """A fixed set of OptMatch problems over sub-blocks of one flat array of values.

    Problem q is the n[q]×m[q] block whose cell (r, c) is at
    ``base[q] + (row0[q] + r)·stride[q] + col0[q] + c`` in the flat array passed to
    :meth:`solve`. ``keep_matching`` also records which cells the optimum uses.
    """

    def __init__(self, base: np.ndarray, stride: np.ndarray, row0: np.ndarray,
                 n: np.ndarray, col0: np.ndarray, m: np.ndarray, *,
                 keep_matching: bool = False,
                 brute_force_limit: int = BRUTE_FORCE_LIMIT) -> None:
        self.n = np.asarray(n, dtype=np.int64)
        self.m = np.asarray(m, dtype=np.int64)
        self.count = len(self.n)
        self.keep_matching = keep_matching
        base, stride = np.asarray(base, np.int64), np.asarray(stride, np.int64)
        row0, col0 = np.asarray(row0, np.int64), np.asarray(col0, np.int64)
        short, long = np.minimum(self.n, self.m), np.maximum(self.n, self.m)
        transposed = self.n > self.m
        # Brute-force groups: (problem ids, cell indices of shape (short, injections, G)).
        # Problems last: the sum over the few matched cells and the max over injections
        # are then elementwise operations on long rows, not reductions over tiny axes.
        self._groups: list[tuple[np.ndarray, np.ndarray]] = []
        big: list[int] = []
        for s, ell in sorted({(int(a), int(b)) for a, b in zip(short, long, strict=True)}):
            if s == 0:
                continue  # nothing to match: sum 0 (OptMatch's empty rules come later)
            ids = np.flatnonzero((short == s) & (long == ell))
            if math.perm(ell, s) * s > brute_force_limit:
                big.extend(ids.tolist())
                continue
            inj = _injections(s, ell)
            seq = np.arange(s, dtype=np.int64)[:, None, None]
            tr = transposed[ids][None, None, :]
            inj_t = inj.T[:, :, None]  # (short, injections, 1)
            rows = np.where(tr, inj_t, seq)
            cols = np.where(tr, seq, inj_t)
            cells = (base[ids] + (row0[ids] + rows) * stride[ids] + col0[ids] + cols)
            self._groups.append((ids, cells))
        big_ids = np.array(sorted(big), dtype=np.int64)
        large = big_ids[long[big_ids] >= LOOP_FROM]
        medium = big_ids[long[big_ids] < LOOP_FROM]
        self._sparse = (_SparsePlan(medium, base, stride, row0, self.n, col0, self.m)
                        if medium.size else None)
        self._loop = (_LoopPlan(large, base, stride, row0, self.n, col0, self.m)
                      if large.size else None)

    def solve(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Best matching sum per problem, and (with ``keep_matching``) the matched cells."""
        sums = np.zeros(self.count)
        matched: list[np.ndarray] = []
        for ids, cells in self._groups:
            # Row by row from 0.0, the order scipy's and the engine's sums use (bit-equal).
            values = flat[cells[0]]
            for r in range(1, len(cells)):
                values = values + flat[cells[r]]
            if not self.keep_matching:
                sums[ids] = values.max(axis=0)
                continue
            best = values.argmax(axis=0)
            pick = np.arange(len(ids))
            sums[ids] = values[best, pick]
            matched.append(cells[:, best, pick].ravel())
        for part in (self._sparse, self._loop):
            if part is not None:
                cells_used = part.solve(flat, sums)
                if self.keep_matching:
                    matched.append(cells_used)
        if not self.keep_matching:
            return sums, None
        return sums, (np.concatenate(matched) if matched else np.zeros(0, dtype=np.int64))


class _SparsePlan:
    """Medium problems, padded to squares, as block-diagonal sparse matrices of ≤ 4096 rows.

    LAPJVsp does O(matrix size) work per augmenting path, and the padded rows (equal
    weights, hence ties) need many paths: one big matrix grows quadratically, while small
    chunks pay scipy's per-call checks (measured on 2 cores, 5,700 method problems of
    side 5–7: one matrix 52 ms, 256-row chunks 44 ms, 4096-row chunks 15 ms).
    Rectangular blocks without padding are slower still (LAPJVsp then scans all columns).
    """

    _CHUNK_ROWS = 4096

    def __init__(self, ids: np.ndarray, base: np.ndarray, stride: np.ndarray,
                 row0: np.ndarray, n: np.ndarray, col0: np.ndarray, m: np.ndarray) -> None:
        self.ids = ids
        self.chunks: list[_Chunk] = []
        k = np.maximum(n[ids], m[ids])
        ends = np.cumsum(k)
        start = 0
        while start < len(ids):
            limit = (ends[start - 1] if start else 0) + self._CHUNK_ROWS
            stop = max(start + 1, int(np.searchsorted(ends, limit, side="right")))
            self.chunks.append(_Chunk(np.arange(start, stop), ids[start:stop], base, stride,
                                      row0, n, col0, m))
            start = stop

    def solve(self, flat: np.ndarray, sums: np.ndarray) -> np.ndarray:
        cells = []
        for chunk in self.chunks:
            cells.append(chunk.solve(flat, sums))
        return np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)


class _Chunk:
    def __init__(self, local: np.ndarray, ids: np.ndarray, base: np.ndarray,
                 stride: np.ndarray, row0: np.ndarray, n: np.ndarray, col0: np.ndarray,
                 m: np.ndarray) -> None:
        self.ids = ids
        k = np.maximum(n[ids], m[ids])
        start = np.concatenate([[0], np.cumsum(k)])  # first global row/column of each block
        size = int(start[-1])
        # CSR positions, row-major within each block: block b owns k_b rows of k_b entries.
        block_of_row = np.repeat(np.arange(len(ids)), k)
        local_row = np.arange(size) - start[block_of_row]
        k_row = k[block_of_row]
        indptr = np.concatenate([[0], np.cumsum(k_row)])
        block_of_pos = np.repeat(block_of_row, k_row)
        row_of_pos = np.repeat(local_row, k_row)
        col_of_pos = np.arange(int(indptr[-1])) - np.repeat(indptr[:-1], k_row)
        q = ids[block_of_pos]
        self.real = (row_of_pos < n[q]) & (col_of_pos < m[q])
        self.src = np.where(self.real, base[q] + (row0[q] + row_of_pos) * stride[q]
                            + col0[q] + col_of_pos, 0)
        self.pad = np.flatnonzero(~self.real)
        indices = start[block_of_pos] + col_of_pos
        self.matrix = csr_matrix((np.ones(len(self.src)), indices, indptr), shape=(size, size))
        self.indptr = indptr
        self.col_start = start[block_of_row]
        self.block_of_row = block_of_row

    def solve(self, flat: np.ndarray, sums: np.ndarray) -> np.ndarray:
        data = flat[self.src]
        data[self.pad] = 0.0
        data += _SHIFT
        self.matrix.data = data
        rows, cols = min_weight_full_bipartite_matching(self.matrix, maximize=True)
        pos = self.indptr[rows] + cols - self.col_start[rows]
        real = self.real[pos]
        cells = self.src[pos[real]]
        sums[self.ids] = np.bincount(self.block_of_row[rows[real]], weights=flat[cells],
                                     minlength=len(self.ids))
        return cells


class _LoopPlan:
    """Large problems (one class or relation matrix per pair): scipy, one call each.

    At 8+ rows a ~5 µs call is as fast as anything batched (LAPJVsp chunks measured slower
    on 1,000 9×11 matrices), and scipy's is the engine's solver, so ties break alike.
    """

    def __init__(self, ids: np.ndarray, base: np.ndarray, stride: np.ndarray,
                 row0: np.ndarray, n: np.ndarray, col0: np.ndarray, m: np.ndarray) -> None:
        self.ids = ids
        self.cells = [base[q] + (row0[q] + np.arange(n[q]))[:, None] * stride[q]
                      + col0[q] + np.arange(m[q]) for q in ids]

    def solve(self, flat: np.ndarray, sums: np.ndarray) -> np.ndarray:
        matched = []
        for q, cells in zip(self.ids, self.cells, strict=True):
            block = flat[cells]
            rows, cols = linear_sum_assignment(block, maximize=True)
            sums[q] = block[rows, cols].sum()
            matched.append(cells[rows, cols])
        return np.concatenate(matched) if matched else np.zeros(0, dtype=np.int64)
