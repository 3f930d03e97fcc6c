"""The lines of one PlantUML diagram: the ``@startuml`` block cut out, comments removed.

Line numbers stay those of the original text (1-based), so every later message points at
the line a user sees in an editor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.errors import PlantUMLSyntaxError


@dataclass(frozen=True)
class ParseWarning:
    """A line the parser read past: its 1-based number, its text and why."""

    line: int
    text: str
    message: str


@dataclass(frozen=True)
class SourceLine:
    number: int  # 1-based, in the original text
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
    text: str, source: str | None = None
) -> tuple[list[SourceLine], list[ParseWarning]]:
    """The significant lines of the first diagram in ``text`` plus warnings for text outside it.

    ``@startuml``/``@enduml`` are optional; another ``@start…`` tag (mindmap, gantt, …) is not
    a class diagram and raises :class:`PlantUMLSyntaxError`.
    """
    raw_lines = split_lines(text)
    warnings: list[ParseWarning] = []
    begin, end = 0, len(raw_lines)
    for index, raw in enumerate(raw_lines):
        match = _START.match(raw.strip())
        if match:
            if match.group(1).lower() != "uml":
                raise PlantUMLSyntaxError(
                    f"@start{match.group(1)} is not a class diagram (expected @startuml)",
                    line=index + 1, text=raw, source=source)
            _warn_outside(raw_lines, 0, index, warnings, "text before @startuml is ignored")
            begin = index + 1
            break
    for index in range(begin, len(raw_lines)):
        if _END.match(raw_lines[index].strip()):
            end = index
            _warn_outside(raw_lines, index + 1, len(raw_lines), warnings,
                          "text after @enduml is ignored (only the first diagram is read)")
            break
    return _strip_comments(raw_lines, begin, end, warnings), warnings


def _warn_outside(raw_lines: list[str], start: int, stop: int,
                  warnings: list[ParseWarning], message: str) -> None:
    # One warning for the whole stretch: a Markdown fence around the diagram is common in
    # LLM output and should not flood the reviewer with one warning per line.
    for index in range(start, stop):
        if raw_lines[index].strip():
            warnings.append(ParseWarning(index + 1, raw_lines[index], message))
            return


def _strip_comments(raw_lines: list[str], begin: int, end: int,
                    warnings: list[ParseWarning]) -> list[SourceLine]:
    lines: list[SourceLine] = []
    in_block = False
    block_start = 0
    for index in range(begin, end):
        raw = raw_lines[index]
        rest = raw
        kept: list[str] = []
        while rest:
            if in_block:
                close = rest.find("'/")
                if close < 0:
                    rest = ""
                    break
                rest = rest[close + 2:]
                in_block = False
            else:
                opening = rest.find("/'")
                if opening < 0:
                    kept.append(rest)
                    break
                kept.append(rest[:opening])
                rest = rest[opening + 2:]
                in_block = True
                block_start = index + 1
        stripped = "".join(kept).strip()
        # A quote starts a comment only at the beginning of a line (PlantUML reads
        # `class A ' note` as an error, not as a trailing comment).
        if stripped.startswith("'") or (not stripped and raw.strip()):
            continue
        # Blank lines stay (with empty text): they matter inside notes and between a class
        # header and a `{` on the next line.
        lines.append(SourceLine(index + 1, stripped, raw))
    if in_block:
        warnings.append(ParseWarning(block_start, raw_lines[block_start - 1],
                                     "block comment /' … '/ is never closed"))
    return lines
