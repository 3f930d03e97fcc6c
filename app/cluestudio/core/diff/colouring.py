"""The line-level PlantUML edits of the element diff's colouring (:mod:`.annotation`): the
palette, where a colour spec goes on a class declaration, a relation's arrow and a member,
and which lines hold statements at all (comments, notes, legends and titles do not).

Each function takes one line (or the lines of one text) and gives the edited line, or None
when PlantUML would not read a colour there; :func:`.annotation.annotate` decides which
edits to keep.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from cluestudio.core.diff.records import Status
from cluestudio.core.model import ClassKind


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
class Layout:
    """Which lines hold statements and where multi-line blocks end (1-based numbers)."""

    lines: list[str]
    inside: set[int] = field(default_factory=set)  # lines inside comments, notes, legends…
    block_end: dict[int, int] = field(default_factory=dict)  # opening line -> closing line
    start: int = 0  # the @startuml line (0: none)
    end: int = 0  # the @enduml line (0: none)
    has_legend: bool = False

    @classmethod
    def of(cls, lines: list[str]) -> Layout:
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


def token_in(line: str, name: str, package: str) -> str | None:
    """How ``line`` names the class (``a.b.C``, ``"Long Name"`` or ``C``), if it does."""
    options = ([f"{package}.{name}"] if package else []) + [f'"{name}"', name]
    for token in options:
        if token.startswith('"'):
            if token in line:
                return token
        elif re.search(rf"(?<![\w$.\"]){re.escape(token)}(?![\w$\"])", line):
            return token
    return None


DECLARATION_KEYWORDS = {ClassKind.CLASS: "class", ClassKind.ABSTRACT: "abstract class",
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

