"""Shared output helpers for CLI commands: JSON to stdout, progress to stderr."""

from __future__ import annotations

import json
import sys
from typing import Any

from cluestudio.core.jobs import Progress


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def stderr_progress(progress: Progress) -> None:
    """A one-line progress display on stderr (overwritten in place on a terminal)."""
    total = f"/{progress.total}" if progress.total else ""
    line = f"{progress.done}{total} {progress.message}".rstrip()
    end = "\r" if sys.stderr.isatty() else "\n"
    sys.stderr.write(line[:120] + end)
    sys.stderr.flush()
