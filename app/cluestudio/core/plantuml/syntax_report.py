"""What PlantUML says of a text (``plantuml.jar -syntax``): the record the renderer makes and
:mod:`cluestudio.core.plantuml.syntax` hands out. Its own module, so the renderer that makes
it and the module that asks the renderer both import it from below (issue 26, ADR 0014)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SyntaxReport"]


@dataclass(frozen=True)
class SyntaxReport:
    diagram_type: str  # "CLASS", "SEQUENCE", …, "ERROR", or "OTHER" for a non-UML diagram
    entities: int | None  # PlantUML's count for a valid diagram
    error_line: int | None  # 1-based line of the text checked, for "ERROR"
    message: str

    @property
    def ok(self) -> bool:
        return self.diagram_type not in ("ERROR", "NONE")
