"""Our render server vs PlantUML's own PicoWeb, same JRE, same jar, same diagrams.

    .venv/bin/python benchmarks/bench_render_picoweb.py [--n 50] [--rounds 3]
        [--format svg|png] [--json]

Both JVMs start with the same options (``runtime.JVM_ARGS``, the renderer's ``-Xmx``) and
render the same generated class diagrams (``bench_render.diagram``) as SVG (or PNG, where our
server adds its own PNG packers and writer, docs/adr/0002, and PicoWeb runs PlantUML's) with
the smetana layout (PicoWeb gets ``!pragma layout smetana``, which our server adds itself).
After one warm-up pass each, the rounds interleave: our pass, then PicoWeb's. A pass is timed
in wall seconds and in the JVM's own CPU seconds (``/proc/<pid>/stat``, Linux); the ratio is
PicoWeb's time over ours from the same round (> 1: ours is faster). Goal (issue 28): ≥ 1.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_render import diagram

from cluestudio.core.plantuml import runtime
from cluestudio.core.plantuml.renderer import (
    DEFAULT_MAX_MEMORY_MB,
    Format,
    PlantUMLRenderer,
    jvm_environment,
)

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def jvm_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PicoWeb:
    def __init__(self, fmt: str = "svg") -> None:
        self.fmt = fmt
        self.port = free_port()
        command = [str(runtime.java_executable()), *runtime.JVM_ARGS,
                   f"-Xmx{DEFAULT_MAX_MEMORY_MB}m", "-jar", str(runtime.plantuml_jar()),
                   f"-picoweb:{self.port}:127.0.0.1"]
        self.process = subprocess.Popen(command, env=jvm_environment(),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while True:  # ready when it answers a render
            try:
                self.render("@startuml\nclass Ready\n@enduml\n")
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("PicoWeb did not start") from None
                time.sleep(0.2)

    def render(self, text: str) -> bytes:
        source = text.replace("@startuml\n", "@startuml\n!pragma layout smetana\n", 1)
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/render", method="POST",
            data=json.dumps({"source": source, "options": [f"-t{self.fmt}"]}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            body: bytes = answer.read()
        if (b"<svg" if self.fmt == "svg" else b"\x89PNG") not in body[:400]:
            raise RuntimeError(f"PicoWeb answered {body[:80]!r}")
        return body

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def timed_pass(render: object, pid: int, diagrams: list[str]) -> tuple[float, float]:
    cpu, wall = jvm_cpu_seconds(pid), time.perf_counter()
    for text in diagrams:
        render(text)  # type: ignore[operator]
    return time.perf_counter() - wall, jvm_cpu_seconds(pid) - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--format", choices=("svg", "png"), default="svg")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    fmt: Format = "png" if args.format == "png" else "svg"
    diagrams = [diagram(seed) for seed in range(args.n)]
    ours = PlantUMLRenderer()
    pico = PicoWeb(fmt)
    try:
        ours_render = lambda text: ours.render(text, fmt)  # noqa: E731
        ours.render(diagrams[0], fmt)
        assert ours.pid is not None
        for render, pid in ((ours_render, ours.pid), (pico.render, pico.process.pid)):
            timed_pass(render, pid, diagrams)  # warm-up: JIT
        rounds = []
        for _ in range(args.rounds):
            mine = timed_pass(ours_render, ours.pid, diagrams)
            theirs = timed_pass(pico.render, pico.process.pid, diagrams)
            rounds.append({"ours_s": mine[0], "ours_cpu_s": mine[1], "picoweb_s": theirs[0],
                           "picoweb_cpu_s": theirs[1], "wall_ratio": theirs[0] / mine[0],
                           "cpu_ratio": theirs[1] / max(mine[1], 1e-9)})
    finally:
        ours.close()
        pico.close()
    load = os.getloadavg()[0]
    summary = {"plantuml": runtime.plantuml_jar().name, "diagrams": args.n, "format": fmt,
               "load_average": load, "rounds": rounds,
               "ours_per_s": args.n / statistics.median(r["ours_s"] for r in rounds),
               "picoweb_per_s": args.n / statistics.median(r["picoweb_s"] for r in rounds),
               "ours_cpu_ms": 1000 * statistics.median(r["ours_cpu_s"] for r in rounds) / args.n,
               "picoweb_cpu_ms": 1000 * statistics.median(r["picoweb_cpu_s"] for r in rounds)
               / args.n,
               "wall_ratio": statistics.median(r["wall_ratio"] for r in rounds),
               "cpu_ratio": statistics.median(r["cpu_ratio"] for r in rounds)}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{args.n} diagrams, {fmt.upper()}, {summary['plantuml']}; load average {load:.1f} on "
          f"{os.cpu_count()} CPUs")
    for number, r in enumerate(rounds, 1):
        print(f"round {number}: ours {r['ours_s']:.2f} s ({r['ours_cpu_s']:.2f} JVM CPU-s), "
              f"PicoWeb {r['picoweb_s']:.2f} s ({r['picoweb_cpu_s']:.2f} JVM CPU-s): "
              f"PicoWeb/ours {r['wall_ratio']:.2f}× wall, {r['cpu_ratio']:.2f}× CPU (goal ≥ 1)")
    print(f"median: ours {summary['ours_per_s']:.1f}/s, {summary['ours_cpu_ms']:.0f} ms CPU "
          f"a diagram; PicoWeb {summary['picoweb_per_s']:.1f}/s, "
          f"{summary['picoweb_cpu_ms']:.0f} ms CPU a diagram; PicoWeb/ours per round "
          f"{summary['wall_ratio']:.2f}× wall, {summary['cpu_ratio']:.2f}× CPU (goal ≥ 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
