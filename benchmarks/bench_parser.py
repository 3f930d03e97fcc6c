"""Parser and writer speed on the hand-written corpus (tests/corpus/*.puml).

    .venv/bin/python benchmarks/bench_parser.py [--rounds 50] [--json]

Parses every corpus file ``--rounds`` times and reports diagrams/s and the mean time per
diagram; then the round trip parse(write(d)) per diagram. Scoring a study (DESIGN §10) parses
thousands of LLM outputs, so the parser must never be the slow step next to embedding.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cluestudio.core.plantuml import parse_plantuml, write_plantuml

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def _timed_rounds(items: Sequence[Any], rounds: int, work: Callable[[Any], object]) -> list[float]:
    """Seconds per round over all items, one entry per round."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for item in items:
            work(item)
        times.append(time.perf_counter() - started)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="passes over the corpus")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.puml"))]
    if not texts:
        print(f"no corpus files under {CORPUS}", file=sys.stderr)
        return 1
    lines = sum(t.count("\n") + 1 for t in texts)
    diagrams = [parse_plantuml(t).diagram for t in texts]

    parse_times = _timed_rounds(texts, args.rounds, parse_plantuml)
    written = [write_plantuml(d) for d in diagrams]
    write_times = _timed_rounds(diagrams, args.rounds, write_plantuml)
    round_trip_times = _timed_rounds(
        diagrams, args.rounds, lambda d: parse_plantuml(write_plantuml(d)))

    best_parse = min(parse_times)
    figures = {
        "corpus_files": len(texts),
        "corpus_lines": lines,
        "rounds": args.rounds,
        "parse_diagrams_per_s": round(len(texts) / best_parse, 1),
        "parse_lines_per_s": round(lines / best_parse),
        "parse_ms_per_diagram_median": round(
            statistics.median(parse_times) / len(texts) * 1000, 3),
        "write_ms_per_diagram_median": round(
            statistics.median(write_times) / len(texts) * 1000, 3),
        "round_trip_ms_per_diagram_median": round(
            statistics.median(round_trip_times) / len(texts) * 1000, 3),
        "written_lines": sum(w.count("\n") for w in written),
    }
    if args.json:
        json.dump(figures, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"corpus: {len(texts)} diagrams, {lines} lines, {args.rounds} rounds")
        print(f"parse:      {figures['parse_diagrams_per_s']:>10} diagrams/s "
              f"({figures['parse_lines_per_s']} lines/s, best round)")
        print(f"parse:      {figures['parse_ms_per_diagram_median']:>10} ms/diagram (median)")
        print(f"write:      {figures['write_ms_per_diagram_median']:>10} ms/diagram (median)")
        print(f"round trip: {figures['round_trip_ms_per_diagram_median']:>10} ms/diagram "
              "(median, parse(write(d)))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
