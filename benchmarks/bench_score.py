"""Scoring a workspace with every default metric: the sample course cold and warm, and peak
memory as the number of pairs grows (issue 21).

Goals on 2 CPU cores: the sample course (66 pairs) with MiniLM and all default metrics
(CLUE, BLEU, ROUGE-L, CodeBERTScore, syntactic validity) cold ≤ 10 s, warm ≤ 4 s, exec to
exit (issue 28); peak memory flat in the number of pairs (≤ 1.2 GB with MiniLM at any size).

    python benchmarks/bench_score.py                      # course, then 1,000 and 10,000 pairs
    python benchmarks/bench_score.py --sizes 1000 10000 100000 --embedders exact minilm
    python benchmarks/bench_score.py course               # the sample course only
    python benchmarks/bench_score.py course --rounds 2 --against main   # beside main's code

The course's CPU seconds are the process's and its JVM's together (the runner's rusage of
its reaped children), and each run counts the JVMs it started (one is the promise).

Each figure comes from a fresh process (``bench_score.py run …``), so "cold" includes
Python's imports, and peak RSS is that process's alone. The render JVM is a child process
with its own cap (``-Xmx``, 1 GB by default); its peak is printed beside.

Generated pairs: 50 reference designs (~10 classes, 4–6 attributes and 3–5 methods each,
~12 relations; benchmarks/bench_clue.py) and 20 student-like variants of each, so 1,000
distinct pairs; pair i is reference i mod 50 with its variant (i div 50) mod 20. Every
pair is a submission of its own and is parsed, matched (CLUE with its explanation),
scored by BLEU, ROUGE-L and CodeBERTScore's similarity matrices and stored; only the
encoder and the JVM see each distinct text once and answer repeats from their caches.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REFERENCES, VARIANTS = 50, 20


def _rss_kb(pid: int | str = "self") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _is_java(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "java"
    except OSError:
        return False


def _children() -> list[int]:
    found = []
    for task in Path("/proc/self/task").iterdir():
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


class PeakSampler:
    """Samples this process's and its children's RSS (the JVM) every 50 ms."""

    def __init__(self) -> None:
        self.child_peak_kb = 0
        self.jvms: set[int] = set()  # child processes that were Java (the render JVM)
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = time.perf_counter()

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.samples.append((time.perf_counter() - self._started, _rss_kb()))
            pids = _children()
            self.jvms.update(pid for pid in pids if _is_java(pid))
            children = sum(_rss_kb(pid) for pid in pids)
            self.child_peak_kb = max(self.child_peak_kb, children)


def generated_texts() -> list[tuple[str, list[str]]]:
    """(reference text, its variants' texts) for each reference design."""
    sys.path.insert(0, str(HERE))
    from bench_clue import candidate, reference

    from cluestudio.core.plantuml import write_plantuml

    rng = random.Random(21)
    out = []
    for _ in range(REFERENCES):
        ref = reference(rng)
        out.append((write_plantuml(ref),
                    [write_plantuml(candidate(rng, ref)) for _ in range(VARIANTS)]))
    return out


def build_workspace(path: Path, n: int) -> None:
    """A workspace of ``n`` submissions over the generated designs (one task per design)."""
    from cluestudio.core.workspace import Task, open_workspace, ops

    designs = generated_texts()

    def fill(conn: Any) -> None:
        for t, (ref, _) in enumerate(designs):
            ops.upsert_task(conn, Task(f"t{t:02d}", f"Design {t}", "", ref))
        for i in range(n):
            t = i % REFERENCES
            sid, _ = ops.ensure_submission(conn, f"t{t:02d}", f"s{i:06d}", "synthetic", None)
            ops.add_revision(conn, sid, designs[t][1][(i // REFERENCES) % VARIANTS], "gen",
                             "import")

    with open_workspace(path) as ws:
        ws.write(fill)


def run_one(workspace: Path, embedder: str, label: str) -> dict[str, Any]:
    """Score ``workspace`` in this process; figures as a dict (printed as one JSON line)."""
    from cluestudio.app.scoring import ScoringOptions, score_workspace
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import open_workspace

    started = time.perf_counter()
    cpu = time.process_time()
    log = os.environ.get("BENCH_PROGRESS")  # a long run's RSS as it goes, in case it is cut
    stored = [0]

    def on_stored(ids: frozenset[int]) -> None:
        stored[0] += len(ids)
        if log and stored[0] % 5000 < len(ids):
            with open(log, "a", encoding="utf-8") as out:
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
                out.write(f"{label} {embedder}: {stored[0]} stored, "
                          f"{time.perf_counter() - started:.0f} s, RSS {_rss_kb() // 1024} MB, "
                          f"peak {peak} MB\n")

    with PeakSampler() as sampler, open_workspace(workspace, create=False) as ws:
        summary = run_job(score_workspace(ws, ScoringOptions(embedder=embedder, device="cpu"),
                                          on_stored=on_stored))
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    quarter = [kb for t, kb in sampler.samples if t >= seconds / 4] or [0]
    return {"label": label, "embedder": embedder, "pairs": len(summary.scored),
            "failed": len(summary.failed), "plugin_errors": summary.plugin_errors,
            "seconds": round(seconds, 2), "cpu_seconds": round(time.process_time() - cpu, 2),
            "peak_rss_mb": round(peak_kb / 1024, 1),
            "rss_after_first_quarter_mb": [round(min(quarter) / 1024, 1),
                                           round(max(quarter) / 1024, 1)],
            "jvm_peak_rss_mb": round(sampler.child_peak_kb / 1024, 1),
            "jvm_starts": len(sampler.jvms),
            "metric_seconds": {k: round(v, 2) for k, v in summary.metric_seconds.items()},
            "stage_seconds": {k: round(v, 2) for k, v in summary.stage_seconds.items()},
            "load_average": round(os.getloadavg()[0], 2)}


def _child(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """One fresh process's figures, with ``tree_cpu_seconds``: its CPU and its children's
    (the render JVM, reaped when the process closes it), from this process's rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "run", *args], capture_output=True,
                         text=True, env=env, check=False)
    whole = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"benchmark run {args} failed:\n{out.stderr[-3000:]}")
    figures = dict(json.loads(out.stdout.strip().splitlines()[-1]))
    figures["tree_cpu_seconds"] = round((after.ru_utime - before.ru_utime)
                                        + (after.ru_stime - before.ru_stime), 2)
    figures["process_seconds"] = round(whole, 2)  # exec to exit, imports included
    return figures


def source_tree(ref: str, tmp: Path) -> dict[str, str]:
    """The environment that runs ``ref``'s code (``git archive`` of its app/, plugins/,
    resources/ and annotations/ into ``tmp``): the peer of a comparison in the same run."""
    folder = tmp / f"code-{ref.replace('/', '_')}"
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "app", "plugins",
                              "resources", "annotations"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return {"PYTHONPATH": os.pathsep.join([str(folder / "app"), str(folder / "plugins")])}


def course(tmp: Path, rounds: int = 1, against: str | None = None) -> None:
    """The sample course cold (empty vector cache) then warm, in fresh processes; with
    ``against``, each round runs that git ref's code too, interleaved, as the peer."""
    from cluestudio.cli import main as cli
    from cluestudio.core.embed.hf import minilm_path
    from cluestudio.core.embed.ort import exported_model

    workspace = tmp / "sample.sqlite"
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            cli(["import", str(workspace), str(ROOT / "annotations" / "sample"), "--json"])
        finally:
            sys.stdout = stdout
    exports = exported_model(minilm_path()).parent  # made once per machine, as at install
    codes = {"this": {"PYTHONPATH": os.pathsep.join([str(ROOT / "app"),
                                                     str(ROOT / "plugins")])}}
    if against:
        codes[against] = source_tree(against, tmp)
    # As installed: our bytecode compiled once (pip does it at install). Without it
    # (PYTHONDONTWRITEBYTECODE on a development machine) every run compiles ~0.5 CPU-s.
    installed = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for paths in codes.values():
        for folder in paths["PYTHONPATH"].split(os.pathsep):
            subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True,
                           env=installed, stdout=subprocess.DEVNULL)
    print("sample course (66 pairs), MiniLM, CLUE + BLEU + ROUGE-L + CodeBERTScore + validity; "
          "cold = empty vector cache (the ONNX export made at install), warm = vectors cached")
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for number in range(1, rounds + 1):
        for code, paths in codes.items():
            run = f"{number}-{list(codes).index(code)}"
            cache = tmp / f"cache-{run}"
            cache.mkdir()
            (cache / "onnx").symlink_to(exports)
            env = {**installed, **paths, "CLUESTUDIO_CACHE_DIR": str(cache)}
            copy = tmp / f"course-{run}.sqlite"
            shutil.copy(workspace, copy)
            for label in ("cold", "warm"):
                figures = _child([str(copy), "minilm", label], env)
                results.setdefault((code, label), []).append(figures)
                _print_run(number, code, label, figures)
    if against:
        for label in ("cold", "warm"):
            ours, theirs = results[("this", label)], results[(against, label)]
            cpu = [t["tree_cpu_seconds"] / o["tree_cpu_seconds"]
                   for o, t in zip(ours, theirs, strict=True)]
            wall = [t["process_seconds"] / o["process_seconds"]
                    for o, t in zip(ours, theirs, strict=True)]
            print(f"  {label}: {against} / this, same round: CPU (process + JVM) "
                  f"{min(cpu):.2f}–{max(cpu):.2f}×, wall {min(wall):.2f}–{max(wall):.2f}×")


def _print_run(number: int, code: str, label: str, figures: dict[str, Any]) -> None:
    goal = 10.0 if label == "cold" else 4.0
    whole = figures["process_seconds"]
    print(f"  round {number} {code:<8} {label}: {whole:6.2f} s exec to exit "
          f"(scoring {figures['seconds']:.2f} s) | goal ≤ {goal:g} s: "
          f"{'ok' if whole <= goal else 'MISSED'} | CPU {figures['tree_cpu_seconds']:.1f} s "
          f"process + JVM ({figures['cpu_seconds']:.1f} s in scoring), "
          f"{figures['jvm_starts']} JVM(s), load average {figures['load_average']}",
          flush=True)
    slowest = sorted(figures["metric_seconds"].items(), key=lambda kv: -kv[1])
    print("        " + ", ".join(f"{k} {v:.2f} s" for k, v in slowest)
          + " | " + ", ".join(f"{k} {v:.2f} s"
                              for k, v in sorted(figures["stage_seconds"].items())))


def memory(tmp: Path, sizes: list[int], embedders: list[str]) -> None:
    print("peak memory, generated pairs, all default metrics (Python process; JVM beside)")
    for n in sizes:
        workspace = tmp / f"generated-{n}.sqlite"
        build_workspace(workspace, n)
        for embedder in embedders:
            env = {**os.environ, "CLUESTUDIO_CACHE_DIR": str(tmp / f"cache-{embedder}-{n}")}
            figures = _child([str(workspace), embedder, f"{n}"], env)
            low, high = figures["rss_after_first_quarter_mb"]
            goal = "" if embedder != "minilm" else (
                f" | goal ≤ 1.2 GB: {'ok' if figures['peak_rss_mb'] <= 1228.8 else 'MISSED'}")
            print(f"  {n:>7,} pairs {embedder:<6}: peak RSS {figures['peak_rss_mb']:7.1f} MB "
                  f"(after the first quarter {low:.0f}–{high:.0f} MB), JVM "
                  f"{figures['jvm_peak_rss_mb']:.0f} MB | {figures['seconds']:7.1f} s, "
                  f"{figures['pairs'] / figures['seconds']:6.1f} pairs/s, load "
                  f"{figures['load_average']}{goal}", flush=True)
        workspace.unlink()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "run":
        try:  # as `cluestudio` and the window's worker process run (--against: older code)
            from cluestudio.core.threads import single_threaded_blas
        except ImportError:
            pass
        else:
            single_threaded_blas()
        print(json.dumps(run_one(Path(argv[1]), argv[2], argv[3])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", choices=("all", "course", "memory"), default="all")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--embedders", nargs="+", default=["exact", "minilm"])
    parser.add_argument("--rounds", type=int, default=1, help="course: rounds")
    parser.add_argument("--against", metavar="GIT_REF",
                        help="course: run this git ref's code too, interleaved, as the peer")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if args.what in ("all", "course"):
            course(tmp, args.rounds, args.against)
        if args.what in ("all", "memory"):
            memory(tmp, args.sizes, args.embedders)
    return 0


if __name__ == "__main__":
    sys.exit(main())
