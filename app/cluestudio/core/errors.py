"""Errors that name the file and line, so a user can go straight to the problem."""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path


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


def describe_failure(error: BaseException, workspace: object = None) -> str | None:
    """One line for an error that comes from the world rather than from a bug — a full or
    failing disk, a damaged workspace file, a file that cannot be read, no memory left —
    naming the file; None for anything else (a bug, which keeps its traceback).
    ``workspace`` names the workspace file for database errors, when known."""
    where = f"{workspace}: " if workspace else ""
    if isinstance(error, sqlite3.DatabaseError):
        # One line, and short: SQLite quotes what it could not read, which may be a whole
        # (damaged) table definition.
        text = " ".join(str(error).split())
        text = text if len(text) <= 200 else text[:200] + "…"
        if "full" in text or ("I/O" in text and _disk_full(workspace)):
            return (f"{where}the disk is full; nothing of this operation was saved "
                    "(free some space and try again)")
        if "locked" in text or "busy" in text:
            return f"{where}the workspace is busy (another program is writing it); try again"
        # Text that is not UTF-8 where only our code writes text: damaged or hand-edited.
        if (isinstance(error, sqlite3.OperationalError) and "I/O" not in text
                and "Could not decode" not in text):
            return None  # a bad query is a bug, not a damaged file
        return (f"{where}the workspace file is damaged or unreadable ({text}); nothing was "
                "changed. `sqlite3 FILE .recover | sqlite3 RESCUED.sqlite` can often save "
                "what it holds")
    if isinstance(error, OSError):
        name = error.filename or workspace or "<file>"
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return f"{name}: the disk is full ({error.strerror}); nothing was written"
        return f"{name}: {error.strerror or error}"
    if isinstance(error, MemoryError):
        return f"{where}out of memory"
    return None


def _disk_full(path: object) -> bool:
    """Whether the disk holding ``path`` has (almost) no room left: SQLite reports a full disk
    as an I/O error when it cannot even grow its WAL index."""
    if not path:
        return False
    try:
        return shutil.disk_usage(Path(str(path)).resolve().parent).free < (1 << 20)
    except OSError:
        return False
