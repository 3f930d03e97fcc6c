"""Errors that name the file and line, so a user can go straight to the problem."""

from __future__ import annotations


class ClueStudioError(Exception):
    """Base of every error ClueStudio raises on purpose (the CLI prints these, no traceback)."""


class SourceError(ClueStudioError):
    """An error in some input text, with its 1-based line number and the offending text."""

    def __init__(self, message: str, *, line: int | None = None, text: str = "",
                 source: str | None = None) -> None:
        self.message = message
        self.line = line
        self.text = text
        self.source = source
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        detail = f": {self.text.strip()!r}" if self.text.strip() else ""
        return f"{where}: {self.message}{detail}"


class PlantUMLSyntaxError(SourceError):
    """PlantUML text that is not a class diagram we (or PlantUML) can read."""


class RenderError(SourceError):
    """PlantUML refused or failed to render a diagram (message and line from PlantUML)."""


class RendererUnavailable(RenderError):
    """No PlantUML could run at all (no Java, no jar, the JVM did not start): not the diagram's
    fault, so callers that only *check* diagrams may fall back instead of failing."""


class RenderTimeout(RenderError):
    """A diagram took longer than the per-diagram time limit to render."""
