"""Shared output helpers for CLI commands: JSON to stdout, progress to stderr."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cluestudio.core.jobs import PhaseClock, Progress

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
    """A one-line progress display on stderr (overwritten in place on a terminal): n/N, the
    step's message, its phase and the time, from the window's :class:`PhaseClock` (one per
    job: a count that goes back starts another)."""
    global _line_clock
    if _line_clock is None or progress.done < _line_clock.done:
        _line_clock = PhaseClock()
    _line_clock.step(progress)
    line = _line_clock.log_line(time.monotonic())
    end = "\r" if sys.stderr.isatty() else "\n"
    sys.stderr.write(line[:120] + end)
    sys.stderr.flush()


_line_clock: PhaseClock | None = None


class ProgressBar:
    """A progress display for long batches: on a terminal a bar and the window's text for
    the job (its phase, n/N and an ETA, from :class:`PhaseClock`), redrawn at most ten times
    a second; in a log (no terminal) one line per 10 %."""

    def __init__(self, stream: Any = None, width: int = 24, label: str = "",
                 now: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = width
        self.label = label
        self.now = now
        self.clock = PhaseClock()
        self._last_draw = 0.0
        self._last_tenth = -1
        self._drawn = False

    def __call__(self, progress: Progress) -> None:
        now = self.now()
        self.clock.step(progress, now)
        fraction = progress.fraction
        if self.tty:
            finished = fraction is not None and fraction >= 1.0
            if now - self._last_draw < 0.1 and not finished:
                return
            self._last_draw = now
            self.stream.write("\r" + self.line(progress, now)[:119].ljust(119))
            self._drawn = True
        else:
            tenth = int((fraction or 0.0) * 10)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(self.line(progress, now) + "\n")
        self.stream.flush()

    def line(self, progress: Progress, now: float) -> str:
        """The bar (when the amount of work is known) and the clock's text."""
        text = self.clock.text(self.label, now)
        fraction = progress.fraction
        if fraction is None:
            return text
        filled = int(fraction * self.width)
        return f"[{'█' * filled}{'·' * (self.width - filled)}] {text}"

    def close(self) -> None:
        """End the bar's line, so what follows starts on a line of its own."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def say_if_large(image: Path) -> None:
    """On stderr, before a long silence: the image is large and OCR will take a while."""
    from cluestudio.app.input_files import image_size, large_image_note

    note = large_image_note(*image_size(image))
    if note:
        print(f"{image}{note}", file=sys.stderr)
