"""Run every benchmark script in this folder in turn and print their figures.

Each ``bench_*.py`` is a plain script that prints its own figures (and goal ratios); this
runner only sequences them so ``make bench`` gives one report. Pass names to run a subset:
``python benchmarks/run_all.py render clue``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(selected: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if selected:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in selected]
    failures = 0
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)])
        print(f"--- {script.stem}: exit {code}, {time.perf_counter() - start:.1f} s", flush=True)
        failures += code != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
