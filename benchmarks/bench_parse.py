"""Parser cost against input size: time and peak memory for 10 KB, 100 KB and 1 MB inputs.

    .venv/bin/python benchmarks/bench_parse.py [--sizes 10000,100000,1000000] [--json]

Shapes (each generated to the size asked):

* ``deep``      packages nested 40 deep (under the parser's limit of 50), a class with
                members at every level, the nest repeated until the size is reached;
* ``bodies``    one class with a very long body of attributes and methods;
* ``relations`` many classes linked by labelled relations with multiplicities;
* ``classes``   many small classes in packages, with notes and stereotypes.

Time and resident memory come from a first parse; ``py_peak`` from a second one under
tracemalloc.

Every case runs in a fresh Python process, so its peak resident memory (``ru_maxrss``,
the interpreter included) is its own; ``py_peak`` is the peak of Python allocations during
the parse. Linear cost shows as a constant time per KB and memory per KB
across the sizes; ``ratio`` is the 1 MB time over ten times the 100 KB time (≈ 1 when
linear). Two refusals close the table: a 0.9 MB single chain of nested packages (the
issue's case: 6.3 GB and 14 s before) stops at the nesting limit, and a 2.4 MB text is
refused by size before it is read.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Runs in the child: build the text, parse it, print one JSON line.
_CHILD = r"""
import json, resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
from cluestudio.core.plantuml.parser import parse_plantuml
from cluestudio.core.errors import PlantUMLSyntaxError
shape, size = sys.argv[2], int(sys.argv[3])
parts, total, i = ["@startuml"], 0, 0
def add(s):
    global total
    parts.append(s)
    total += len(s) + 1
if shape == "deep":
    while total < size:
        for level in range(40):
            add(f"package p{i}_{level} {{")
            add(f"  class C{i}_{level} {{\n    -value{level} : int\n    +run() : void\n  }}")
        add("\n".join("}" for _ in range(40)))
        i += 1
elif shape == "bodies":
    add("class Big {")
    while total < size:
        add(f"  -field{i} : Map<String, List<Item>>")
        add(f"  +method{i}(a : int, b : String) : boolean")
        i += 1
    add("}")
elif shape == "relations":
    while total < size:
        add(f'Order{i} "1" *-- "0..*" Line{i} : contains >')
        add(f"Line{i} --> Product{i % 500}")
        i += 1
elif shape == "classes":
    while total < size:
        add(f"package pkg{i} {{")
        for k in range(5):
            add(f"  class K{i}_{k} <<entity>> {{\n    +id : long\n  }}")
        add(f"  note right of K{i}_0 : first of {i}")
        add("}")
        i += 1
elif shape == "chain":
    while total < size:
        add(f"package p{i} {{")
        add(f"class C{i}")
        i += 1
    add("\n".join("}" for _ in range(i)))
text = "\n".join(parts) + "\n@enduml\n"
del parts
def parse():
    try:
        return "parsed", len(parse_plantuml(text, preprocessor=None).diagram.classes)
    except PlantUMLSyntaxError as error:
        return f"refused: {error.message[:60]}", 0
started = time.perf_counter()
outcome, classes = parse()
seconds = time.perf_counter() - started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux → MB
# A second pass under tracemalloc (slow) for the peak of Python allocations alone.
tracemalloc.start()
parse()
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps({"shape": shape, "bytes": len(text.encode()), "seconds": seconds,
                  "rss_mb": rss, "py_peak_mb": peak / 2**20, "classes": classes,
                  "outcome": outcome}))
"""


def run_case(shape: str, size: int) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ROOT / "app"), shape, str(size)],
        capture_output=True, text=True, check=True)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def refusal_by_size() -> dict[str, Any]:
    code = (f"import sys, time, resource; sys.path.insert(0, {str(ROOT / 'app')!r})\n"
            "from cluestudio.core.plantuml.parser import parse_plantuml, ParseTooLarge\n"
            "text = 'class A\\n' * 300_000\nstarted = time.perf_counter()\n"
            "try:\n    parse_plantuml(text)\nexcept ParseTooLarge as e:\n    message = str(e)\n"
            "print(time.perf_counter() - started)\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\nprint(message)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return {"shape": "too large", "bytes": 2_400_000, "seconds": float(out[0]),
            "rss_mb": float(out[1]), "py_peak_mb": 0.0, "classes": 0,
            "outcome": "refused: " + out[2].split(": ", 1)[1][:60]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = [run_case(shape, size) for shape in ("deep", "bodies", "relations", "classes")
            for size in sizes]
    rows.append(run_case("chain", 900_000))
    rows.append(refusal_by_size())
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{'shape':10} {'bytes':>10} {'seconds':>8} {'µs/KB':>7} {'RSS MB':>7} "
          f"{'py peak MB':>10} {'classes':>8}  outcome")
    by_shape: dict[str, dict[int, float]] = {}
    for row in rows:
        kb = row["bytes"] / 1024
        by_shape.setdefault(row["shape"], {})[row["bytes"]] = row["seconds"]
        print(f"{row['shape']:10} {row['bytes']:>10} {row['seconds']:>8.3f} "
              f"{row['seconds'] / kb * 1e6:>7.0f} {row['rss_mb']:>7.1f} "
              f"{row['py_peak_mb']:>10.1f} {row['classes']:>8}  {row['outcome']}")
    print()
    for shape, times in by_shape.items():
        if len(times) >= 2:
            (small, t_small), (big, t_big) = sorted(times.items())[-2:]
            ratio = (t_big / big) / (t_small / small)
            print(f"{shape:10} time per byte, largest / second largest: {ratio:.2f} "
                  "(1.0 = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
