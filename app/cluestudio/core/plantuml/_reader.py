"""The line reader behind :func:`~cluestudio.core.plantuml.parser.parse_plantuml`: one pass
over a diagram's lines, each statement dispatched as PlantUML 1.2026.2 would read it
(declarations, then links and ``Name : member``, then the other keywords) into a
:class:`~cluestudio.core.plantuml._builder.DiagramBuilder`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.model import ClassDiagram, ClassKind, RelationType
from cluestudio.core.plantuml._arrows import ArrowError, RelationSyntax, parse_relation
from cluestudio.core.plantuml._builder import (
    BuildError,
    ClassDraft,
    DiagramBuilder,
    OmittedLink,
)
from cluestudio.core.plantuml._declarations import (
    CLASS_HEADER,
    DIAMOND_HEADER,
    LOLLIPOP_HEADER,
    MIXING_HEADER,
    OBJECT_HEADER,
    PACKAGE_HEADER,
    ClassHeader,
    DeclarationError,
    ElementHeader,
    parse_class_header,
    parse_lollipop_header,
    parse_mixing_header,
    parse_object_header,
    parse_package_header,
    stereotypes_in,
)
from cluestudio.core.plantuml._lines import ParseWarning, SourceLine
from cluestudio.core.plantuml._members import MemberError, parse_member
from cluestudio.core.plantuml._names import TOP, Scope

#: Deepest nesting of package/namespace/together blocks. PlantUML itself needs 43 s and
#: 6 GB for 5,000 levels; real diagrams use fewer than ten.
MAX_NESTING = 50

_GE, _RE = RelationType.GENERALIZATION, RelationType.REALIZATION
_Header = TypeVar("_Header")


class DiagramError(PlantUMLSyntaxError):
    """A line PlantUML would refuse, with the warnings about the lines read before it."""

    def __init__(self, message: str, *, line: int | None = None, text: str = "",
                 source: str | None = None, warnings: tuple[ParseWarning, ...] = ()) -> None:
        super().__init__(message, line=line, text=text, source=source)
        self.warnings = warnings


@dataclass(frozen=True)
class ParseResult:
    diagram: ClassDiagram
    warnings: tuple[ParseWarning, ...] = ()
    #: Links PlantUML draws that are no relation of the model (hidden, to notes, packages).
    omitted_links: tuple[OmittedLink, ...] = field(default=(), compare=False)
    #: Points PlantUML adds for association classes ``(A, B) .. C`` (entities, not classes).
    association_points: int = field(default=0, compare=False)


@dataclass(frozen=True)
class _Block:
    kind: str  # "package", "namespace", "together" or "container"
    scope: Scope
    line: SourceLine


# Lines that are layout or styling only: nothing in the model.
_IGNORED_FIRST_WORDS = frozenset({
    "hide", "show", "remove", "restore", "scale", "skin", "caption", "mainframe",
    "hide-class", "show-class", "layout_new_line", "footbox", "autonumber",
})
_IGNORED = re.compile(
    r"(?:left\s++to\s++right|top\s++to\s++bottom)\s++direction|!(?:theme|pragma)\b.*+"
    r"|url\s++(?:of|for)\s++.*+|(?:hide|show)\s++footbox",
    re.IGNORECASE,
)
# PlantUML's scale command comes before its links: `scale 0.9` is no link from `scale` to
# `9` with 1.2026's `0` head (`foo 0.9` is one).
_SCALE = re.compile(r"scale\s++(?:[\d.]++(?:\s*+/\s*+[\d.]++)?+|\d++\s++(?:width|height)"
                    r"|\d++\s*+\*\s*+\d++|max\s++.*+)", re.IGNORECASE)
# Lines about the whole page, which PlantUML 1.2026 still reads after a stray `}`.
_PAGE_COMMAND = re.compile(
    r"(?:skinparam|title|scale|caption|header|footer|legend|mainframe|skin)\b|!|<style>"
    r"|(?:left\s++to\s++right|top\s++to\s++bottom)\s++direction", re.IGNORECASE)
_ALLOW_MIXING = re.compile(r"allow_?+mixing", re.IGNORECASE)
_SET_SEPARATOR = re.compile(r"set\s++(?:namespace)?separator\s++(\S++)", re.IGNORECASE)
# Multi-line blocks that carry no model content, and the line that ends each.
_TEXT_BLOCKS = {
    "title": re.compile(r"end\s*+title", re.IGNORECASE),
    "header": re.compile(r"end\s*+header", re.IGNORECASE),
    "footer": re.compile(r"end\s*+footer", re.IGNORECASE),
    "legend": re.compile(r"end\s*+legend", re.IGNORECASE),
}
_LEGEND_HEADER = re.compile(r"legend(?:\s++(?:left|right|top|bottom|center))*+", re.IGNORECASE)
_BLOCK_HEADER = re.compile(r"(?:header|footer)(?:\s++(?:left|right|center))?+", re.IGNORECASE)
_END_NOTE = re.compile(r"end\s*+note", re.IGNORECASE)
_STYLE_END = re.compile(r".*</style>\s*+", re.IGNORECASE)
_SPRITE_BLOCK = re.compile(r"sprite\s.*\{\s*+", re.IGNORECASE)
_NOTE_FLOATING = re.compile(
    r'note\s++"(?P<text>[^"]*+)"\s++as\s++(?P<alias>[\w.]++)\s*+(?:#\S*+)?+', re.IGNORECASE)
_NOTE_AS = re.compile(r"note\s++as\s++(?P<alias>[\w.]++)\s*+(?:<<.*>>\s*+)?+(?:#\S*+)?+",
                      re.IGNORECASE)
_NOTE_OF = re.compile(
    r'note\s++(?:left|right|top|bottom)\s++of\s++(?P<target>"[^"\n]++"|[^\s"{}<>]++)'
    r"\s*+(?:<<.*?>>\s*+)?+(?:#\S*+\s*+)?+(?::(?P<text>.*+))?+", re.IGNORECASE)
_NOTE_BESIDE = re.compile(
    r"note\s++(?:left|right|top|bottom)\s*+(?:#\S*+\s*+)?+(?::(?P<text>.*+))?+", re.IGNORECASE)
_NOTE_ON_LINK = re.compile(
    r"note\s++(?:(?:left|right|top|bottom)\s++)?+o[nf]\s++link\s*+(?:#\S*+\s*+)?+"
    r"(?::(?P<text>.*+))?+", re.IGNORECASE)
_ADD_MEMBER = re.compile(r'(?P<name>"[^"\n]++"|[\w.]++)\s*+:(?!:)\s*+(?P<member>.*+)')
_ADD_STEREOTYPE = re.compile(r'(?P<name>"[^"\n]++"|[\w.]++)\s*+(?P<stereo><<.*>>)')
_TOGETHER = re.compile(r"together\s*+\{", re.IGNORECASE)
_MAP_ENTRY = re.compile(r"(?P<key>.*?)\s*+=>\s*+(?P<value>.*+)")
# Statements of other PlantUML diagram types (sequence, use case, activity, component,
# state): fine to warn about inside a class diagram, proof of another type without one.
_FOREIGN = re.compile(
    r"(?:participant|actor|boundary|control|collections|queue|activate|deactivate|destroy|"
    r"create|return|alt|else|opt|loop|par|break|critical|group|end|ref|box|hnote|"
    r"rnote|usecase|component|node|artifact|cloud|folder|frame|rectangle|storage|agent|file|"
    r"card|state|start|stop|if|elseif|endif|while|endwhile|repeat|fork|partition|"
    r"person|database)\b|\.\.\.|\|\|\||==|[:\[(]",
    re.IGNORECASE,
)


class Reader:
    def __init__(self, lines: list[SourceLine], warnings: list[ParseWarning],
                 source: str | None) -> None:
        self.source = source
        self.lines, self.warnings = lines, warnings
        self.pos = 0
        self.model = DiagramBuilder()
        self.blocks: list[_Block] = []
        self.scope = TOP
        self.allow_mixing = False
        self.class_evidence = False
        self.other_diagram: SourceLine | None = None
        self.deferred: PlantUMLSyntaxError | None = None
        # A `}` that closed no block: PlantUML 1.2026 closes its top level with it and fails
        # on the next line that places an element (see run).
        self.stray_brace: SourceLine | None = None

    # -- driver --------------------------------------------------------------------------

    def run(self) -> ParseResult:
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            self.pos += 1
            if line.text:
                if self.stray_brace is not None and not _PAGE_COMMAND.match(line.text):
                    raise self._error(line, "PlantUML stops here: the '}' on line "
                                      f"{self.stray_brace.number} closed no package or "
                                      "class body")
                self._statement(line)
        if self.stray_brace is not None:
            self._warn(self.stray_brace, "'}' without an open package or class body; "
                       "ignored (PlantUML fails on any element after it)")
        for block in self.blocks:
            if block.kind != "together":
                # PlantUML draws an unclosed package (it is closed at the end), so warn only.
                self._warn(block.line, f"{block.kind} '{{' is never closed")
        if not self.class_evidence and self.other_diagram is not None:
            raise self._error(self.other_diagram,
                              "not a class diagram: PlantUML reads this as another diagram "
                              "type (sequence, use case, activity, …)")
        if self.deferred is not None:
            raise self.deferred
        diagram, renamed = self.model.build()
        self.warnings.extend(ParseWarning(line, "", message) for line, message in renamed)
        warnings = tuple(sorted(self.warnings, key=lambda w: w.line))
        return ParseResult(diagram, warnings, tuple(self.model.omitted),
                           self.model.association_points)

    def _error(self, line: SourceLine, message: str) -> PlantUMLSyntaxError:
        return DiagramError(message, line=line.number, text=line.raw, source=self.source,
                            warnings=tuple(self.warnings))

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

    def _open_block(self, kind: str, scope: Scope, line: SourceLine) -> None:
        if len(self.blocks) >= MAX_NESTING:
            raise self._error(line, f"blocks nested more than {MAX_NESTING} deep; the parser "
                              "stops here (PlantUML itself slows to a crawl)")
        self.blocks.append(_Block(kind, scope, line))
        self.scope = scope

    def _close_block(self, line: SourceLine) -> None:
        if not self.blocks:
            self.stray_brace = line
            return
        # One block each (1.2022.6 closed a namespace together with a package right
        # inside it, so the namespace's own '}' was an error).
        self.blocks.pop()
        self.scope = self.blocks[-1].scope if self.blocks else TOP

    # -- statements ----------------------------------------------------------------------

    def _statement(self, line: SourceLine) -> None:
        text = line.text
        # A declaration goes first (`class x.y.Z` is also a link `class x. y.Z`), then
        # PlantUML reads `Title --> X` or `Node : +x` as a link or a member of a class named
        # like a keyword, so those two forms come before the other keywords.
        if (m := CLASS_HEADER.fullmatch(text)) is not None:
            try:
                header = parse_class_header(m.group(1), m.group("rest") or "")
            except DeclarationError:
                pass  # a link after all (`Class --> Other`), or an error reported below
            else:
                self._class(line, header)
                return
        arrow_error: ArrowError | None = None
        if _SCALE.fullmatch(text):
            return
        if text not in ("{", "}"):
            try:
                relation = parse_relation(text)
            except ArrowError as error:
                relation = None  # maybe a keyword line (`title A --> B`); decided below
                arrow_error = error
            if relation is not None:
                self._relation(relation, line)
                return
            member = _ADD_MEMBER.fullmatch(text)
            if member and self.model.is_class(member.group("name").strip('"'), self.scope):
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
        elif first.startswith("skinparam"):
            if text.endswith("{"):
                self._skip_braces(line, "skinparam block")
        elif lowered.startswith("<style>"):
            if "</style>" not in lowered and not self._skip_until(_STYLE_END):
                self._warn(line, "<style> is never closed")
        elif _SPRITE_BLOCK.fullmatch(text):
            self._skip_braces(line, "sprite")
        elif _ALLOW_MIXING.fullmatch(text):
            self.allow_mixing = True
        elif first in _IGNORED_FIRST_WORDS or _IGNORED.fullmatch(text):
            pass
        elif first == "newpage":
            self._warn(line, "newpage: PlantUML draws several pages; they are read as one "
                       "diagram")
        elif m := _SET_SEPARATOR.fullmatch(text):
            value = m.group(1)
            self.model.names.separator = None if value.lower() == "none" else value
        elif first in _TEXT_BLOCKS and (lowered == first or (
                first == "legend" and _LEGEND_HEADER.fullmatch(text)) or (
                first in ("header", "footer") and _BLOCK_HEADER.fullmatch(text))):
            if not self._skip_until(_TEXT_BLOCKS[first]):
                self._warn(line, f"{first} block is never closed")
        elif first in ("title", "header", "footer", "legend", "sprite"):
            pass
        elif first == "note":
            self._note(line)
        elif _TOGETHER.fullmatch(text):
            self.class_evidence = True
            self._open_block("together", self.scope, line)
        else:
            self._declaration_or_link(line, text, arrow_error)

    def _declaration_or_link(self, line: SourceLine, text: str,
                             arrow_error: ArrowError | None) -> None:
        if m := CLASS_HEADER.fullmatch(text):
            keyword, rest = m.group(1), m.group("rest") or ""
            self._class(line, self._header(line, "class",
                                           lambda: parse_class_header(keyword, rest)))
        elif m := OBJECT_HEADER.fullmatch(text):
            self._object(line, m.group(1).lower(), m.group("rest") or "")
        elif m := LOLLIPOP_HEADER.fullmatch(text):
            rest = m.group("rest")
            self._element(line, "()", lambda: parse_lollipop_header(rest), ClassKind.INTERFACE)
        elif m := DIAMOND_HEADER.fullmatch(text):
            name = m.group("name")
            self._element(line, "<>", lambda: ElementHeader(name, "", "diamond", False),
                          ClassKind.CLASS)
        elif (m := PACKAGE_HEADER.fullmatch(text)) and (
                m.group(1).lower() in ("package", "namespace") or text.endswith("{")):
            self._package(line, m.group(1).lower(), m.group("rest") or "")
        elif m := MIXING_HEADER.fullmatch(text):
            self._mixing(line, m.group(1).lower(), m.group("rest"))
        elif m := _ADD_STEREOTYPE.fullmatch(text):
            self.class_evidence = True
            draft = self._class_named(m.group("name"), line)
            draft.stereotype = stereotypes_in(m.group("stereo")) or draft.stereotype
        else:
            self._not_a_declaration(line, arrow_error)

    def _header(self, line: SourceLine, what: str, read: Callable[[], _Header]) -> _Header:
        """A declaration header read by ``read``; its DeclarationError names the line."""
        try:
            return read()
        except DeclarationError as error:
            raise self._error(line, f"cannot read the {what} declaration: {error}") from None

    def _skip_braces(self, line: SourceLine, what: str) -> None:
        depth = 1
        while depth and (nxt := self._next_line()) is not None:
            depth += nxt.text.count("{") - nxt.text.count("}")
        if depth:
            self._warn(line, f"{what} is never closed")

    def _class_named(self, token: str, line: SourceLine) -> ClassDraft:
        return self.model.class_for(token.strip('"'), line.number, self.scope)

    # -- classes -------------------------------------------------------------------------

    def _class(self, line: SourceLine, header: ClassHeader) -> None:
        if header.keyword != "entity":
            self.class_evidence = True  # `entity X` alone is a sequence participant
        elif self.other_diagram is None:
            self.other_diagram = line
        draft = self.model.class_for(header.name, line.number, self.scope, declaration=True)
        self.model.declare(draft, kind=header.kind, stereotype=header.stereotype,
                           display=header.display, scope=self.scope, line=line.number)
        for parent in header.extends:
            target = self.model.class_for(parent, line.number, self.scope,
                                          kind=self._parent_kind(header.kind))
            self.model.add_relation(_GE, draft.key, target.key, line.number)
        for interface in header.implements:
            target = self.model.class_for(interface, line.number, self.scope,
                                          kind=ClassKind.INTERFACE)
            self.model.add_relation(_RE, draft.key, target.key, line.number)
        if header.opens_body or (not header.closes_body and self._brace_follows()):
            self._body(draft, line)

    @staticmethod
    def _parent_kind(kind: ClassKind) -> ClassKind:
        return ClassKind.INTERFACE if kind is ClassKind.INTERFACE else ClassKind.CLASS

    def _brace_follows(self) -> bool:
        """PlantUML accepts the brace on the very next line (not after a blank one)."""
        if self.pos < len(self.lines) and self.lines[self.pos].text == "{":
            self.pos += 1
            return True
        return False

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

    # -- objects, maps, json, lollipops, diamonds, mixed-in elements -------------------------

    def _object(self, line: SourceLine, keyword: str, rest: str) -> None:
        header = self._header(line, keyword, lambda: parse_object_header(keyword, rest))
        self.class_evidence = True
        draft = self._declare_element(header, line, ClassKind.CLASS)
        if not header.opens_body:
            return
        if keyword == "json":
            self._skip_braces(line, "json body")
            return
        bad_entry: SourceLine | None = None
        while (body_line := self._next_line()) is not None:
            if body_line.text == "}":
                if bad_entry is not None:
                    # PlantUML reports a multi-line command's error at its last line.
                    raise self._error(body_line, "a map entry is 'key => value' or 'key "
                                      f"*--> Class' (line {bad_entry.number})")
                return
            if not body_line.text:
                continue
            if keyword == "map":
                if not self._map_entry(draft, body_line) and bad_entry is None:
                    bad_entry = body_line
            else:
                self._add_members(draft, body_line, body_line.text, False)
        raise self._error(line, f"{keyword} body '{{' is never closed (missing '}}')")

    def _map_entry(self, draft: ClassDraft, line: SourceLine) -> bool:
        entry = _MAP_ENTRY.fullmatch(line.text)
        if entry is not None:
            self._add_members(draft, line, entry.group("key"), False)
            return True
        key, _, link = line.text.partition(" ")
        try:
            relation = parse_relation(f"{draft.key} {link.strip()}") if link else None
        except ArrowError:
            relation = None
        if relation is None:
            return False
        self._add_members(draft, line, key, False)
        self._relation(relation, line)
        return True

    def _element(self, line: SourceLine, what: str, read: Callable[[], ElementHeader],
                 kind: ClassKind) -> None:
        header = self._header(line, what, read)
        self.class_evidence = True
        self._declare_element(header, line, kind)

    def _declare_element(self, header: ElementHeader, line: SourceLine,
                         kind: ClassKind) -> ClassDraft:
        draft = self.model.class_for(header.name, line.number, self.scope, declaration=True)
        self.model.declare(draft, kind=kind, stereotype=header.stereotype,
                           display=header.display, scope=self.scope, line=line.number)
        return draft

    def _mixing(self, line: SourceLine, keyword: str, rest: str) -> None:
        if not self.allow_mixing:
            if self.other_diagram is None:
                self.other_diagram = line
            self._warn(line, f"'{keyword}' is not part of a class diagram (PlantUML needs "
                       "'allowmixing' first); ignored")
            return
        header = self._header(line, keyword, lambda: parse_mixing_header(keyword, rest))
        self._declare_element(header, line, ClassKind.CLASS)

    # -- packages ------------------------------------------------------------------------

    def _package(self, line: SourceLine, keyword: str, rest: str) -> None:
        header = self._header(line, keyword, lambda: parse_package_header(keyword, rest))
        self.class_evidence = True
        names = self.model.names
        segment = names.package_path(header.name)
        path = f"{self.scope.path}.{segment}" if self.scope.path else segment
        code = header.alias or header.name
        existing = self.model.names.find(code, self.scope)
        if existing is not None and existing == code:
            # PlantUML turns a class of that name into the package (it is drawn no more).
            self.model.turn_into_group(existing)
        self.model.add_group(header.name, path)
        if header.alias:
            self.model.add_group(header.alias, path)
            names.group_paths[header.alias] = path
        kind = keyword if keyword in ("package", "namespace") else "container"
        if header.opens_body or (not header.closes_body and self._brace_follows()):
            # Packages and namespaces scope names alike (PlantUML 1.2026, _names.py).
            self._open_block(kind, Scope(path), line)
        elif not header.closes_body:
            self._warn(line, f"{keyword} without a '{{ … }}' body; ignored")

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
            if not self.model.links:
                raise self._error(line, "a note on link needs a link on an earlier line")
            if m.group("text") is None:
                self._note_text(line)
        elif m := _NOTE_OF.fullmatch(text):
            # `note of A::x` is no note of A to PlantUML 1.2026 ("Not known: A::x").
            target_token = m.group("target").strip('"')
            if text.lower().split()[1] in ("top", "bottom"):
                self.class_evidence = True
            elif self.other_diagram is None:
                self.other_diagram = line  # `note left of X : …` is sequence syntax too
            if not m.group("target").startswith('"') and self.model.is_group(target_token,
                                                                             self.scope):
                self.model.add_group_note(self._inline_or_block(m.group("text"), line),
                                          target_token, line.number)
                return
            unknown = self.class_evidence and not self.model.is_class(target_token,
                                                                      self.scope)
            target = self.model.class_for(target_token, line.number, self.scope).key
            self.model.add_note(self._inline_or_block(m.group("text"), line), target,
                                line.number)
            if unknown:
                # PlantUML 1.2026 fails here ("Not known: X", on the note's last line);
                # 1.2022.6 made X, as we still do, so that the diagram can be graded.
                self._warn(self.lines[self.pos - 1], f"note of '{target_token}', which is "
                           "no class or package yet: PlantUML rejects this, declare it first")
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

    # -- `Name : member`, links and what is left ------------------------------------------

    def _not_a_declaration(self, line: SourceLine, arrow_error: ArrowError | None) -> None:
        """A line that is no link (``_statement`` tried) and no keyword statement."""
        if arrow_error is not None:
            # Deferred: if the whole text turns out to be a sequence diagram, that is the
            # error to report, not this line's unreadable (sequence) arrow.
            if self.deferred is None:
                self.deferred = self._error(line, str(arrow_error))
            if self.other_diagram is None:
                self.other_diagram = line
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
        member = match.group("member")
        if not member.strip():
            raise self._error(line, "nothing after ':' (expected a member)")
        self.class_evidence = True
        draft = self._class_named(match.group("name"), line)
        self._add_members(draft, line, member, draft.kind is ClassKind.ENUM)

    def _relation(self, syntax: RelationSyntax, line: SourceLine) -> None:
        if syntax.sequence_like:
            if self.other_diagram is None:
                self.other_diagram = line
        else:
            self.class_evidence = True
        try:
            message = self.model.link(syntax, line.number, self.scope)
        except BuildError as error:
            raise self._error(line, str(error)) from None
        if message:
            self._warn(line, message)

