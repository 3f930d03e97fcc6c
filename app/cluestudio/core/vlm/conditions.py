"""The seed-003 prior-bias benchmark conditions, generated from a vocabulary of class chains.

Every instance is a diagram plus one question about an ordered class pair, always asked in
the prior's direction ("Does Dog inherit from Animal?"). Pairing is structural (DESIGN §6):
each base item is one chain and one of its two pairs; its prior-conform diagram draws the
pair as the prior says (gold True), and every conflicting item is generated *from* that
twin: 2-reverse keeps names and layout and reverses the arrow, 3-reverse and 3-mixed
augment the 2-reverse diagram with the chain's third class (auxiliary edge reversed, or as
the prior says). So any sample of base items keeps 100% pairing. Prior-free uses the
names' capital letters ("D", "A") in both orientations, so an always-True model scores 50%
there. Generation is seeded; the chains come from the shipped :data:`VOCABULARY` or from a
generated one (:mod:`cluestudio.core.vlm.chains`).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterator, Mapping, Sequence
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

Chain = tuple[str, str, str]
Vocabulary = Mapping[str, Sequence[Chain]]

#: Chains (c0, c1, c2) where the relation holds c0 → c1 → c2 in canonical direction
#: (DESIGN §2: child → parent, whole → part, client → supplier) and the names make that
#: the obvious reading. Capital letters differ within each chain, so prior-free stays valid.
VOCABULARY: dict[str, tuple[Chain, ...]] = {
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
    twin: str = ""  # conflict conditions: the id of the prior-conform diagram it is made from

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


def _chain_of(relation: str, layout: Sequence[str]) -> tuple[str, ...]:
    """The chain (canonical order) a layout was drawn from; inverse of :func:`_layout`."""
    return tuple(reversed(layout)) if _TOP_IS_END[relation] else tuple(layout)


@dataclass(frozen=True)
class BaseItem:
    """A chain and which of its two pairs is queried: one prior-conform diagram and the
    conflicting diagrams made from it."""

    relation: str
    chain: Chain
    target_first: bool  # query (c0, c1) with third class c2, else (c1, c2) with c0

    @property
    def pair(self) -> tuple[str, str]:
        c0, c1, c2 = self.chain
        return (c0, c1) if self.target_first else (c1, c2)

    @property
    def auxiliary(self) -> tuple[str, str]:
        c0, c1, c2 = self.chain
        return (c1, c2) if self.target_first else (c0, c1)

    def conform(self) -> AuditInstance:
        pair = self.pair
        return AuditInstance(PRIOR_CONFORM, self.relation, _layout(self.relation, pair),
                             (pair,), pair)

    def conflict(self, condition: str) -> AuditInstance:
        """A conflicting diagram generated from :meth:`conform`: same names, same layout,
        the queried arrow reversed; 3-class conditions add the chain's third class."""
        twin = self.conform()
        (begin, end), = twin.edges
        reversed_target = (end, begin)
        if condition == REVERSE_2:
            return AuditInstance(condition, self.relation, twin.layout, (reversed_target,),
                                 twin.question, twin=twin.id)
        if condition not in (REVERSE_3, MIXED_3):
            raise ValueError(f"{condition!r} is not a conflict condition")
        a, b = self.auxiliary
        aux_edge = (b, a) if condition == REVERSE_3 else (a, b)
        edges = ((reversed_target, aux_edge) if self.target_first
                 else (aux_edge, reversed_target))
        return AuditInstance(condition, self.relation, _layout(self.relation, self.chain),
                             edges, twin.question, twin=twin.id)

    def prior_free(self, variant: str) -> AuditInstance | None:
        a, b = abbreviate(self.pair[0]), abbreviate(self.pair[1])
        if a == b:  # seed 003 drops abbreviations that collide within a diagram
            return None
        edges = ((a, b),) if variant == "conform" else ((b, a),)
        return AuditInstance(PRIOR_FREE, self.relation, _layout(self.relation, (a, b)), edges,
                             (a, b), variant)

    def instance(self, condition: str, variant: str = "conform") -> AuditInstance | None:
        if condition == PRIOR_CONFORM:
            return self.conform()
        if condition == PRIOR_FREE:
            return self.prior_free(variant)
        return self.conflict(condition)


def base_items(relation: str, seed: int, vocabulary: Vocabulary | None = None
               ) -> list[BaseItem]:
    """Every base item of a relation, once per queried pair, in a seeded order."""
    chains = (vocabulary or VOCABULARY).get(relation)
    if chains is None:
        raise ValueError(f"unknown relation {relation!r}; expected one of {RELATIONS}")
    items: list[BaseItem] = []
    seen: set[tuple[str, str]] = set()
    for chain in chains:
        for target_first in (True, False):
            item = BaseItem(relation, (chain[0], chain[1], chain[2]), target_first)
            if item.pair not in seen:  # a pair shared by two chains is asked once
                seen.add(item.pair)
                items.append(item)
    random.Random(f"{seed}:{relation}").shuffle(items)
    return items


def candidates(condition: str, relation: str, seed: int,
               vocabulary: Vocabulary | None = None) -> Iterator[AuditInstance]:
    """Every instance of a (condition, relation) cell, in the seeded base-item order.

    The same seed gives every condition the same base items in the same order, so the
    first k conflict items of a cell are made from the first k prior-conform items.
    """
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    seen: set[str] = set()
    variants = ("conform", "reverse") if condition == PRIOR_FREE else ("conform",)
    for item in base_items(relation, seed, vocabulary):
        for variant in variants:
            instance = item.instance(condition, variant)
            if instance is not None and instance.id not in seen:
                seen.add(instance.id)
                yield instance


def generate(conditions: Sequence[str] = CONDITIONS, relations: Sequence[str] = RELATIONS,
             per_cell: int | None = None, seed: int = 0,
             vocabulary: Vocabulary | None = None) -> list[AuditInstance]:
    """``per_cell`` instances (all when None) of each (condition, relation); prior-free
    gets ``per_cell`` pairs, each drawn both ways. Conflict cells are made from the same
    base items as the prior-conform cell, so every conflict item's twin is in it."""
    out: list[AuditInstance] = []
    for condition in conditions:
        for relation in relations:
            # Prior-free counts pairs: each comes in both orientations, so the cell stays
            # balanced and an always-True model scores exactly 50%.
            limit = None if per_cell is None else per_cell * (2 if condition == PRIOR_FREE
                                                              else 1)
            for number, instance in enumerate(candidates(condition, relation, seed,
                                                         vocabulary)):
                if limit is not None and number >= limit:
                    break
                out.append(instance)
    return out


def pairing(instances: Sequence[AuditInstance]) -> dict[str, AuditInstance]:
    """For every conflict instance (by id), its prior-conform twin among ``instances``."""
    by_id = {i.id: i for i in instances}
    return {i.id: by_id[i.twin] for i in instances
            if i.condition in CONFLICT_CONDITIONS and i.twin in by_id}


def check_instance(instance: AuditInstance, twin: AuditInstance | None = None) -> list[str]:
    """Seed 003's validation constraints (empty: valid).

    (i) the queried pair exists and the gold label is the condition's; (iii) no other,
    unintended relation appears: exactly the condition's edges, on the chain's pairs, each
    pair drawn once; (iv) with ``twin``, names, layout and edges agree with the matched
    prior-conform counterpart (same question, the queried arrow reversed). Constraint (ii),
    names from a controlled vocabulary, holds by construction (and is checked on generated
    chains by :func:`cluestudio.core.vlm.chains.check_chain`).
    """
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
    problems += _unintended_edges(instance)
    if instance.condition in CONFLICT_CONDITIONS:
        if twin is None:
            if not instance.twin:
                problems.append("conflict item without a prior-conform twin")
        else:
            problems += _twin_disagreements(instance, twin)
    return problems


def _unintended_edges(instance: AuditInstance) -> list[str]:
    """Constraint (iii): the depicted edges are exactly the condition's structure."""
    problems = []
    three = instance.condition in (REVERSE_3, MIXED_3)
    size = 3 if three else 2
    if len(instance.layout) != size or len(instance.edges) != size - 1:
        return [f"{instance.condition} needs {size} classes and {size - 1} edge(s), got "
                f"{len(instance.layout)} and {len(instance.edges)}"]
    undirected = [frozenset(e) for e in instance.edges]
    if any(len(e) != 2 for e in undirected):
        problems.append("a self-relation")
    if len(set(undirected)) != len(undirected):
        problems.append("a class pair related twice")
    chain = _chain_of(instance.relation, instance.layout)
    chain_pairs = {frozenset(chain[i:i + 2]) for i in range(len(chain) - 1)}
    if any(e not in chain_pairs for e in undirected):
        problems.append(f"unintended {instance.relation} between classes not adjacent in "
                        "the chain")
    if frozenset(instance.question) not in undirected:
        problems.append("the queried pair is not related in the diagram")
    if three and not problems:
        a, b = instance.question
        queried = (b, a)  # conflict: the queried arrow is drawn reversed
        aux = next(e for e in instance.edges if frozenset(e) != frozenset(instance.question))
        canonical_aux = aux in {(chain[i], chain[i + 1]) for i in range(2)}
        if queried not in instance.edges:
            problems.append("the queried arrow is not reversed")
        if instance.condition == REVERSE_3 and canonical_aux:
            problems.append("3-reverse: the auxiliary edge follows the prior")
        if instance.condition == MIXED_3 and not canonical_aux:
            problems.append("3-mixed: the auxiliary edge does not follow the prior")
    return problems


def _twin_disagreements(instance: AuditInstance, twin: AuditInstance) -> list[str]:
    """Constraint (iv): names, layout and edge structure agree with the matched twin."""
    problems = []
    if twin.condition != PRIOR_CONFORM or twin.id != instance.twin:
        problems.append("twin is not this item's prior-conform counterpart")
    if twin.relation != instance.relation or twin.question != instance.question:
        problems.append("twin asks another question")
    if instance.condition == REVERSE_2 and twin.layout != instance.layout:
        problems.append("2-reverse layout differs from its twin's")
    if [n for n in instance.layout if n in twin.layout] != list(twin.layout):
        problems.append("twin's classes are not kept in their order")
    reversed_twin = {(e, b) for b, e in twin.edges}
    if not reversed_twin <= set(instance.edges):
        problems.append("the twin's arrow is not reversed here")
    return problems
