"""How well the data pin down each fitted weight: bootstrap intervals and their warnings.

Eq. 12's objective (Σ of five Pearson correlations) is flat along many directions of the
weight space: Pearson ignores scale and shift, four of the five metrics do not depend on
w_e at all, and weights of rarely used leaves (parameters, multiplicities) barely move any
score. So different weight sets reach the same objective, and a fitted weight may be an
accident of the search. Refitting on resamples of the training rows shows how far each
weight moves; where a 95% interval is wider than a threshold the weight is not identified
by the data and should not be read as a finding (docs/adr/0008).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cluestudio.core.calibrate.search import Objective, search
from cluestudio.core.clue import ClueWeights
from cluestudio.core.jobs import CancelToken, Job, Progress

#: An interval wider than this (weights live in [0, 1]) gets a warning.
DEFAULT_WIDTH_THRESHOLD = 0.2
LEVEL = 0.95


@dataclass(frozen=True)
class WeightIntervals:
    """Percentile intervals of the 15 weights over bootstrap refits."""

    fitted: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    resamples: int
    trials: int  # per refit
    level: float
    threshold: float

    def width(self, name: str) -> float:
        return self.high[name] - self.low[name]

    @property
    def wide(self) -> list[str]:
        return [name for name in self.fitted if self.width(name) > self.threshold]

    def warnings(self) -> list[str]:
        if not self.wide:
            return []
        shown = ", ".join(f"{n} {self.fitted[n]:.3f} [{self.low[n]:.3f}, {self.high[n]:.3f}]"
                          for n in self.wide)
        return [f"{len(self.wide)} of {len(self.fitted)} fitted weights have a "
                f"{100 * self.level:.0f}% bootstrap interval wider than {self.threshold:g} "
                f"({shown}): the ratings do not determine them, so do not read them as "
                "findings (eq. 12 cannot identify the weights; docs/adr/0008)"]

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "resamples": self.resamples, "trials": self.trials,
                "threshold": self.threshold, "wide": self.wide,
                "weights": {n: {"fitted": self.fitted[n], "low": self.low[n],
                                "high": self.high[n]} for n in self.fitted}}


def weight_intervals(objective: Objective, rows: np.ndarray, fitted: ClueWeights, *,
                     resamples: int, trials: int, seed: int = 0,
                     starts: Sequence[ClueWeights] = (),
                     width_threshold: float = DEFAULT_WIDTH_THRESHOLD,
                     cancel: CancelToken | None = None) -> Job[WeightIntervals]:
    """Refit on ``resamples`` bootstrap samples of ``rows`` (same search, ``trials`` each).

    Each refit starts as the fit did (uniform weights and ``starts``), not from the fitted
    weights, so the intervals show where the search lands, not how close it stays.
    """
    if resamples < 2:
        raise ValueError("a bootstrap interval needs at least 2 resamples")
    cancel = cancel or CancelToken()
    rng = np.random.default_rng(seed)
    rows = np.asarray(rows)
    samples = []
    for b in range(resamples):
        sample = rng.choice(rows, size=len(rows), replace=True)
        refit, _ = yield from search(objective, sample, trials=trials, seed=seed + 1 + b,
                                     starts=starts, cancel=cancel,
                                     label=f"bootstrap {b + 1}/{resamples}, trial")
        samples.append(list(refit.values().values()))
        yield Progress(b + 1, resamples, f"bootstrap refit {b + 1}/{resamples}",
                       phase="bootstrapping")
    values = np.array(samples)
    tail = 100 * (1 - LEVEL) / 2
    low, high = np.percentile(values, [tail, 100 - tail], axis=0)
    names = list(fitted.values())
    return WeightIntervals(
        fitted=fitted.values(), low=dict(zip(names, low.tolist(), strict=True)),
        high=dict(zip(names, high.tolist(), strict=True)), resamples=resamples,
        trials=trials, level=LEVEL, threshold=width_threshold)
