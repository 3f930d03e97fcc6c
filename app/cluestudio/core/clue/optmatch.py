"""OptMatch (OODEval Def. 4.4, DESIGN §3): best one-to-one matching of a similarity matrix.

Two solvers give the same optimum: :func:`assign` (scipy's Hungarian algorithm, with the
matching, used where the explanation needs it) and :func:`max_matching_sums` (exact dynamic
programming over column subsets, vectorised over thousands of small matrices of one shape).
CLUE needs an OptMatch for every class pair and every method pair, i.e. millions of tiny
problems per thousand diagram pairs; one scipy call each would dominate the run time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal

import numpy as np

Normalization = Literal["reference", "paper-eq3"]
NORMALIZATIONS: tuple[str, ...] = ("reference", "paper-eq3")

# Largest side solved by the subset DP (its state has 2**side entries per matrix); beyond
# that scipy, at about 3 µs a call, is faster on 2 cores (measured, benchmarks/bench_clue.py).
_DP_MAX_SIDE = 6
# Bound on the DP state (matrices × 2**side floats) held at once.
_DP_MAX_STATE = 1 << 22


def assign(es: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a maximum-weight matching of size min(n, m)."""
    if es.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    rows, cols = hungarian_solver()(es, maximize=True)
    return rows, cols


@lru_cache(maxsize=1)
def hungarian_solver() -> Callable[..., Any]:
    """scipy's Hungarian solver, without importing ``scipy.optimize``.

    The solver is one compiled module (``scipy.optimize._lsap``), but importing it the usual
    way runs ``scipy.optimize/__init__`` first, which imports linprog, linalg, fft and
    special: 0.4–0.9 s of a cold ``score --pairs`` that needs none of them (issue 28). The
    module is loaded from its file under its own name, so a later ``import scipy.optimize``
    finds it and uses the same one; where that fails (another scipy layout), the public
    import.
    """
    name = "scipy.optimize._lsap"
    loaded = sys.modules.get(name)
    if loaded is None and "scipy.optimize" not in sys.modules:
        loaded = _load_extension(name)
    if loaded is not None and callable(getattr(loaded, "linear_sum_assignment", None)):
        return loaded.linear_sum_assignment
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment


def _load_extension(name: str) -> Any:
    """The compiled module ``name`` of scipy, loaded without its parent package's
    ``__init__``; None where it cannot be (then the caller imports it normally)."""
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    import scipy

    folder = Path(scipy.__file__).parent.joinpath(*name.split(".")[1:-1])
    stem = name.rsplit(".", 1)[1]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"{stem}{suffix}"
        if not path.is_file():
            continue
        try:
            spec = importlib.util.spec_from_file_location(
                name, path, loader=importlib.machinery.ExtensionFileLoader(name, str(path)))
            if spec is None or spec.loader is None:
                return None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except ImportError:
            return None
        return sys.modules.setdefault(name, module)
    return None


def denominator(n: np.ndarray | int, m: np.ndarray | int,
                normalization: str) -> np.ndarray:
    """n (the reference size) or, under ``paper-eq3``, m when n > m (eq. 3)."""
    n_arr, m_arr = np.asarray(n), np.asarray(m)
    if normalization == "reference":
        return n_arr
    if normalization == "paper-eq3":
        return np.where(n_arr > m_arr, m_arr, n_arr)
    raise ValueError(f"unknown normalization {normalization!r}; use one of {NORMALIZATIONS}")


def optmatch_values(sums: np.ndarray, n: np.ndarray, m: np.ndarray,
                    normalization: str) -> np.ndarray:
    """OptMatch from best matching sums, with the empty-set rules (n = 0 → 1, m = 0 → 0)."""
    sums = np.asarray(sums, dtype=float)
    denom = denominator(n, m, normalization)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = sums / np.maximum(denom, 1)
    return np.where(np.asarray(n) == 0, 1.0, np.where(np.asarray(m) == 0, 0.0, value))


def optmatch(es: np.ndarray, normalization: str = "reference") -> float:
    """OptMatch of one n×m matrix."""
    n, m = es.shape
    rows, cols = assign(es)
    total = float(es[rows, cols].sum()) if rows.size else 0.0
    return float(optmatch_values(np.array(total), np.array(n), np.array(m), normalization))


def max_matching_sums(blocks: np.ndarray) -> np.ndarray:
    """Best matching sum of each matrix in ``blocks`` (shape K×a×b), exactly."""
    k, a, b = blocks.shape
    if a > b:
        blocks = blocks.transpose(0, 2, 1)
        a, b = b, a
    if k == 0 or a == 0:
        return np.zeros(k)
    if a == 1:
        return np.asarray(blocks[:, 0, :].max(axis=1), dtype=float)
    if b > _DP_MAX_SIDE:
        return np.array([blocks[i][assign(blocks[i])].sum() for i in range(k)], dtype=float)
    chunk = max(1, _DP_MAX_STATE >> b)
    return np.concatenate([_subset_dp(blocks[s:s + chunk]) for s in range(0, k, chunk)])


@lru_cache(maxsize=64)
def _transitions(a: int, b: int) -> tuple[tuple[int, int, np.ndarray, np.ndarray], ...]:
    """(row, column, source masks, target masks) for each DP step, grouped by popcount.

    Row r is assigned when r columns are used, so a state is a set of used columns; from a
    mask with popcount r, giving row r the column j (not in the mask) leads to mask | 1<<j.
    For a fixed (r, j) that map is injective, so one vectorised max per step is exact.
    """
    masks = np.arange(1 << b)
    popcount = np.array([bin(x).count("1") for x in range(1 << b)])
    steps = []
    for r in range(a):
        layer = masks[popcount == r]
        for j in range(b):
            src = layer[(layer >> j) & 1 == 0]
            steps.append((r, j, src, src | (1 << j)))
    return tuple(steps)


def _final_masks(a: int, b: int) -> np.ndarray:
    masks = np.arange(1 << b)
    return masks[np.array([bin(x).count("1") for x in masks]) == a]


def _subset_dp(blocks: np.ndarray) -> np.ndarray:
    k, a, b = blocks.shape
    dp = np.full((k, 1 << b), -np.inf)
    dp[:, 0] = 0.0
    for r, j, src, tgt in _transitions(a, b):
        candidate = dp[:, src] + blocks[:, r, j][:, None]
        dp[:, tgt] = np.maximum(dp[:, tgt], candidate)
    return np.asarray(dp[:, _final_masks(a, b)].max(axis=1))


def block_sums(flat: np.ndarray, base: np.ndarray, stride: np.ndarray, row0: np.ndarray,
               n: np.ndarray, col0: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Best matching sums of many sub-blocks of matrices stored one after another in ``flat``.

    Problem q is the n[q]×m[q] block starting at (row0[q], col0[q]) of the matrix whose
    row-major data begins at ``base[q]`` with row length ``stride[q]``. Problems are solved in
    groups of equal shape, so the work is a few dozen vectorised steps, not one per block.
    """
    out = np.zeros(len(n))
    live = np.flatnonzero((n > 0) & (m > 0))
    if not live.size:
        return out
    # One sort groups the problems by shape (a pass per shape over millions would not).
    keys = n[live].astype(np.int64) * 100_003 + m[live]
    order = np.argsort(keys, kind="stable")
    live, keys = live[order], keys[order]
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    for start, stop in zip(starts, [*starts[1:], len(live)], strict=True):
        sel = live[start:stop]
        a, b = int(n[sel[0]]), int(m[sel[0]])
        rows = row0[sel, None, None] + np.arange(a)[None, :, None]
        cols = col0[sel, None, None] + np.arange(b)[None, None, :]
        idx = base[sel, None, None] + rows * stride[sel, None, None] + cols
        out[sel] = max_matching_sums(flat[idx])
    return out
