"""Ask PlantUML itself whether a text is a valid diagram: ``java -jar plantuml.jar -syntax``.

PlantUML answers with the diagram type and a count (``CLASS`` / ``(N entities)``, where N
counts classes, interfaces, enums and notes, not packages) or with ``ERROR``, a line index and
a message. The index counts from the ``@startuml`` line (index 0), so we turn it into the
1-based line of the text we were given. One JVM per call costs about a second;
:func:`check_syntax_many` checks many texts in one JVM.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from cluestudio.core.errors import RenderError, RenderTimeout
from cluestudio.core.plantuml import runtime
from cluestudio.core.plantuml._lines import split_lines

__all__ = ["SyntaxReport", "check_syntax", "check_syntax_many"]

_COUNT = re.compile(r"\((\d+) \w+\)")
_START = re.compile(r"\s*@start", re.IGNORECASE)
_END = re.compile(r"\s*@end", re.IGNORECASE)


@dataclass(frozen=True)
class SyntaxReport:
    diagram_type: str  # "CLASS", "SEQUENCE", …, "ERROR", or "NONE" when no diagram was found
    entities: int | None  # PlantUML's count for a valid diagram
    error_line: int | None  # 1-based line of the text checked, for "ERROR"
    message: str

    @property
    def ok(self) -> bool:
        return self.diagram_type not in ("ERROR", "NONE")


def check_syntax(text: str, timeout_s: float = 30) -> SyntaxReport:
    """PlantUML's verdict on ``text`` (one JVM; raises RenderTimeout after ``timeout_s``)."""
    stdout = _run(text, timeout_s)
    reports = _read_reports(stdout.splitlines())
    if not reports:
        return SyntaxReport("NONE", None, None, "no diagram found")
    return _with_text_line(reports[0], text)


def check_syntax_many(texts: Sequence[str], timeout_s: float = 120) -> list[SyntaxReport]:
    """One report per text, all checked in a single JVM (each text must hold one diagram)."""
    if not texts:
        return []
    blocks = [_one_block(text) for text in texts]
    stdout = _run("".join(blocks), timeout_s)
    reports = _read_reports(stdout.splitlines())
    if len(reports) != len(texts):
        raise RenderError(
            f"PlantUML answered {len(reports)} reports for {len(texts)} diagrams: {stdout!r}")
    # Each block starts with its own @startuml, so the index is relative to that line.
    return [_with_text_line(report, text) for report, text in zip(reports, texts, strict=True)]


def _one_block(text: str) -> str:
    lines = text.splitlines()
    if not any(_START.match(line) for line in lines):
        lines = ["@startuml", *lines]
    if not any(_END.match(line) for line in lines):
        lines.append("@enduml")
    return "\n".join(lines) + "\n"


def _run(text: str, timeout_s: float) -> str:
    command = runtime.base_command("-syntax")
    try:
        completed = subprocess.run(command, input=text.encode("utf-8"), capture_output=True,
                                   timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as error:
        raise RenderTimeout(f"PlantUML syntax check took longer than {timeout_s:g} s") \
            from error
    except OSError as error:
        raise RenderError(f"cannot start PlantUML: {error}") from error
    return completed.stdout.decode("utf-8", errors="replace")


def _read_reports(lines: list[str]) -> list[SyntaxReport]:
    reports: list[SyntaxReport] = []
    index = 0
    while index < len(lines):
        kind = lines[index].strip()
        if not kind:
            index += 1
            continue
        if kind == "ERROR":
            raw_index = lines[index + 1].strip() if index + 1 < len(lines) else ""
            message = lines[index + 2].strip() if index + 2 < len(lines) else ""
            line = int(raw_index) if raw_index.isdigit() else None
            reports.append(SyntaxReport("ERROR", None, line, message))
            index += 3
            continue
        detail = lines[index + 1].strip() if index + 1 < len(lines) else ""
        match = _COUNT.search(detail)
        reports.append(SyntaxReport(kind, int(match.group(1)) if match else None, None, detail))
        index += 2
    return reports


def _with_text_line(report: SyntaxReport, text: str) -> SyntaxReport:
    """Turn PlantUML's index (0 = the @startuml line) into a 1-based line of ``text``."""
    if report.error_line is None:
        return report
    start = 0  # without @startuml PlantUML counts from an implicit one before line 1
    for number, line in enumerate(split_lines(text), start=1):
        if _START.match(line):
            start = number
            break
    return SyntaxReport(report.diagram_type, report.entities,
                        max(1, start + report.error_line), report.message)
