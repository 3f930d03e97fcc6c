"""The render JVM with Java's quick compiler only (``-XX:TieredStopAtLevel=1``, what
``runtime.JVM_ARGS`` sets) beside the default tiered compilation, same JRE and jar.

    .venv/bin/python benchmarks/bench_jvm_flags.py [--rounds 2] [--passes 3]

Per round and flag set, interleaved: one JVM starts and gives the syntax check of every
PlantUML file of the sample course (what a scoring run's validity metric asks), then draws
them all as SVG ``--passes`` times (a grading session's previews); a second JVM repeats only
the start and the checks, so the two costs are told apart. Figures are the JVMs' own CPU
seconds (their rusage once reaped), which other work on the machine does not inflate;
the ratios are default over C1-only in the same round. Goal (issue 28): a warm scoring run
≤ 4 s, renders ≥ 20/s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(extra: tuple[str, ...], texts: list[str], passes: int) -> dict[str, float]:
    from cluestudio.core.plantuml import renderer, runtime

    base = tuple(a for a in runtime.JVM_ARGS if a not in runtime.C1_ONLY)
    runtime.JVM_ARGS = base + extra
    try:
        def checks() -> renderer.PlantUMLRenderer:
            jvm = renderer.PlantUMLRenderer()
            for text in texts:
                jvm.check_syntax(text)
            return jvm

        before = _children_cpu()
        jvm = checks()
        started = time.perf_counter()
        for _ in range(passes):
            for text in texts:
                jvm.render(text, "svg")
        seconds = time.perf_counter() - started
        jvm.close()
        both = _children_cpu() - before
        before = _children_cpu()
        checks().close()
        start_and_checks = _children_cpu() - before
    finally:
        runtime.JVM_ARGS = base + runtime.C1_ONLY
    renders = len(texts) * passes
    return {"start_checks_cpu_s": start_and_checks,
            "render_cpu_ms": 1000 * (both - start_and_checks) / renders,
            "render_rate": renders / seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    texts = [p.read_text(encoding="utf-8")
             for p in sorted((ROOT / "annotations" / "sample").rglob("*.puml"))]
    flag_sets = {"C1 only": ("-XX:TieredStopAtLevel=1",), "default": ()}
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in flag_sets}
    print(f"render JVM, C1 only vs default; {len(texts)} sample-course diagrams, "
          f"{args.passes} SVG passes; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs", flush=True)
    for number in range(1, args.rounds + 1):
        for name, extra in flag_sets.items():
            row = measure(extra, texts, args.passes)
            rows[name].append(row)
            print(f"  round {number} {name:<8}: start + {len(texts)} checks "
                  f"{row['start_checks_cpu_s']:.2f} CPU-s; SVG {row['render_cpu_ms']:.0f} ms "
                  f"CPU a render, {row['render_rate']:.1f}/s", flush=True)
    ratios = [(d["start_checks_cpu_s"] / c["start_checks_cpu_s"],
               d["render_cpu_ms"] / c["render_cpu_ms"])
              for c, d in zip(rows["C1 only"], rows["default"], strict=True)]
    print(f"  default / C1-only CPU, median of rounds: start + checks "
          f"{statistics.median(r[0] for r in ratios):.2f}×, renders "
          f"{statistics.median(r[1] for r in ratios):.2f}×; load average "
          f"{os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
