"""Inter-rater agreement against published worked examples and reference implementations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cluestudio.core.agreement import (
    Ratings,
    agreement_report,
    grader_agreement,
    icc,
    item_agreement,
    krippendorff_alpha_interval,
    krippendorff_alpha_ordinal,
    pairwise_agreement,
    pairwise_kappas,
    weighted_kappa,
)

nan = math.nan

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
# Communication, University of Pennsylvania, Departmental Papers (ASC) 43, §C–E: four
# observers, twelve units, values 1–5, missing data. Published: α_nominal = 0.743,
# α_ordinal = 0.815, α_interval = 0.849. Rows here are units (items), columns observers A–D.
KRIPPENDORFF_2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]).T

# Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
# reliability. Psychological Bulletin 86(2), 420–428, Table 2: six targets, four judges.
# Published (Table 4): ICC(1,1) .17, ICC(2,1) .29, ICC(3,1) .71, ICC(1,4) .44,
# ICC(2,4) .62, ICC(3,4) .91.
SHROUT_FLEISS_1979 = np.array([
    [9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    dtype=float)


def test_krippendorff_alpha_matches_the_published_example() -> None:
    assert krippendorff_alpha_interval(KRIPPENDORFF_2011) == pytest.approx(0.849, abs=5e-4)


def test_krippendorff_alpha_matches_the_krippendorff_package() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(0)
    for _ in range(20):
        data = rng.integers(0, 11, size=(25, 4)).astype(float)
        data[rng.random(data.shape) < 0.25] = np.nan
        expected = krippendorff.alpha(reliability_data=data.T,
                                      level_of_measurement="interval")
        assert krippendorff_alpha_interval(data) == pytest.approx(expected, abs=1e-12)


def test_ordinal_alpha_matches_the_published_example_and_the_package() -> None:
    assert krippendorff_alpha_ordinal(KRIPPENDORFF_2011) == pytest.approx(0.815, abs=5e-4)
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(1)
    for trial in range(40):
        # Integer scores, half-point rubric steps and totals with gaps between values.
        step = (1.0, 0.5, 2.5)[trial % 3]
        data = rng.integers(0, 9, size=(30, 3)).astype(float) * step
        data[rng.random(data.shape) < 0.2] = np.nan
        expected = krippendorff.alpha(reliability_data=data.T, level_of_measurement="ordinal")
        assert krippendorff_alpha_ordinal(data) == pytest.approx(expected, abs=1e-12)


def test_ordinal_alpha_uses_order_not_spacing() -> None:
    data = np.array([[1, 1], [2, 3], [3, 3], [4, 4], [2, 2]], dtype=float)
    stretched = np.where(data >= 3, data * 10, data)  # same order, other spacing
    assert krippendorff_alpha_ordinal(stretched) == pytest.approx(
        krippendorff_alpha_ordinal(data), abs=1e-12)
    assert krippendorff_alpha_interval(stretched) != pytest.approx(
        krippendorff_alpha_interval(data), abs=1e-3)
    assert krippendorff_alpha_ordinal(np.array([[1.0, 1.0], [2.0, 2.0]])) == 1.0
    assert math.isnan(krippendorff_alpha_ordinal(np.array([[3.0, 3.0], [3.0, 3.0]])))
    assert math.isnan(krippendorff_alpha_ordinal(np.array([[1.0, nan], [nan, 2.0]])))


def test_reports_show_both_alphas_and_say_which_is_which() -> None:
    ratings = Ratings.from_matrix(KRIPPENDORFF_2011)
    report = agreement_report(ratings)
    assert report.alpha_ordinal == pytest.approx(0.815, abs=5e-4)
    assert report.to_dict()["alpha_ordinal"] == report.alpha_ordinal
    text = report.to_text()
    assert "alpha (interval): 0.849" in text and "(ordinal): 0.815" in text
    assert "alpha w/o (interval)" in text
    pair = pairwise_agreement(ratings)[0]
    both = np.isfinite(KRIPPENDORFF_2011[:, 0]) & np.isfinite(KRIPPENDORFF_2011[:, 1])
    assert pair.alpha_ordinal == pytest.approx(
        krippendorff_alpha_ordinal(KRIPPENDORFF_2011[both][:, :2]), abs=1e-12)


def test_alpha_edge_cases() -> None:
    assert krippendorff_alpha_interval(np.array([[1.0, 1.0], [2.0, 2.0]])) == 1.0
    assert math.isnan(krippendorff_alpha_interval(np.array([[3.0, 3.0], [3.0, 3.0]])))
    assert math.isnan(krippendorff_alpha_interval(np.array([[1.0, nan], [nan, 2.0]])))


def test_icc_matches_shrout_and_fleiss_table_4() -> None:
    result = icc(SHROUT_FLEISS_1979)
    published = {"icc11": 0.17, "icc21": 0.29, "icc31": 0.71, "icc1k": 0.44, "icc2k": 0.62,
                 "icc3k": 0.91}
    for name, value in published.items():
        assert getattr(result, name) == pytest.approx(value, abs=0.005), name
    # Their Table 3 mean squares.
    assert (result.msr, result.msc, result.mse, result.msw) == pytest.approx(
        (11.24, 32.49, 1.02, 6.26), abs=0.005)
    assert result.n == 6 and result.k == 4 and result.dropped == 0
    assert result.p < 0.001


def test_icc_leaves_out_incomplete_items() -> None:
    data = np.vstack([SHROUT_FLEISS_1979, [5, nan, 4, 4]])
    result = icc(data)
    assert result.dropped == 1
    assert result.icc2k == pytest.approx(icc(SHROUT_FLEISS_1979).icc2k)


def test_weighted_kappa_by_hand_and_against_scikit_learn() -> None:
    # Two categories: observed (0,0)=1, (0,1)=1, (1,1)=2; expected from the margins
    # [[.5, 1.5], [.5, 1.5]]; κ = 1 − 1/2.
    assert weighted_kappa([0, 0, 1, 1], [0, 1, 1, 1], weights="linear") == 0.5
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(1)
    for _ in range(10):
        a = rng.integers(0, 6, 40)
        b = np.clip(a + rng.integers(-2, 3, 40), 0, 5)
        labels = list(range(int(min(a.min(), b.min())), int(max(a.max(), b.max())) + 1))
        for w in ("linear", "quadratic"):
            expected = metrics.cohen_kappa_score(a, b, weights=w, labels=labels)
            assert weighted_kappa(a, b, weights=w) == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="categories"):
        weighted_kappa([1, 2], [1, 3], categories=[1, 2])


def test_views_and_report() -> None:
    ratings = Ratings.from_matrix(SHROUT_FLEISS_1979, graders=["j1", "j2", "j3", "j4"])
    items = item_agreement(ratings)
    assert items[0].mean == 6.0 and items[0].range == 7.0
    assert items[0].sd == pytest.approx(np.std([9, 2, 5, 8], ddof=1))
    graders = {g.grader: g for g in grader_agreement(ratings)}
    # Judge 1 rates 9 against the others' mean (2+5+8)/3 = 5 on target 1, etc.
    others = SHROUT_FLEISS_1979[:, 1:].mean(axis=1)
    assert graders["j1"].bias == pytest.approx(float((SHROUT_FLEISS_1979[:, 0] - others).mean()))
    assert graders["j1"].alpha_without == pytest.approx(
        krippendorff_alpha_interval(SHROUT_FLEISS_1979[:, 1:]))
    kappas = pairwise_kappas(ratings)
    assert len(kappas) == 6 and kappas[0].n == 6
    report = agreement_report(ratings)
    assert report.icc.icc2k == pytest.approx(0.62, abs=0.005)
    assert "ICC(2,k) 0.620" in report.to_text()
    assert report.to_dict()["per_grader"][0]["grader"] == "j1"


def test_ratings_from_records() -> None:
    ratings = Ratings.from_records([("s1", "ann", 3), ("s2", "ann", 4), ("s1", "bob", 5)])
    assert ratings.items == ("s1", "s2") and ratings.graders == ("ann", "bob")
    assert np.isnan(ratings.values[1, 1])
    with pytest.raises(ValueError, match="twice"):
        Ratings.from_records([("s1", "ann", 3), ("s1", "ann", 4)])
