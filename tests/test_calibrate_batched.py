"""Issue 28: one calibration evaluation by subset DP, distinct cells and batched class and
relation matchings must give the optimum values of the engine and of the previous path."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from cluestudio.core.calibrate.envelope import LinePlan, LineValues
from cluestudio.core.calibrate.leafcache import LeafCache
from cluestudio.core.calibrate.matrices import MatrixPlan
from cluestudio.core.calibrate.space import to_free, to_weights, uniform_free
from cluestudio.core.calibrate.subsets import SubsetPlan
from cluestudio.core.clue import ClueScorer, ClueWeights
from cluestudio.core.clue.optmatch import optmatch_values
from cluestudio.core.jobs import run_job
from cluestudio.core.model import ClassDiagram
from support.clue_support import mutate, random_diagram
from test_calibrate import ALL, TIE_FREE, HashEmbedder, _pairs


def _optimum(matrix: np.ndarray) -> float:
    if matrix.size == 0:
        return 0.0
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return float(matrix[rows, cols].sum())


def _matrices(rng: np.random.Generator, count: int, largest: int, ties: bool
              ) -> list[np.ndarray]:
    shapes = rng.integers(0, largest + 1, (count, 2))
    if ties:  # few distinct values, as σ of the one-hot embedder: many equal optima
        return [rng.choice([-0.5, 0.0, 0.5, 1.0], size=tuple(s)) for s in shapes]
    return [rng.random(tuple(s)) * 2 - 1 for s in shapes]


def _layout(mats: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    flat = np.concatenate([m.ravel() for m in mats])
    base = np.concatenate([[0], np.cumsum([m.size for m in mats])])[:-1]
    n = np.array([m.shape[0] for m in mats])
    m = np.array([mt.shape[1] for mt in mats])
    return flat, base, n, m


@pytest.mark.parametrize("ties", [False, True])
def test_subset_dp_gives_scipys_optimum_for_every_shape(ties: bool) -> None:
    rng = np.random.default_rng(3)
    mats = _matrices(rng, 600, 6, ties)  # rectangular both ways, empty sides, 1×1 …
    flat, base, n, m = _layout(mats)
    plan = SubsetPlan(base, m, np.zeros_like(n), n, np.zeros_like(n), m)
    expected = [_optimum(mt) for mt in mats]
    np.testing.assert_allclose(plan.solve(flat), expected, rtol=0, atol=1e-12)


def test_subset_dp_reads_shared_values_and_solves_repeated_problems_once() -> None:
    rng = np.random.default_rng(4)
    values = rng.random(7)  # few distinct cell values: many problems repeat
    mats_ids = [rng.integers(0, 7, tuple(s)) for s in rng.integers(1, 6, (300, 2))]
    ids = np.concatenate([t.ravel() for t in mats_ids])
    _, base, n, m = _layout([t.astype(float) for t in mats_ids])
    plan = SubsetPlan(base, m, np.zeros_like(n), n, np.zeros_like(n), m, cell_value=ids)
    assert plan.distinct < len(mats_ids)
    expected = [_optimum(values[t]) for t in mats_ids]
    np.testing.assert_allclose(plan.solve(values), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_class_and_relation_matchings_are_optimal_and_valid(ties: bool) -> None:
    rng = np.random.default_rng(5)
    mats = _matrices(rng, 400, 14, ties)
    # Near-diagonal ones too (a candidate close to its reference): mostly certified.
    for k in rng.integers(1, 13, 200):
        near = rng.random((k, k + rng.integers(0, 3))) * 0.3
        near[np.arange(k), rng.permutation(near.shape[1])[:k]] += 1.0
        mats.append(near if rng.random() < 0.5 else near.T.copy())
    flat, base, n, m = _layout(mats)
    plan = MatrixPlan(base, n, m, keep_matching=True)
    sums, cells = plan.solve(flat)
    np.testing.assert_allclose(sums, [_optimum(mt) for mt in mats], rtol=0, atol=1e-12)
    assert 0 < plan.solver_calls < len(mats)  # some by the bound, some by scipy
    # The matched cells form a matching of min(n, m) cells of each matrix, with that sum.
    assert cells is not None
    owner = np.searchsorted(base, cells, side="right") - 1
    for q, mt in enumerate(mats):
        mine = cells[owner == q] - base[q] if mt.size else np.zeros(0, dtype=int)
        rows, cols = np.divmod(mine, max(mt.shape[1], 1))
        assert len(mine) == min(mt.shape)
        assert len(set(rows)) == len(rows) and len(set(cols)) == len(cols)
        assert mt[rows, cols].sum() == pytest.approx(sums[q], abs=1e-12)


def test_matrices_whose_rows_share_a_best_column_are_settled_optimally_without_scipy(
        ) -> None:
    # Near-diagonal matrices in which some rows copy another row (plus a little noise):
    # their best columns clash, the row-maxima bound cannot settle them, and the greedy
    # matching with column prices must, or hand them to scipy.
    rng = np.random.default_rng(7)
    mats = []
    for k in rng.integers(3, 14, 300):
        near = rng.random((k, k + rng.integers(0, 3))) * 0.4
        near[np.arange(k), rng.permutation(near.shape[1])[:k]] += 1.0
        copies = rng.integers(1, 4)
        near[rng.choice(k, copies, replace=False)] = (
            near[rng.integers(0, k)] + rng.random((copies, near.shape[1])) * 0.05)
        mats.append(near if rng.random() < 0.5 else near.T.copy())
    clashing = sum(len(set(np.argmax(mt if mt.shape[0] <= mt.shape[1] else mt.T, axis=1)))
                   < min(mt.shape) for mt in mats)
    flat, base, n, m = _layout(mats)
    plan = MatrixPlan(base, n, m, keep_matching=True)
    sums, cells = plan.solve(flat)
    np.testing.assert_allclose(sums, [_optimum(mt) for mt in mats], rtol=0, atol=1e-12)
    assert clashing > 200 and plan.solver_calls < clashing / 2
    assert cells is not None
    owner = np.searchsorted(base, cells, side="right") - 1
    for q, mt in enumerate(mats):
        rows, cols = np.divmod(cells[owner == q] - base[q], mt.shape[1])
        assert len(set(rows)) == len(set(cols)) == min(mt.shape)
        assert mt[rows, cols].sum() == pytest.approx(sums[q], abs=1e-12)


@pytest.mark.parametrize("normalization", ["reference", "paper-eq3"])
def test_line_values_equal_the_envelope_with_optmatchs_empty_rules(normalization: str
                                                                   ) -> None:
    rng = np.random.default_rng(6)
    mats = _matrices(rng, 300, 4, ties=True)
    first, base, n, m = _layout(mats)
    second = rng.random(first.size)
    lines = LinePlan(first, second, base, m, np.zeros_like(n), n, np.zeros_like(n), m)
    order = rng.permutation(len(mats))
    values = LineValues(lines, normalization, order)
    assert sorted(values.order) == sorted(order)
    for t in [0.0, 0.3, 1.0, *rng.random(5)]:
        expected = optmatch_values(lines.solve(1 - t, t), n, m, normalization)
        got = values.values(1 - t, t)
        np.testing.assert_allclose(got, expected[values.order], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got[values.back], expected[order], rtol=0, atol=1e-12)


def _realistic_pairs(seed: int) -> list[tuple[ClassDiagram, ClassDiagram]]:
    """Bigger diagrams (up to 14 classes) and their mutations, plus the degenerate ones."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(25):
        ref = random_diagram(rng, min_classes=6, max_classes=14)
        pairs.append((ref, mutate(rng, ref)))
    return pairs + _pairs(20, seed=seed)


@pytest.mark.parametrize(("embedder", "normalization", "columns"), [
    (HashEmbedder(), "reference", ALL),
    (HashEmbedder(), "paper-eq3", ALL),
    ("exact", "reference", TIE_FREE),
])
def test_evaluation_equals_the_engine_and_the_previous_path(embedder: object,
                                                            normalization: str,
                                                            columns: list[int]) -> None:
    scorer = ClueScorer(embedder, normalization=normalization, cache=False)  # type: ignore[arg-type]
    batch = run_job(scorer.build_leaves(_realistic_pairs(seed=8)))
    cache = LeafCache.from_batch(batch, normalization)
    rng = np.random.default_rng(9)
    weight_sets = [ClueWeights.default(), to_weights(uniform_free()),
                   to_weights([1, 1, 0, 1, 1, 0, 1, 1, 0])]
    weight_sets += [to_weights(to_free(u)) for u in rng.random((6, 9))]
    for weights in weight_sets:
        new = cache.scores(weights)
        np.testing.assert_allclose(new[:, columns], cache.scores_previous(weights)[:, columns],
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(new[:, columns],
                                   batch.score_array(weights, normalization)[:, columns],
                                   rtol=0, atol=1e-12)


def test_class_matchings_at_tied_corner_weights_are_the_engines() -> None:
    # Class ES from return types only (w_n = w_a = 0, w_mt = 1): many class matchings tie,
    # and clue-attribute is read along the one chosen; a certified matching must be the
    # unique optimum, else scipy (the engine's solver) chooses, as in the engine.
    scorer = ClueScorer(HashEmbedder(), cache=False)
    batch = run_job(scorer.build_leaves(_realistic_pairs(seed=8) + _realistic_pairs(seed=11)))
    cache = LeafCache.from_batch(batch)
    for u in (np.zeros(9), np.ones(9)):
        weights = to_weights(to_free(u))
        np.testing.assert_allclose(cache.scores(weights), batch.score_array(weights),
                                   rtol=0, atol=1e-12)
