"""The canonical structural form of a class diagram, and the element differences of two.

Two diagrams *say the same* when their canonical forms are equal: the same classes (package,
name, kind, stereotype), each with the same attributes (name, type, visibility, static) and
operations (name, parameters, return type, visibility, static, abstract), the same relations
(type, the two ends in their canonical direction, an association's navigability as its
arrow heads say, both multiplicities, the name or role on the arrow) and the same notes,
counted as multisets. Left out: layout, arrow lengths and hints, declaration order, styling,
comments, whitespace and letter case. Grade by group
(:mod:`cluestudio.app.groups`) puts a rating on submissions of equal form only: CLUE near 1
forgives exactly what a rubric marks down (a wrong relation type or multiplicity, a renamed
member), so it may only *suggest* near members, each shown with :func:`differences`.

Both functions are pure and cheap (no CLUE, no embedder): a form is a sorted tuple of
element tuples, and :func:`differences` is empty exactly when the forms are equal.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    Method,
    Relation,
    RelationType,
)
from cluestudio.core.plantuml.writer import attribute_text, method_text, relation_text

#: One element of a form: a tag ("class", "attribute", "method", "relation", "note") and
#: the normalised strings that identify it.
Element = tuple[object, ...]
T = TypeVar("T")


def _name(text: str) -> str:
    """Names and free text: inner whitespace runs count as one space; case ignored."""
    return " ".join(text.split()).casefold()


def _token(text: str) -> str:
    """Types and multiplicities: whitespace means nothing (``List< T >`` = ``list<t>``)."""
    return "".join(text.split()).casefold()


def _owner(cls: Class) -> tuple[str, str]:
    return _name(cls.package), _name(cls.name)


def _class_element(cls: Class) -> Element:
    return ("class", *_owner(cls), cls.kind.value, _name(cls.stereotype))


def _attribute_element(owner: tuple[str, str], attribute: Attribute) -> Element:
    return ("attribute", *owner, _name(attribute.name), _token(attribute.type),
            attribute.visibility, attribute.is_static)


def _method_element(owner: tuple[str, str], method: Method) -> Element:
    params = tuple((_name(p.name), _token(p.type)) for p in method.params)
    return ("method", *owner, _name(method.name), params, _token(method.return_type),
            method.visibility, method.is_static, method.is_abstract)


def _relation_element(relation: Relation) -> Element:
    begin, end = _name(relation.begin), _name(relation.end)
    at_begin, at_end = _token(relation.label.from_), _token(relation.label.to)
    navigable = ""
    if relation.type is RelationType.ASSOCIATION:
        # An association is read the way its arrow points (`B <-- A` is `A --> B`). One
        # without a single head keeps its written order: the seeded "reverse_relation"
        # mistake swaps exactly that, so grouping stays on the safe side.
        navigable = relation.navigable
        if navigable == "begin":
            begin, end, at_begin, at_end = end, begin, at_end, at_begin
            navigable = "end"
    return ("relation", relation.type.value, begin, end, at_begin, at_end,
            _name(relation.name), navigable)


def _points_to(relation: Relation) -> frozenset[str]:
    """The classes an association's arrow heads point to."""
    ends = {"end": (relation.end,), "begin": (relation.begin,),
            "both": (relation.begin, relation.end)}.get(relation.navigable, ())
    return frozenset(_name(e) for e in ends)


def _elements(diagram: ClassDiagram) -> Iterator[Element]:
    for cls in diagram.classes:
        owner = _owner(cls)
        yield _class_element(cls)
        yield from (_attribute_element(owner, a) for a in cls.attributes)
        yield from (_method_element(owner, m) for m in cls.methods)
    yield from (_relation_element(r) for r in diagram.relations)
    yield from (("note", _name(n.target), _name(n.text)) for n in diagram.notes)


@dataclass(frozen=True)
class CanonicalForm:
    """A diagram's elements, normalised and sorted (a multiset: duplicates count)."""

    elements: tuple[Element, ...]

    @property
    def digest(self) -> str:
        return hashlib.sha256(repr(self.elements).encode("utf-8")).hexdigest()


def canonical_form(diagram: ClassDiagram) -> CanonicalForm:
    return CanonicalForm(tuple(sorted(_elements(diagram), key=repr)))


def same_diagram(a: ClassDiagram, b: ClassDiagram) -> bool:
    return canonical_form(a) == canonical_form(b)


# --- what differs, in words -----------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """One element that differs between ``a`` (the representative) and ``b``.

    ``change``: "missing" (only in a), "extra" (only in b) or "changed" (the same class,
    member or pair of classes, said differently: ``text`` shows a's version → b's).
    """

    kind: str  # "class" | "attribute" | "method" | "relation" | "note"
    change: str
    text: str

    def __str__(self) -> str:
        # A class's text starts with its kind ("abstract class Person").
        return f"{self.change} {self.text}" if self.kind == "class" else \
            f"{self.change} {self.kind} {self.text}"


def _header(cls: Class) -> str:
    kind = {"abstract": "abstract class"}.get(cls.kind.value, cls.kind.value)
    return f"{kind} {cls.name}" + (f" <<{cls.stereotype}>>" if cls.stereotype else "")


def _paired(kind: str, gone: list[tuple[Element, T]], new: list[tuple[Element, T]],
            pair_key: int | slice, show: Callable[[T], str],
            changed: Callable[[T, T], str]) -> list[Difference]:
    """Missing and extra elements; one of each with the same ``key[pair_key]`` (a member's
    name, a relation's two ends) is one "changed" element, described by ``changed``."""
    out: list[Difference] = []
    unmatched = list(new)
    for key, mine in gone:
        twin = next((i for i, (other, _) in enumerate(unmatched)
                     if _pair(other, pair_key) == _pair(key, pair_key)), None)
        if twin is None:
            out.append(Difference(kind, "missing", show(mine)))
        else:
            out.append(Difference(kind, "changed", changed(mine, unmatched.pop(twin)[1])))
    out += [Difference(kind, "extra", show(theirs)) for _, theirs in unmatched]
    return out


def _pair(key: Element, pair_key: int | slice) -> object:
    # A relation's ends pair in either order: a reversed arrow is the same relation, changed.
    return frozenset(key[pair_key]) if isinstance(pair_key, slice) else key[pair_key]


def _only(first: Iterable[tuple[Element, T]], second: Iterable[tuple[Element, T]]
          ) -> tuple[list[tuple[Element, T]], list[tuple[Element, T]]]:
    """Multiset differences first − second and second − first, in first's order."""
    a, b = list(first), list(second)
    left = Counter(k for k, _ in a) - Counter(k for k, _ in b)
    right = Counter(k for k, _ in b) - Counter(k for k, _ in a)

    def take(items: list[tuple[Element, T]], counts: Counter[Element]
             ) -> list[tuple[Element, T]]:
        out = []
        for key, value in items:
            if counts[key] > 0:
                counts[key] -= 1
                out.append((key, value))
        return out

    return take(a, left), take(b, right)


_KIND_WORDS = {"AS": "association", "AG": "aggregation", "CO": "composition",
               "DE": "dependency", "GE": "generalization", "RE": "realization"}


def _relation_change(a: Relation, b: Relation) -> str:
    """``A --> B : name — what changed`` — type, direction, the multiplicity at each class,
    the name — in words; the relation is shown as ``a`` writes it."""
    parts = []
    if a.type != b.type:
        parts.append(f"{_KIND_WORDS[a.type.value]} → {_KIND_WORDS[b.type.value]}")
    before, after = _points_to(a), _points_to(b)
    if a.type == b.type == RelationType.ASSOCIATION and (before or after):
        if len(before) == len(after) == 1 and before != after:
            parts.append("direction reversed")
        elif before != after:
            def heads(points: frozenset[str]) -> str:
                return "both ways" if len(points) == 2 else \
                    (f"to {next(iter(points))}" if points else "none")
            parts.append(f"navigability {heads(before)} → {heads(after)}")
    elif _name(a.begin) != _name(b.begin):
        parts.append("direction reversed")
    if _name(a.begin) == _name(a.end):  # a self-relation: its ends told apart by position
        ends = [(a.begin, a.label.from_, b.label.from_), (a.end, a.label.to, b.label.to)]
    else:
        at_b = {_name(b.begin): b.label.from_, _name(b.end): b.label.to}
        ends = [(end, mine, at_b.get(_name(end), ""))
                for end, mine in ((a.begin, a.label.from_), (a.end, a.label.to))]
    for end, mine, theirs in ends:
        if _token(mine) != _token(theirs):
            parts.append(f"multiplicity at {end} {mine or 'none'} → {theirs or 'none'}")
    if _name(a.name) != _name(b.name):
        parts.append(f"name {a.name or 'none'!r} → {b.name or 'none'!r}")
    return f"{relation_text(a)} — {', '.join(parts) or relation_text(b)}"


@dataclass(frozen=True)
class _Owned:
    """How a member of class ``owner`` is named in a difference: ``Doctor: -id : int``."""

    owner: str

    def show(self, text: str) -> str:
        return f"{self.owner}: {text}"

    def changed(self, before: str, after: str) -> str:
        return f"{self.owner}: {before} → {after}"


def _members(cls: Class) -> tuple[list[tuple[Element, str]], list[tuple[Element, str]]]:
    owner = _owner(cls)
    return ([(_attribute_element(owner, a), attribute_text(a)) for a in cls.attributes],
            [(_method_element(owner, m), method_text(m)) for m in cls.methods])


def differences(a: ClassDiagram, b: ClassDiagram) -> tuple[Difference, ...]:
    """What ``b`` says differently from ``a``, element by element; () when they say the
    same (:func:`same_diagram`). Members of a class that is missing or extra as a whole are
    not listed: the class says it."""
    out: list[Difference] = []
    classes_b = {_owner(c): c for c in b.classes}
    owners_a = {_owner(c) for c in a.classes}
    for cls in a.classes:
        other = classes_b.get(_owner(cls))
        if other is None:
            out.append(Difference("class", "missing", _header(cls)))
            continue
        if _class_element(cls) != _class_element(other):
            out.append(Difference("class", "changed", f"{_header(cls)} → {_header(other)}"))
        owner = _Owned(cls.name)
        for kind, mine, theirs in zip(("attribute", "method"), _members(cls), _members(other),
                                      strict=True):
            gone, new = _only(mine, theirs)
            out += _paired(kind, gone, new, 3, owner.show, owner.changed)
    out += [Difference("class", "extra", _header(c)) for c in b.classes
            if _owner(c) not in owners_a]
    relations_gone, relations_new = _only(((_relation_element(r), r) for r in a.relations),
                                          ((_relation_element(r), r) for r in b.relations))
    out += _paired("relation", relations_gone, relations_new, slice(2, 4), relation_text,
                   _relation_change)
    gone, new = _only(((("note", _name(n.target), _name(n.text)), n.text) for n in a.notes),
                      ((("note", _name(n.target), _name(n.text)), n.text) for n in b.notes))
    out += [Difference("note", "missing", t) for _, t in gone]
    out += [Difference("note", "extra", t) for _, t in new]
    return tuple(out)
