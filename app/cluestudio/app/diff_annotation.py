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

from cluestudio.app.diagram_diff import DiagramDiff, ElementDiff, Status
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.model import ClassDiagram, ClassKind, Relation


@dataclass(frozen=True)
class Style:
    label: str
    fill: str  # class background
    line: str  # class border and relation colour
    border: str  # "" | "dashed" | "bold": the second cue beside the colour
    mark: str  # member highlight: darker than any class fill, so it shows inside each


PALETTE: dict[Status, Style] = {
    Status.MATCHED: Style("matched", "#D4E6F4", "#0072B2", "", ""),
    Status.PARTLY: Style("partly matched", "#FFF0C2", "#E69F00", "dashed", "#F5C542"),
    Status.EXTRA: Style("extra: not in the reference", "#EFAE86", "#D55E00", "bold",
                        "#EE9A70"),
}
MAX_MISSING_LISTED = 8


@dataclass(frozen=True)
class Annotation:
    text: str  # the candidate's PlantUML with colours (render it like any other text)
    legend: str  # the legend block (also when it was not added)
    legend_added: bool
    coloured: tuple[ElementDiff, ...]  # elements whose colour is in ``text``
    not_coloured: tuple[ElementDiff, ...]  # elements that could not be coloured, e.g. extends
    notes: tuple[str, ...] = ()  # what was dropped to keep the diagram as it was


def class_spec(status: Status) -> str:
    style = PALETTE[status]
    spec = f"#back:{style.fill[1:]};line:{style.line[1:]}"
    return spec + (f";line.{style.border}" if style.border else "")


def relation_style(status: Status) -> str:
    """The bracket style of a relation's arrow: ``#0072B2``, ``#D55E00,bold``."""
    style = PALETTE[status]
    return style.line + (",bold" if status is Status.EXTRA else "")


# --- lines ----------------------------------------------------------------------------------

_NEWLINE = re.compile(r"\r\n|\r|\n")  # what PlantUML's (Java's) line reader splits on


def split_lines(text: str) -> list[str]:
    return _NEWLINE.split(text.removeprefix("\ufeff"))


_BLOCK_ENDS = {"legend": re.compile(r"\s*end\s*legend\s*", re.I),
               "title": re.compile(r"\s*end\s*title\s*", re.I),
               "header": re.compile(r"\s*end\s*header\s*", re.I),
               "footer": re.compile(r"\s*end\s*footer\s*", re.I),
               "note": re.compile(r"\s*end\s*note\s*", re.I)}
_LEGEND = re.compile(r"\s*legend(?:\s+(?:left|right|top|bottom|center))*\s*", re.I)
_TEXT_BLOCK = re.compile(r"\s*(title|header|footer)\s*", re.I)
_NOTE = re.compile(r"\s*note\b(?P<rest>.*)", re.I)


def _note_opens_block(rest: str) -> bool:
    """``note left of A`` / ``note as N`` open a block; ``note … : text`` and
    ``note "text" as N`` are one line."""
    return ":" not in rest and not rest.strip().startswith('"')


@dataclass
class _Layout:
    """Which lines hold statements and where multi-line blocks end (1-based numbers)."""

    lines: list[str]
    inside: set[int] = field(default_factory=set)  # lines inside comments, notes, legends…
    block_end: dict[int, int] = field(default_factory=dict)  # opening line -> closing line
    start: int = 0  # the @startuml line (0: none)
    end: int = 0  # the @enduml line (0: none)
    has_legend: bool = False

    @classmethod
    def of(cls, lines: list[str]) -> _Layout:
        layout = cls(lines)
        number = 0
        while number < len(lines):
            number += 1
            text = lines[number - 1].strip()
            if layout.end:
                layout.inside.add(number)
            elif text.lower().startswith("@start") and not layout.start:
                layout.start = number
            elif text.lower().startswith("@end") and layout.start:
                layout.end = number
            elif text.startswith("'"):
                layout.inside.add(number)
            elif text.startswith("/'") and "'/" not in text[2:]:
                number = layout._until(number, re.compile(r".*'/\s*"))
            elif _LEGEND.fullmatch(text):
                layout.has_legend = True
                number = layout._until(number, _BLOCK_ENDS["legend"])
            elif (m := _TEXT_BLOCK.fullmatch(text)) is not None:
                number = layout._until(number, _BLOCK_ENDS[m.group(1).lower()])
            elif (m := _NOTE.fullmatch(text)) is not None and _note_opens_block(m.group("rest")):
                number = layout._until(number, _BLOCK_ENDS["note"])
            elif text.lower().startswith(("skinparam", "<style>")) and (
                    text.endswith("{") or (text.lower() == "<style>")):
                closing = re.compile(r"\s*}\s*") if text.endswith("{") else re.compile(
                    r".*</style>\s*", re.I)
                number = layout._until(number, closing)
        layout.inside.update(range(1, layout.start))  # e.g. an LLM's prose before @startuml
        return layout

    def _until(self, opening: int, closing: re.Pattern[str]) -> int:
        for number in range(opening + 1, len(self.lines) + 1):
            self.inside.add(number)
            if closing.fullmatch(self.lines[number - 1]):
                self.block_end[opening] = number
                return number
        self.block_end[opening] = len(self.lines)
        return len(self.lines)

    def statement_end(self, number: int) -> int:
        """The last line of the statement starting at ``number`` (a class body, a note)."""
        if number in self.block_end:
            return self.block_end[number]
        text = self.lines[number - 1].rstrip()
        following = self.lines[number].strip() if number < len(self.lines) else ""
        if _HEADER.match(text) and (text.endswith("{") or following == "{"):
            for close in range(number + 1, len(self.lines) + 1):
                if self.lines[close - 1].strip().startswith("}"):
                    return close
        return number


# --- class declarations ---------------------------------------------------------------------

_HEADER = re.compile(
    r"(?P<indent>\s*)(?P<keyword>abstract\s+class|static\s+class|abstract|class|interface|"
    r"enum|annotation|entity|struct|exception|record|dataclass|metaclass|stereotype|diamond|"
    r"protocol|circle)\s+(?P<rest>\S.*)", re.I)
_CODE = re.compile(r'[^\s{}"<>]+')
_AS = re.compile(r"\s+as\s+", re.I)
_INHERIT = re.compile(r"(?:extends|implements)\s", re.I)


@dataclass(frozen=True)
class _Header:
    name: str  # the display name, as the model names the class
    insert_at: int  # where the colour spec goes (index into the line)
    colours: tuple[tuple[int, int], ...]  # spans of colours the author wrote (removed)


def _read_name(text: str, pos: int) -> tuple[str, bool, int] | None:
    if text.startswith('"', pos):
        close = text.find('"', pos + 1)
        return None if close < 0 else (text[pos + 1:close], True, close + 1)
    match = _CODE.match(text, pos)
    return None if match is None else (match.group(), False, match.end())


def read_header(line: str) -> _Header | None:
    """The class a declaration line declares, and where a colour spec belongs in it."""
    match = _HEADER.fullmatch(line.rstrip())
    if match is None:
        return None
    text = match.string
    first = _read_name(text, match.start("rest"))
    if first is None:
        return None
    name, quoted, pos = first
    alias = _AS.match(text, pos)
    if alias is not None:
        second = _read_name(text, alias.end())
        if second is None:
            return None
        if second[1] and not quoted:  # CODE as "Display"
            name, quoted = second[0], True
        pos = second[2]
    if not quoted and "." in name.strip("."):
        name = name.rsplit(".", 1)[1]  # a.b.C declares C in package a.b
    if text.startswith("<", pos) and not text.startswith("<<", pos):
        depth = 0
        for index in range(pos, len(text)):
            depth += {"<": 1, ">": -1}.get(text[index], 0)
            if depth == 0:
                pos = index + 1
                break
        else:
            return None
    insert_at, colours = pos, []
    while True:
        skipped = pos
        while skipped < len(text) and text[skipped].isspace():
            skipped += 1
        if text.startswith("<<", skipped):
            close = text.find(">>", skipped)
            if close < 0:
                return None
            pos = insert_at = close + 2
        elif text.startswith("[[", skipped):
            close = text.find("]]", skipped)
            if close < 0:
                return None
            pos = insert_at = close + 2
        elif text.startswith(("#", "$"), skipped):
            end = skipped
            while end < len(text) and not text[end].isspace() and text[end] != "{":
                end += 1
            if text[skipped] == "#":
                colours.append((pos, end))
            else:
                insert_at = end
            pos = end
        else:
            break
    tail = text[pos:].strip()
    if tail and not tail.startswith("{") and not _INHERIT.match(tail):
        return None  # `Circle ..|> Shape`: a relation whose first class is named like a keyword
    return _Header(name, insert_at, tuple(colours))


def colour_header(line: str, header: _Header, spec: str) -> str:
    """``line`` with the author's colours removed and ``spec`` where PlantUML reads it."""
    kept = line
    for start, end in reversed(header.colours):
        kept = kept[:start] + kept[end:]
    at = header.insert_at  # colours all lie after it
    return f"{kept[:at]} {spec}{kept[at:]}"


def _token_in(line: str, name: str, package: str) -> str | None:
    """How ``line`` names the class (``a.b.C``, ``"Long Name"`` or ``C``), if it does."""
    options = ([f"{package}.{name}"] if package else []) + [f'"{name}"', name]
    for token in options:
        if token.startswith('"'):
            if token in line:
                return token
        elif re.search(rf"(?<![\w$.\"]){re.escape(token)}(?![\w$\"])", line):
            return token
    return None


_KEYWORDS = {ClassKind.CLASS: "class", ClassKind.ABSTRACT: "abstract class",
             ClassKind.INTERFACE: "interface", ClassKind.ENUM: "enum"}


# --- relations ------------------------------------------------------------------------------

_NAME = r'(?:"[^"]*"|[\w$]+(?:(?:\.|::)[\w$]+)*)'
# Heads: UML's (<|, <, ^, *, o, +, #, x) and crow's feet (}o, }|, |o, ||, {, }, |).
_ARROW = re.compile(
    r"(?P<head1><\||\}o|\}\||\|o|\|\||<|\^|\*|o|\+|#|x|\}|\{|\|)?(?P<body1>[-.=]+)"
    r"(?P<style>\[[^\]]*\])?(?P<rest>(?:left|right|up|down|le|ri|do|l|r|u|d)?"
    r"(?:\[[^\]]*\])?[-.=]*(?:\|>|o\{|\|\{|o\||\|\||>|\^|\*|o|\+|#|x|\{|\}|\|)?)"
    r"(?=[\s\"\w$]|$)", re.I)
_RELATION_START = re.compile(rf"\s*{_NAME}\s*(?:\"[^\"]*\"\s*)?")


def colour_arrow(line: str, status: Status) -> str | None:
    """``line`` with the colour of ``status`` on its arrow: in brackets after the arrow's
    first stroke (``-[#0072B2]->``, beside a style already there), or, for a one-stroke
    arrow (``->``, ``.>``, ``<|-``), as PlantUML's trailing link style (``A -> B #0072B2``),
    which keeps the arrow's length and so the layout. None when no arrow is found where a
    relation line has it."""
    start = _RELATION_START.match(line)
    arrow = _ARROW.match(line, start.end()) if start is not None else None
    if arrow is None:
        return None
    style = relation_style(status)
    if arrow.group("style"):
        entries = [e.strip() for e in arrow.group("style")[1:-1].split(",")]
        if any(e.lower() == "hidden" for e in entries):
            return None
        kept = [e for e in entries if e and not e.startswith("#")]
        return (f"{line[:arrow.start('style')]}[{','.join([style, *kept])}]"
                f"{line[arrow.end('style'):]}")
    if len(arrow.group("body1")) > 1 or _MORE_STROKES.match(arrow.group("rest")):
        at = arrow.start("body1") + 1
        return f"{line[:at]}[{style}]{line[at:]}"
    end = _RIGHT_END.match(line, arrow.end())
    if end is None:
        return None
    trailing = PALETTE[status].line + (";line.bold" if status is Status.EXTRA else "")
    cut = end.start("colour") if end.group("colour") else end.end()  # the author's colour
    return f"{line[:cut]} {trailing}{line[end.end():]}"


_MORE_STROKES = re.compile(r"(?:left|right|up|down|le|ri|do|l|r|u|d|\[|[-.=])", re.I)
_RIGHT_END = re.compile(rf"\s*(?:\"[^\"]*\"\s*)?{_NAME}(?P<colour>\s+#\S*)?")


# --- members --------------------------------------------------------------------------------

_MODIFIERS = re.compile(r"\s*(?:(?:\{(?:static|abstract|classifier|field|method)\}|[-+#~])\s*)*",
                        re.I)
_ADD_MEMBER = re.compile(r'(?P<lead>\s*(?:"[^"]*"|[\w$.]+)\s*:(?!:))')


def highlight_member(line: str, fill: str, owner_tokens: Iterable[str]) -> str | None:
    """``line`` with its member text in ``<back:fill>…</back>`` after visibility and
    modifiers; ``Name : member`` lines keep their ``Name :``. None when nothing to wrap."""
    start = 0
    lead = _ADD_MEMBER.match(line)
    if lead is not None and lead.group().split(":")[0].strip().strip('"') in owner_tokens:
        start = lead.end()
    start = _MODIFIERS.match(line, start).end()  # type: ignore[union-attr]
    body = line[start:].rstrip()
    if not body or "{" in body or "}" in body:
        return None
    return f"{line[:start]}<back:{fill}>{body}</back>{line[start + len(body):]}"


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
             members: bool = True) -> Annotation:
    """The candidate's PlantUML coloured by ``diff`` (see the module docstring).

    Raises PlantUMLSyntaxError when the candidate does not parse (no diff can be shown).
    """
    from cluestudio.core.plantuml import parse_plantuml

    diagram = parse_plantuml(candidate_text, source="candidate").diagram
    lines = split_lines(candidate_text)
    layout = _Layout.of(lines)
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


def _class_edits(diff: DiagramDiff, diagram: ClassDiagram, layout: _Layout,
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
            token = _token_in(layout.lines[line - 1], cls.name, cls.package) if line else None
            if line is None or token is None:
                not_coloured.append(element)
                continue
            indent = layout.lines[line - 1][:len(layout.lines[line - 1])
                                            - len(layout.lines[line - 1].lstrip())]
            edit.after[layout.statement_end(line)] = [
                f"{indent}{_KEYWORDS[cls.kind]} {token} {spec}"]
        edits.append(edit)
    return edits


def _relation_for(element: ElementDiff, diagram: ClassDiagram) -> Relation | None:
    from cluestudio.core.clue.explain import relation_text

    same = [r for r in diagram.relations if relation_text(r) == element.text]
    if len(same) > 1:
        same = [r for r in same if r.line == element.line]
    return same[0] if len(same) == 1 else None


def _relation_edits(diff: DiagramDiff, diagram: ClassDiagram, layout: _Layout,
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


def _member_edits(diff: DiagramDiff, diagram: ClassDiagram, layout: _Layout,
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
