"""The lines of one PlantUML diagram: the ``@startuml`` block cut out, comments removed.

Line numbers stay those of the original text (1-based), so every later message points at
the line a user sees in an editor. Every step is one pass over the text: no line is ever
sliced again and again, so a hostile megabyte of comment markers costs what reading it costs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cluestudio.core.errors import PlantUMLSyntaxError

_Numbering = Callable[[int], int]


@dataclass(frozen=True, slots=True)
class ParseWarning:
    """A line the parser read past: its 1-based number, its text and why."""

    line: int
    text: str
    message: str


@dataclass(frozen=True, slots=True)
class SourceLine:
    number: int  # 1-based, in the user's text
    text: str  # comments removed, surrounding whitespace stripped
    raw: str  # the line as written, for messages


# Java's line reader (PlantUML's) splits on these three only; str.splitlines() would also
# split on form feeds and U+2028 and shift every later line number.
_NEWLINE = re.compile(r"\r\n|\r|\n")
_START = re.compile(r"@start(\w*)", re.IGNORECASE)
_END = re.compile(r"@end\w*", re.IGNORECASE)


def split_lines(text: str) -> list[str]:
    return _NEWLINE.split(text.removeprefix("\ufeff"))


def diagram_lines(
    text: str, source: str | None = None, origins: Sequence[int] | None = None
) -> tuple[list[SourceLine], list[ParseWarning]]:
    """The significant lines of the first diagram in ``text`` plus warnings for text outside it.

    ``@startuml``/``@enduml`` are optional; another ``@start…`` tag (mindmap, gantt, …) is not
    a class diagram and raises :class:`PlantUMLSyntaxError`. ``origins`` maps each line of
    ``text`` to the line of the user's text it came from (after preprocessing); without it
    line *i* is line *i*.
    """
    raw_lines = split_lines(text)

    def number(index: int) -> int:
        if origins is None or index >= len(origins):
            return index + 1
        return origins[index]

    warnings: list[ParseWarning] = []
    begin, end = 0, len(raw_lines)
    for index, raw in enumerate(raw_lines):
        match = _START.match(raw.strip())
        if match:
            if match.group(1).lower() != "uml":
                raise PlantUMLSyntaxError(
                    f"@start{match.group(1)} is not a class diagram (expected @startuml)",
                    line=number(index), text=raw, source=source)
            _warn_outside(raw_lines, 0, index, number, warnings,
                          "text before @startuml is ignored")
            begin = index + 1
            break
    for index in range(begin, len(raw_lines)):
        if _END.match(raw_lines[index].strip()):
            end = index
            _warn_outside(raw_lines, index + 1, len(raw_lines), number, warnings,
                          "text after @enduml is ignored (only the first diagram is read)")
            break
    return _strip_comments(raw_lines, begin, end, number, warnings), warnings


def _warn_outside(raw_lines: list[str], start: int, stop: int, number: _Numbering,
                  warnings: list[ParseWarning], message: str) -> None:
    # One warning for the whole stretch: a Markdown fence around the diagram is common in
    # LLM output and should not flood the reviewer with one warning per line.
    for index in range(start, stop):
        if raw_lines[index].strip():
            warnings.append(ParseWarning(number(index), raw_lines[index], message))
            return


def strip_inline_comment(text: str) -> str:
    """PlantUML 1.2022.6 removes one ``/' … '/`` from a line; a second one stays (an error)."""
    opening = text.find("/'")
    if opening < 0:
        return text
    closing = text.find("'/", opening + 2)
    if closing < 0:
        return text
    return text[:opening] + text[closing + 2:]


def _strip_comments(raw_lines: list[str], begin: int, end: int, number: _Numbering,
                    warnings: list[ParseWarning]) -> list[SourceLine]:
    """Comment lines out, as PlantUML's preprocessor reads them.

    A line whose text starts with ``'`` is a comment. A line that starts with ``/'`` and
    ends with ``'/`` is one too; one that starts with ``/'`` and holds no ``'/`` opens a
    block that the first line *ending* with ``'/`` closes (text after a ``'/`` in the
    middle of a line does not end it). Elsewhere one inline ``/' … '/`` is removed.
    """
    lines: list[SourceLine] = []
    block_start: int | None = None
    for index in range(begin, end):
        raw = raw_lines[index]
        stripped = raw.strip()
        if block_start is not None:
            if stripped.endswith("'/"):
                block_start = None
            continue
        if stripped.startswith("'"):
            continue
        if stripped.startswith("/'"):
            if len(stripped) >= 4 and stripped.endswith("'/"):
                continue
            if stripped.find("'/", 2) < 0:
                block_start = index
                continue
        if "/'" in stripped:
            stripped = strip_inline_comment(stripped).strip()
            if not stripped:
                continue
        # Blank lines stay (with empty text): they matter inside notes and between a class
        # header and a `{` on the next line.
        lines.append(SourceLine(number(index), stripped, raw))
    if block_start is not None:
        warnings.append(ParseWarning(number(block_start), raw_lines[block_start],
                                     "block comment /' … '/ is never closed"))
    return lines
