"""A calibration report folder: correlation tables, disagreement queue, figures, provenance.

One call gathers what a study needs to show that a metric tracks the graders: Pearson and
Spearman with p-values and bootstrap CIs on train and test, the submissions a person should
look at first, and the plots (PNG for slides, SVG for papers).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cluestudio.core.calibrate.fit import CalibrationResult
from cluestudio.core.calibrate.queue import metric_disagreements
from cluestudio.core.calibrate.split import Split
from cluestudio.core.calibrate.stats import CorrelationReport, correlation_report
from cluestudio.core.safe_output import write_text


def split_subsets(split: Split | None, n: int) -> dict[str, np.ndarray]:
    if split is None:
        return {"all": np.arange(n)}
    return {"train": split.train, "test": split.test, "all": np.arange(n)}


def write_report(folder: str | Path, metrics: Mapping[str, Sequence[float] | np.ndarray],
                 human: Sequence[float] | np.ndarray, *, ids: Sequence[str],
                 split: Split | None = None, tasks: Sequence[str] | None = None,
                 calibration: CalibrationResult | None = None, resamples: int = 2000,
                 seed: int = 0, top: int = 25, formats: Sequence[str] = ("png", "svg"),
                 plots: bool = True, plotted: Sequence[str] | None = None,
                 sources: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Write the report into ``folder`` and return its summary (also ``report.json``).

    Metrics may have NaN for submissions they were not computed on: each is correlated on
    the submissions that have it (its ``n`` per subset), and ``metrics`` in the summary
    gives its coverage and, from ``sources``, where it came from. ``plotted`` picks the
    metrics drawn in the figures (default: all).
    """
    from cluestudio.core.calibrate.plots import report_figures, save_figures

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    y = np.asarray(human, dtype=float)
    table: CorrelationReport = correlation_report(
        metrics, y, subsets=split_subsets(split, len(y)), resamples=resamples, seed=seed)
    queue = {name: [e.to_dict() for e in metric_disagreements(ids, values, y, metric=name,
                                                               top=top)]
             for name, values in metrics.items()}
    coverage = {name: {"n": int(np.isfinite(np.asarray(values, dtype=float)).sum()),
                       "source": (sources or {}).get(name, "")}
                for name, values in metrics.items()}
    summary: dict[str, Any] = {"pairs": len(y), "metrics": coverage,
                               "correlations": table.to_dict(), "disagreements": queue}
    if split is not None:
        summary["split"] = {**split.to_dict(),
                            "train_ids": [str(ids[i]) for i in split.train],
                            "test_ids": [str(ids[i]) for i in split.test]}
    if calibration is not None:
        summary["calibration"] = calibration.to_dict()
    write_text(folder / "correlations.txt", table.to_text() + "\n")
    _write_json(folder / "report.json", summary)
    files = ["correlations.txt", "report.json"]
    if plots:
        shown = metrics if plotted is None else {k: metrics[k] for k in plotted}
        figures = report_figures(shown, y, split=split, tasks=tasks)
        files += [p.name for p in save_figures(figures, folder, formats)]
        for fig in figures.values():
            fig.clear()
    summary["files"] = files
    return summary


def _write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, default=_jsonable) + "\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)
