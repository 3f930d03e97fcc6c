"""PlantUML class-diagram text → :class:`ClassDiagram` (DESIGN §2), with line-numbered warnings.

Reads the subset students and LLMs write, as PlantUML 1.2022.6 reads it: class, abstract,
interface and enum declarations (bodies, stereotypes, generics, quoted names with aliases,
``extends``/``implements``), packages and namespaces (``Class.package`` is the dotted path),
notes, relations, ``Name : member`` lines; skinparams, styles, ``hide``/``show``, titles,
legends, directions and comments are read past on purpose. Any other line becomes a
:class:`ParseWarning`; real errors raise :class:`PlantUMLSyntaxError` naming the 1-based line.

How arrows map to relations (``A`` is written left, ``B`` right; any length, ``-``/``=`` solid
or ``.`` dotted, with or without ``[style]`` and ``up/down/left/right`` inside)::

    arrow                         type  begin  end   why
    A --|> B     A -|> B          GE    A      B     triangle marks the parent (end)
    A <|-- B     A ^-- B          GE    B      A
    A ..|> B     A -[dashed]-|> B RE    A      B     dotted triangle: realization
    A <|.. B                      RE    B      A
    A *-- B                       CO    A      B     diamond marks the whole (begin)
    A --* B                       CO    B      A
    A o-- B                       AG    A      B
    A --o B                       AG    B      A
    A ..> B      A .> B           DE    A      B     arrow head marks the supplier (end)
    A <.. B                       DE    B      A
    A .. B       A <..> B         DE    A      B     dotted, no single head: as written
    A --> B      A -> B           AS    A      B     solid: as written, heads or not
    A <-- B      A <--> B         AS    A      B
    A -- B       A +-- B          AS    A      B     `+` (nesting), x, #, crow's feet: AS
    A -[hidden]- B                —                  layout only: no relation (classes kept)

When both ends carry heads of different kinds the stronger decides: triangle, then filled
diamond, then hollow diamond, then arrow. Multiplicities follow their class: ``A "1" <|-- "*"
B`` gives ``label.from_ = "*"`` (B's, the begin) and ``label.to = "1"``. The label after ``:``
becomes ``Relation.name`` without PlantUML's reading marks (``owns >``, ``< owns``); ``: "1"
owns "*"`` is PlantUML's other way to write multiplicities. ``A::x --> B`` links the classes.

Names: a class is known by its display name (``class "Long Name" as LN`` → ``Long Name``;
the alias works in relations, and so does ``"Long Name"``, where PlantUML would make a
second class: we follow what the author meant). Generic parameters are dropped (``List<T>``
→ ``List``, as PlantUML identifies it); ``a.b.C`` is class ``C`` in package ``a.b``.
``entity``, ``struct``, ``annotation``… are classes whose stereotype is the keyword;
``protocol``/``circle`` are interfaces. Classes named only by a relation, a note or ``Name :
member`` are created in the order they first appear. Package and namespace names are global
(PlantUML scopes namespaced classes; we do not). A note linked to a class (``N1 .. A``) takes
that class as its target; notes on links are not modelled. Text PlantUML would read as
another diagram type (sequence ``Alice -> Bob``, use case, activity…) is an error.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from cluestudio.core.errors import PlantUMLSyntaxError, SourceError
from cluestudio.core.model import (
    ClassDiagram,
    ClassKind,
)
from cluestudio.core.plantuml._arrows import ArrowError, RelationSyntax, parse_relation
from cluestudio.core.plantuml._builder import ClassDraft, DiagramBuilder
from cluestudio.core.plantuml._declarations import (
    CLASS_HEADER,
    PACKAGE_HEADER,
    DeclarationError,
    parse_class_header,
    parse_package_header,
)
from cluestudio.core.plantuml._lines import ParseWarning, SourceLine, diagram_lines
from cluestudio.core.plantuml._members import MemberError, parse_member

__all__ = ["ParseResult", "ParseWarning", "parse_file", "parse_plantuml"]


@dataclass(frozen=True)
class ParseResult:
    diagram: ClassDiagram
    warnings: tuple[ParseWarning, ...] = ()


def parse_plantuml(text: str, source: str | None = None) -> ParseResult:
    """Parse PlantUML class-diagram text; ``source`` (a file name) is used in messages."""
    return _Parser(text, source).run()


def parse_file(path: str | os.PathLike[str]) -> ParseResult:
    """Parse a ``.puml`` file (UTF-8); errors name the file."""
    source = os.fspath(path)
    try:
        data = Path(source).read_bytes()
    except OSError as error:
        raise SourceError(f"cannot read the file ({error.strerror or error})",
                          source=source) from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise PlantUMLSyntaxError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "save the file as UTF-8", line=line, source=source) from error
    return parse_plantuml(text, source=source)


@dataclass(frozen=True)
class _Block:
    kind: str  # "package" or "together"
    path: str  # dotted package path inside this block (a together block keeps its parent's)
    line: SourceLine


# Lines that are layout or styling only: nothing in the model.
_IGNORED_FIRST_WORDS = frozenset({
    "hide", "show", "remove", "restore", "scale", "allowmixing", "allow_mixing", "skin",
    "caption", "mainframe", "newpage", "sprite",
})
_IGNORED = re.compile(
    r"(?:left\s++to\s++right|top\s++to\s++bottom)\s++direction|!(?:theme|pragma)\b.*+",
    re.IGNORECASE,
)
_SET_SEPARATOR = re.compile(r"set\s++namespaceseparator\s++(\S++)", re.IGNORECASE)
# Multi-line blocks that carry no model content, and the line that ends each.
_TEXT_BLOCKS = {
    "title": re.compile(r"end\s*+title", re.IGNORECASE),
    "header": re.compile(r"end\s*+header", re.IGNORECASE),
    "footer": re.compile(r"end\s*+footer", re.IGNORECASE),
    "legend": re.compile(r"end\s*+legend", re.IGNORECASE),
}
_LEGEND_HEADER = re.compile(r"legend(?:\s++(?:left|right|top|bottom|center))*+", re.IGNORECASE)
_END_NOTE = re.compile(r"end\s*+note", re.IGNORECASE)
_NOTE_FLOATING = re.compile(
    r'note\s++"(?P<text>[^"]*+)"\s++as\s++(?P<alias>[\w$.]++)\s*+(?:#\S*+)?+', re.IGNORECASE)
_NOTE_AS = re.compile(r"note\s++as\s++(?P<alias>[\w$.]++)\s*+(?:#\S*+)?+", re.IGNORECASE)
_NOTE_OF = re.compile(
    r'note\s++(?:left|right|top|bottom)\s++of\s++(?P<target>"[^"\n]++"|[\w$.:]++)'
    r"\s*+(?:#\S*+\s*+)?+(?::(?P<text>.*+))?+", re.IGNORECASE)
_NOTE_BESIDE = re.compile(
    r"note\s++(?:left|right|top|bottom)\s*+(?:#\S*+\s*+)?+(?::(?P<text>.*+))?+", re.IGNORECASE)
_NOTE_ON_LINK = re.compile(
    r"note\s++(?:(?:left|right|top|bottom)\s++)?+on\s++link\s*+(?:#\S*+\s*+)?+"
    r"(?::(?P<text>.*+))?+", re.IGNORECASE)
_ADD_MEMBER = re.compile(r'(?P<name>"[^"\n]++"|[\w$.]++)\s*+:(?!:)\s*+(?P<member>.*+)')
_TOGETHER = re.compile(r"together\s*+\{", re.IGNORECASE)
# Statements of other PlantUML diagram types (sequence, use case, activity, component,
# state, object): fine to warn about inside a class diagram, proof of another type without one.
_FOREIGN = re.compile(
    r"(?:participant|actor|boundary|control|collections|queue|activate|deactivate|destroy|"
    r"create|autonumber|return|alt|else|opt|loop|par|break|critical|group|end|ref|box|hnote|"
    r"rnote|usecase|component|node|artifact|cloud|folder|frame|rectangle|storage|agent|file|"
    r"card|state|start|stop|if|elseif|endif|while|endwhile|repeat|fork|partition|object|map|"
    r"json|person|database)\b|\.\.\.|\|\|\||==|[:\[(]",
    re.IGNORECASE,
)


class _Parser:
    def __init__(self, text: str, source: str | None) -> None:
        self.source = source
        self.lines, self.warnings = diagram_lines(text, source)
        self.pos = 0
        self.model = DiagramBuilder()
        self.blocks: list[_Block] = []
        self.class_evidence = False
        self.other_diagram: SourceLine | None = None
        self.deferred: PlantUMLSyntaxError | None = None

    # -- driver --------------------------------------------------------------------------

    def run(self) -> ParseResult:
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            self.pos += 1
            if line.text:
                self._statement(line)
        for block in self.blocks:
            if block.kind == "package":
                # PlantUML draws an unclosed package (it is closed at the end), so warn only.
                self._warn(block.line, "package '{' is never closed")
        if not self.class_evidence and self.other_diagram is not None:
            raise self._error(self.other_diagram,
                              "not a class diagram: PlantUML reads this as another diagram "
                              "type (sequence, use case, activity, …)")
        if self.deferred is not None:
            raise self.deferred
        warnings = tuple(sorted(self.warnings, key=lambda w: w.line))
        return ParseResult(self.model.build(), warnings)

    def _error(self, line: SourceLine, message: str) -> PlantUMLSyntaxError:
        return PlantUMLSyntaxError(message, line=line.number, text=line.raw, source=self.source)

    def _warn(self, line: SourceLine, message: str) -> None:
        self.warnings.append(ParseWarning(line.number, line.raw, message))

    def _next_line(self) -> SourceLine | None:
        if self.pos < len(self.lines):
            self.pos += 1
            return self.lines[self.pos - 1]
        return None

    def _skip_until(self, end: re.Pattern[str]) -> bool:
        while (line := self._next_line()) is not None:
            if end.fullmatch(line.text):
                return True
        return False

    def _open_block(self, block: _Block) -> None:
        self.blocks.append(block)
        self.model.package_path = block.path

    def _close_block(self, line: SourceLine) -> None:
        if not self.blocks:
            raise self._error(line, "'}' without an open package or class body")
        self.blocks.pop()
        self.model.package_path = self.blocks[-1].path if self.blocks else ""

    # -- statements ----------------------------------------------------------------------

    def _statement(self, line: SourceLine) -> None:
        text = line.text
        # PlantUML reads `Title --> X` or `Node : +x` as a link or a member of a class named
        # like a keyword, so those two forms go first.
        if text not in ("{", "}"):
            try:
                relation = parse_relation(text)
            except ArrowError:
                relation = None  # maybe a keyword line (`title A --> B`); decided below
            if relation is not None:
                self._relation(relation, line)
                return
            member = _ADD_MEMBER.fullmatch(text)
            if member and self.model.is_class(member.group("name")):
                self._member_line(member, line)
                return
        lowered = text.lower()
        first = lowered.split(None, 1)[0]
        if text == "}":
            self._close_block(line)
        elif text == "{":
            raise self._error(line, "'{' without a class or package header on the line before")
        elif first.startswith("@"):
            self._warn(line, "stray @-tag inside the diagram; ignored")
        elif first.startswith("!"):
            if not _IGNORED.fullmatch(text):
                self._warn(line, "preprocessor directive not expanded; ignored")
        elif first == "skinparam" or first.startswith("skinparam"):
            if text.endswith("{"):
                self._skip_braces(line)
        elif lowered.startswith("<style>"):
            if "</style>" not in lowered and not self._skip_until(re.compile(r".*</style>\s*")):
                self._warn(line, "<style> is never closed")
        elif first in _IGNORED_FIRST_WORDS or _IGNORED.fullmatch(text):
            pass
        elif m := _SET_SEPARATOR.fullmatch(text):
            value = m.group(1)
            self.model.separator = None if value.lower() == "none" else value
        elif first in _TEXT_BLOCKS and (lowered == first or (
                first == "legend" and _LEGEND_HEADER.fullmatch(text))):
            if not self._skip_until(_TEXT_BLOCKS[first]):
                self._warn(line, f"{first} block is never closed")
        elif first in ("title", "header", "footer"):
            pass
        elif first == "note":
            self._note(line)
        elif _TOGETHER.fullmatch(text):
            self.class_evidence = True
            self._open_block(_Block("together", self.model.package_path, line))
        elif m := CLASS_HEADER.fullmatch(text):
            self._class(line, m.group(1), m.group("rest") or "")
        elif (m := PACKAGE_HEADER.fullmatch(text)) and (
                m.group(1).lower() in ("package", "namespace") or text.endswith("{")):
            self._package(line, m.group(1), m.group("rest") or "")
        else:
            self._relation_or_member(line)

    def _skip_braces(self, line: SourceLine) -> None:
        depth = 1
        while depth and (nxt := self._next_line()) is not None:
            depth += nxt.text.count("{") - nxt.text.count("}")
        if depth:
            self._warn(line, "skinparam block is never closed")

    # -- classes -------------------------------------------------------------------------

    def _class(self, line: SourceLine, keyword: str, rest: str) -> None:
        try:
            header = parse_class_header(keyword, rest)
        except DeclarationError as error:
            raise self._error(line, f"cannot read the class declaration: {error}") from None
        if header.keyword != "entity":
            self.class_evidence = True  # `entity X` alone is a sequence participant
        elif self.other_diagram is None:
            self.other_diagram = line
        draft = self.model.declare(header, line.number)
        if header.opens_body:
            self._body(draft, line)
        elif not header.closes_body and self.pos < len(self.lines) \
                and self.lines[self.pos].text == "{":
            # PlantUML accepts the brace on the very next line (not after a blank one).
            self.pos += 1
            self._body(draft, line)

    def _body(self, draft: ClassDraft, header: SourceLine) -> None:
        in_enum = draft.kind is ClassKind.ENUM
        while (line := self._next_line()) is not None:
            if line.text == "}":
                return
            if line.text:
                self._add_members(draft, line, line.text, in_enum)
        raise self._error(header, "class body '{' is never closed (missing '}')")

    def _add_members(self, draft: ClassDraft, line: SourceLine, text: str,
                     in_enum: bool) -> None:
        try:
            draft.add(parse_member(text, line.number, in_enum))
        except MemberError as error:
            self._warn(line, f"cannot read this member: {error}; ignored")

    # -- packages ------------------------------------------------------------------------

    def _package(self, line: SourceLine, keyword: str, rest: str) -> None:
        try:
            header = parse_package_header(keyword, rest)
        except DeclarationError as error:
            raise self._error(line, f"cannot read the package declaration: {error}") from None
        self.class_evidence = True
        path = self.model.add_package(header.name)
        if header.opens_body:
            self._open_block(_Block("package", path, line))
        elif not header.closes_body:
            if self.pos < len(self.lines) and self.lines[self.pos].text == "{":
                self.pos += 1
                self._open_block(_Block("package", path, line))
            else:
                self._warn(line, "package without a '{ … }' body; ignored")

    # -- notes ---------------------------------------------------------------------------

    def _note(self, line: SourceLine) -> None:
        text = line.text
        if m := _NOTE_FLOATING.fullmatch(text):
            self.class_evidence = True
            self.model.add_note(m.group("text").strip(), "", line.number, m.group("alias"))
        elif m := _NOTE_AS.fullmatch(text):
            self.class_evidence = True
            self.model.add_note(self._note_text(line), "", line.number, m.group("alias"))
        elif m := _NOTE_ON_LINK.fullmatch(text):
            if m.group("text") is None:
                self._note_text(line)
        elif m := _NOTE_OF.fullmatch(text):
            target_token = m.group("target")
            quoted = target_token.startswith('"')
            target = self.model.class_named(target_token.strip('"'), quoted, line.number)
            if text.lower().split()[1] in ("top", "bottom"):
                self.class_evidence = True
            elif self.other_diagram is None:
                self.other_diagram = line  # `note left of X : …` is sequence syntax too
            self.model.add_note(self._inline_or_block(m.group("text"), line), target,
                                line.number)
        elif m := _NOTE_BESIDE.fullmatch(text):
            self.class_evidence = True
            self.model.add_note(self._inline_or_block(m.group("text"), line),
                                self.model.last_class or "", line.number)
        else:
            self._warn(line, "cannot read this note; ignored")

    def _inline_or_block(self, inline: str | None, line: SourceLine) -> str:
        return inline.strip() if inline is not None else self._note_text(line)

    def _note_text(self, header: SourceLine) -> str:
        parts: list[str] = []
        while (line := self._next_line()) is not None:
            if _END_NOTE.fullmatch(line.text):
                return "\n".join(parts).strip("\n")
            parts.append(line.text)
        raise self._error(header, "note is never closed (missing 'end note')")

    # -- relations and `Name : member` ----------------------------------------------------

    def _relation_or_member(self, line: SourceLine) -> None:
        try:
            relation = parse_relation(line.text)
        except ArrowError as error:
            # Deferred: if the whole text turns out to be a sequence diagram, that is the
            # error to report, not this line's unreadable (sequence) arrow.
            if self.deferred is None:
                self.deferred = self._error(line, str(error))
            if self.other_diagram is None:
                self.other_diagram = line
            return
        if relation is not None:
            self._relation(relation, line)
            return
        if m := _ADD_MEMBER.fullmatch(line.text):
            self._member_line(m, line)
            return
        if _FOREIGN.match(line.text):
            if self.other_diagram is None:
                self.other_diagram = line
            self._warn(line, "not part of a class diagram; ignored")
        else:
            self._warn(line, "not a class-diagram statement we know; ignored")

    def _member_line(self, match: re.Match[str], line: SourceLine) -> None:
        """``Name : member`` adds a member to a class (created if new)."""
        self.class_evidence = True
        token = match.group("name")
        name = self.model.class_named(token.strip('"'), token.startswith('"'), line.number)
        draft = self.model.classes[name]
        self._add_members(draft, line, match.group("member"), draft.kind is ClassKind.ENUM)

    def _relation(self, syntax: RelationSyntax, line: SourceLine) -> None:
        if syntax.sequence_like:
            if self.other_diagram is None:
                self.other_diagram = line
        else:
            self.class_evidence = True
        message = self.model.link(syntax, line.number)
        if message:
            self._warn(line, message)
