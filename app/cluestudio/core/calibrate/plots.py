"""Figures of metrics against human totals: scatter with fit, residuals, per-task correlation.

Built on ``matplotlib.figure.Figure`` with an Agg canvas, never pyplot: nothing global is
switched, no window opens, and the GUI can put the same Figure on a Qt canvas. matplotlib is
imported on first use only (the core imports fast and without it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cluestudio.core.calibrate.split import Split
from cluestudio.core.calibrate.stats import pearson

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_TRAIN, _TEST, _ALL = "#1f77b4", "#d62728", "#555555"


def _figure(panels: int, *, width: float = 3.6, height: float = 3.2
            ) -> tuple[Figure, list[Any]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cols = min(3, max(1, panels))
    rows = max(1, math.ceil(panels / cols))
    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(rows, cols, i + 1) for i in range(panels)]
    return fig, axes


def _subsets(n: int, split: Split | None) -> list[tuple[str, np.ndarray, str]]:
    if split is None:
        return [("all", np.arange(n), _ALL)]
    return [("train", split.train, _TRAIN), ("test", split.test, _TEST)]


def _r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson on the pairs where both are known (a metric may miss some submissions)."""
    ok = np.isfinite(x) & np.isfinite(y)
    return pearson(x[ok], y[ok])


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2 or np.ptp(x[ok]) == 0:
        return None
    slope, intercept = np.polyfit(x[ok], y[ok], 1)
    return float(slope), float(intercept)


def scatter_figure(metrics: Mapping[str, Sequence[float] | np.ndarray],
                   human: Sequence[float] | np.ndarray, *, split: Split | None = None
                   ) -> Figure:
    """One panel per metric: human total against metric value, least-squares line, r."""
    y = np.asarray(human, dtype=float)
    fig, axes = _figure(len(metrics))
    for ax, (name, values) in zip(axes, metrics.items(), strict=True):
        x = np.asarray(values, dtype=float)
        labels = []
        missing = int((~np.isfinite(x)).sum())
        for subset, rows, colour in _subsets(len(y), split):
            ax.scatter(x[rows], y[rows], s=9, alpha=0.6, color=colour, label=subset)
            count = f" n={int(np.isfinite(x[rows]).sum())}" if missing else ""
            labels.append(f"{subset} r={_r(x[rows], y[rows]):.3f}{count}")
        fit = _line(x, y)
        if fit is not None:
            grid = np.linspace(np.nanmin(x), np.nanmax(x), 50)
            ax.plot(grid, fit[1] + fit[0] * grid, color="black", linewidth=1)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(name)
        ax.set_ylabel("human total")
        ax.text(0.02, 0.98, "\n".join(labels), transform=ax.transAxes, va="top", fontsize=8)
    if split is not None and len(axes):
        axes[0].legend(loc="lower right", fontsize=8, frameon=False)  # which colour is test
    return fig


def residual_figure(metrics: Mapping[str, Sequence[float] | np.ndarray],
                    human: Sequence[float] | np.ndarray, *, split: Split | None = None
                    ) -> Figure:
    """One panel per metric: residual of the linear fit against the fitted human total."""
    y = np.asarray(human, dtype=float)
    fig, axes = _figure(len(metrics))
    for ax, (name, values) in zip(axes, metrics.items(), strict=True):
        x = np.asarray(values, dtype=float)
        fit = _line(x, y)
        ax.set_title(f"{name}: residuals", fontsize=10)
        ax.set_xlabel("fitted human total")
        ax.set_ylabel("human − fitted")
        if fit is None:
            continue
        fitted = fit[1] + fit[0] * x
        for subset, rows, colour in _subsets(len(y), split):
            ax.scatter(fitted[rows], (y - fitted)[rows], s=9, alpha=0.6, color=colour,
                       label=subset)
        ax.axhline(0.0, color="black", linewidth=1)
    return fig


def task_figure(metrics: Mapping[str, Sequence[float] | np.ndarray],
                human: Sequence[float] | np.ndarray, tasks: Sequence[str]) -> Figure:
    """Pearson of each metric with the human totals within each task (grouped bars)."""
    y = np.asarray(human, dtype=float)
    labels = sorted(set(tasks))
    task_arr = np.asarray(tasks)
    fig, axes = _figure(1, width=max(6.0, 0.6 * len(labels) * max(1, len(metrics)) / 2),
                        height=3.6)
    ax = axes[0]
    width = 0.8 / max(1, len(metrics))
    for m, (name, values) in enumerate(metrics.items()):
        x = np.asarray(values, dtype=float)
        r = [_r(x[task_arr == t], y[task_arr == t]) for t in labels]
        ax.bar(np.arange(len(labels)) + m * width, np.nan_to_num(r), width, label=name)
    ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels, rotation=45, ha="right",
                  fontsize=8)
    ax.set_ylabel("Pearson r within task")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.legend(fontsize=7, ncols=min(5, max(1, len(metrics))))
    return fig


def report_figures(metrics: Mapping[str, Sequence[float] | np.ndarray],
                   human: Sequence[float] | np.ndarray, *, split: Split | None = None,
                   tasks: Sequence[str] | None = None) -> dict[str, Figure]:
    """The report's figures by file stem, for saving or for the GUI to show."""
    figs = {"scatter": scatter_figure(metrics, human, split=split),
            "residuals": residual_figure(metrics, human, split=split)}
    if tasks is not None and len(set(tasks)) > 1:
        figs["tasks"] = task_figure(metrics, human, tasks)
    return figs


def save_figures(figures: Mapping[str, Figure], folder: str | Path,
                 formats: Sequence[str] = ("png", "svg"), dpi: int = 120) -> list[Path]:
    """Write each figure as ``<folder>/<name>.<format>``; returns the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures.items():
        for fmt in formats:
            path = folder / f"{name}.{fmt}"
            fig.savefig(path, format=fmt, dpi=dpi)
            paths.append(path)
    return paths
