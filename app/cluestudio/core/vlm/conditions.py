"""The seed-003 prior-bias benchmark conditions, generated from a controlled vocabulary.

Every instance is a diagram plus one question about an ordered class pair, always asked in
the prior's direction ("Does Dog inherit from Animal?"): prior-conform draws it that way
(gold True); 2-reverse, 3-reverse and 3-mixed reverse the queried arrow (gold False) and
keep names and layout; prior-free uses the names' capital letters ("D", "A") and both
orientations, so an always-True model scores 50% there. Generation is seeded.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from cluestudio.core.vlm.prompts import RELATIONS

PRIOR_CONFORM = "prior-conform"
REVERSE_2 = "2-reverse"
REVERSE_3 = "3-reverse"
MIXED_3 = "3-mixed"
PRIOR_FREE = "prior-free"
CONDITIONS = (PRIOR_CONFORM, REVERSE_2, REVERSE_3, MIXED_3, PRIOR_FREE)
CONFLICT_CONDITIONS = (REVERSE_2, REVERSE_3, MIXED_3)
SCALES = (1.0, 1.5, 2.0)

#: Chains (c0, c1, c2) where the relation holds c0 → c1 → c2 in canonical direction
#: (DESIGN §2: child → parent, whole → part, client → supplier) and the names make that
#: the obvious reading. Capital letters differ within each chain, so prior-free stays valid.
VOCABULARY: dict[str, tuple[tuple[str, str, str], ...]] = {
    "inheritance": (
        ("Dog", "Mammal", "Animal"), ("Sparrow", "Bird", "Vertebrate"),
        ("Salmon", "Fish", "Animal"), ("Oak", "Tree", "Plant"),
        ("SportsCar", "Car", "Vehicle"), ("Square", "Rectangle", "Shape"),
        ("Manager", "Employee", "Person"), ("SavingsAccount", "BankAccount", "Account"),
        ("Laptop", "Computer", "Device"), ("Violin", "StringInstrument", "Instrument"),
    ),
    "aggregation": (
        ("League", "Team", "Player"), ("University", "Department", "Professor"),
        ("Library", "Shelf", "Book"), ("Fleet", "Ship", "Sailor"),
        ("Orchestra", "Section", "Musician"), ("Zoo", "Enclosure", "Animal"),
        ("Company", "Department", "Employee"), ("MusicLibrary", "Playlist", "Song"),
    ),
    "composition": (
        ("Building", "Floor", "Room"), ("Book", "Chapter", "Page"),
        ("Car", "Engine", "Piston"), ("Tree", "Branch", "Leaf"),
        ("Body", "Hand", "Finger"), ("Order", "OrderLine", "Price"),
        ("Computer", "Motherboard", "Processor"), ("Invoice", "LineItem", "Amount"),
    ),
    "dependency": (
        ("Controller", "Service", "Repository"), ("Compiler", "Parser", "Lexer"),
        ("Checkout", "PaymentService", "BankGateway"), ("Application", "Logger", "FileWriter"),
        ("ReportGenerator", "DataSource", "Database"), ("Client", "Proxy", "Server"),
        ("WebPage", "Renderer", "FontLoader"), ("Scheduler", "JobQueue", "Timer"),
    ),
}

# Whole and parent on top, as class diagrams are usually drawn; conform and conflict
# variants share this layout, only the arrow end changes.
_TOP_IS_END = {"inheritance": True, "aggregation": False, "composition": False,
               "dependency": False}
# PlantUML arrows written "top ARROW bottom": (arrow when begin is on top, when end is).
_ARROWS = {
    "inheritance": ("--|>", "<|--"),
    "aggregation": ("o--", "--o"),
    "composition": ("*--", "--*"),
    "dependency": ("..>", "<.."),
}


@dataclass(frozen=True)
class AuditInstance:
    """One diagram and its one question (seed 003: x = (I, r, (c_i, c_j), y))."""

    condition: str
    relation: str
    layout: tuple[str, ...]  # class names, top to bottom
    edges: tuple[tuple[str, str], ...]  # depicted relations, canonical (begin, end)
    question: tuple[str, str]  # (c_i, c_j): "does relation hold from c_i to c_j?"
    variant: str = ""  # prior-free: "conform" or "reverse"

    @property
    def gold(self) -> bool:
        return self.question in self.edges

    @property
    def id(self) -> str:
        """Stable content id: the same diagram and question always get the same id."""
        text = repr((self.condition, self.relation, self.layout, self.edges, self.question))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def plantuml(self, scale: float | None = None) -> str:
        """The diagram as PlantUML; ``scale`` adds PlantUML's own ``scale`` directive."""
        lines = ["@startuml"]
        if scale is not None and scale != 1.0:
            lines.append(f"scale {scale:g}")
        lines += [f"class {name}" for name in self.layout]
        position = {name: i for i, name in enumerate(self.layout)}
        begin_on_top, end_on_top = _ARROWS[self.relation]
        for begin, end in self.edges:
            if position[begin] < position[end]:
                lines.append(f"{begin} {begin_on_top} {end}")
            else:
                lines.append(f"{end} {end_on_top} {begin}")
        lines.append("@enduml")
        return "\n".join(lines) + "\n"


def abbreviate(name: str) -> str:
    """Seed 003's prior-free label: the name's capital letters (GoldenRetriever → GR)."""
    capitals = "".join(re.findall(r"[A-Z]", name))
    return capitals or name[:1].upper()


def _layout(relation: str, chain: Sequence[str]) -> tuple[str, ...]:
    return tuple(reversed(chain)) if _TOP_IS_END[relation] else tuple(chain)


def _pairs(relation: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for c0, c1, c2 in VOCABULARY[relation]:
        for pair in ((c0, c1), (c1, c2)):
            if pair not in pairs:
                pairs.append(pair)
    return pairs


def _two_class(condition: str, relation: str, pair: tuple[str, str]) -> AuditInstance:
    begin, end = pair
    edges = (pair,) if condition == PRIOR_CONFORM else ((end, begin),)
    return AuditInstance(condition, relation, _layout(relation, pair), edges, pair)


def _three_class(condition: str, relation: str, chain: tuple[str, str, str],
                 target_first: bool) -> AuditInstance:
    c0, c1, c2 = chain
    target, aux = ((c0, c1), (c1, c2)) if target_first else ((c1, c2), (c0, c1))
    reversed_target = (target[1], target[0])
    aux_edge = (aux[1], aux[0]) if condition == REVERSE_3 else aux
    edges = (reversed_target, aux_edge) if target_first else (aux_edge, reversed_target)
    return AuditInstance(condition, relation, _layout(relation, chain), edges, target)


def _prior_free(relation: str, pair: tuple[str, str], variant: str) -> AuditInstance | None:
    a, b = abbreviate(pair[0]), abbreviate(pair[1])
    if a == b:  # seed 003 drops abbreviations that collide within a diagram
        return None
    edges = ((a, b),) if variant == "conform" else ((b, a),)
    return AuditInstance(PRIOR_FREE, relation, _layout(relation, (a, b)), edges, (a, b),
                         variant)


def candidates(condition: str, relation: str, seed: int) -> Iterator[AuditInstance]:
    """Every instance of a (condition, relation) cell, in a seeded order, without repeats."""
    rng = random.Random(f"{seed}:{condition}:{relation}")
    seen: set[str] = set()
    if condition in (PRIOR_CONFORM, REVERSE_2):
        pairs = _pairs(relation)
        rng.shuffle(pairs)
        items: Iterator[AuditInstance | None] = (_two_class(condition, relation, p)
                                                 for p in pairs)
    elif condition in (REVERSE_3, MIXED_3):
        chains = list(VOCABULARY[relation])
        rng.shuffle(chains)
        items = (_three_class(condition, relation, c, rng.random() < 0.5) for c in chains)
    elif condition == PRIOR_FREE:
        pairs = _pairs(relation)
        rng.shuffle(pairs)
        items = (_prior_free(relation, p, v) for p in pairs for v in ("conform", "reverse"))
    else:
        raise ValueError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    for item in items:
        if item is not None and item.id not in seen:
            seen.add(item.id)
            yield item


def generate(conditions: Sequence[str] = CONDITIONS, relations: Sequence[str] = RELATIONS,
             per_cell: int | None = None, seed: int = 0) -> list[AuditInstance]:
    """``per_cell`` instances (all when None) of each (condition, relation); prior-free
    gets ``per_cell`` pairs, each drawn both ways."""
    out: list[AuditInstance] = []
    for condition in conditions:
        for relation in relations:
            if relation not in VOCABULARY:
                raise ValueError(f"unknown relation {relation!r}; expected one of {RELATIONS}")
            # Prior-free counts pairs: each comes in both orientations, so the cell stays
            # balanced and an always-True model scores exactly 50%.
            limit = None if per_cell is None else per_cell * (2 if condition == PRIOR_FREE
                                                              else 1)
            for number, instance in enumerate(candidates(condition, relation, seed)):
                if limit is not None and number >= limit:
                    break
                out.append(instance)
    return out


def check_instance(instance: AuditInstance) -> list[str]:
    """Seed 003's validation constraints that apply to generated instances (empty: valid)."""
    problems = []
    a, b = instance.question
    names = set(instance.layout)
    if a not in names or b not in names:
        problems.append("queried pair not in the diagram")
    if len(names) != len(instance.layout):
        problems.append("duplicate class names")
    if any(x not in names or y not in names for x, y in instance.edges):
        problems.append("edge to an undeclared class")
    expected_gold = instance.condition == PRIOR_CONFORM or instance.variant == "conform"
    if instance.gold != expected_gold:
        problems.append(f"gold is {instance.gold}, condition needs {expected_gold}")
    if instance.relation == "inheritance" and (b, a) in instance.edges and instance.gold:
        problems.append("inheritance cycle")
    return problems
