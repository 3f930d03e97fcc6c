"""Platt scaling of the check's triage: the fit behind ``report.TRIAGE_PLATT``.

``benchmarks/fit_triage.py`` collects (weight of the findings, really wrong, weight of the
conversion) on rendered synthetic diagrams and calls :func:`fit_platt`; the check itself
only applies the two fitted numbers (:func:`~cluestudio.core.check.report.calibrated_triage`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

#: The bins a calibration is reported in (the last one closed at 1.0).
TRIAGE_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.01)


def fit_platt(data: Sequence[tuple[float, bool, float]]) -> tuple[float, float]:
    """(a, b) of p = 1 / (1 + exp(-(a·log(1 + w) + b))), by Newton's method on the
    weighted log-loss with Platt's targets (N₊ + 1)/(N₊ + 2) and 1/(N₋ + 2)."""
    positives = sum(w for _x, y, w in data if y)
    negatives = sum(w for _x, y, w in data if not y)
    high, low = (positives + 1) / (positives + 2), 1 / (negatives + 2)
    points = [(math.log1p(x), high if y else low, w) for x, y, w in data]
    a, b = 1.0, math.log((positives + 1) / (negatives + 1))
    for _ in range(100):
        ga = gb = haa = hab = hbb = 0.0
        for x, t, w in points:
            p = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, a * x + b))))
            r = w * (p - t)
            s = w * p * (1 - p) + 1e-12
            ga += r * x
            gb += r
            haa += s * x * x
            hab += s * x
            hbb += s
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-9:
            break
    return a, b


def reliability_table(scored: Sequence[tuple[float, bool, float]]
                      ) -> list[tuple[str, float, float, float]]:
    """Per bin of :data:`TRIAGE_BINS` that holds any weight: (bin, weight, mean triage,
    share really wrong), from (triage, really wrong, weight) triples."""
    rows = []
    for low, high in itertools.pairwise(TRIAGE_BINS):
        inside = [(v, wrong, w) for v, wrong, w in scored if low <= v < high]
        weight = sum(w for _v, _wrong, w in inside)
        if weight:
            rows.append((f"{low:.1f}–{min(high, 1.0):.1f}", weight,
                         sum(v * w for v, _wrong, w in inside) / weight,
                         sum(w for _v, wrong, w in inside if wrong) / weight))
    return rows
