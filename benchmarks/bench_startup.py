"""Start-up cost: `cluestudio --version`, `--help`, importing all of core, the first window's
imports, and exec → the main window painted, each beside `python -c pass` in the same run.

The CLI and tests must start fast (STYLE practice 14), so heavy libraries are imported lazily.
Goals (issue 28): `--version` ≤ 100 ms, window painted ≤ 1.5 s after exec.

    .venv/bin/python benchmarks/bench_startup.py [--windows 5]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# As installed: bytecode compiled once and reused (see bench_cold_score.installed_env).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _time(command: list[str], runs: int = 5) -> float:
    samples = []
    subprocess.run(command, check=True, capture_output=True, env=ENV)  # writes the bytecode
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=ENV)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def window_seconds(home: Path) -> float:
    """exec → first paint of `cluestudio gui --sample` (offscreen), from the log line the
    window writes with the epoch time of its first paint."""
    env = {**ENV, "HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}
    for key in [k for k in env if k.startswith(("XDG_", "CLUESTUDIO_"))]:
        del env[key]
    started = time.time()
    subprocess.run([sys.executable, "-m", "cluestudio", "gui", "--sample", "--quit-after", "0"],
                   check=True, capture_output=True, env=env, timeout=120)
    log = next(home.rglob("cluestudio.log")).read_text(encoding="utf-8")
    shown = float(re.findall(r"window shown .* \(at ([0-9.]+)\)", log)[-1])
    return shown - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=5, help="window start-ups to time")
    args = parser.parse_args()
    python = sys.executable
    baseline = _time([python, "-c", "pass"])
    version = _time([python, "-m", "cluestudio", "--version"])
    helps = _time([python, "-m", "cluestudio", "--help"])
    core = _time([python, "-c",
                  "import cluestudio.core.model, cluestudio.core.jobs, cluestudio.core.plantuml"])
    gui = _time([python, "-c", "import cluestudio.gui.app"])
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"python -c pass:            {baseline * 1000:7.0f} ms")
    print(f"cluestudio --version:      {version * 1000:7.0f} ms  "
          f"({version / baseline:.1f}× python -c pass; goal ≤ 100 ms)")
    print(f"cluestudio --help:         {helps * 1000:7.0f} ms  "
          f"(+{(helps - baseline) * 1000:.0f} ms)")
    print(f"import core model+plantuml:{core * 1000:7.0f} ms  (+{(core - baseline) * 1000:.0f} ms)")
    print(f"import GUI (Qt):           {gui * 1000:7.0f} ms  (+{(gui - baseline) * 1000:.0f} ms)")
    if args.windows:
        with tempfile.TemporaryDirectory() as tmp:
            window_seconds(Path(tmp))  # the first run imports the sample course: not timed
            shown = sorted(window_seconds(Path(tmp)) for _ in range(args.windows))
        print(f"exec → window painted:     {statistics.median(shown):7.2f} s median "
              f"({shown[0]:.2f}–{shown[-1]:.2f} s, {len(shown)} runs; goal ≤ 1.5 s)")


if __name__ == "__main__":
    main()
