"""PlantUML's own preprocessor (``!define``, ``!procedure``, ``!function``, ``!if``,
``$variables``) in front of the parser, with a map back to the user's line numbers.

Only texts with such directives go through it, so ordinary parsing never needs Java.
``!include`` and ``!import`` are never followed: the lines are blanked and warned about
before PlantUML sees the text (it runs with the sandbox profile as well), so nothing
outside the text itself is ever read.

The expansion itself is a callable ``expand(text) -> (lines, origins)``: ``lines`` are the
expanded lines, ``origins[i]`` the 1-based line of ``text`` that ``lines[i]`` came from, and
a :class:`~cluestudio.core.errors.SourceError` (with ``.line``) when PlantUML's
preprocessor fails. :func:`expand_with_renderer` is PlantUML's own, on the warm renderer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cluestudio.core.errors import PlantUMLSyntaxError, SourceError
from cluestudio.core.plantuml._lines import ParseWarning, split_lines

Expand = Callable[[str], tuple[list[str], list[int]]]

# A directive is a line starting with `!`, except the two the parser reads itself and the
# file inclusions that are never followed.
_DIRECTIVE = re.compile(r"\s*+!\s*+(?P<word>\$?+[^\W\d]\w*+)", re.IGNORECASE)
_PASSIVE = frozenset({"pragma", "theme"})
INCLUSION = re.compile(r"\s*+!\s*+(?:include\w*+|import)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Preprocessed:
    text: str  # the expanded text, one line per entry of ``origins``
    origins: list[int]  # 1-based line of the user's text for each expanded line
    warnings: list[ParseWarning]


def needs_preprocessor(text: str) -> bool:
    """Whether ``text`` holds a directive only PlantUML's preprocessor can expand."""
    return any(_directive(line) and not INCLUSION.match(line) for line in split_lines(text))


def preprocess(text: str, expand: Expand, source: str | None = None) -> Preprocessed:
    """``text`` expanded by ``expand``, with inclusions blanked and warned about.

    A preprocessor error at a line is a :class:`PlantUMLSyntaxError` there. When PlantUML
    cannot run at all (no Java, the text over the renderer's limit), the directives stay
    as they are, with a warning: the caller parses the text unexpanded.
    """
    lines = split_lines(text)
    warnings: list[ParseWarning] = []
    for index, line in enumerate(lines):
        if INCLUSION.match(line):
            warnings.append(ParseWarning(
                index + 1, line, "!include and !import are not followed (diagrams are read "
                "without other files); ignored"))
            lines[index] = ""
    try:
        expanded, origins = expand("\n".join(lines))
    except SourceError as error:
        if error.line is None:
            first = next(i for i, line in enumerate(lines, 1) if _directive(line))
            warnings.append(ParseWarning(first, lines[first - 1], "preprocessor directives "
                                         f"not expanded ({error.message}); read as written"))
            return Preprocessed("\n".join(lines), list(range(1, len(lines) + 1)), warnings)
        raise PlantUMLSyntaxError(
            f"PlantUML's preprocessor: {error.message}", line=error.line,
            text=lines[error.line - 1] if error.line <= len(lines) else "",
            source=source) from error
    return Preprocessed("\n".join(expanded), list(origins), warnings)


def _directive(line: str) -> bool:
    match = _DIRECTIVE.match(line)
    return match is not None and match.group("word").lower() not in _PASSIVE


def expand_with_renderer(text: str) -> tuple[list[str], list[int]]:
    """PlantUML's preprocessor on the warm renderer's JVM (milliseconds once it runs)."""
    from cluestudio.core.plantuml.renderer import get_renderer

    expanded = get_renderer().preprocess(text)
    return expanded.lines, expanded.origins
