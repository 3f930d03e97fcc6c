"""Fitting CLUE's weights to human totals (OODEval §4.3, eq. 11–13) with optuna's TPE.

f(x) = Σ over the five CLUE metrics of Pearson(metric(x), human) on the training set,
maximised over the nine free weights by the search of :mod:`.search`. Each trial only
re-weights the cached leaves (:class:`~cluestudio.core.calibrate.leafcache.LeafCache`), so a
trial costs milliseconds. The fit is a job: it yields progress after each trial and stops
when cancelled. The objective does not identify the weights (docs/adr/0008), so the fit can
also bootstrap an interval for each weight (:mod:`.intervals`) and warn where it is wide.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from cluestudio.core.calibrate.intervals import (
    DEFAULT_WIDTH_THRESHOLD,
    WeightIntervals,
    weight_intervals,
)
from cluestudio.core.calibrate.leafcache import LeafCache
from cluestudio.core.calibrate.search import Objective, search
from cluestudio.core.calibrate.space import FREE_NAMES, from_weights, to_weights, uniform_free
from cluestudio.core.calibrate.split import Split, stratified_split
from cluestudio.core.clue import METRIC_NAMES, ClueWeights
from cluestudio.core.jobs import CancelToken, Job


@dataclass(frozen=True)
class Evaluation:
    """One weight set's figures on the training and test sets."""

    label: str
    weights: ClueWeights
    train: dict[str, float]  # metric → Pearson
    test: dict[str, float]

    @property
    def train_objective(self) -> float:
        return float(np.nansum(list(self.train.values())))

    @property
    def test_objective(self) -> float:
        return float(np.nansum(list(self.test.values())))

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "weights": self.weights.values(),
                "train_objective": self.train_objective,
                "test_objective": self.test_objective,
                "train_pearson": self.train, "test_pearson": self.test}


@dataclass(frozen=True)
class CalibrationResult:
    """Fitted weights with their provenance and the starting points for comparison."""

    best: Evaluation
    baselines: tuple[Evaluation, ...]  # uniform and the previous profile, same split
    split: Split
    trials: int
    seed: int
    sampler: str
    history: tuple[float, ...]  # objective of each trial, in order
    seconds: float
    provenance: dict[str, Any] = field(default_factory=dict)
    intervals: WeightIntervals | None = None  # bootstrap intervals of the fitted weights

    @property
    def weights(self) -> ClueWeights:
        return self.best.weights

    @property
    def warnings(self) -> list[str]:
        """Weights whose bootstrap interval is too wide to mean anything."""
        return self.intervals.warnings() if self.intervals is not None else []

    def to_dict(self) -> dict[str, Any]:
        return {
            "weights": self.best.weights.values(), "free": dict(zip(
                FREE_NAMES, from_weights(self.best.weights).tolist(), strict=True)),
            "best": self.best.to_dict(), "baselines": [b.to_dict() for b in self.baselines],
            "split": self.split.to_dict(), "trials": self.trials, "seed": self.seed,
            "sampler": self.sampler, "seconds": self.seconds, "provenance": self.provenance,
            "weight_intervals": (None if self.intervals is None
                                 else self.intervals.to_dict()),
            "warnings": self.warnings,
        }

    def profile_dict(self, *, name: str = "calibrated", description: str = "") -> dict[str, Any]:
        """The weight-profile TOML layout plus a ``[calibration]`` provenance table.

        The loader (``ClueWeights.load``) reads the group tables and ignores the rest, so the
        file is an ordinary profile that also says where its numbers came from.
        """
        out: dict[str, Any] = {"name": name, "version": self.best.weights.version,
                               "description": description or (
                                   f"Calibrated with optuna TPE, {self.trials} trials, "
                                   f"seed {self.seed}")}
        out.update({k: v for k, v in self.best.weights.to_toml_dict().items()
                    if k not in ("name", "version")})
        calib: dict[str, Any] = {
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "sampler": self.sampler, "trials": self.trials, "seed": self.seed,
            "seconds": round(self.seconds, 3),
            "split": self.split.to_dict(),
            "train_pearson": _finite(self.best.train),
            "test_pearson": _finite(self.best.test),
            "train_objective": _num(self.best.train_objective),
            "test_objective": _num(self.best.test_objective),
            "baselines": {b.label: {"train_objective": _num(b.train_objective),
                                    "test_objective": _num(b.test_objective)}
                          for b in self.baselines},
        }
        if self.intervals is not None:
            # A summary only: the intervals themselves are in the JSON output and the
            # report (the profile keeps one entry per weight, in its group tables).
            calib["bootstrap"] = {
                "resamples": self.intervals.resamples, "trials": self.intervals.trials,
                "level": self.intervals.level, "width_threshold": self.intervals.threshold,
                "wide_intervals": len(self.intervals.wide),
                "note": "weights with wide intervals are not identified by the ratings; "
                        "see docs/adr/0008"}
        calib.update(self.provenance)
        # TOML tables need string keys.
        calib["split"]["bins"] = {str(k): v for k, v in calib["split"]["bins"].items()}
        out["calibration"] = calib
        return out

    def save_profile(self, path: str | Path, *, name: str = "calibrated",
                     description: str = "") -> Path:
        """Write the profile TOML (temp file, then replace: never a half-written profile)."""
        import tomli_w

        path = Path(path)
        text = ("# CLUE weight profile written by `cluestudio calibrate` (ADR 0008).\n"
                + tomli_w.dumps(self.profile_dict(name=name, description=description)))
        from cluestudio.core.safe_output import write_text

        write_text(path, text)
        return path


def _num(value: float) -> float | str:
    return value if math.isfinite(value) else "nan"  # TOML has nan, JSON readers may not


def _finite(values: Mapping[str, float]) -> dict[str, float | str]:
    return {k: _num(v) for k, v in values.items()}


def evaluate(objective: Objective, weights: ClueWeights, split: Split, label: str
             ) -> Evaluation:
    train = objective.pearsons(weights, split.train)
    test = objective.pearsons(weights, split.test)
    return Evaluation(label, weights, dict(zip(METRIC_NAMES, train.tolist(), strict=True)),
                      dict(zip(METRIC_NAMES, test.tolist(), strict=True)))


def calibrate(cache: LeafCache, human: Sequence[float] | np.ndarray, *, trials: int = 200,
              seed: int = 0, test_fraction: float = 0.2, split: Split | None = None,
              start: ClueWeights | None = None, patience: int | None = None,
              name: str = "calibrated", provenance: Mapping[str, Any] | None = None,
              bootstrap: int = 0, bootstrap_trials: int | None = None,
              width_threshold: float = DEFAULT_WIDTH_THRESHOLD,
              cancel: CancelToken | None = None) -> Job[CalibrationResult]:
    """Fit the nine free weights on a stratified training split; report train and test.

    The search starts from uniform weights (as the paper does) and from ``start`` (default:
    the shipped profile), then lets TPE propose. ``patience`` stops after that many trials
    without a new best (the paper's rule is 50); ``None`` runs all ``trials``.

    With ``bootstrap`` > 0 the fit is repeated on that many resamples of the training rows
    (``bootstrap_trials`` trials each, default a quarter of ``trials``, at least 20) and each
    weight gets a 95% percentile interval; an interval wider than ``width_threshold`` is
    reported as a warning. Eq. 12 does not identify the weights (docs/adr/0008): many weight
    sets reach the same objective, so the intervals say which weights mean nothing.
    """
    import optuna

    cancel = cancel or CancelToken()
    y = np.asarray(human, dtype=float)
    if not np.all(np.isfinite(y)):
        raise ValueError("every pair needs a finite human total")
    split = split or stratified_split(y, test_fraction=test_fraction, seed=seed)
    objective = Objective(cache, y)
    start = start or ClueWeights.default()
    began = time.perf_counter()
    fitted, history = yield from search(objective, split.train, trials=trials, seed=seed,
                                        starts=(start,), patience=patience, name=name,
                                        cancel=cancel)
    best = evaluate(objective, fitted, split, "calibrated")
    baselines = (evaluate(objective, to_weights(uniform_free(), name="uniform"), split,
                          "uniform"),
                 evaluate(objective, start, split, start.name or "start"))
    intervals = None
    if bootstrap > 0:
        intervals = yield from weight_intervals(
            objective, split.train, fitted, resamples=bootstrap,
            trials=bootstrap_trials or max(20, trials // 4), seed=seed, starts=(start,),
            width_threshold=width_threshold, cancel=cancel)
    return CalibrationResult(
        best=best, baselines=baselines, split=split, trials=len(history), seed=seed,
        sampler=f"optuna {optuna.__version__} TPESampler(multivariate=True)",
        history=tuple(history), seconds=time.perf_counter() - began,
        provenance=dict(provenance or {}), intervals=intervals)
