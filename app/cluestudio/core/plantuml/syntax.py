"""Ask PlantUML itself whether a text is a valid diagram (what ``plantuml.jar -syntax`` says).

PlantUML answers with the diagram type and a count (``CLASS`` / ``(N entities)``, where N
counts classes, interfaces, enums and notes, not packages) or with ``ERROR``, the line and a
message. Both functions ask the warm renderer's JVM, so a check costs milliseconds, not the
second a JVM of its own would.
"""

from __future__ import annotations

from collections.abc import Sequence

from cluestudio.core.plantuml import renderer
from cluestudio.core.plantuml.syntax_report import SyntaxReport

__all__ = ["check_syntax", "check_syntax_many"]


def check_syntax(text: str, timeout_s: float = 30) -> SyntaxReport:
    """PlantUML's verdict on ``text`` (raises RenderTimeout after ``timeout_s``)."""
    return check_syntax_many([text], timeout_s)[0]


def check_syntax_many(texts: Sequence[str], timeout_s: float = 120) -> list[SyntaxReport]:
    """One report per text, each about the first diagram in it; ``timeout_s`` per text."""
    # Looked up on the module when asked, so a caller that swaps the shared renderer (a test
    # with a smaller JVM) is asked here too.
    shared = renderer.get_renderer()
    return [shared.check_syntax(text, timeout=timeout_s) for text in texts]
