"""Calibration speed: one objective evaluation over 1,000 pairs, and a 200-trial fit.

Pairs are bench_clue's realistic ones (50 references of 8–12 classes, 20 candidates each).
Goals on 2 CPU cores: one evaluation of the five CLUE metrics from cached leaves ≤ 10 ms
(CPU time, median over random weights; ADR 0008), measured beside the evaluation as it was
before issue 28 (``LeafCache.scores_previous``), interleaved on the same weights;
200 optuna trials ≤ 60 s. The default ``hash`` embedder gives every string a pseudo-random
unit vector: σ values as varied as a neural model's (so matchings and envelopes are as
hard), without torch. ``exact`` is the one-hot oracle; ``minilm`` the real model.

    python benchmarks/bench_calibrate.py [--n 1000] [--trials 200] [--embedder hash]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_clue import make_pairs

from cluestudio.core.calibrate import LeafCache, calibrate
from cluestudio.core.calibrate.planted import planted_human, planted_pairs
from cluestudio.core.calibrate.space import to_free, to_weights
from cluestudio.core.clue import ClueScorer, ClueWeights
from cluestudio.core.jobs import run_job


class HashEmbedder:
    """Deterministic pseudo-random unit vectors (generic σ without a model)."""

    id = "hash-bench"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.array([np.random.default_rng(zlib.crc32(t.encode())).normal(size=64)
                        for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _median_ms(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        samples.append(time.process_time() - start)
    return statistics.median(samples) * 1000


def _side_by_side(cache: LeafCache, weights: list[ClueWeights]) -> tuple[float, float]:
    """Median CPU ms of the evaluation and of the previous one, interleaved per weight."""
    cache.scores(weights[0])
    cache.scores_previous(weights[0])  # plans the previous path, warms both
    new, old = [], []
    for w in weights:
        for fn, out in ((cache.scores, new), (cache.scores_previous, old)):
            start = time.process_time()
            fn(w)
            out.append(time.process_time() - start)
    return statistics.median(new) * 1000, statistics.median(old) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--embedder", default="hash", help="hash | exact | minilm")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)

    print(f"load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    pairs = make_pairs(args.n)
    embedder = HashEmbedder() if args.embedder == "hash" else args.embedder
    scorer = ClueScorer(embedder, cache=False)  # type: ignore[arg-type]
    start = time.perf_counter()
    batch = run_job(scorer.build_leaves(pairs))
    leaves_s = time.perf_counter() - start
    start = time.perf_counter()
    cache = LeafCache.from_batch(batch)
    plan_s = time.perf_counter() - start
    print(f"{len(pairs)} pairs, embedder {scorer.embedder.id}: leaves {leaves_s:.2f} s "
          f"(once), plan {plan_s:.2f} s (once); envelope lines ≤ {cache._attrs.width} "
          f"(attributes), ≤ {cache._params.width} (parameters)")

    weights = ClueWeights.default()
    rng = np.random.default_rng(0)
    many = [to_weights(to_free(u)) for u in rng.random((args.repeats, 9))]
    ours, before = _side_by_side(cache, many)
    engine = _median_ms(lambda: batch.score_array(weights), 3)
    worst = max(float(np.abs(cache.scores(w) - batch.score_array(w)).max()) for w in many[:3])
    print(f"one evaluation (5 metrics x {len(pairs)} pairs), CPU: {ours:6.2f} ms median | "
          f"before issue 28 {before:6.1f} ms ({before / ours:.1f}x) | engine "
          f"LeafBatch.score_array {engine:7.1f} ms | max |diff| {worst:.1e} | "
          f"goal <= 10 ms: {'ok' if ours <= 10 else 'MISSED'}")
    print(f"  {cache._methods.distinct} distinct method problems of {cache._methods.count}; "
          f"scipy calls in the last evaluation: {cache._classes.solver_calls} class, "
          f"{cache._relations.solver_calls} relation matrices of {len(pairs)} each")

    # The same on small diagrams (3–7 classes, the planted-truth set).
    small = [(p.reference, p.candidate) for p in planted_pairs(args.n, tasks=20, seed=1)]
    small_cache = LeafCache.from_batch(run_job(scorer.build_leaves(small)))
    small_ms, small_before = _side_by_side(small_cache, many)
    print(f"one evaluation, small diagrams ({len(small)} pairs of 3-7 classes), CPU: "
          f"{small_ms:6.2f} ms median | before issue 28 {small_before:6.2f} ms | "
          f"goal <= 10 ms: {'ok' if small_ms <= 10 else 'MISSED'}")

    hidden = to_weights([0.35, 0.25, 0.55, 0.85, 0.3, 0.2, 0.7, 0.15, 0.6])
    human = planted_human(cache.scores(hidden), noise=4.0, seed=1)
    start = time.perf_counter()
    result = run_job(calibrate(cache, human, trials=args.trials, seed=0))
    fit_s = time.perf_counter() - start
    print(f"{result.trials} trials: {fit_s:6.2f} s ({fit_s / result.trials * 1000:.1f} ms/"
          f"trial incl. TPE) | test Σρ {result.best.test_objective:.3f} "
          f"(clue {result.best.test['clue']:.3f}) | goal <= 60 s: "
          f"{'ok' if fit_s <= 60 else 'MISSED'}")
    print(f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
