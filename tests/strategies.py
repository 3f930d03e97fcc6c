"""Hypothesis strategies for valid :class:`ClassDiagram` values (see writer.py for "valid").

``class_diagrams()`` draws diagrams the writer must round-trip: unique class names (some
with spaces, some that collide with PlantUML keywords), every kind, packages, members of all
shapes, relations of every type between existing classes, floating and attached notes.
"""

from __future__ import annotations

from hypothesis import strategies as st

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    ClassKind,
    Method,
    Multiplicity,
    Note,
    Param,
    Relation,
    RelationType,
)

__all__ = ["class_diagrams", "classes", "relations"]

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_WORD = _UPPER + _LOWER + "0123456789_"

class_names = st.one_of(
    st.builds(lambda head, tail: head + tail, st.sampled_from(_UPPER),
              st.text(_WORD, max_size=8)),
    # names that need quotes and an alias, or clash with statements and the writer's aliases
    st.sampled_from(["Long Name", "Order Item", "Bücherei", "Note", "Package", "Title", "Circle",
                     "class", "note", "entity", "C1", "N1", "a.b", "Über Klasse", "Item-2"]),
)
identifiers = st.one_of(
    st.builds(lambda head, tail: head + tail, st.sampled_from(_LOWER),
              st.text(_WORD, max_size=8)),
    st.sampled_from(["id", "static", "final", "default", "Order", "RED", "int"]),
)
# Attribute names may hold spaces (`first name : String`); method and parameter names not.
member_names = st.one_of(identifiers, st.just("first name"))
types = st.sampled_from(["", "int", "String", "boolean", "double[]", "List<String>",
                         "Map<String, Integer>", "Order", "Optional<List<Item>>", "std::string"])
visibilities = st.sampled_from(["", "+", "-", "#", "~"])
stereotypes = st.sampled_from(["", "", "entity", "Service", "DTO", "a, b"])
packages = st.sampled_from(["", "", "", "core", "com.shop", "com.shop.model", "My Package"])
multiplicities = st.sampled_from(["", "", "1", "0..1", "*", "0..*", "1..*", "many", "2"])
relation_names = st.sampled_from(["", "", "owns", "uses", "is part of", "a -> b", "x : y"])
note_texts = st.sampled_from(["a note", "remember: no nulls", "line one\nline two",
                              "it's \"quoted\"", "", "3 lines\nof\ntext"])


@st.composite
def params(draw: st.DrawFn) -> Param:
    name = draw(st.one_of(st.just(""), identifiers))
    type_ = draw(types)
    if not name and not type_:
        type_ = "int"
    return Param(name, type_)


attributes = st.builds(Attribute, member_names, types, visibilities, st.booleans())
methods = st.builds(Method, identifiers, types, st.lists(params(), max_size=3).map(tuple),
                    visibilities, st.booleans(), st.booleans())


@st.composite
def classes(draw: st.DrawFn, name: str) -> Class:
    return Class(
        name=name,
        attributes=tuple(draw(st.lists(attributes, max_size=4))),
        methods=tuple(draw(st.lists(methods, max_size=3))),
        kind=draw(st.sampled_from(list(ClassKind))),
        stereotype=draw(stereotypes),
        package=draw(packages),
    )


@st.composite
def relations(draw: st.DrawFn, names: list[str]) -> Relation:
    return Relation(
        type=draw(st.sampled_from(list(RelationType))),
        begin=draw(st.sampled_from(names)),
        end=draw(st.sampled_from(names)),
        label=Multiplicity(draw(multiplicities), draw(multiplicities)),
        name=draw(relation_names),
    )


@st.composite
def class_diagrams(draw: st.DrawFn, max_classes: int = 6) -> ClassDiagram:
    names = draw(st.lists(class_names, min_size=0, max_size=max_classes, unique=True))
    diagram_classes = tuple(draw(classes(name)) for name in names)
    diagram_relations: tuple[Relation, ...] = ()
    notes: list[Note] = []
    if names:
        diagram_relations = tuple(draw(st.lists(relations(names), max_size=6)))
    for _ in range(draw(st.integers(0, 2))):
        target = draw(st.sampled_from(["", *names]))
        text = draw(note_texts)
        if '"' in text and not target and "\n" not in text:
            text = text.replace('"', "'")  # a floating one-line note is written in quotes
        notes.append(Note(text, target))
    return ClassDiagram(diagram_classes, diagram_relations, tuple(notes))
