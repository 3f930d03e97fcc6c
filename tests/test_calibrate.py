"""Calibration core: batched assignments, envelopes, the leaf cache against the CLUE engine,
the search space of eq. 13, the stratified split and a planted-truth fit."""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from cluestudio.core.calibrate.assign import AssignmentPlan
from cluestudio.core.calibrate.envelope import envelope_lines
from cluestudio.core.calibrate.fit import calibrate, evaluate
from cluestudio.core.calibrate.leafcache import LeafCache, build_leaf_cache
from cluestudio.core.calibrate.planted import planted_human, planted_pairs, random_diagram
from cluestudio.core.calibrate.search import Objective
from cluestudio.core.calibrate.space import (
    constraints,
    from_weights,
    is_feasible,
    to_free,
    to_unit,
    to_weights,
    uniform_free,
)
from cluestudio.core.calibrate.split import score_bins, stratified_split
from cluestudio.core.clue import ClueScorer, ClueWeights
from cluestudio.core.jobs import Cancelled, CancelToken, run_job
from cluestudio.core.model import ClassDiagram
from support.clue_support import random_pairs


class HashEmbedder:
    """Pseudo-random unit vectors per string: generic σ values, so matchings have no ties."""

    id = "hash-test"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.array([np.random.default_rng(zlib.crc32(t.encode())).normal(size=12)
                        for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _lsa_value(matrix: np.ndarray) -> float:
    if matrix.size == 0:
        return 0.0
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return float(matrix[rows, cols].sum())


def _random_weights(rng: np.random.Generator) -> ClueWeights:
    return to_weights(to_free(rng.random(9)))


# -- batched assignments ------------------------------------------------------------------
@pytest.mark.parametrize("limit", [0, 130, 10_000])  # all sparse, mixed, all brute force
def test_assignment_plan_matches_scipy(limit: int) -> None:
    rng = np.random.default_rng(limit)
    mats = [rng.random((int(a), int(b))) * 2 - 1 for a, b in rng.integers(0, 8, (400, 2))]
    flat = np.concatenate([m.ravel() for m in mats])
    sizes = np.array([m.size for m in mats])
    base = np.concatenate([[0], np.cumsum(sizes)])[:-1]
    n = np.array([m.shape[0] for m in mats])
    m = np.array([mt.shape[1] for mt in mats])
    zero = np.zeros_like(n)
    plan = AssignmentPlan(base, m, zero, n, zero, m, keep_matching=True,
                          brute_force_limit=limit)
    sums, cells = plan.solve(flat)
    assert np.allclose(sums, [_lsa_value(mt) for mt in mats], atol=1e-12)
    # The matched cells are a valid matching that attains the sums.
    assert cells is not None
    owner = np.searchsorted(base, cells, side="right") - 1
    owner = np.where(sizes[owner] == 0, -1, owner)
    assert np.allclose(np.bincount(owner, flat[cells], len(mats)), sums)
    assert len(cells) == sum(min(mt.shape) for mt in mats)


def test_envelope_lines_give_the_optimum_for_every_weight_ratio() -> None:
    rng = np.random.default_rng(7)
    for _ in range(60):
        n, m = rng.integers(1, 7, 2)
        # Few distinct values, as with the exact embedder: many ties.
        a = rng.choice([0.0, 0.5, 1.0], size=(n, m))
        b = rng.random((n, m)) if rng.random() < 0.5 else rng.choice([0.0, 0.5, 1.0], (n, m))
        lines = envelope_lines(a, b)
        for t in np.linspace(0, 1, 23):
            w1, w2 = 1 - t, t
            best = max(w1 * alpha + w2 * beta for alpha, beta in lines)
            assert best == pytest.approx(_lsa_value(w1 * a + w2 * b), abs=1e-12)


# -- the leaf cache equals the engine -----------------------------------------------------
def _pairs(count: int, seed: int) -> list[tuple[ClassDiagram, ClassDiagram]]:
    pairs = [(p.reference, p.candidate) for p in planted_pairs(count, tasks=6, seed=seed)]
    rng = random.Random(seed)
    # Unrelated pairs and empty diagrams too: every empty-set rule of OptMatch gets used.
    pairs += [(random_diagram(rng), random_diagram(rng)) for _ in range(10)]
    pairs += [(ClassDiagram(), pairs[0][1]), (pairs[0][0], ClassDiagram()),
              (ClassDiagram(), ClassDiagram())]
    return pairs


# clue, clue-class, clue-relation are optimum values: equal whichever optimal matching a
# solver returns. clue-attribute and clue-method are read along the class matching, so where
# two class matchings tie exactly they depend on the solver's choice (the paper defines no
# tie-break). The one-hot ``exact`` embedder makes such ties common (σ ∈ {0, ½, 1}); with
# generic σ (the hash embedder) the optimum is unique and all five must agree.
TIE_FREE = [0, 1, 4]
ALL = [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("embedder", "profile", "normalization", "columns"), [
    ("exact", "paper", "reference", TIE_FREE),
    (HashEmbedder(), "paper", "reference", ALL),
    (HashEmbedder(), "oodeval-code", "paper-eq3", ALL),
    (HashEmbedder(), "oodeval-code", "reference", ALL),
])
def test_leaf_cache_scores_equal_the_engine(embedder: object, profile: str,
                                            normalization: str, columns: list[int]) -> None:
    pairs = _pairs(60, seed=11)
    # Unknown relation ends, empty strings and odd multiplicities: every profile rule.
    pairs += random_pairs(20, seed=11)
    scorer = ClueScorer(embedder, profile=profile, normalization=normalization,  # type: ignore[arg-type]
                        cache=False)
    batch = run_job(scorer.build_leaves(pairs))
    cache = LeafCache.from_batch(batch, normalization)
    rng = np.random.default_rng(5)
    weight_sets = [ClueWeights.default(), to_weights(uniform_free()),
                   to_weights([1, 1, 0, 1, 1, 0, 1, 1, 0])]  # a corner of the feasible set
    weight_sets += [_random_weights(rng) for _ in range(4)]
    for weights in weight_sets:
        np.testing.assert_allclose(cache.scores(weights)[:, columns],
                                   _engine(scorer, batch, weights)[:, columns],
                                   rtol=0, atol=1e-9)
    # All free weights 0: classes are told apart by their methods only, so class matchings
    # tie even with generic σ; the optimum values must still agree.
    degenerate = to_weights([0, 0, 0, 0, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(cache.scores(degenerate)[:, TIE_FREE],
                               _engine(scorer, batch, degenerate)[:, TIE_FREE],
                               rtol=0, atol=1e-9)


def _engine(scorer: ClueScorer, batch: object, weights: ClueWeights) -> np.ndarray:
    """Scores through the engine's public API, one ClueResult per pair."""
    return np.array([list(r.scores.as_dict().values())
                     for r in scorer.evaluate(batch, weights)])  # type: ignore[arg-type]


def test_build_leaf_cache_job_reports_progress_and_cancels() -> None:
    pairs = _pairs(20, seed=2)
    seen = []
    cache = run_job(build_leaf_cache(pairs, embedder="exact", cache=False), seen.append)
    assert len(cache) == len(pairs) and seen
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        run_job(build_leaf_cache(pairs, embedder="exact", cache=False, cancel=token))


# -- search space (eq. 11-13) -------------------------------------------------------------
def test_unit_cube_maps_onto_the_feasible_set_and_back() -> None:
    rng = np.random.default_rng(0)
    for u in rng.random((500, 9)):
        x = to_free(u)
        assert is_feasible(x)
        assert constraints(x).shape == (18,)
        np.testing.assert_allclose(to_unit(x), u, atol=1e-9)
        weights = to_weights(x)
        np.testing.assert_allclose(from_weights(weights), x, atol=1e-12)
    # Uniform u gives uniform points on each 2-simplex: mean ⅓ per weight.
    xs = np.array([to_free(u) for u in rng.random((20000, 9))])
    assert xs[:, [1, 2, 4, 5, 7, 8]].mean(axis=0) == pytest.approx([1 / 3] * 6, abs=0.01)


def test_derived_complements_and_infeasible_vectors() -> None:
    w = to_weights([0.8, 0.5, 0.3, 0.6, 0.1, 0.7, 0.05, 0.2, 0.3])
    assert (w.w_r, w.w_m, w.w_an, w.w_mt, w.w_pn, w.w_rn) == pytest.approx(
        (0.2, 0.2, 0.4, 0.2, 0.95, 0.5))
    with pytest.raises(ValueError, match="g5"):
        to_weights([0.5, 0.7, 0.4, 0.5, 0.1, 0.1, 0.1, 0.1, 0.1])  # w_n + w_a > 1
    assert not is_feasible([-0.1, 0, 0, 0, 0, 0, 0, 0, 0])


# -- stratified split ----------------------------------------------------------------------
def test_score_bins_are_the_papers_deciles() -> None:
    assert score_bins(np.array([0, 1, 10, 11, 20, 55, 91, 100])).tolist() == [
        1, 1, 1, 2, 2, 6, 10, 10]
    assert score_bins(np.array([0.0, 2.0, 2.1, 20.0]), max_score=20).tolist() == [1, 1, 2, 10]


def test_stratified_split_is_seeded_and_keeps_bin_shares() -> None:
    rng = np.random.default_rng(1)
    y = np.concatenate([rng.uniform(0, 30, 300), rng.uniform(70, 100, 100)])
    a = stratified_split(y, seed=4)
    b = stratified_split(y, seed=4)
    c = stratified_split(y, seed=5)
    assert np.array_equal(a.test, b.test) and not np.array_equal(a.test, c.test)
    assert len(a.test) == 80 and len(a.train) == 320
    assert np.intersect1d(a.train, a.test).size == 0
    for label in np.unique(a.bins):
        size = int((a.bins == label).sum())
        in_test = int((a.bins[a.test] == label).sum())
        assert abs(in_test - 0.2 * size) <= 1


# -- planted truth -------------------------------------------------------------------------
def test_fit_recovers_planted_weights_test_correlation() -> None:
    """Human totals = 100·clue under hidden weights + noise; the fit must do as well."""
    pairs = planted_pairs(400, tasks=10, seed=21, max_mutations=8)
    cache = run_job(build_leaf_cache([(p.reference, p.candidate) for p in pairs],
                                     embedder="exact", cache=False))
    planted = to_weights([0.35, 0.25, 0.55, 0.85, 0.3, 0.2, 0.7, 0.15, 0.6], name="planted")
    human = planted_human(cache.scores(planted), metric="clue", noise=4.0, seed=3)
    result = run_job(calibrate(cache, human, trials=80, seed=0))
    truth = evaluate(Objective(cache, human), planted, result.split, "planted")
    fitted = result.best
    assert abs(fitted.test["clue"] - truth.test["clue"]) <= 0.02
    # It moved: the shipped profile (the second start) is far worse on these humans.
    shipped = result.baselines[1]
    assert fitted.test["clue"] > shipped.test["clue"] + 0.1
    assert fitted.train_objective >= max(b.train_objective for b in result.baselines) - 1e-12
    assert len(result.history) == 80 and result.trials == 80


def test_eq12_cannot_identify_the_weights_and_the_intervals_say_so() -> None:
    """Humans follow clue under planted weights: other weights fit them as well or better,
    far from the planted ones, and the bootstrap intervals flag exactly that."""
    pairs = planted_pairs(400, tasks=10, seed=21, max_mutations=8)
    cache = run_job(build_leaf_cache([(p.reference, p.candidate) for p in pairs],
                                     embedder="exact", cache=False))
    planted = to_weights([0.35, 0.25, 0.55, 0.85, 0.3, 0.2, 0.7, 0.15, 0.6], name="planted")
    human = planted_human(cache.scores(planted), metric="clue", noise=4.0, seed=3)
    result = run_job(calibrate(cache, human, trials=80, seed=0, bootstrap=12,
                               bootstrap_trials=20))
    truth = evaluate(Objective(cache, human), planted, result.split, "planted")
    # The objective prefers weights that are not the truth ...
    assert result.best.train_objective > truth.train_objective
    distance = np.abs(np.array(list(result.weights.values().values()))
                      - np.array(list(planted.values().values())))
    assert distance.mean() > 0.1
    # ... and the intervals are wide and cover the planted weights.
    intervals = result.intervals
    assert intervals is not None and intervals.resamples == 12
    assert len(intervals.wide) >= 8
    covered = [n for n, w in planted.values().items()
               if intervals.low[n] - 1e-9 <= w <= intervals.high[n] + 1e-9]
    assert len(covered) >= 12
    assert result.warnings and "do not read them as findings" in result.warnings[0]
    assert result.to_dict()["weight_intervals"]["wide"] == intervals.wide
    # A threshold above any possible width is silent; the refits are seeded.
    lenient = run_job(calibrate(cache, human, trials=20, seed=0, bootstrap=3,
                                bootstrap_trials=10, width_threshold=1.0))
    again = run_job(calibrate(cache, human, trials=20, seed=0, bootstrap=3,
                              bootstrap_trials=10, width_threshold=1.0))
    assert lenient.warnings == [] and lenient.intervals == again.intervals


def test_fit_is_reproducible_writes_a_loadable_profile_and_honours_patience(tmp_path) -> None:
    pairs = planted_pairs(120, tasks=4, seed=2)
    cache = run_job(build_leaf_cache([(p.reference, p.candidate) for p in pairs],
                                     embedder="exact", cache=False))
    human = planted_human(cache.scores(ClueWeights.default()), seed=1)
    one = run_job(calibrate(cache, human, trials=15, seed=9, provenance={"data": "x.jsonl"}))
    two = run_job(calibrate(cache, human, trials=15, seed=9))
    assert one.weights.values() == two.weights.values()
    path = one.save_profile(tmp_path / "fitted.toml")
    loaded = ClueWeights.load(path)
    assert loaded.values() == pytest.approx(one.weights.values(), abs=1e-12)
    text = path.read_text()
    assert "[calibration]" in text and 'data = "x.jsonl"' in text and "test_pearson" in text
    short = run_job(calibrate(cache, human, trials=200, seed=9, patience=5))
    assert short.trials < 200
