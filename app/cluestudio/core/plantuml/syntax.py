"""Ask PlantUML itself whether a text is a valid diagram (what ``plantuml.jar -syntax`` says).

PlantUML answers with the diagram type and a count (``CLASS`` / ``(N entities)``, where N
counts classes, interfaces, enums and notes, not packages) or with ``ERROR``, the line and a
message. Both functions ask the warm renderer's JVM, so a check costs milliseconds, not the
second a JVM of its own would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SyntaxReport", "check_syntax", "check_syntax_many"]


@dataclass(frozen=True)
class SyntaxReport:
    diagram_type: str  # "CLASS", "SEQUENCE", …, "ERROR", or "OTHER" for a non-UML diagram
    entities: int | None  # PlantUML's count for a valid diagram
    error_line: int | None  # 1-based line of the text checked, for "ERROR"
    message: str

    @property
    def ok(self) -> bool:
        return self.diagram_type not in ("ERROR", "NONE")


def check_syntax(text: str, timeout_s: float = 30) -> SyntaxReport:
    """PlantUML's verdict on ``text`` (raises RenderTimeout after ``timeout_s``)."""
    return check_syntax_many([text], timeout_s)[0]


def check_syntax_many(texts: Sequence[str], timeout_s: float = 120) -> list[SyntaxReport]:
    """One report per text, each about the first diagram in it; ``timeout_s`` per text."""
    from cluestudio.core.plantuml.renderer import get_renderer

    renderer = get_renderer()
    return [renderer.check_syntax(text, timeout=timeout_s) for text in texts]
