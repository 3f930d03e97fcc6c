"""Planted-truth data: random reference diagrams, mutated candidates, known-weight "humans".

Calibration can only be trusted if it finds weights we hid ourselves: scores computed from
known weights plus noise stand in for human ratings, and a fit must reach the planted
weights' held-out correlation. The benchmark and the tests use the same generator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    Method,
    Multiplicity,
    Param,
    Relation,
    RelationType,
)

_NOUNS = ("Member", "Customer", "Item", "Copy", "Loan", "Order", "Product", "Address",
          "Payment", "Patient", "Doctor", "Appointment", "Medication", "Librarian",
          "Category", "Room", "Invoice", "Course", "Student", "Teacher", "Vehicle", "Route")
_ATTRS = (("name", "String"), ("email", "String"), ("date", "Date"), ("status", "Status"),
          ("amount", "double"), ("price", "double"), ("id", "int"), ("count", "int"),
          ("title", "String"), ("active", "boolean"), ("address", "Address"))
_METHODS = ("cancel", "total", "register", "pay", "book", "find", "update", "close",
            "open", "assign", "notify", "print")
_TYPES = ("void", "int", "boolean", "String", "double", "Date")
_MULTS = ("", "1", "0..1", "*", "0..*", "1..*")


def random_diagram(rng: random.Random, classes: tuple[int, int] = (3, 7)) -> ClassDiagram:
    """A random but plausible class diagram (names from a small domain vocabulary)."""
    names = rng.sample(_NOUNS, rng.randint(*classes))
    out = []
    for name in names:
        attrs = tuple(Attribute(a, t) for a, t in rng.sample(_ATTRS, rng.randint(0, 4)))
        methods = tuple(
            Method(m, rng.choice(_TYPES),
                   tuple(Param(p, t) for p, t in rng.sample(_ATTRS, rng.randint(0, 2))))
            for m in rng.sample(_METHODS, rng.randint(0, 3)))
        out.append(Class(name, attrs, methods))
    relations = []
    for _ in range(rng.randint(1, len(names) + 1)):
        begin, end = rng.sample(names, 2)
        relations.append(Relation(rng.choice(list(RelationType)), begin, end,
                                  Multiplicity(rng.choice(_MULTS), rng.choice(_MULTS))))
    return ClassDiagram(tuple(out), tuple(relations))


@dataclass(frozen=True)
class PlantedPair:
    id: str
    task: str
    reference: ClassDiagram
    candidate: ClassDiagram


def planted_pairs(count: int, *, tasks: int = 10, seed: int = 0,
                  max_mutations: int = 6) -> list[PlantedPair]:
    """``count`` (reference, candidate) pairs over ``tasks`` random references.

    Candidates come from the synthetic submission generator (renames, drops, extras, wrong
    relation types, ...), so their quality spreads from perfect to poor.
    """
    from cluestudio.core.synth import generate

    rng = random.Random(seed)
    references = [random_diagram(rng) for _ in range(tasks)]
    per_task = -(-count // tasks)
    out: list[PlantedPair] = []
    for t, reference in enumerate(references):
        for cand in generate(reference, per_task, seed=seed * 1000 + t,
                             prefix=f"t{t:02d}-", max_mutations=max_mutations):
            out.append(PlantedPair(cand.source_id, f"task{t:02d}", reference, cand.diagram))
    return out[:count]


def planted_human(metric_scores: np.ndarray, *, metric: str = "clue", noise: float = 5.0,
                  seed: int = 0) -> np.ndarray:
    """0–100 "human" totals: 100 × one CLUE metric (or ``"mean"`` of all five) + noise.

    ``metric_scores`` is (pairs, 5) in METRIC_NAMES order, e.g. ``LeafCache.scores`` under
    the planted weights.
    """
    from cluestudio.core.clue import METRIC_NAMES

    scores = np.asarray(metric_scores, dtype=float)
    clean = scores.mean(axis=1) if metric == "mean" else scores[:, METRIC_NAMES.index(metric)]
    rng = np.random.default_rng(seed)
    return np.clip(100.0 * clean + rng.normal(0.0, noise, len(clean)), 0.0, 100.0)
