"""A coloured copy of a candidate's PlantUML that shows its element diff when rendered.

The candidate's text is kept line for line; only colour specs are added where PlantUML reads
them, on the lines the model's elements carry (``line``):

- a class's declaration (``class "Long" as L<T> <<S>> #back:…;line:…;line.dashed {``: after
  name, alias, generics and stereotypes, before ``extends``/``implements``/``{``; a colour the
  author wrote is replaced). A class only named by an arrow, ``extends``, a note or a
  ``Name : member`` line gets a declaration of its own right after that statement (so
  PlantUML meets the classes in the same order);
- a relation's arrow (``A -[#0072B2]-> B``; a style already in brackets is kept). Relations
  written as ``extends``/``implements`` have no arrow to colour and stay as they are;
- a partly matched or extra member, as a highlight of its text (``+ <back:#…>email</back>``);
- a legend naming the colours and the reference's missing elements, unless the author wrote
  a legend (PlantUML draws only the last one).

The palette is Okabe–Ito's, chosen to be told apart with every common colour-vision
deficiency, and never by colour alone: matched classes have a solid border, partly matched
a dashed one, extra ones a bold one, and extra relations are bold.

The result is checked by parsing it again: if its classes or relations differ from the
candidate's in any way, the member highlights, then the relation styles, then the class
colours are dropped until they do not (``Annotation.notes`` says which).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from cluestudio.core.diff.colouring import (
    DECLARATION_KEYWORDS,
    PALETTE,
    Layout,
    class_spec,
    colour_arrow,
    colour_header,
    highlight_member,
    read_header,
    split_lines,
    token_in,
)
from cluestudio.core.diff.records import DiagramDiff, ElementDiff, Status
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.model import ClassDiagram, Relation

MAX_MISSING_LISTED = 8


@dataclass(frozen=True)
class Annotation:
    text: str  # the candidate's PlantUML with colours (render it like any other text)
    legend: str  # the legend block (also when it was not added)
    legend_added: bool
    coloured: tuple[ElementDiff, ...]  # elements whose colour is in ``text``
    not_coloured: tuple[ElementDiff, ...]  # elements that could not be coloured, e.g. extends
    notes: tuple[str, ...] = ()  # what was dropped to keep the diagram as it was



# --- the legend -----------------------------------------------------------------------------

_CREOLE = re.compile(r"([*/_\-\"<>\[\]|#~^=$])")


def _plain(text: str) -> str:
    """Text shown literally in a creole legend (``~`` escapes a markup character)."""
    return _CREOLE.sub(r"~\1", text)


def legend_block(diff: DiagramDiff) -> str:
    rows = ["legend right", "<b>Compared with the reference</b>"]
    borders = {"": "solid border", "dashed": "dashed border", "bold": "bold border"}
    for style in PALETTE.values():
        rows.append(f"|<{style.fill}> <color:{style.line}>■</color> {style.label} "
                    f"({borders[style.border]}) |")
    partly, extra = PALETTE[Status.PARTLY].mark, PALETTE[Status.EXTRA].mark
    rows.append(f"members: <back:{partly}> changed </back>  <back:{extra}> extra </back>")
    missing = [e for e in diff.missing]
    if missing:
        counts = {kind: sum(1 for e in missing if e.kind == kind)
                  for kind in ("class", "attribute", "method", "relation")}
        said = ", ".join(f"{n} {kind if n == 1 else kind + 'es' if kind == 'class' else kind + 's'}"
                         for kind, n in counts.items() if n)
        rows.append(f"Missing from the reference: {said}")
        for element in missing[:MAX_MISSING_LISTED]:
            where = f" (in {element.owner})" if element.owner else ""
            rows.append(f"  - {_plain(element.text)}{_plain(where)}")
        if len(missing) > MAX_MISSING_LISTED:
            rows.append(f"  … and {len(missing) - MAX_MISSING_LISTED} more")
    else:
        rows.append("Nothing of the reference is missing")
    rows.append("end legend")
    return "\n".join(rows)


# --- putting it together --------------------------------------------------------------------


@dataclass
class _Edit:
    """The text changes that colour one element, keyed by original line number."""

    element: ElementDiff
    replace: dict[int, str] = field(default_factory=dict)
    after: dict[int, list[str]] = field(default_factory=dict)


def _apply(lines: list[str], edits: Iterable[_Edit], legend: str | None, legend_at: int
           ) -> str:
    replace: dict[int, str] = {}
    after: dict[int, list[str]] = {}
    for edit in edits:
        replace.update(edit.replace)
        for number, added in edit.after.items():
            after.setdefault(number, []).extend(added)
    out = []
    for number, line in enumerate(lines, start=1):
        if legend is not None and number == legend_at:
            out.append(legend)
        out.append(replace.get(number, line))
        out += after.get(number, [])
    if legend is not None and legend_at > len(lines):
        out.append(legend)
    return "\n".join(out)


def _structure(diagram: ClassDiagram) -> tuple[object, ...]:
    """What the annotation must leave as it was: classes and relations, in order."""
    classes = tuple((c.name, c.kind, c.package, c.stereotype) for c in diagram.classes)
    relations = tuple((r.type, r.begin, r.end, r.label, r.name) for r in diagram.relations)
    return classes, relations


def annotate(candidate_text: str, diff: DiagramDiff, *, legend: bool = True,
             members: bool = True, diagram: ClassDiagram | None = None) -> Annotation:
    """The candidate's PlantUML coloured by ``diff`` (see the module docstring);
    ``diagram``: the candidate already parsed (the caller's, so it is not parsed twice).

    Raises PlantUMLSyntaxError when the candidate does not parse (no diff can be shown).
    """
    from cluestudio.core.plantuml import parse_plantuml

    if diagram is None:
        diagram = parse_plantuml(candidate_text, source="candidate").diagram
    lines = split_lines(candidate_text)
    layout = Layout.of(lines)
    block = legend_block(diff)
    shown = block if legend and not layout.has_legend else None
    legend_at = layout.end or len(lines) + 1
    if layout.end == 0 and lines and not lines[-1].strip():
        legend_at = len(lines)  # before the final empty line: the text still ends in \n
    not_coloured: list[ElementDiff] = []
    edits = _class_edits(diff, diagram, layout, not_coloured)
    edits += _relation_edits(diff, diagram, layout, {n for e in edits for n in e.replace},
                             not_coloured)
    if members:
        edits += _member_edits(diff, diagram, layout, not_coloured)
    expected = _structure(diagram)
    notes: list[str] = []
    text = _apply(lines, edits, shown, legend_at)
    if not _same_structure(text, expected):
        # Keep the colours that leave the diagram as it was, found by halving the set.
        good = _keepable(lines, edits, expected)
        dropped = [e.element for e in edits if e not in good]
        text = _apply(lines, good, shown, legend_at)
        if not _same_structure(text, expected):
            dropped, good = [e.element for e in edits], []
            text = _apply(lines, [], shown, legend_at)
        if not _same_structure(text, expected):
            text, shown = candidate_text, None
            notes.append("the legend was left out: the diagram read differently with it")
        if dropped:
            notes.append(f"{len(dropped)} colour(s) left out: the diagram read differently "
                         f"with them ({', '.join(e.text for e in dropped[:3])}…)")
        not_coloured += dropped
        edits = good
    return Annotation(text, block, shown is not None, tuple(e.element for e in edits),
                      tuple(sorted(not_coloured, key=_line_of)), tuple(notes))


def _keepable(lines: list[str], edits: list[_Edit], expected: tuple[object, ...]
              ) -> list[_Edit]:
    """The edits that keep the diagram's structure: a few parses when one edit is bad,
    not one per edit."""
    if not edits or _same_structure(_apply(lines, edits, None, 0), expected):
        return edits
    if len(edits) == 1:
        return []
    half = len(edits) // 2
    return (_keepable(lines, edits[:half], expected)
            + _keepable(lines, edits[half:], expected))


def _line_of(element: ElementDiff) -> int:
    return element.line if element.line is not None else 1 << 30


def _same_structure(text: str, expected: tuple[object, ...]) -> bool:
    from cluestudio.core.plantuml import parse_plantuml

    try:
        return _structure(parse_plantuml(text).diagram) == expected
    except ClueStudioError:
        return False


def _class_statuses(diff: DiagramDiff) -> dict[str, ElementDiff]:
    return {e.text: e for e in diff.elements if e.kind == "class"}


def _class_edits(diff: DiagramDiff, diagram: ClassDiagram, layout: Layout,
                 not_coloured: list[ElementDiff]) -> list[_Edit]:
    statuses = _class_statuses(diff)
    headers = {n: h for n in range(1, len(layout.lines) + 1) if n not in layout.inside
               and (h := read_header(layout.lines[n - 1])) is not None}
    by_name: dict[str, list[int]] = {}
    for number, header in headers.items():
        by_name.setdefault(header.name, []).append(number)
    edits = []
    for cls in diagram.classes:
        element = statuses.get(cls.name)
        if element is None:
            continue
        edit = _Edit(element)
        spec = class_spec(element.status)
        for number in by_name.get(cls.name, []):  # every declaration: a later one may recolour
            edit.replace[number] = colour_header(layout.lines[number - 1], headers[number],
                                                 spec)
        if not edit.replace:
            line = cls.line if cls.line is not None and 0 < cls.line <= len(layout.lines) \
                else None
            token = token_in(layout.lines[line - 1], cls.name, cls.package) if line else None
            if line is None or token is None:
                not_coloured.append(element)
                continue
            indent = layout.lines[line - 1][:len(layout.lines[line - 1])
                                            - len(layout.lines[line - 1].lstrip())]
            edit.after[layout.statement_end(line)] = [
                f"{indent}{DECLARATION_KEYWORDS[cls.kind]} {token} {spec}"]
        edits.append(edit)
    return edits


def _relation_for(element: ElementDiff, diagram: ClassDiagram) -> Relation | None:
    from cluestudio.core.clue.explain import relation_text

    same = [r for r in diagram.relations if relation_text(r) == element.text]
    if len(same) > 1:
        same = [r for r in same if r.line == element.line]
    return same[0] if len(same) == 1 else None


def _relation_edits(diff: DiagramDiff, diagram: ClassDiagram, layout: Layout,
                    taken: set[int], not_coloured: list[ElementDiff]) -> list[_Edit]:
    per_line: dict[int, int] = {}
    for each in diagram.relations:
        if each.line is not None:
            per_line[each.line] = per_line.get(each.line, 0) + 1
    edits = []
    for element in diff.of_kind("relation"):
        relation = _relation_for(element, diagram)
        number = relation.line if relation is not None else None
        coloured = None
        if (number is not None and per_line.get(number) == 1 and number not in taken
                and number not in layout.inside
                and read_header(layout.lines[number - 1]) is None):
            coloured = colour_arrow(layout.lines[number - 1], element.status)
        if number is None or coloured is None:
            not_coloured.append(element)  # e.g. `class A extends B`: no arrow to colour
            continue
        edits.append(_Edit(element, {number: coloured}))
    return edits


def _member_edits(diff: DiagramDiff, diagram: ClassDiagram, layout: Layout,
                  not_coloured: list[ElementDiff]) -> list[_Edit]:
    from cluestudio.core.clue.explain import attribute_text, method_text

    per_line: dict[int, int] = {}
    texts: dict[tuple[str, int | None], str] = {}
    for each in diagram.classes:
        for attribute in each.attributes:
            texts[(each.name, attribute.line)] = attribute_text(attribute)
        for method in each.methods:
            texts[(each.name, method.line)] = method_text(method)
        for member_line in [a.line for a in each.attributes] + [m.line for m in each.methods]:
            if member_line is not None:
                per_line[member_line] = per_line.get(member_line, 0) + 1
    statuses = _class_statuses(diff)
    edits = []
    for element in diff.elements:
        if element.kind not in ("attribute", "method") or element.status not in (
                Status.PARTLY, Status.EXTRA):
            continue  # matched members stay plain: only what differs is marked
        owner = statuses.get(element.owner)
        if owner is None or owner.status is Status.EXTRA:
            continue  # an extra class is coloured as a whole
        number = element.line
        coloured = None
        if (number is not None and per_line.get(number) == 1 and number not in layout.inside
                and texts.get((element.owner, number)) == element.text):
            cls = diagram.class_named(element.owner)
            tokens = {element.owner} | ({f"{cls.package}.{element.owner}"} if cls else set())
            coloured = highlight_member(layout.lines[number - 1],
                                        PALETTE[element.status].mark, tokens)
        if number is None or coloured is None:
            not_coloured.append(element)
            continue
        edits.append(_Edit(element, {number: coloured}))
    return edits
