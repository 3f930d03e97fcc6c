"""Stratified train/test split by human-score bins (OODEval §4.3: bins [1,10], [11,20], …).

Stratifying keeps both sets' score distributions alike, so a test correlation is not
inflated or deflated by which extremes happened to land in it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Split:
    """Row indices of the training and test sets, and how they were drawn."""

    train: np.ndarray
    test: np.ndarray
    seed: int
    test_fraction: float
    bins: np.ndarray  # the score bin of every row

    def to_dict(self) -> dict[str, object]:
        return {"seed": self.seed, "test_fraction": self.test_fraction,
                "train_size": len(self.train), "test_size": len(self.test),
                "bins": {int(b): int(c) for b, c in zip(*np.unique(self.bins,
                                                                   return_counts=True),
                                                       strict=True)}}


def score_bins(scores: np.ndarray, max_score: float = 100.0, count: int = 10) -> np.ndarray:
    """Bin 1 for (0, 10 %] of ``max_score``, 2 for (10 %, 20 %], …; 0 % joins bin 1.

    With the paper's 0–100 scale these are exactly [1,10], [11,20], …, [91,100] for
    integer scores.
    """
    scaled = np.asarray(scores, dtype=float) / float(max_score) * count
    return np.clip(np.ceil(scaled - 1e-9), 1, count).astype(int)


def stratified_split(scores: np.ndarray, *, test_fraction: float = 0.2, seed: int = 0,
                     max_score: float | None = None, count: int = 10) -> Split:
    """A seeded split with ``test_fraction`` of every score bin in the test set.

    Each bin gives ⌊fraction · size⌋ rows; the rows still owed to reach
    round(fraction · n) overall go to the bins with the largest remainders (ties broken by
    the seeded generator), so tiny bins are not all rounded away.
    """
    y = np.asarray(scores, dtype=float)
    if not 0.0 < test_fraction < 1.0:
        raise ValueError("test_fraction must lie strictly between 0 and 1")
    if max_score is None:
        max_score = 100.0 if y.size == 0 or y.max() <= 100.0 else float(y.max())
    bins = score_bins(y, max_score, count)
    rng = np.random.default_rng(seed)
    labels, sizes = np.unique(bins, return_counts=True)
    want = sizes * test_fraction
    quota = np.floor(want).astype(int)
    owed = round(test_fraction * len(y)) - int(quota.sum())
    if owed > 0:
        # Largest remainder first; a random key breaks ties reproducibly.
        order = np.lexsort((rng.random(len(labels)), -(want - quota)))
        quota[order[:owed]] += 1
    test_parts = []
    for label, take in zip(labels, quota, strict=True):
        rows = np.flatnonzero(bins == label)
        test_parts.append(rng.permutation(rows)[:take])
    test = np.sort(np.concatenate(test_parts)) if test_parts else np.zeros(0, dtype=int)
    train = np.setdiff1d(np.arange(len(y)), test)
    return Split(train=train, test=test, seed=seed, test_fraction=test_fraction, bins=bins)
