"""Helpers for the CLUE tests: small diagrams, a torch-free embedder, a tiny offline BERT."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

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

AS, AG, CO = RelationType.ASSOCIATION, RelationType.AGGREGATION, RelationType.COMPOSITION
DE, GE, RE = RelationType.DEPENDENCY, RelationType.GENERALIZATION, RelationType.REALIZATION


def cls(name: str, attrs: Sequence[tuple[str, str]] = (),
        methods: Sequence[Method] = ()) -> Class:
    return Class(name, tuple(Attribute(n, t) for n, t in attrs), tuple(methods))


def method(name: str, ret: str = "", params: Sequence[tuple[str, str]] = ()) -> Method:
    return Method(name, ret, tuple(Param(n, t) for n, t in params))


def rel(t: RelationType, begin: str, end: str, frm: str = "", to: str = "") -> Relation:
    return Relation(t, begin, end, Multiplicity(frm, to))


def diagram(classes: Sequence[Class], relations: Sequence[Relation] = ()) -> ClassDiagram:
    return ClassDiagram(tuple(classes), tuple(relations))


class HashEmbedder:
    """Deterministic pseudo-random unit vectors per string: a neural embedder without torch."""

    cacheable = True
    one_hot = False

    def __init__(self, dim: int = 16) -> None:
        self.id = f"test-hash-{dim}"
        self.dim = dim
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim)
            rows.append(v / np.linalg.norm(v))
        return np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)

    @property
    def strings_encoded(self) -> int:
        return sum(len(c) for c in self.calls)


# -- hypothesis strategies -------------------------------------------------------------------
CLASS_NAMES = ["Customer", "Client", "Order", "Invoice", "Product", "Engine", "Account", "Bank"]
MEMBER_NAMES = ["id", "name", "total", "date", "pay", "cancel", "amount", "owner"]
TYPES = ["", "int", "String", "Date", "float"]
LABELS = ["", "1", "*", "0..1", "many"]


def _members(draw: st.DrawFn) -> tuple[tuple[Attribute, ...], tuple[Method, ...]]:
    attrs = draw(st.lists(st.tuples(st.sampled_from(MEMBER_NAMES), st.sampled_from(TYPES)),
                          max_size=3))
    methods = draw(st.lists(st.builds(
        lambda n, r, ps: Method(n, r, tuple(Param(a, b) for a, b in ps)),
        st.sampled_from(MEMBER_NAMES), st.sampled_from(TYPES),
        st.lists(st.tuples(st.sampled_from(MEMBER_NAMES), st.sampled_from(TYPES)),
                 max_size=3)), max_size=3))
    return tuple(Attribute(n, t) for n, t in attrs), tuple(methods)


@st.composite
def diagrams(draw: st.DrawFn, min_classes: int = 0, max_classes: int = 5) -> ClassDiagram:
    names = draw(st.lists(st.sampled_from(CLASS_NAMES), min_size=min_classes,
                          max_size=max_classes, unique=True))
    classes = []
    for name in names:
        attrs, methods = _members(draw)
        classes.append(Class(name, attrs, methods))
    relations = []
    if names:
        relations = draw(st.lists(st.builds(
            rel, st.sampled_from(list(RelationType)), st.sampled_from(names),
            st.sampled_from(names), st.sampled_from(LABELS), st.sampled_from(LABELS)),
            max_size=5))
    return ClassDiagram(tuple(classes), tuple(relations))


# -- a tiny BERT, built locally ----------------------------------------------------------------
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz",
         *[f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz"], "customer", "client", "order",
         "engine", "class", "string", "int", "--", ":", "{", "}", "(", ")"]


def build_tiny_bert(folder: Path) -> Path:
    """A random 2-layer BERT with a WordPiece tokenizer written here: no download."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    # transformers 5 takes the vocab file as ``vocab`` (4.x: ``vocab_file``).
    try:
        tokenizer = BertTokenizerFast(vocab=str(vocab), do_lower_case=True)
    except TypeError:
        tokenizer = BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64,
                        max_position_embeddings=64)
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


# -- the authors' package as an oracle ---------------------------------------------------------
_OODEVAL_TYPES = {AS: "association", AG: "aggregation", CO: "composition", DE: "dependence",
                  GE: "generalization", RE: "implementation"}


def to_oodeval(d: ClassDiagram) -> dict:
    """A diagram in the JSON layout of ``clue-oodeval`` (class names must be unique)."""
    return {
        "classes_info": [c.name for c in d.classes],
        "attributes_info": {c.name: [{"name": a.name, "type": a.type} for a in c.attributes]
                            for c in d.classes},
        "methods_info": {c.name: [{"name": m.name, "returnType": m.return_type,
                                   "parameters": [{"name": p.name, "type": p.type}
                                                  for p in m.params]}
                                  for m in c.methods] for c in d.classes},
        "relationships_info": [{"r_type": _OODEVAL_TYPES[r.type], "from": r.begin,
                                "to": r.end, "label": {"from": r.label.from_, "to": r.label.to}}
                               for r in d.relations],
    }


# -- realistic random pairs (seeded) for the oracle with a real encoder -------------------------
PAIR_CLASSES = ["Customer", "Client", "Order", "PurchaseOrder", "Invoice", "Bill", "Product",
                "Item", "Account", "BankAccount", "Library", "Book", "Member", "Loan",
                "Vehicle", "Car", "Engine", "Shape", "Circle", "Payment"]
PAIR_MEMBERS = ["id", "name", "title", "total", "amount", "date", "createdAt", "price",
                "quantity", "owner", "status", "balance", "address", "email", "count"]
PAIR_METHODS = ["pay", "cancel", "getTotal", "addItem", "removeItem", "borrow", "returnBook",
                "deposit", "withdraw", "area", "start", "toString", "validate"]
PAIR_TYPES = ["", "int", "String", "Date", "float", "double", "boolean", "List<Item>",
              "Money", "void", "string", "Integer"]
# Multiplicity labels on purpose: ranges with "*", words, mixed case, untrimmed.
PAIR_LABELS = ["", "", "1", "0..1", "*", "0..*", "1..*", "many", "Many", "MANY", "much",
               "multiple", "n", " 1", "1 ", "2..4", "0..n"]


def _random_class(rng: random.Random, name: str) -> Class:
    attrs = tuple(Attribute(rng.choice([*PAIR_MEMBERS, ""]), rng.choice(PAIR_TYPES))
                  for _ in range(rng.randint(0, 4)))
    methods = tuple(
        Method(rng.choice([*PAIR_METHODS, ""]), rng.choice(PAIR_TYPES),
               tuple(Param(rng.choice([*PAIR_MEMBERS, ""]), rng.choice(PAIR_TYPES))
                     for _ in range(rng.randint(0, 3))))
        for _ in range(rng.randint(0, 3)))
    return Class(name, attrs, methods)


def _random_relations(rng: random.Random, names: Sequence[str]) -> tuple[Relation, ...]:
    def end() -> str:
        # Now and then an end that names no class of the diagram (or nothing at all).
        roll = rng.random()
        if roll < 0.08:
            return rng.choice(["Ghost", "Unknown", ""])
        return rng.choice(names) if names else "Ghost"

    return tuple(Relation(rng.choice(list(RelationType)), end(), end(),
                          Multiplicity(rng.choice(PAIR_LABELS), rng.choice(PAIR_LABELS)))
                 for _ in range(rng.randint(0, 5)))


def random_diagram(rng: random.Random, min_classes: int = 1, max_classes: int = 5
                   ) -> ClassDiagram:
    names = rng.sample(PAIR_CLASSES, rng.randint(min_classes, max_classes))
    return ClassDiagram(tuple(_random_class(rng, n) for n in names),
                        _random_relations(rng, names))


def mutate(rng: random.Random, d: ClassDiagram) -> ClassDiagram:
    """A candidate near ``d``: renamed, dropped and added members, changed labels."""
    classes = []
    names_used = {c.name for c in d.classes}
    for c in d.classes:
        if rng.random() < 0.15:
            continue  # a missing class
        name = c.name
        if rng.random() < 0.2:
            spare = [n for n in PAIR_CLASSES if n not in names_used]
            if spare:
                name = rng.choice(spare)
                names_used.add(name)
        attrs = [a if rng.random() < 0.7 else Attribute(
            rng.choice([*PAIR_MEMBERS, ""]), rng.choice(PAIR_TYPES)) for a in c.attributes
            if rng.random() < 0.85]
        methods = [m if rng.random() < 0.7 else Method(
            m.name, rng.choice(PAIR_TYPES), m.params[: rng.randint(0, len(m.params))])
            for m in c.methods if rng.random() < 0.85]
        classes.append(Class(name, tuple(attrs), tuple(methods)))
    if rng.random() < 0.3:
        spare = [n for n in PAIR_CLASSES if n not in names_used]
        if spare:
            classes.append(_random_class(rng, rng.choice(spare)))
    names = [c.name for c in classes]
    relations = [r if rng.random() < 0.6 else Relation(
        rng.choice(list(RelationType)), r.begin, r.end,
        Multiplicity(rng.choice(PAIR_LABELS), rng.choice(PAIR_LABELS)))
        for r in d.relations if rng.random() < 0.85]
    relations += _random_relations(rng, names)[: rng.randint(0, 2)]
    return ClassDiagram(tuple(classes), tuple(relations))


def random_pairs(count: int, seed: int = 0) -> list[tuple[ClassDiagram, ClassDiagram]]:
    """Mutated, unrelated and identical (reference, candidate) pairs, seeded."""
    rng = random.Random(seed)
    pairs = []
    for i in range(count):
        ref = random_diagram(rng)
        kind = i % 5
        if kind == 3:
            cand = random_diagram(rng, min_classes=0)  # unrelated, possibly empty
        elif kind == 4:
            cand = ref
        else:
            cand = mutate(rng, ref)
        pairs.append((ref, cand))
    return pairs
