"""Correlation of any metric with human totals: Pearson and Spearman, p-values, bootstrap CIs.

Works for the CLUE suite, the baselines and the probes alike: give it a mapping of metric
name → values (one per submission, NaN where a metric has no value) and the human totals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats as sps

# Resampled values held at once per bootstrap chunk (x and y, plus their ranks).
_BOOT_CELLS = 1 << 20


@dataclass(frozen=True)
class Correlation:
    """Agreement of one metric with the human totals on one set of submissions."""

    metric: str
    subset: str
    n: int
    pearson: float
    pearson_p: float
    pearson_ci: tuple[float, float]
    spearman: float
    spearman_p: float
    spearman_ci: tuple[float, float]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class CorrelationReport:
    """Correlations of every metric on every subset (e.g. train / test / all)."""

    rows: tuple[Correlation, ...]
    confidence: float
    resamples: int
    seed: int
    extra: dict[str, object] = field(default_factory=dict)

    def get(self, metric: str, subset: str) -> Correlation:
        for row in self.rows:
            if row.metric == metric and row.subset == subset:
                return row
        raise KeyError((metric, subset))

    def to_dict(self) -> dict[str, object]:
        return {"confidence": self.confidence, "resamples": self.resamples, "seed": self.seed,
                "rows": [r.to_dict() for r in self.rows], **self.extra}

    def to_text(self) -> str:
        """A fixed-width table for the terminal and the report folder."""
        pct = round(self.confidence * 100)
        width = max([22, *(len(r.metric) + 2 for r in self.rows)])
        head = (f"{'metric':<{width}}{'set':<7}{'n':>5}  {'Pearson':>8} {'p':>9}  "
                f"{f'{pct}% CI':>15}  {'Spearman':>8} {'p':>9}  {f'{pct}% CI':>15}")
        lines = [head, "-" * len(head)]
        for r in self.rows:
            lines.append(
                f"{r.metric:<{width}}{r.subset:<7}{r.n:>5}  {r.pearson:>8.4f} "
                f"{r.pearson_p:>9.2e}  "
                f"{_ci(r.pearson_ci):>15}  {r.spearman:>8.4f} {r.spearman_p:>9.2e}  "
                f"{_ci(r.spearman_ci):>15}")
        return "\n".join(lines)


def _ci(ci: tuple[float, float]) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r, NaN when either side is constant (no linear association defined)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2:
        return math.nan
    dx, dy = x - x.mean(), y - y.mean()
    denom = math.sqrt(float(dx @ dx) * float(dy @ dy))
    return float(dx @ dy / denom) if denom > 0 else math.nan


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson of each row pair of two (B, n) arrays (NaN for constant rows)."""
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean(axis=1, keepdims=True)
    denom = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, (dx * dy).sum(axis=1) / denom, np.nan)


def correlate(values: Sequence[float] | np.ndarray, human: Sequence[float] | np.ndarray, *,
              metric: str = "", subset: str = "all", resamples: int = 2000,
              confidence: float = 0.95, seed: int = 0) -> Correlation:
    """Pearson and Spearman with p-values (scipy) and percentile bootstrap CIs.

    Pairs with a NaN on either side are left out. Resamples whose correlation is undefined
    (a constant resample) are dropped from the CI rather than counted as zero.
    """
    x, y = np.asarray(values, dtype=float), np.asarray(human, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    n = len(x)
    nan2 = (math.nan, math.nan)
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        r = pearson(x, y)
        return Correlation(metric, subset, n, r, math.nan, nan2, math.nan, math.nan, nan2)
    pr = sps.pearsonr(x, y)
    sr = sps.spearmanr(x, y)
    rng = np.random.default_rng(seed)
    alpha = (1.0 - confidence) / 2.0
    p_ci, s_ci = nan2, nan2
    if resamples > 0:
        p_boot, s_boot = np.empty(resamples), np.empty(resamples)
        step = max(1, _BOOT_CELLS // n)  # bounded memory for large studies
        for start in range(0, resamples, step):
            stop = min(resamples, start + step)
            idx = rng.integers(0, n, size=(stop - start, n))
            xb, yb = x[idx], y[idx]
            p_boot[start:stop] = _rowwise_pearson(xb, yb)
            s_boot[start:stop] = _rowwise_pearson(sps.rankdata(xb, axis=1),
                                                  sps.rankdata(yb, axis=1))
        p_ci = _percentiles(p_boot, alpha)
        s_ci = _percentiles(s_boot, alpha)
    return Correlation(metric, subset, n, float(pr.statistic), float(pr.pvalue), p_ci,
                       float(sr.statistic), float(sr.pvalue), s_ci)


def _percentiles(samples: np.ndarray, alpha: float) -> tuple[float, float]:
    good = samples[np.isfinite(samples)]
    if good.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(good, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def correlation_report(metrics: Mapping[str, Sequence[float] | np.ndarray],
                       human: Sequence[float] | np.ndarray, *,
                       subsets: Mapping[str, np.ndarray] | None = None,
                       resamples: int = 2000, confidence: float = 0.95,
                       seed: int = 0) -> CorrelationReport:
    """Every metric against the human totals on every subset (row indices; default all)."""
    y = np.asarray(human, dtype=float)
    subsets = subsets if subsets is not None else {"all": np.arange(len(y))}
    rows = []
    for name, values in metrics.items():
        x = np.asarray(values, dtype=float)
        if x.shape != y.shape:
            raise ValueError(f"metric {name!r} has {x.shape[0]} values for {y.shape[0]} "
                             "human totals")
        for subset, index in subsets.items():
            rows.append(correlate(x[index], y[index], metric=name, subset=subset,
                                  resamples=resamples, confidence=confidence, seed=seed))
    return CorrelationReport(tuple(rows), confidence, resamples, seed)
