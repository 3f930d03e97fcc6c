"""Grade by group: how long grouping a task's submissions takes, and what pruning saves.

A course-like task from the sample's ``library_loans`` reference (9 classes, 9 relations):
a quarter of the submissions are the reference written in another order (the same diagram:
one group), a quarter repeat one of six common one-mistake answers, the rest are unique
answers with 1–4 mistakes (core.synth). Grouping runs with the ``exact`` embedder at the
default threshold for the near suggestions, once with the bound and once without it
(every leader-to-free-diagram pair scored); all n·(n−1)/2 pairs would cost about 1 ms each
(both directions).
Goal: 60 submissions in well under a second, 300 in a few seconds on 2 cores.

    python benchmarks/bench_groups.py [--sizes 60 300]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from cluestudio.core.groups import Grouping, GroupItem, group_items, leaders
from cluestudio.core.jobs import run_job
from cluestudio.core.model import ClassDiagram
from cluestudio.core.plantuml import parse_plantuml, write_plantuml
from cluestudio.core.synth import generate, mutate

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "annotations" / "sample" / "tasks" / "library_loans" / "reference.puml"


def _shuffled(diagram: ClassDiagram, rng: random.Random) -> str:
    classes, relations = list(diagram.classes), list(diagram.relations)
    rng.shuffle(classes)
    rng.shuffle(relations)
    return write_plantuml(ClassDiagram(tuple(classes), tuple(relations)))


def course(n: int, seed: int = 7) -> list[GroupItem]:
    reference = parse_plantuml(REFERENCE.read_text(encoding="utf-8")).diagram
    rng = random.Random(seed)
    common = [write_plantuml(mutate(reference, random.Random(f"common{i}"), 1)[0])
              for i in range(6)]
    unique = [write_plantuml(c.diagram) for c in generate(reference, n, seed=seed)[1:]]
    texts = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.25:
            texts.append(_shuffled(reference, rng))
        elif roll < 0.5:
            texts.append(rng.choice(common))
        else:
            texts.append(unique[i % len(unique)])
    return [GroupItem(i + 1, f"s{i + 1:03d}", t) for i, t in enumerate(texts)]


def _run(items: list[GroupItem]) -> tuple[float, Grouping]:
    start = time.perf_counter()
    result = run_job(group_items(items, "library_loans"))
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[60, 300])
    args = parser.parse_args()
    run_job(group_items(course(8), "warm-up"))  # imports, LUT, weights
    for n in args.sizes:
        items = course(n)
        pruned_s, pruned = _run(items)
        bound = leaders._bound
        leaders._bound = lambda *a: 1.0  # type: ignore[assignment]
        try:
            full_s, full = _run(items)
        finally:
            leaders._bound = bound  # type: ignore[assignment]
        same = [g.to_dict() for g in full.groups] == [g.to_dict() for g in pruned.groups]
        sizes = sorted((g.size for g in pruned.groups), reverse=True)
        print(f"{n:4d} submissions: {pruned.pairs_possible:6,d} pairs, {pruned.distinct:3d} "
              f"distinct diagrams, {len(pruned.groups)} groups {sizes[:6]}, "
              f"{len(pruned.singletons)} alone")
        print(f"      pruned: {pruned.pairs_scored:6,d} diagram pairs scored in "
              f"{pruned_s * 1000:7.0f} ms")
        print(f"   no bound:  {full.pairs_scored:6,d} diagram pairs scored in "
              f"{full_s * 1000:7.0f} ms  (same groups: {same})")


if __name__ == "__main__":
    main()
