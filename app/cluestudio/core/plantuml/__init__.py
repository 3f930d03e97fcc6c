"""PlantUML: the class-diagram parser and writer, and the renderer service (the real jar)."""

from cluestudio.core.plantuml._lines import SourceLine, diagram_lines
from cluestudio.core.plantuml.parser import (
    ParseResult,
    ParseWarning,
    parse_file,
    parse_plantuml,
)
from cluestudio.core.plantuml.writer import write_plantuml

__all__ = ["ParseResult", "ParseWarning", "SourceLine", "diagram_lines", "parse_file",
           "parse_plantuml", "write_plantuml"]
