"""Findings the check sets aside instead of crying wolf: text the PlantUML does state.

A reviewer shown a correct name as "dropped" learns to ignore the check (issue 24 item 8,
issue 29). What is set aside here is no finding at all, so the report, its flag, its triage
and the window all leave it out alike (the window only says how many were left out):

- a multiplicity ("1", "*", "0..1") as "in the PlantUML, not in image A": one or two glyphs
  beside a line, which OCR misses far more often than a converter invents them;
- only for a report stored by a check before version 3 (``stated_anywhere``): a member
  or type it listed in the box of a class the PlantUML has, that the PlantUML states under
  another class. That check paired names without regard to boxes and so listed names
  read twice; today's pairs each name with the token in its own class's box first, and
  such a word is a real finding (an attribute dropped from one class that another class
  also has: on synthetic renders this rule would lose a third of the dropped attributes);
- a stereotype the PlantUML states, read with its guillemets as letters
  (``simplementeds`` for «implemented»);
- a piece of a relation's label the PlantUML states, read outside any box (``oks`` or
  ``bks`` of ``books``, ``con`` and ``eys`` of ``conveys``): a line crosses the label
  and OCR reads the letters either side of it (:func:`_piece_of`);
- the words of a generic class's type parameter box, drawn over its top-right corner
  (``K, V`` read as a header word ``KV``): the model names the class without them
  (:func:`type_parameter_tokens`);
- the words of a template's box: a box whose header is written in UML's own vocabulary
  (``Class``, ``«abstract» Abstract``, ``Class Diagram``, ``Enumeration``) and names no
  class of the PlantUML is an editor palette's sample shape or a tool's button
  (:func:`template_boxes`);
- a word the PlantUML's text writes outside its model: a legend, a title, a caption, a
  member line the parser could not read (:func:`drawn_outside_model`);
- the word another tool writes for a class's kind (``«abstract»``, ``{abstract}``,
  ``«interface»``, ``«enumeration»``) over a class the PlantUML declares by that keyword
  (``abstract class X``, ``interface X``): PlantUML draws the keyword as a circled letter,
  the check expects no word from it, and the word the other tool draws says the same
  (:func:`kind_words`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from cluestudio.core.check.names import ModelName, identifiers, is_multiplicity, name_key
from cluestudio.core.check.report import InventedName, MissingName
from cluestudio.core.check.tokens import ImageToken
from cluestudio.core.model import ClassDiagram, ClassKind
from cluestudio.core.ocr.result import Layout, Rect
from cluestudio.core.plantuml import diagram_lines

# PlantUML lines that draw no text: directives, layout and style commands.
_SILENT = re.compile(r"^\s*(?:'|@|!|skinparam\b|hide\b|show\b|remove\b|set\b|scale\b|"
                     r"left to right\b|top to bottom\b|allow_?mixing\b)", re.IGNORECASE)


# UML's own words for its elements, as editors' palettes and templates write them in
# place of a name ("Class", "attribute: Type", "method()"); words that are also domain
# names (Type, Entity, Object, Component, Property, Item, Actor) are left out.
UML_VOCABULARY = frozenset((
    "class", "classes", "diagram", "attribute", "attributes", "method", "methods",
    "operation", "operations", "enumeration", "interface", "abstract", "classname",
    "stereotype", "datatype", "literal",
))


# The names of UML's elements an editor's palette lists in one box, its tools' buttons (a
# domain may name one class so, never three in one header): see :func:`template_boxes`.
PALETTE_VOCABULARY = UML_VOCABULARY | frozenset((
    "association", "aggregation", "composition", "generalization", "generalisation",
    "inheritance", "dependency", "realization", "realisation", "note", "package",
    "comment", "link", "constraint",
))
PALETTE_WORDS = 3  # words of PALETTE_VOCABULARY in a header that make it a palette…
PALETTE_SHARE = 2 / 3  # … and this share of its words at least (OCR misreads some)


# The words other tools write above a class's name for the kind a PlantUML keyword declares.
KIND_WORDS: dict[ClassKind, frozenset[str]] = {
    ClassKind.ABSTRACT: frozenset({"abstract"}),
    ClassKind.INTERFACE: frozenset({"interface"}),
    ClassKind.ENUM: frozenset({"enum", "enumeration"}),
}


def kind_words(diagram: ClassDiagram) -> dict[int | None, frozenset[str]]:
    """Per class line, the keys of the words that say the kind its keyword declares;
    under ``None`` those of every class (for a word read outside any class box)."""
    out: dict[int | None, frozenset[str]] = {}
    every: set[str] = set()
    for cls in diagram.classes:
        said = KIND_WORDS.get(cls.kind, frozenset())
        if said and cls.line is not None:
            out[cls.line] = said
        every.update(said)
    out[None] = frozenset(every)
    return out


def template_boxes(tokens: Sequence[ImageToken], class_names: Collection[int]) -> set[int]:
    """Class boxes of image A whose header is UML's vocabulary rather than a name: no
    token of theirs is paired with a class name (``class_names``: indices of those
    tokens) and every word read as their name is :data:`UML_VOCABULARY`, or
    :data:`PALETTE_WORDS` and :data:`PALETTE_SHARE` of them name UML's elements (a
    palette's list, ``Class Interface Association Composition Note``, a word misread). An
    editor's palette (sample "Class" and "Enumeration" shapes) or a tool's button ("Class
    Diagram"); a class the conversion dropped has a name for header."""
    named = {tokens[t].class_box for t in class_names}
    words: dict[int, list[str]] = {}
    for token in tokens:
        if token.kind == "class" and token.class_box is not None \
                and token.class_box not in named:
            words.setdefault(token.class_box, []).append(token.text.casefold())
    def palette(header: list[str]) -> bool:
        listed = sum(w in PALETTE_VOCABULARY for w in header)
        return listed >= PALETTE_WORDS and listed >= PALETTE_SHARE * len(header)

    return {box for box, header in words.items()
            if all(w in UML_VOCABULARY for w in header) or palette(header)}


def _over_corner(small: Rect, box: Rect, height: float) -> bool:
    """Whether ``small`` (text ``height`` high, or a box) sits over the top edge of ``box``
    at its right end, where PlantUML draws a generic class's type parameters: it rises
    over that edge, ends at most a letter short of the right side, and starts right of
    the middle (a centred name that the layout's top edge cuts does not)."""
    x0, y0, x1, y1 = small
    left, top, right, bottom = box
    return (y0 < top - 0.15 * height and y1 > top and x1 >= right - height
            and (left + right) / 2 < x0 < right and y1 - y0 < bottom - top)


def _much_smaller(small: Rect, box: Rect) -> bool:
    """A type parameter box is a line of small text: under half the class box each way (a
    class box whose rules the layout missed is no such box, over a neighbour's corner)."""
    return (small[2] - small[0] < 0.5 * (box[2] - box[0])
            and small[3] - small[1] < 0.5 * (box[3] - box[1]))


def type_parameter_tokens(tokens: Sequence[ImageToken], layout: Layout) -> set[int]:
    """Tokens read in the small box PlantUML draws over a generic class's top-right corner:
    its type parameters (``T``, ``K, V`` read as ``KV``, ``T extends Comparable<T>``). The
    model keeps a class's name without them, so they are no name it states, and a
    conversion that kept the class kept them as well. Read inside the class's header (the
    layout took the small box as part of it) or as a box of their own on its corner."""
    if layout.angle or not layout.boxes:
        return set()
    boxes = [b.rect for b in layout.boxes]
    corner_boxes = {i for i, small in enumerate(layout.boxes) if len(small.compartments) == 1
                    and any(j != i and _over_corner(small.rect, box, 0.0)
                            and _much_smaller(small.rect, box) for j, box in enumerate(boxes))}
    out = set()
    for t, token in enumerate(tokens):
        if token.class_box is None:
            continue
        rect = token.box.rect
        if token.class_box in corner_boxes or _over_corner(
                rect, boxes[token.class_box], rect[3] - rect[1]):
            out.add(t)
    return out


def drawn_outside_model(text: str, diagram: ClassDiagram) -> frozenset[str]:
    """Keys of the words ``text`` draws on lines that hold none of ``diagram``'s elements
    (a legend, a title, a header or caption, a member the parser could not read), less
    the diagram's class names: computed from the faithful pair, it leaves a class that a
    conversion drops to be found."""
    used: set[int] = set()
    for cls in diagram.classes:
        used.update(a.line for a in cls.attributes if a.line)
        used.update(m.line for m in cls.methods if m.line)
        if cls.line:
            used.add(cls.line)
    used.update(r.line for r in diagram.relations if r.line)
    used.update(n.line for n in diagram.notes if n.line)
    classes = {name_key(w) for cls in diagram.classes
               for w in [cls.name, *identifiers(cls.name)]}
    words: set[str] = set()
    silent_block = False
    # The parser's own reading of the lines (comments out, its line numbers), so a line
    # is matched to the elements the parser says it holds.
    lines, _warnings = diagram_lines(text)
    for line in lines:
        stripped = line.text
        if silent_block:
            silent_block = stripped != "}"
            continue
        if _SILENT.match(stripped):
            silent_block = stripped.endswith("{")
            continue
        if line.number in used:
            continue
        words.update(name_key(w) for w in identifiers(stripped))
    return frozenset(words - classes)


def _kindred(read_kind: str, stated_kind: str) -> bool:
    """Whether a word read as ``read_kind`` in a box of a class the PlantUML has is the
    same name as one stated as ``stated_kind`` (members and types, among themselves)."""
    members = ("attribute", "method", "parameter", "type", "label", "keyword",
               "type keyword", "stereotype")
    return read_kind in members and stated_kind in members[:4]


def _piece_of(key: str, labels: Collection[str]) -> bool:
    """Whether ``key`` is what is left of one of ``labels`` where a line crosses it, two
    letters or more short of it: its start or its end (``con`` and ``eys`` of
    ``conveys``), three letters or more of it (``oks`` of ``books``), or three or more of
    its start and end run together (``bks``)."""
    def piece(label: str) -> bool:
        if len(key) > len(label) - 2:
            return False  # a letter short is a word of its own (``Parcel`` by ``parcels``)
        if label.startswith(key) or label.endswith(key):
            return True
        return len(key) >= 3 and (key in label or any(
            label.startswith(key[:i]) and label.endswith(key[i:]) for i in range(1, len(key))))

    return len(key) >= 2 and any(piece(label) for label in labels)


def _read_keys(finding: MissingName) -> list[str]:
    """A finding's text as a key, and for an old report's ``name : Type`` its name's."""
    multiplicity = finding.kind == "multiplicity"
    keys = [name_key(finding.text, multiplicity=multiplicity)]
    head = re.split(r"[:(]", finding.text, maxsplit=1)[0]
    if head != finding.text and len(head.strip()) > 2:
        keys.append(name_key(head))
    return keys


def set_aside(missing: Iterable[MissingName], invented: Iterable[InventedName],
              names: Sequence[ModelName], also_drawn: Collection[str] = (), *,
              stated_anywhere: bool = False,
              kinds: Mapping[int | None, Collection[str]] | None = None
              ) -> tuple[tuple[MissingName, ...], tuple[InventedName, ...], int]:
    """(missing kept, invented kept, how many were set aside) of ``names``'s check.
    ``kinds``: :func:`kind_words` of the PlantUML."""
    kinds = kinds or {}
    stated: dict[str, set[str]] = {}
    classes = {name_key(n.owner) for n in names if n.kind == "class"}
    stereotypes = {n.key for n in names if n.kind == "stereotype" and len(n.key) >= 4}
    labels = {n.key for n in names if n.kind == "label" and len(n.key) >= 4}
    for name in names:
        stated.setdefault(name.key, set()).add(name.kind)
    missing, invented = tuple(missing), tuple(invented)

    def stated_elsewhere(finding: MissingName) -> bool:
        for key in _read_keys(finding):
            if key in also_drawn and finding.kind != "multiplicity":
                return True
            if {key[1:], key[:-1], key[1:-1]} & stereotypes:
                return True  # «implemented» with its guillemets read as letters
            if finding.kind == "label" and not finding.owner and _piece_of(key, labels):
                return True  # what OCR read of a label that a line crosses (``oks``)
            if finding.kind in ("stereotype", "keyword", "class") \
                    and key in kinds.get(finding.owner_line, ()):
                return True  # «abstract» over a class declared ``abstract class``
            if stated_anywhere and name_key(finding.owner) in classes and any(
                    _kindred(finding.kind, kind) for kind in stated.get(key, ())):
                return True
        return False

    kept_missing = tuple(m for m in missing if not stated_elsewhere(m))
    kept_invented = tuple(i for i in invented
                          if i.kind != "multiplicity" and not is_multiplicity(i.text))
    left_out = len(missing) - len(kept_missing) + len(invented) - len(kept_invented)
    return kept_missing, kept_invented, left_out
