"""10,000 pairs scored in this process, on this machine's cores and on a Dask LocalCluster:
pairs/s and speed-up (issue 20), and the measured cost per pair the projections in
docs/cluster.md start from.

The pairs are bench_score.py's generated workspace (50 designs × 20 variants, cycled); the
metrics are the defaults with the exact embedder (CLUE, BLEU, ROUGE-L, syntactic validity),
so no model load blurs the comparison. Every executor scores into a fresh copy of the same
workspace and must store exactly the local run's values.

    python benchmarks/bench_executors.py [--pairs 10000] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_score import build_workspace

from cluestudio.app.executors import ExecutorOptions, open_executor
from cluestudio.app.scoring import ScoringOptions, score_workspace
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import open_workspace


def _values(ws: Any) -> list[tuple[Any, ...]]:
    return sorted(ws._reader().execute(
        "SELECT submission_id, metric, value FROM scores").fetchall())


def run(kind: str, workspace: Path, workers: int) -> tuple[float, Any, list[tuple[Any, ...]]]:
    options = ScoringOptions(embedder="exact", device="cpu")
    started = time.perf_counter()
    executor = open_executor(ExecutorOptions(kind, workers=workers))
    try:
        with open_workspace(workspace, create=False) as ws:
            summary = run_job(score_workspace(ws, options, executor=executor,
                                              chunk_size=None if executor else 50))
            values = _values(ws)
    finally:
        if executor is not None:
            executor.close()
    return time.perf_counter() - started, summary, values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kinds", nargs="+", default=["local", "processes", "dask"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["CLUESTUDIO_CACHE_DIR"] = str(Path(folder) / "cache")
        master = Path(folder) / "master.sqlite"
        build_workspace(master, args.pairs)
        print(f"{args.pairs:,} pairs, exact embedder, CLUE + BLEU + ROUGE-L + validity; "
              f"{args.workers} workers; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        base: float | None = None
        reference: list[tuple[Any, ...]] | None = None
        for kind in args.kinds:
            copy = Path(folder) / f"{kind}.sqlite"
            shutil.copy(master, copy)
            seconds, summary, values = run(kind, copy, args.workers)
            reference = reference if reference is not None else values
            same = "same scores" if values == reference else "SCORES DIFFER"
            rate = len(summary.scored) / seconds
            base = base or rate
            busy = sum(summary.metric_seconds.values()) + sum(
                v for k, v in summary.stage_seconds.items() if k != "store")
            print(f"  {kind:<9}: {seconds:7.1f} s, {rate:6.1f} pairs/s, speed-up "
                  f"{rate / base:4.2f}× | worker CPU per pair {1000 * busy / args.pairs:5.1f} ms"
                  f" | {len(summary.workers) or 1} process(es) | {same} | load "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
