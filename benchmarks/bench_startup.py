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


def _time(command: list[str], runs: int = 5, env: dict[str, str] | None = None) -> float:
    samples = []
    env = env or ENV
    subprocess.run(command, check=True, capture_output=True, env=env)  # writes the bytecode
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def window_seconds(home: Path, base: dict[str, str] | None = None) -> float:
    """exec → first paint of `cluestudio gui --sample` (offscreen), from the log line the
    window writes with the epoch time of its first paint."""
    env = {**(base or ENV), "HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}
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
    parser.add_argument("--against", metavar="GIT_REF",
                        help="time that ref's code too (--help, --version, the window)")
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
    with tempfile.TemporaryDirectory() as tmp:
        peer = _peer(args.against, Path(tmp)) if args.against else None
        if peer is not None:
            for flag in ("--help", "--version"):
                theirs = _time([python, "-m", "cluestudio", flag], env=peer)
                ours = _time([python, "-m", "cluestudio", flag])
                print(f"cluestudio {flag:<10} {args.against}: {theirs * 1000:.0f} ms, this "
                      f"{ours * 1000:.0f} ms: {theirs / ours:.1f}×")
        if args.windows:
            codes = {"this": ENV, **({args.against: peer} if peer is not None else {})}
            shown: dict[str, list[float]] = {name: [] for name in codes}
            for name, env in codes.items():  # the first run imports the sample course
                (Path(tmp) / name).mkdir()
                window_seconds(Path(tmp) / name, env)
            for _ in range(args.windows):  # interleaved
                for name, env in codes.items():
                    shown[name].append(window_seconds(Path(tmp) / name, env))
            for name, times in shown.items():
                times.sort()
                print(f"exec → window painted ({name}): {statistics.median(times):5.2f} s "
                      f"median ({times[0]:.2f}–{times[-1]:.2f} s, {len(times)} runs; "
                      f"goal ≤ 1.5 s)")
        print(f"load average {os.getloadavg()[0]:.1f}")


def _peer(ref: str, tmp: Path) -> dict[str, str]:
    """The environment that runs ``ref``'s code, bytecode compiled (bench_score.source_tree)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_score import source_tree

    env = {**ENV, **source_tree(ref, tmp)}
    for folder in env["PYTHONPATH"].split(os.pathsep):
        subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True,
                       env=env, stdout=subprocess.DEVNULL)
    return env


if __name__ == "__main__":
    main()
