"""Issue 8, item 2: the calibration report covers every metric, not only the CLUE suite.

From a workspace: the stored baseline scores of the calibrated revisions and the VLM probes'
EM / RelAcc, on the same split as the fitted CLUE suite, each on the submissions that have
it. From a pairs file: its other numeric columns.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from cluestudio.cli import main
from cluestudio.core.calibrate.workspace_data import calibration_data, stored_metrics
from cluestudio.core.clue import METRIC_NAMES
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import import_path, open_workspace, ops
from cluestudio.resources_path import annotations_dir

SAMPLE = annotations_dir() / "sample"
MODEL = "tiny-vlm"


def _scored_sample(path: Path) -> dict[str, dict[str, float]]:
    """The bundled sample course with bleu / rouge-l scores and probe rows for some pairs.

    Returns the planted values by metric and "task/source" id; a stale score (of another
    text) and a stored CLUE value are planted too and must not show up.
    """
    planted: dict[str, dict[str, float]] = {"bleu": {}, "rouge-l": {},
                                             f"probe-em[{MODEL}]": {},
                                             f"probe-rel-acc[{MODEL}]": {}}
    rng = np.random.default_rng(5)
    with open_workspace(path) as ws:
        run_job(import_path(ws, SAMPLE))
        data = calibration_data(ws)
        human = data.human_totals()
        assert len(data.ids) >= 40

        def write(conn, i: int, key: str, sid: int, digest: str) -> None:
            bleu = float(human[i] / 100 + rng.normal(0, 0.05))
            ops.put_score(conn, sid, digest, "bleu", bleu, metric_version="1")
            planted["bleu"][key] = bleu
            ops.put_score(conn, sid, "0" * 64, "bleu", 99.0)  # an older revision's score
            ops.put_score(conn, sid, digest, "clue", 0.5)  # the fit recomputes CLUE
            if i % 4:  # rouge-l is missing for a quarter of the pairs
                rouge = float(rng.random())
                ops.put_score(conn, sid, digest, "rouge-l", rouge, metric_version="1")
                planted["rouge-l"][key] = rouge
            if i % 2:  # probes ran on half of them; RelAcc undefined for some
                em = float(rng.random() < 0.3 + human[i] / 200)
                rel = None if i % 5 == 0 else float(rng.random())
                ops.put_probe_result(conn, sid, "vlm-seed003", MODEL, "h", em=em,
                                     rel_acc=rel, result={})
                planted[f"probe-em[{MODEL}]"][key] = em
                if rel is not None:
                    planted[f"probe-rel-acc[{MODEL}]"][key] = rel

        for i, (key, sid, digest) in enumerate(zip(data.ids, data.submission_ids,
                                                   data.content_hashes, strict=True)):
            ws.write(lambda conn, i=i, key=key, sid=sid, digest=digest:
                     write(conn, i, key, sid, digest))
    return planted


def test_stored_metrics_line_up_with_the_calibrated_pairs(tmp_path: Path) -> None:
    planted = _scored_sample(tmp_path / "course.sqlite")
    with open_workspace(tmp_path / "course.sqlite", readonly=True, create=False) as ws:
        data = calibration_data(ws)
        found = stored_metrics(ws, data, exclude=METRIC_NAMES)
    assert set(found) == set(planted)  # no CLUE, no stale bleu
    for name, values in found.items():
        expected = [planted[name].get(key, math.nan) for key in data.ids]
        np.testing.assert_array_equal(values, expected)


def test_report_has_baselines_and_probes_on_the_same_split(tmp_path: Path, capsys,
                                                            monkeypatch) -> None:
    import cluestudio.core.calibrate.plots as plots

    planted = _scored_sample(tmp_path / "course.sqlite")
    drawn: list[list[str]] = []
    original = plots.report_figures

    def spy(metrics, *args, **kwargs):
        drawn.append(list(metrics))
        return original(metrics, *args, **kwargs)

    monkeypatch.setattr(plots, "report_figures", spy)
    report = tmp_path / "report"
    code = main(["calibrate", str(tmp_path / "course.sqlite"), "--embedder", "exact",
                 "--trials", "3", "--report", str(report), "--resamples", "50", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert out["report"]["metrics"] == data["metrics"]

    # Human totals straight from the ratings (the sample course has one grader).
    with open_workspace(tmp_path / "course.sqlite", readonly=True, create=False) as ws:
        keys = {s.id: f"{s.task_id}/{s.source_id}" for s in ws.list_submissions()}
        human = {keys[r.submission_id]: float(r.total) for r in ws.ratings()
                 if r.total is not None}
    split = {"train": data["split"]["train_ids"], "test": data["split"]["test_ids"]}
    assert sorted(split["train"] + split["test"]) == sorted(human)
    rows = {(r["metric"], r["subset"]): r for r in data["correlations"]["rows"]}
    for name, values in planted.items():
        assert data["metrics"][name] == {"n": len(values), "source": "workspace"}
        for subset, ids in split.items():
            have = [i for i in ids if i in values]  # pairs where the metric exists
            row = rows[(name, subset)]
            assert row["n"] == len(have)
            x = [values[i] for i in have]
            y = [human[i] for i in have]
            assert row["pearson"] == pytest.approx(sps.pearsonr(x, y).statistic, abs=1e-12)
            assert row["spearman"] == pytest.approx(sps.spearmanr(x, y).statistic, abs=1e-12)
    assert rows[("rouge-l", "all")]["n"] < rows[("bleu", "all")]["n"]
    # The CLUE suite with fitted and starting weights; the baselines once, no stored CLUE.
    for metric in METRIC_NAMES:
        assert data["metrics"][metric]["source"] == "CLUE, fitted weights"
        assert data["metrics"][f"{metric}@shipped"]["n"] == len(human)
    assert "clue" in (report / "correlations.txt").read_text(encoding="utf-8")
    assert f"probe-rel-acc[{MODEL}]" in (report / "correlations.txt").read_text(
        encoding="utf-8")
    # The figures show the other metrics beside the fitted CLUE suite.
    assert drawn == [[*METRIC_NAMES, *sorted(planted)]]
    assert (report / "scatter.png").exists() and (report / "tasks.svg").exists()


def test_pairs_file_metric_columns_are_reported(tmp_path: Path, capsys) -> None:
    from test_calibrate_report import _study

    pairs, ratings = _study(tmp_path, count=24)
    with pairs.open(encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    rng = np.random.default_rng(1)
    for number, row in enumerate(table):
        row["bleu"] = "" if number % 6 == 0 else f"{rng.random():.4f}"
        row["note"] = "looks fine"  # text: not a metric
        row["clue"] = "0.1"  # recomputed by the fit, not taken from the file
    with pairs.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    report = tmp_path / "report"
    assert main(["calibrate", str(pairs), "--ratings", str(ratings), "--trials", "2",
                 "--embedder", "exact", "--report", str(report), "--resamples", "20",
                 "--no-plots", "--json"]) == 0
    capsys.readouterr()
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert data["metrics"]["bleu"] == {"n": 20, "source": "pairs file"}
    assert "note" not in data["metrics"]
    assert data["metrics"]["clue"]["source"] == "CLUE, fitted weights"
    means: dict[str, list[float]] = {}
    with ratings.open(encoding="utf-8") as handle:
        for rating in csv.DictReader(handle):
            means.setdefault(rating["id"], []).append(float(rating["total"]))
    bleu = {row["id"]: float(row["bleu"]) for row in table if row["bleu"]}
    test_ids = [i for i in data["split"]["test_ids"] if i in bleu]
    row = next(r for r in data["correlations"]["rows"]
               if r["metric"] == "bleu" and r["subset"] == "test")
    expected = sps.pearsonr([bleu[i] for i in test_ids],
                            [float(np.mean(means[i])) for i in test_ids]).statistic
    assert row["n"] == len(test_ids) and row["pearson"] == pytest.approx(expected, abs=1e-12)
