"""Start-up cost: `cluestudio --help`, importing all of core, and the first window's imports.

The CLI and tests must start fast (STYLE practice 14), so heavy libraries are imported lazily.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def _time(code: str, runs: int = 5) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    baseline = _time("pass")
    cli = _time("from cluestudio.cli import build_parser; build_parser()")
    core = _time("import cluestudio.core.model, cluestudio.core.jobs, cluestudio.core.plantuml")
    gui = _time("import cluestudio.gui.app")
    print(f"python -c pass:            {baseline * 1000:7.0f} ms")
    print(f"cluestudio CLI parser:     {cli * 1000:7.0f} ms  (+{(cli - baseline) * 1000:.0f} ms)")
    print(f"import core model+plantuml:{core * 1000:7.0f} ms  (+{(core - baseline) * 1000:.0f} ms)")
    print(f"import GUI (Qt):           {gui * 1000:7.0f} ms  (+{(gui - baseline) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
