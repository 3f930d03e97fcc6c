"""Disagreement queues: the submissions a person should look at first.

Two kinds: where a metric and the human total disagree most (largest standardised residual
of the linear fit human ~ metric), and where the graders disagree most among themselves
(largest SD or range of their ratings). Both return plain lists of dataclasses, most
disagreeing first, that the GUI shows as a table and the CLI prints as JSON.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from cluestudio.core.agreement import Ratings, item_agreement


@dataclass(frozen=True)
class MetricDisagreement:
    """A submission whose metric value predicts its human total badly.

    ``predicted`` is the fitted human total for this metric value; ``residual`` the human
    total minus that; ``standardised`` the internally studentised residual
    e / (s·√(1 − h)), so a far-out metric value (high leverage h) is not under-ranked.
    Positive: the human liked it more than the metric did.
    """

    rank: int
    id: str
    metric: str
    value: float
    human: float
    predicted: float
    residual: float
    standardised: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class GraderDisagreement:
    """A submission the graders rated far apart."""

    rank: int
    id: str
    n: int
    mean: float
    sd: float
    range: float
    ratings: dict[str, float]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def metric_disagreements(ids: Sequence[str], values: Sequence[float] | np.ndarray,
                         human: Sequence[float] | np.ndarray, *, metric: str = "metric",
                         top: int | None = None) -> list[MetricDisagreement]:
    """Submissions by |standardised residual| of the least-squares line human ~ metric.

    Submissions with a NaN on either side are left out; fewer than three usable ones, or
    a constant metric, give an empty list (no line to disagree with).
    """
    x, y = np.asarray(values, dtype=float), np.asarray(human, dtype=float)
    if not len(ids) == len(x) == len(y):
        raise ValueError("ids, values and human totals must have the same length")
    keep = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    n = len(keep)
    if n < 3 or np.ptp(x[keep]) == 0:
        return []
    xs, ys = x[keep], y[keep]
    slope, intercept = np.polyfit(xs, ys, 1)
    predicted = intercept + slope * xs
    residual = ys - predicted
    s = math.sqrt(float(residual @ residual) / (n - 2)) if n > 2 else math.nan
    dx = xs - xs.mean()
    leverage = 1.0 / n + dx * dx / float(dx @ dx)
    with np.errstate(divide="ignore", invalid="ignore"):
        standard = residual / (s * np.sqrt(np.maximum(1.0 - leverage, 0.0)))
    standard = np.where(np.isfinite(standard), standard, 0.0)
    order = np.argsort(-np.abs(standard), kind="stable")[:top]
    return [MetricDisagreement(rank=r + 1, id=str(ids[keep[i]]), metric=metric,
                               value=float(xs[i]), human=float(ys[i]),
                               predicted=float(predicted[i]), residual=float(residual[i]),
                               standardised=float(standard[i]))
            for r, i in enumerate(order)]


def grader_disagreements(ratings: Ratings, *, by: str = "sd", top: int | None = None,
                         min_ratings: int = 2) -> list[GraderDisagreement]:
    """Submissions rated by at least ``min_ratings`` graders, by SD (or ``range``) of ratings."""
    if by not in ("sd", "range"):
        raise ValueError("by must be 'sd' or 'range'")
    items = [a for a in item_agreement(ratings) if a.n >= max(2, min_ratings)]
    items.sort(key=lambda a: (-getattr(a, by), -a.range, a.item))
    return [GraderDisagreement(rank=r + 1, id=a.item, n=a.n, mean=a.mean, sd=a.sd,
                               range=a.range, ratings=a.ratings)
            for r, a in enumerate(items[:top])]
