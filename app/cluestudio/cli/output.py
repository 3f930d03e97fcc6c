"""Shared output helpers for CLI commands: JSON to stdout, progress to stderr."""

from __future__ import annotations

import json
import re
import sys
import time
from typing import Any

from cluestudio.core.jobs import Progress

#: C0 controls but tab and newline, DEL, and C1 controls (0x9b is a one-byte CSI).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe_text(text: object) -> str:
    """Text from someone else (a comment, a grader's name from a pack) for the terminal:
    control characters are shown escaped (``\\x1b``), so none can clear the screen, retitle
    the window or hide the lines around it (issue 25: nothing we write attacks the next
    program)."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


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


class ProgressBar:
    """A progress display for long batches: on a terminal a bar with n/N, the phase and an
    ETA, redrawn at most ten times a second; in a log (no terminal) one line per 10 %."""

    def __init__(self, stream: Any = None, width: int = 24) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = width
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._last_tenth = -1
        self._drawn = False

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        fraction = progress.fraction
        if self.tty:
            finished = fraction is not None and fraction >= 1.0
            if now - self._last_draw < 0.1 and not finished:
                return
            self._last_draw = now
            self.stream.write("\r" + self._line(progress, now)[:119].ljust(119))
            self._drawn = True
        else:
            tenth = int((fraction or 0.0) * 10)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(self._line(progress, now) + "\n")
        self.stream.flush()

    def _line(self, progress: Progress, now: float) -> str:
        fraction = progress.fraction
        if fraction is None:
            return f"{progress.done} {progress.message}".rstrip()
        filled = int(fraction * self.width)
        bar = "█" * filled + "·" * (self.width - filled)
        elapsed = now - self._started
        eta = ""
        if 0 < fraction < 1 and elapsed > 1:
            eta = f" ETA {_duration(elapsed / fraction - elapsed)}"
        return f"[{bar}] {progress.done}/{progress.total}{eta} {progress.message}".rstrip()

    def close(self) -> None:
        """End the bar's line, so what follows starts on a line of its own."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
