"""Fitting CLUE's weights to human totals (OODEval §4.3, eq. 11–13) with optuna's TPE.

f(x) = Σ over the five CLUE metrics of Pearson(metric(x), human) on the training set,
maximised over the nine free weights. Each trial only re-weights the cached leaves
(:class:`~cluestudio.core.calibrate.leafcache.LeafCache`), so a trial costs milliseconds.
The fit is a job: it yields progress after each trial and stops when cancelled. The
objective does not identify the weights (docs/adr/0008), so the fit can also bootstrap an
interval for each weight (:mod:`.intervals`) and warn where it is wide.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from cluestudio.core.calibrate.intervals import DEFAULT_WIDTH_THRESHOLD, WeightIntervals
from cluestudio.core.calibrate.leafcache import LeafCache
from cluestudio.core.calibrate.space import (
    FREE_NAMES,
    from_weights,
    to_free,
    to_unit,
    to_weights,
    uniform_free,
)
from cluestudio.core.calibrate.split import Split, stratified_split
from cluestudio.core.clue import METRIC_NAMES, ClueWeights
from cluestudio.core.jobs import CancelToken, Job, Progress


class Objective:
    """Σ Pearson of the five CLUE metrics with the human totals, on chosen rows.

    A metric that is constant on the rows (Pearson undefined) adds 0, so a degenerate
    weight set cannot win by producing NaN.
    """

    def __init__(self, cache: LeafCache, human: np.ndarray) -> None:
        self.cache = cache
        self.human = np.asarray(human, dtype=float)
        if len(self.human) != len(cache):
            raise ValueError(f"{len(self.human)} human totals for {len(cache)} pairs")

    def pearsons(self, weights: ClueWeights, rows: np.ndarray) -> np.ndarray:
        """Pearson of each metric (METRIC_NAMES order) with the human totals on ``rows``."""
        scores = self.cache.scores(weights)[rows]
        y = self.human[rows]
        dx = scores - scores.mean(axis=0)
        dy = y - y.mean()
        denom = np.sqrt((dx * dx).sum(axis=0) * float(dy @ dy))
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(denom > 0, (dx * dy[:, None]).sum(axis=0) / denom, np.nan)
        return np.asarray(r, dtype=float)

    def __call__(self, weights: ClueWeights, rows: np.ndarray) -> float:
        return float(np.nansum(self.pearsons(weights, rows)))


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


def search(objective: Objective, rows: np.ndarray, *, trials: int, seed: int,
           starts: Sequence[ClueWeights] = (), patience: int | None = None,
           name: str = "calibrated", cancel: CancelToken | None = None, label: str = "trial",
           ) -> Job[tuple[ClueWeights, list[float]]]:
    """TPE over the unit cube: the best weights on ``rows`` and every trial's objective.

    Uniform weights (the paper's start) and ``starts`` are tried first.
    """
    import optuna

    cancel = cancel or CancelToken()
    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True,
                                         n_startup_trials=min(10, max(1, trials // 5)))
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    history: list[float] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            study = optuna.create_study(direction="maximize", sampler=sampler)
            for x0 in (uniform_free(), *(from_weights(w) for w in starts)):
                study.enqueue_trial(dict(zip(_PARAMS, to_unit(x0).tolist(), strict=True)))
            best_value, best_at = -math.inf, 0
            for number in range(trials):
                cancel.raise_if_cancelled()
                trial = study.ask()
                u = [trial.suggest_float(p, 0.0, 1.0) for p in _PARAMS]
                value = objective(to_weights(to_free(u), name=name), rows)
                study.tell(trial, value)
                history.append(value)
                if value > best_value:
                    best_value, best_at = value, number
                yield Progress(number + 1, trials, f"{label} {number + 1}: best Σρ "
                               f"{best_value:.4f}")
                if patience is not None and number - best_at >= patience:
                    break
    finally:
        optuna.logging.set_verbosity(verbosity)
    best_u = [study.best_trial.params[p] for p in _PARAMS]
    return to_weights(to_free(best_u), name=name), history


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
        from cluestudio.core.calibrate.intervals import weight_intervals

        intervals = yield from weight_intervals(
            objective, split.train, fitted, resamples=bootstrap,
            trials=bootstrap_trials or max(20, trials // 4), seed=seed, starts=(start,),
            width_threshold=width_threshold, cancel=cancel)
    return CalibrationResult(
        best=best, baselines=baselines, split=split, trials=len(history), seed=seed,
        sampler=f"optuna {optuna.__version__} TPESampler(multivariate=True)",
        history=tuple(history), seconds=time.perf_counter() - began,
        provenance=dict(provenance or {}), intervals=intervals)


# optuna parameter names: unit-cube coordinates, mapped to weights by space.to_free.
_PARAMS: tuple[str, ...] = tuple(f"u_{n}" for n in FREE_NAMES)
