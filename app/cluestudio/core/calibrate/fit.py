"""Fitting CLUE's weights to human totals (OODEval §4.3, eq. 11–13) with optuna's TPE.

f(x) = Σ over the five CLUE metrics of Pearson(metric(x), human) on the training set,
maximised over the nine free weights. Each trial only re-weights the cached leaves
(:class:`~cluestudio.core.calibrate.leafcache.LeafCache`), so a trial costs milliseconds.
The fit is a job: it yields progress after each trial and stops when cancelled.
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

    @property
    def weights(self) -> ClueWeights:
        return self.best.weights

    def to_dict(self) -> dict[str, Any]:
        return {
            "weights": self.best.weights.values(), "free": dict(zip(
                FREE_NAMES, from_weights(self.best.weights).tolist(), strict=True)),
            "best": self.best.to_dict(), "baselines": [b.to_dict() for b in self.baselines],
            "split": self.split.to_dict(), "trials": self.trials, "seed": self.seed,
            "sampler": self.sampler, "seconds": self.seconds, "provenance": self.provenance,
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
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
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
              cancel: CancelToken | None = None) -> Job[CalibrationResult]:
    """Fit the nine free weights on a stratified training split; report train and test.

    The search starts from uniform weights (as the paper does) and from ``start`` (default:
    the shipped profile), then lets TPE propose. ``patience`` stops after that many trials
    without a new best (the paper's rule is 50); ``None`` runs all ``trials``.
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

    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True,
                                         n_startup_trials=min(10, max(1, trials // 5)))
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            study = optuna.create_study(direction="maximize", sampler=sampler)
            for x0 in (uniform_free(), from_weights(start)):
                study.enqueue_trial(dict(zip(_PARAMS, to_unit(x0).tolist(), strict=True)))
            history: list[float] = []
            best_value, best_at = -math.inf, 0
            for number in range(trials):
                cancel.raise_if_cancelled()
                trial = study.ask()
                u = [trial.suggest_float(p, 0.0, 1.0) for p in _PARAMS]
                value = objective(to_weights(to_free(u), name=name), split.train)
                study.tell(trial, value)
                history.append(value)
                if value > best_value:
                    best_value, best_at = value, number
                yield Progress(number + 1, trials, f"trial {number + 1}: best Σρ "
                               f"{best_value:.4f}")
                if patience is not None and number - best_at >= patience:
                    break
    finally:
        optuna.logging.set_verbosity(verbosity)

    best_u = [study.best_trial.params[p] for p in _PARAMS]
    best = evaluate(objective, to_weights(to_free(best_u), name=name), split, "calibrated")
    baselines = (evaluate(objective, to_weights(uniform_free(), name="uniform"), split,
                          "uniform"),
                 evaluate(objective, start, split, start.name or "start"))
    return CalibrationResult(
        best=best, baselines=baselines, split=split, trials=len(history), seed=seed,
        sampler=f"optuna {optuna.__version__} TPESampler(multivariate=True)",
        history=tuple(history), seconds=time.perf_counter() - began,
        provenance=dict(provenance or {}))


# optuna parameter names: unit-cube coordinates, mapped to weights by space.to_free.
_PARAMS: tuple[str, ...] = tuple(f"u_{n}" for n in FREE_NAMES)
