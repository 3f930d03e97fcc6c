"""The search over CLUE's weights: eq. 12's objective and optuna's TPE over the unit cube.

:class:`Objective` is Σ over the five CLUE metrics of Pearson(metric(x), human) on chosen
rows; each trial only re-weights the cached leaves, so a trial costs milliseconds.
:func:`search` is the one search both the fit (:mod:`.fit`) and its bootstrap refits
(:mod:`.intervals`) run, so the two share it here rather than import each other.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

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
from cluestudio.core.clue import ClueWeights
from cluestudio.core.jobs import CancelToken, Job, Progress

# optuna parameter names: unit-cube coordinates, mapped to weights by space.to_free.
_PARAMS: tuple[str, ...] = tuple(f"u_{n}" for n in FREE_NAMES)


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
                               f"{best_value:.4f}", phase="searching weights")
                if patience is not None and number - best_at >= patience:
                    break
    finally:
        optuna.logging.set_verbosity(verbosity)
    best_u = [study.best_trial.params[p] for p in _PARAMS]
    return to_weights(to_free(best_u), name=name), history
