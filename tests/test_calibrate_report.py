"""Correlation statistics, the disagreement queues, plots, the report folder and the CLI."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from cluestudio.cli import main
from cluestudio.core.agreement import Ratings
from cluestudio.core.calibrate import (
    correlate,
    correlation_report,
    grader_disagreements,
    metric_disagreements,
    stratified_split,
    write_report,
)
from cluestudio.core.calibrate.planted import planted_pairs
from cluestudio.core.calibrate.plots import report_figures


# -- statistics ----------------------------------------------------------------------------
def test_correlations_match_scipy_and_a_hand_computed_fixture() -> None:
    # Hand-computed: x = 1..5, y = (2, 4, 5, 4, 5): Sxy = 6, Sxx = 10, Syy = 6.
    r = correlate([1, 2, 3, 4, 5], [2, 4, 5, 4, 5], resamples=0)
    assert r.pearson == pytest.approx(6 / math.sqrt(10 * 6))
    # Spearman on ranks (1..5) vs (1, 2.5, 4.5, 2.5, 4.5).
    assert r.spearman == pytest.approx(0.7378647873726218)
    rng = np.random.default_rng(0)
    x = rng.normal(size=80)
    y = 0.5 * x + rng.normal(size=80)
    c = correlate(x, y, resamples=500, seed=1)
    assert (c.pearson, c.pearson_p) == pytest.approx(tuple(sps.pearsonr(x, y)))
    assert (c.spearman, c.spearman_p) == pytest.approx(tuple(sps.spearmanr(x, y)))
    assert c.pearson_ci[0] < c.pearson < c.pearson_ci[1]
    assert c.spearman_ci[0] < c.spearman < c.spearman_ci[1]
    # Seeded bootstrap; and its CI agrees with scipy's percentile bootstrap.
    assert correlate(x, y, resamples=500, seed=1) == c
    boot = sps.bootstrap((x, y), lambda a, b, axis: sps.pearsonr(a, b, axis=axis).statistic,
                         paired=True, vectorized=True, n_resamples=2000, method="percentile",
                         random_state=np.random.default_rng(3))
    ours = correlate(x, y, resamples=2000, seed=3).pearson_ci
    assert ours == pytest.approx((boot.confidence_interval.low,
                                  boot.confidence_interval.high), abs=0.03)


def test_degenerate_inputs_give_nan_not_errors() -> None:
    nan_row = correlate([1.0, 1.0, 1.0, 1.0], [1, 2, 3, 4])
    assert math.isnan(nan_row.pearson) and math.isnan(nan_row.pearson_ci[0])
    partial = correlate([1, 2, np.nan, 4, 5], [1, 2, 3, np.nan, 4], resamples=50)
    assert partial.n == 3
    assert math.isnan(correlate([], []).pearson)
    report = correlation_report({"m": [1, 2, 3, 4, 5, 6]}, [1, 3, 2, 5, 4, 6],
                                subsets={"a": np.arange(3), "b": np.arange(3, 6)},
                                resamples=20)
    assert [r.subset for r in report.rows] == ["a", "b"]
    assert "Pearson" in report.to_text()
    with pytest.raises(ValueError, match="values for"):
        correlation_report({"m": [1, 2]}, [1, 2, 3])


# -- disagreement queues -------------------------------------------------------------------
def test_metric_queue_ranks_by_standardised_residual() -> None:
    x = np.linspace(0, 1, 20)
    y = 10 + 80 * x
    y[7] += 30  # the human liked this one far more than the metric did
    y[15] -= 12
    queue = metric_disagreements([f"s{i}" for i in range(20)], x, y, metric="clue", top=3)
    assert [e.id for e in queue[:2]] == ["s7", "s15"]
    assert queue[0].standardised > 0 > queue[1].standardised
    assert queue[0].rank == 1 and len(queue) == 3
    # Matches the internally studentised residual computed by hand.
    slope, intercept = np.polyfit(x, y, 1)
    e = y - (intercept + slope * x)
    s = math.sqrt(float(e @ e) / 18)
    h = 1 / 20 + (x - x.mean()) ** 2 / float(((x - x.mean()) ** 2).sum())
    assert queue[0].standardised == pytest.approx(e[7] / (s * math.sqrt(1 - h[7])))
    assert metric_disagreements(["a", "b"], [1, 2], [1, 2]) == []
    assert metric_disagreements(["a", "b", "c"], [1, 1, 1], [1, 2, 3]) == []


def test_grader_queue_ranks_by_spread() -> None:
    ratings = Ratings.from_records([
        ("a", "g1", 50), ("a", "g2", 52), ("b", "g1", 20), ("b", "g2", 80),
        ("c", "g1", 40), ("c", "g2", 60), ("c", "g3", 50), ("d", "g1", 10)])
    queue = grader_disagreements(ratings)
    assert [q.id for q in queue] == ["b", "c", "a"]  # d has one rating only
    assert queue[0].range == 60 and queue[0].sd == pytest.approx(math.sqrt(1800))
    assert [q.id for q in grader_disagreements(ratings, by="range", top=1)] == ["b"]
    assert queue[0].to_dict()["ratings"] == {"g1": 20.0, "g2": 80.0}


# -- plots and the report folder ----------------------------------------------------------
def test_report_folder_has_tables_queue_and_figures(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    human = rng.uniform(0, 100, 60)
    metrics = {"clue": human / 100 + rng.normal(0, 0.1, 60), "bleu": rng.random(60)}
    split = stratified_split(human, seed=1)
    tasks = [f"t{i % 3}" for i in range(60)]
    figs = report_figures(metrics, human, split=split, tasks=tasks)
    assert set(figs) == {"scatter", "residuals", "tasks"}
    summary = write_report(tmp_path / "r", metrics, human, ids=[str(i) for i in range(60)],
                           split=split, tasks=tasks, resamples=100)
    names = set(summary["files"])
    assert {"scatter.png", "scatter.svg", "residuals.png", "tasks.svg", "report.json",
            "correlations.txt"} <= names
    data = json.loads((tmp_path / "r" / "report.json").read_text())
    subsets = {(r["metric"], r["subset"]) for r in data["correlations"]["rows"]}
    assert ("clue", "test") in subsets and ("bleu", "train") in subsets
    assert data["disagreements"]["clue"][0]["rank"] == 1
    assert (tmp_path / "r" / "scatter.png").read_bytes()[:4] == b"\x89PNG"


def test_importing_calibration_loads_neither_optuna_nor_matplotlib() -> None:
    code = ("import sys, cluestudio.core.calibrate, cluestudio.core.agreement; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'optuna', 'matplotlib', 'torch', 'krippendorff', 'sklearn'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.strip()
    assert out == "[]"


# -- command line ---------------------------------------------------------------------------
def _study(folder: Path, count: int = 40) -> tuple[Path, Path]:
    from cluestudio.core.plantuml.writer import write_plantuml

    pairs = planted_pairs(count, tasks=4, seed=8, max_mutations=6)
    refs: dict[int, str] = {}
    rows = []
    for p in pairs:
        ref_name = refs.setdefault(id(p.reference), f"ref_{p.task}.puml")
        (folder / ref_name).write_text(write_plantuml(p.reference), encoding="utf-8")
        (folder / f"{p.id}.puml").write_text(write_plantuml(p.candidate), encoding="utf-8")
        rows.append({"id": p.id, "reference": ref_name, "candidate": f"{p.id}.puml"})
    with (folder / "pairs.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, ["id", "reference", "candidate"])
        writer.writeheader()
        writer.writerows(rows)
    rng = np.random.default_rng(4)
    with (folder / "ratings.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "grader", "total"])
        for i, p in enumerate(pairs):
            base = 100 - 8 * len(p.id) % 7 * 5 - i % 9 * 4
            for grader in ("ann", "bob"):
                writer.writerow([p.id, grader, int(np.clip(base + rng.normal(0, 5), 0, 100))])
    return folder / "pairs.csv", folder / "ratings.csv"


def test_cli_calibrate_writes_profile_and_report(tmp_path: Path, capsys) -> None:
    pairs, ratings = _study(tmp_path)
    profile, report = tmp_path / "fitted.toml", tmp_path / "report"
    code = main(["calibrate", str(pairs), "--ratings", str(ratings), "--trials", "8",
                 "--embedder", "exact", "-o", str(profile), "--report", str(report),
                 "--resamples", "50", "--no-plots", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trials"] == 8 and set(out["weights"]) >= {"w_e", "w_rn"}
    assert out["provenance"]["embedder"] == "exact"
    from cluestudio.core.clue import ClueWeights

    assert ClueWeights.load(profile).values() == pytest.approx(out["weights"])
    assert (report / "report.json").exists() and (report / "correlations.txt").exists()
    assert not (report / "scatter.png").exists()  # --no-plots
    # Every fitted weight comes with its bootstrap interval (20 refits by default), and
    # the profile and the report keep them.
    intervals = out["weight_intervals"]
    assert intervals["resamples"] == 20 and intervals["trials"] == 20
    for name, value in out["weights"].items():
        entry = intervals["weights"][name]
        assert entry["fitted"] == pytest.approx(value)
        assert 0 <= entry["low"] <= entry["high"] <= 1
    import tomllib

    saved = tomllib.loads(profile.read_text())["calibration"]["bootstrap"]
    assert saved["resamples"] == 20 and saved["wide_intervals"] == len(intervals["wide"])
    report_json = json.loads((report / "report.json").read_text())
    assert report_json["calibration"]["weight_intervals"] == intervals


def test_cli_calibrate_warns_about_unidentified_weights(tmp_path: Path, capsys) -> None:
    pairs, ratings = _study(tmp_path)
    code = main(["calibrate", str(pairs), "--ratings", str(ratings), "--trials", "8",
                 "--embedder", "exact", "--weight-bootstrap", "5", "--bootstrap-trials", "6",
                 "--interval-warning", "0.05"])
    assert code == 0
    captured = capsys.readouterr()
    assert "warning:" in captured.err and "do not read them as findings" in captured.err
    assert "95% interval (5 bootstrap refits)" in captured.out
    assert "wide: not identified" in captured.out
    assert main(["calibrate", str(pairs), "--ratings", str(ratings), "--trials", "4",
                 "--embedder", "exact", "--weight-bootstrap", "0"]) == 0
    captured = capsys.readouterr()
    assert "warning:" not in captured.err and "weights: w_e=" in captured.out
    assert main(["calibrate", str(pairs), "--ratings", str(ratings),
                 "--embedder", "exact", "--weight-bootstrap", "1"]) == 2
    assert "--weight-bootstrap must be 0" in capsys.readouterr().err


def test_cli_calibrate_reports_unrated_pairs(tmp_path: Path, capsys) -> None:
    pairs, _ = _study(tmp_path, count=12)
    (tmp_path / "few.csv").write_text("id,total\nt00-001,50\n", encoding="utf-8")
    code = main(["calibrate", str(pairs), "--ratings", str(tmp_path / "few.csv"),
                 "--embedder", "exact", "--trials", "2"])
    assert code == 2
    assert "have no rating" in capsys.readouterr().err


def test_cli_agreement(tmp_path: Path, capsys) -> None:
    _, ratings = _study(tmp_path, count=20)
    assert main(["agreement", str(ratings), "--json", "--top", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["graders"] == ["ann", "bob"] and len(out["disagreements"]) == 3
    assert -1 <= out["alpha_interval"] <= 1 and out["icc"]["k"] == 2
    krippendorff = pytest.importorskip("krippendorff")
    from cluestudio.core.agreement import Ratings
    from cluestudio.core.calibrate.ratings_io import read_ratings

    table = Ratings.from_records((r.id, r.grader, r.total) for r in read_ratings(ratings))
    assert out["alpha_ordinal"] == pytest.approx(krippendorff.alpha(
        reliability_data=table.values.T, level_of_measurement="ordinal"), abs=1e-12)
    assert main(["agreement", str(ratings)]) == 0
    text = capsys.readouterr().out
    assert "Krippendorff's alpha (interval)" in text and "(ordinal)" in text
