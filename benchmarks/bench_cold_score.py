"""A cold `cluestudio score --pairs` of 200 pairs with MiniLM: ONNX Runtime vs torch.

    .venv/bin/python benchmarks/bench_cold_score.py [--pairs 200] [--rounds 3] [--json]

Each run is a fresh process with an empty vector cache (CLUESTUDIO_CACHE_DIR in a new temp
folder) and our modules' bytecode compiled, as installed, so it pays Python's imports, the
encoder's load and every string's encoding, as a first `score --pairs` on a new machine does.
The ONNX export is made once before the rounds (as after install); a run that has to make it
pays ~1 s more. The peer runs the same weights on torch (`--embedder <the MiniLM folder>`,
the ml extra); rounds interleave the two and the ratio is torch's time over ONNX's in the
same round. Wall and CPU seconds (the process and its children).
Goal (issue 28): ≤ 4 s whole process.

Pairs: the generated designs of benchmarks/bench_clue.py (~10 classes each).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write_pairs(folder: Path, n: int) -> Path:
    sys.path.insert(0, str(HERE))
    from bench_clue import candidate, reference

    from cluestudio.core.plantuml import write_plantuml

    rng = random.Random(28)
    rows = []
    for i in range(n):
        ref = reference(rng)
        (folder / f"r{i}.puml").write_text(write_plantuml(ref), encoding="utf-8")
        (folder / f"c{i}.puml").write_text(write_plantuml(candidate(rng, ref)),
                                           encoding="utf-8")
        rows.append({"id": str(i), "reference": f"r{i}.puml", "candidate": f"c{i}.puml"})
    path = folder / "pairs.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, ["id", "reference", "candidate"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def installed_env(**extra: str) -> dict[str, str]:
    """The environment of an installed ClueStudio: Python's bytecode compiled once and
    reused (pip compiles it at install; PYTHONDONTWRITEBYTECODE, set on some development
    machines, would make every run compile our modules again: ~0.5 CPU-s)."""
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}
    if not _COMPILED:
        for folder in ("app", "plugins"):
            subprocess.run([sys.executable, "-m", "compileall", "-q",
                            str(HERE.parent / folder)],
                           check=True, env=env, stdout=subprocess.DEVNULL)
        _COMPILED.append(True)
    return {**env, **extra}


_COMPILED: list[bool] = []


def cold_run(pairs: Path, embedder: str, cache: Path,
             code: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh `score --pairs` process (``code``: the
    PYTHONPATH of another version's code, bytecode compiled)."""
    env = installed_env(CLUESTUDIO_CACHE_DIR=str(cache), **(code or {}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cluestudio", "score", "--pairs", str(pairs),
                    "--embedder", embedder, "--device", "cpu", "--json",
                    "-o", str(cache / "scores.json")],
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--against", metavar="GIT_REF",
                        help="also run this git ref's code (ONNX), interleaved, as a peer")
    args = parser.parse_args()
    from cluestudio.core.embed.hf import minilm_path
    from cluestudio.core.embed.ort import exported_model

    exports = exported_model(minilm_path()).parent  # the one-off export, as after install
    torch_path = str(minilm_path())
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        pairs = write_pairs(Path(tmp), args.pairs)
        runs: list[tuple[str, str, dict[str, str] | None]] = [
            ("onnx", "minilm", None), ("torch", torch_path, None)]
        if args.against:
            from bench_score import source_tree

            peer = source_tree(args.against, Path(tmp))
            for folder in peer["PYTHONPATH"].split(os.pathsep):
                subprocess.run([sys.executable, "-m", "compileall", "-q", folder],
                               check=True, env=installed_env(), stdout=subprocess.DEVNULL)
            runs.append(("against", "minilm", peer))
        for number in range(args.rounds):
            row = {}
            for name, embedder, code in runs:
                cache = Path(tmp) / f"cache-{name}-{number}"
                cache.mkdir()
                if embedder == "minilm":  # the export is made once per machine, not per run
                    (cache / "onnx").symlink_to(exports)
                row[f"{name}_s"], row[f"{name}_cpu_s"] = cold_run(pairs, embedder, cache,
                                                                  code)
            row["ratio"] = row["torch_s"] / row["onnx_s"]
            row["cpu_ratio"] = row["torch_cpu_s"] / row["onnx_cpu_s"]
            if args.against:
                row["against_cpu_ratio"] = row["against_cpu_s"] / row["onnx_cpu_s"]
            rounds.append(row)
    load = os.getloadavg()[0]
    summary = {"pairs": args.pairs, "load_average": load, "rounds": rounds,
               **{key: statistics.median(r[key] for r in rounds) for key in rounds[0]}}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"cold score --pairs, {args.pairs} pairs, MiniLM; load average {load:.1f} on "
          f"{os.cpu_count()} CPUs")
    for number, r in enumerate(rounds, 1):
        print(f"round {number}: ONNX {r['onnx_s']:.2f} s ({r['onnx_cpu_s']:.2f} CPU-s), "
              f"torch {r['torch_s']:.2f} s ({r['torch_cpu_s']:.2f} CPU-s): torch/ONNX "
              f"{r['ratio']:.2f}× wall, {r['cpu_ratio']:.2f}× CPU"
              + (f"; {args.against} {r['against_s']:.2f} s ({r['against_cpu_s']:.2f} CPU-s): "
                 f"{r['against_cpu_ratio']:.2f}× the CPU" if args.against else ""))
    print(f"median: ONNX {summary['onnx_s']:.2f} s, {summary['onnx_cpu_s']:.2f} CPU-s "
          f"(goal ≤ 4 s); torch {summary['torch_s']:.2f} s, {summary['torch_cpu_s']:.2f} "
          f"CPU-s; torch/ONNX {summary['ratio']:.2f}× wall, {summary['cpu_ratio']:.2f}× CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
