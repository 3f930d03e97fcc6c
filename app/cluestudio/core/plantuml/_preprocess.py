"""PlantUML's own preprocessor (``!define``, ``!procedure``, ``!function``, ``!if``,
``$variables``) in front of the parser, with a map back to the user's line numbers.

Only texts with such directives go through it, so ordinary parsing never needs Java.
``!include`` and ``!import`` are never followed: the lines are blanked and warned about
before PlantUML sees the text (it runs with the sandbox profile as well), so nothing
outside the text itself is ever read.

The expansion itself is a callable ``expand(text) -> (lines, origins)``: ``lines`` are the
expanded lines, ``origins[i]`` the 1-based line of ``text`` that ``lines[i]`` came from, and
a :class:`~cluestudio.core.errors.SourceError` (with ``.line``) when PlantUML's
preprocessor fails. :func:`expand_with_jvm` starts one JVM per call (``-preproc``), until
the warm renderer offers the same on its JVM.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cluestudio.core.errors import PlantUMLSyntaxError, RenderError, SourceError
from cluestudio.core.plantuml._lines import ParseWarning, split_lines

Expand = Callable[[str], tuple[list[str], list[int]]]

# A directive is a line starting with `!`, except the two the parser reads itself and the
# file inclusions that are never followed.
_DIRECTIVE = re.compile(r"\s*+!\s*+(?P<word>\$?+[^\W\d]\w*+)", re.IGNORECASE)
_PASSIVE = frozenset({"pragma", "theme"})
INCLUSION = re.compile(r"\s*+!\s*+(?:include\w*+|import)\b", re.IGNORECASE)
# Bodies whose lines must stay as written: a marker line inside would be replayed at every
# call (or, in a function, be an error).
_DEFINITION_START = re.compile(
    r"\s*+!\s*+(?:unquoted\s++)?+(?:procedure|function)\b|\s*+!\s*+definelong\b", re.IGNORECASE)
_DEFINITION_END = re.compile(r"\s*+!\s*+(?:endprocedure|endfunction|enddefinelong)\b",
                             re.IGNORECASE)
_START = re.compile(r"\s*+@start", re.IGNORECASE)
_END = re.compile(r"\s*+@end", re.IGNORECASE)
PREPROCESS_TIMEOUT = 60.0


@dataclass(frozen=True)
class Preprocessed:
    text: str  # the expanded text, one line per entry of ``origins``
    origins: list[int]  # 1-based line of the user's text for each expanded line
    warnings: list[ParseWarning]


def needs_preprocessor(text: str) -> bool:
    """Whether ``text`` holds a directive only PlantUML's preprocessor can expand."""
    for line in split_lines(text):
        match = _DIRECTIVE.match(line)
        if match is None or INCLUSION.match(line):
            continue
        if match.group("word").lower() not in _PASSIVE:
            return True
    return False


def preprocess(text: str, expand: Expand, source: str | None = None) -> Preprocessed:
    """``text`` expanded by ``expand``, with inclusions blanked and warned about."""
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
        raise PlantUMLSyntaxError(
            f"PlantUML's preprocessor: {error.message}", line=error.line,
            text=lines[error.line - 1] if error.line and error.line <= len(lines) else "",
            source=source) from error
    return Preprocessed("\n".join(expanded), list(origins), warnings)


# -- the temporary expander: one JVM per call ---------------------------------------------


def expand_with_jvm(text: str, timeout_s: float = PREPROCESS_TIMEOUT) -> tuple[list[str],
                                                                                list[int]]:
    """PlantUML's ``-preproc`` on ``text``; marker lines carry the user's line numbers.

    A random marker line goes before each user line (outside definition bodies); PlantUML
    copies it through, so every expanded line is known to come from the line of the marker
    above it.
    """
    result = expand_many_with_jvm([text], timeout_s)[0]
    if isinstance(result, SourceError):
        raise result
    return result


def expand_many_with_jvm(texts: list[str], timeout_s: float = PREPROCESS_TIMEOUT
                         ) -> list[tuple[list[str], list[int]] | SourceError]:
    """:func:`expand_with_jvm` for many texts in one JVM; an error is returned, not raised."""
    marker = f"cs{secrets.token_hex(8)}x"
    with tempfile.TemporaryDirectory(prefix="cluestudio-preproc-") as folder:
        sources = []
        for index, text in enumerate(texts):
            source = Path(folder) / f"d{index:05d}" / "diagram.puml"
            source.parent.mkdir()
            source.write_text(_with_markers(split_lines(text), marker), encoding="utf-8")
            sources.append(source)
        _run_jvm(["-preproc", "-charset", "UTF-8", *(str(s) for s in sources)],
                 timeout_s * max(1, len(texts) // 20 + 1), folder)
        outputs = []
        for source in sources:
            # PlantUML names the file after `@startuml name` when the diagram has one.
            written = sorted(source.parent.glob("*.preproc"))
            outputs.append(written[0].read_text(encoding="utf-8") if written else None)
    results: list[tuple[list[str], list[int]] | SourceError] = []
    for text, output in zip(texts, outputs, strict=True):
        if output is None:
            results.append(RenderError("PlantUML's preprocessor wrote nothing"))
            continue
        lines, origins = _unmark(split_lines(output), marker)
        if any(_END.match(line) for line in lines):
            results.append((lines, origins))
        else:
            # PlantUML stops copying at a preprocessor error; -syntax names the line.
            results.append(_preprocessor_error(text, origins[-1] if origins else 1))
    return results


def _with_markers(lines: list[str], marker: str) -> str:
    out: list[str] = []
    started = any(_START.match(line) for line in lines)
    if not started:
        out.append("@startuml")
    inside = not started
    in_definition = False
    for number, line in enumerate(lines, start=1):
        if _START.match(line):
            inside = True
        elif _END.match(line):
            inside = False
        elif inside and not in_definition and not (out and out[-1].rstrip().endswith("\\")):
            out.append(f"{marker}{number}")
        if _DEFINITION_START.match(line):
            in_definition = True
        elif _DEFINITION_END.match(line):
            in_definition = False
        out.append(line)
    if not any(_END.match(line) for line in lines):
        out.append("@enduml")
    return "\n".join(out) + "\n"


def _unmark(lines: list[str], marker: str) -> tuple[list[str], list[int]]:
    expanded: list[str] = []
    origins: list[int] = []
    origin = 1
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(marker) and stripped[len(marker):].isdigit():
            origin = int(stripped[len(marker):])
            continue
        expanded.append(line)
        origins.append(origin)
    return expanded, origins


def _run_jvm(arguments: list[str], timeout_s: float, folder: str) -> None:
    from cluestudio.core.plantuml import runtime

    command = runtime.base_command(*arguments)
    # %getenv() works even in the sandbox profile: the JVM sees only what it needs.
    env = {key: value for key, value in os.environ.items()
           if key.upper() in ("PATH", "SYSTEMROOT", "TEMP", "TMP", "TMPDIR", "HOME", "LANG")}
    env["PLANTUML_SECURITY_PROFILE"] = "SANDBOX"
    try:
        subprocess.run(command, capture_output=True, timeout=timeout_s, check=False,
                       cwd=folder, env=env)
    except subprocess.TimeoutExpired as error:
        raise RenderError(f"PlantUML's preprocessor took longer than {timeout_s:g} s") \
            from error
    except OSError as error:
        raise RenderError(f"cannot start PlantUML: {error}") from error


def _preprocessor_error(text: str, fallback_line: int) -> RenderError:
    from cluestudio.core.plantuml.syntax import check_syntax

    report = check_syntax(text)
    if report.diagram_type == "ERROR" and report.error_line is not None:
        return RenderError(report.message or "error", line=report.error_line)
    return RenderError("the preprocessor stopped before the end of the diagram",
                       line=fallback_line)
