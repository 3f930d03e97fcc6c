"""Issue 8, item 3: the Analysis dock's Agreement tab, from the workspace's ratings.

Three graders rate a small course (one of them only part of it). The figures on screen are
checked against independent implementations: Krippendorff's α from the ``krippendorff``
package, weighted κ from scikit-learn, ICC(2,k) from the two-way ANOVA written out here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cluestudio.core.jobs import CancelToken, run_job
from cluestudio.core.settings import Settings

pytestmark = pytest.mark.gui

krippendorff = pytest.importorskip("krippendorff")
sk_metrics = pytest.importorskip("sklearn.metrics")

GRADERS = ("ana", "ben", "cy")


def _course(tmp_path, graders=GRADERS):
    """Six submissions; ana and ben rate all, cy the first four; ratings near a true level."""
    from cluestudio.core.rubric import get_rubric
    from cluestudio.core.workspace import SaveRating, import_path, open_workspace
    from gui_course import make_course

    ws = open_workspace(tmp_path / "course.sqlite")
    run_job(import_path(ws, make_course(tmp_path / "course")))
    rubric = get_rubric()
    rng = np.random.default_rng(11)
    ids = [s.id for s in ws.list_submissions()]
    truth = [4, 3, 2, 1, 0, 3]
    for number, sid in enumerate(ids):
        for grader in graders:
            if grader == "cy" and number >= 4:
                continue  # missing ratings: α uses them, ICC leaves the rows out
            scores = {}
            for item in rubric.items:
                scale = item.scale
                steps = round(truth[number] * scale.max / 4 / scale.step)
                level = scale.min + (steps + rng.integers(-1, 2)) * scale.step
                scores[item.id] = float(np.clip(level, scale.min, scale.max))
            ws.execute(SaveRating(sid, grader, scores, rubric=rubric))
    return ws, ids, rubric


def _matrix(ws, ids, key: str) -> np.ndarray:
    """Graders × submissions (NaN where missing): the krippendorff package's layout."""
    out = np.full((len(GRADERS), len(ids)), np.nan)
    for rating in ws.ratings():
        value = rating.total if key == "total" else rating.scores[key]
        out[GRADERS.index(rating.grader), ids.index(rating.submission_id)] = value
    return out


def _icc2k(table: np.ndarray) -> float:
    """ICC(2,k), Shrout & Fleiss (1979) eq. for case 2 averaged: (BMS − EMS) / (BMS +
    (JMS − EMS)/n), from the ANOVA of the submissions every grader rated."""
    x = table.T[np.all(np.isfinite(table.T), axis=1)]  # submissions × graders
    n, k = x.shape
    grand = x.mean()
    bms = k * ((x.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    jms = n * ((x.mean(axis=0) - grand) ** 2).sum() / (k - 1)
    ems = (((x - grand) ** 2).sum() - bms * (n - 1) - jms * (k - 1)) / ((n - 1) * (k - 1))
    return float((bms - ems) / (bms + (jms - ems) / n))


def _alpha(table: np.ndarray, level: str = "interval") -> float:
    return float(krippendorff.alpha(reliability_data=table, level_of_measurement=level))


def test_agreement_scopes_match_independent_implementations(tmp_path) -> None:
    from cluestudio.gui.analysis_data import gather

    ws, ids, rubric = _course(tmp_path)
    try:
        data = run_job(gather(ws, rubric.id, CancelToken(), resamples=20, figures=False))
        totals, classes, overall = (_matrix(ws, ids, k) for k in ("total", "classes",
                                                                    "overall"))
    finally:
        ws.close()
    assert not data.agreement_note
    assert [s.key for s in data.agreement] == ["total", *(i.id for i in rubric.items)]
    scopes = {s.key: s for s in data.agreement}
    for key, table in (("total", totals), ("classes", classes), ("overall", overall)):
        scope = scopes[key]
        assert scope.report.alpha_interval == pytest.approx(_alpha(table), abs=1e-9)
        assert scope.report.alpha_ordinal == pytest.approx(_alpha(table, "ordinal"),
                                                           abs=1e-9)
        assert scope.report.icc.icc2k == pytest.approx(_icc2k(table), abs=1e-9)
        assert scope.report.icc.n == 4 and scope.report.icc.dropped == 2
        assert scope.pairable == 6
        assert [(p.first, p.second, p.n) for p in scope.pairs] == [
            ("ana", "ben", 6), ("ana", "cy", 4), ("ben", "cy", 4)]
        for pair in scope.pairs:
            a, b = table[GRADERS.index(pair.first)], table[GRADERS.index(pair.second)]
            both = np.isfinite(a) & np.isfinite(b)
            assert pair.alpha_interval == pytest.approx(_alpha(np.vstack([a, b])), abs=1e-9)
            assert pair.alpha_ordinal == pytest.approx(
                _alpha(np.vstack([a, b]), "ordinal"), abs=1e-9)
            assert pair.icc2k == pytest.approx(_icc2k(np.vstack([a, b])), abs=1e-9)
            if key == "total":
                labels = np.unique(np.concatenate([a[both], b[both]]))
            else:  # rubric items: κ distance counts the item's scale steps
                item = rubric.item(key).scale
                labels = np.arange(item.min, item.max + item.step / 2, item.step)
            # scikit-learn takes class labels, not decimals: pass category positions.
            pos_a, pos_b = (np.searchsorted(labels, v[both]) for v in (a, b))
            assert np.allclose(labels[pos_a], a[both]) and np.allclose(labels[pos_b], b[both])
            for weights, value in (("linear", pair.kappa_linear),
                                   ("quadratic", pair.kappa_quadratic)):
                expected = sk_metrics.cohen_kappa_score(pos_a, pos_b,
                                                        labels=np.arange(len(labels)),
                                                        weights=weights)
                assert value == pytest.approx(expected, abs=1e-9)
    # The per-grader view: n, mean and agreement with the others.
    graders = {g.grader: g for g in scopes["total"].report.per_grader}
    assert {g: graders[g].n for g in GRADERS} == {"ana": 6, "ben": 6, "cy": 4}
    assert graders["cy"].mean == pytest.approx(np.nanmean(totals[2]))
    assert graders["ana"].alpha_without == pytest.approx(_alpha(totals[1:]), abs=1e-9)
    kappas = [p.kappa_quadratic for p in scopes["total"].pairs if "cy" in (p.first, p.second)]
    assert scopes["total"].kappa_by_grader["cy"] == pytest.approx(np.mean(kappas))


def test_one_grader_says_agreement_needs_two(tmp_path) -> None:
    from cluestudio.gui.analysis_data import gather

    ws, _, rubric = _course(tmp_path, graders=("ana",))
    try:
        data = run_job(gather(ws, rubric.id, CancelToken(), figures=False))
    finally:
        ws.close()
    assert data.agreement == [] and "two or more graders" in data.agreement_note


def test_agreement_tab_shows_overall_pairs_and_graders(qtbot, tmp_path) -> None:
    from cluestudio.gui.analysis_view import AnalysisView
    from cluestudio.gui.operations import Workbench
    from cluestudio.gui.worker import JobRunner

    ws, ids, rubric = _course(tmp_path)
    totals, methods = _matrix(ws, ids, "total"), _matrix(ws, ids, "methods")
    runner = JobRunner()
    bench = Workbench(runner, Settings())
    view = AnalysisView(bench)
    qtbot.addWidget(view)
    try:
        bench.open(ws)
        view.show()
        with qtbot.waitSignal(view.shown, timeout=60_000):
            assert view.refresh() is not None and view.busy()  # a job, off the UI thread
        assert not view.busy()
        assert view.tabs.tabText(view.tabs.indexOf(view.agreement_page)) == "Agreement"
        view.tabs.setCurrentWidget(view.agreement_page)
        overview = view.agreement_overview
        assert overview.topLevelItemCount() == 1 + len(rubric.items)
        total_row = overview.topLevelItem(0)
        assert total_row.text(0) == "Total"
        assert total_row.text(1) == "6" and total_row.text(2) == "3"
        # Both alphas, side by side, each column saying which one it is.
        headers = overview.headerItem()
        assert (headers.text(4), headers.text(5)) == ("α (interval)", "α (ordinal)")
        assert total_row.text(4) == f"{_alpha(totals):.3f}"
        assert total_row.text(5) == f"{_alpha(totals, 'ordinal'):.3f}"
        assert total_row.text(6) == f"{_icc2k(totals):.3f}"
        # The total is shown per pair and per grader until another score is picked.
        assert view.agreement_pairs.topLevelItemCount() == 3
        first = view.agreement_pairs.topLevelItem(0)
        assert first.text(0) == "ana / ben" and first.text(1) == "6"
        assert first.text(2) == f"{_alpha(totals[:2]):.3f}"
        assert first.text(3) == f"{_alpha(totals[:2], 'ordinal'):.3f}"
        assert view.agreement_pairs.headerItem().text(3) == "α (ordinal)"
        assert view.agreement_graders.headerItem().text(8) == "α without (interval)"
        rows = {view.agreement_graders.topLevelItem(i).text(0):
                view.agreement_graders.topLevelItem(i)
                for i in range(view.agreement_graders.topLevelItemCount())}
        assert set(rows) == set(GRADERS) and rows["cy"].text(1) == "4"
        assert rows["cy"].text(2) == f"{np.nanmean(totals[2]):.2f}"
        # Selecting a rubric item's row shows that item's pairs and graders.
        index = [i.id for i in rubric.items].index("methods") + 1
        overview.setCurrentItem(overview.topLevelItem(index))
        assert view.agreement_scope.currentData() == "methods"
        a, c = methods[0], methods[2]
        both = np.isfinite(a) & np.isfinite(c)
        expected = sk_metrics.cohen_kappa_score(a[both], c[both], labels=np.arange(5),
                                                weights="quadratic")
        pair = view.agreement_pairs.topLevelItem(1)
        assert pair.text(0) == "ana / cy" and pair.text(6) == f"{expected:.3f}"
        rows = {view.agreement_graders.topLevelItem(i).text(0):
                view.agreement_graders.topLevelItem(i) for i in range(3)}
        assert rows["ben"].text(2) == f"{np.nanmean(methods[1]):.2f}"
        alpha_without_cy = _alpha(methods[:2])
        shown = rows["cy"].text(8)
        assert shown == ("–" if math.isnan(alpha_without_cy) else f"{alpha_without_cy:.3f}")
        # And back through the combo box.
        view.agreement_scope.setCurrentIndex(0)
        assert overview.currentItem() is overview.topLevelItem(0)
        assert view.agreement_pairs.topLevelItem(0).text(2) == f"{_alpha(totals[:2]):.3f}"
    finally:
        view.close()
        bench.close()
        runner.shutdown()
