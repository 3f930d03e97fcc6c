"""Helpers for the CLUE tests: small diagrams, a torch-free embedder, a tiny offline BERT."""

from __future__ import annotations

import hashlib
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
