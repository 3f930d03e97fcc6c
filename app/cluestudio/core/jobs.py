"""Long work as plain generators: yield :class:`Progress`, return the result, honour cancel.

The same job function runs on the GUI worker thread (which turns each ``Progress`` into a
signal) and in the CLI (which prints a progress line); neither knows about the other.

    def score_pairs(pairs, cancel: CancelToken) -> Job[list[float]]:
        out = []
        for i, pair in enumerate(pairs):
            cancel.raise_if_cancelled()
            out.append(score(pair))
            yield Progress(i + 1, len(pairs), pair.name, phase="scoring pairs")
        return out

    result = run_job(score_pairs(pairs, CancelToken()), on_progress=print)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from cluestudio.core.errors import ClueStudioError

R = TypeVar("R")


@dataclass(frozen=True)
class Progress:
    """One step of a job: ``done`` of ``total`` over the whole job, what it did last
    (``message``) and what it is doing now (``phase``: "loading the embedder", "scoring",
    "storing"). One object serves the terminal and the window (as napari's ``progress``
    does): both show it through :class:`PhaseClock`."""

    done: int
    total: int | None = None  # None when the amount of work is not known in advance
    message: str = ""
    phase: str = ""

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


Job = Generator[Progress, None, R]


@dataclass(frozen=True)
class SubmissionOutcome:
    """What a workspace batch job (convert, probe, check) did with one submission; each job's
    outcome adds what it measured and extends :meth:`to_dict`."""

    submission_id: int
    task_id: str
    source_id: str
    status: str
    reason: str = ""

    @property
    def label(self) -> str:
        return f"#{self.submission_id} {self.task_id}/{self.source_id}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"submission_id": self.submission_id, "task_id": self.task_id,
                               "source_id": self.source_id, "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        return out


class Cancelled(ClueStudioError):
    """Raised inside a job when its :class:`CancelToken` was cancelled."""


class CancelToken:
    """A thread-safe flag a job checks between units of work."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("cancelled")


def run_job(job: Job[R], on_progress: Callable[[Progress], None] | None = None, *,
            cancel: CancelToken | None = None, every_s: float = 0.0,
            moves_pass: bool = False) -> R:
    """Drive ``job`` to the end and return its result (the generator's return value): the
    one job loop, for the CLI, the window's worker threads and the worker process alike.

    ``cancel`` is checked before each step. With ``every_s`` a step that comes sooner than
    that after the last one reported is dropped, unless it ends a count (``done ==
    total``) or, with ``moves_pass``, moves it (each report may be a repaint in the
    window). Whatever is yielded that is not a :class:`Progress` is ignored."""
    last, last_done = float("-inf"), 0
    while True:
        if cancel is not None:
            cancel.raise_if_cancelled()
        try:
            step = next(job)
        except StopIteration as stop:
            return stop.value
        if on_progress is None or not isinstance(step, Progress):
            continue
        if every_s > 0:
            now = time.monotonic()
            ends = step.total is not None and step.done >= step.total
            if (now - last < every_s and not ends
                    and not (moves_pass and step.done != last_done)):
                continue
            last, last_done = now, step.done
        on_progress(step)


def within(job: Job[R], done: int, total: int | None, prefix: str = "") -> Job[R]:
    """Run a sub-job as one phase of a larger one: its steps become messages of the outer
    job's progress (``done`` of ``total``, ``prefix`` + the step's message); its value is
    returned."""
    while True:
        try:
            step = next(job)
        except StopIteration as stop:
            return stop.value
        if isinstance(step, Progress):
            yield Progress(done, total, f"{prefix}{step.message}", step.phase)


def duration(seconds: float) -> str:
    """``42 s``, ``3:07 min``, ``1:05 h``: the one spelling of a time span for progress."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}:{seconds:02d} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d} h"


@dataclass
class PhaseClock:
    """Progress of one job and the one text to show for it, in the window's status bar and
    on the CLI's stderr alike: what it does now (its phase and last message), n/N over the
    whole job, and the time so far or, once a rate is known, about how long it has left.
    The time counts from the job's start, not the phase's (issue 24); the rate from the
    first counted step, again whenever the job starts another count (a new total or a count
    that goes back)."""

    phase: str = ""
    started: float | None = None
    first_done: int = 0
    counted_from: float = 0.0
    done: int = 0
    total: int | None = None
    message: str = ""

    def update(self, done: int, total: int | None, message: str, now: float,
               phase: str = "") -> None:
        if self.started is None:
            self.started = self.counted_from = now
        if total and (total != self.total or done < self.done):
            self.counted_from, self.first_done = now, done  # another count starts
        self.phase = phase
        self.done, self.total, self.message = done, total or None, message

    def step(self, progress: Progress, now: float | None = None) -> None:
        """Take one :class:`Progress` (at ``now``, the monotonic clock by default); a step
        without a message keeps its phase's last one."""
        same_phase = progress.phase == self.phase
        self.update(progress.done, progress.total,
                    progress.message or (self.message if same_phase else ""),
                    time.monotonic() if now is None else now, progress.phase)

    def eta(self, now: float) -> float | None:
        """Seconds the job has left at its rate so far; None until a rate is known."""
        worked, elapsed = self.done - self.first_done, now - self.counted_from
        if not self.total or worked <= 0 or elapsed < 0.5 or self.done >= self.total:
            return None
        return (self.total - self.done) * elapsed / worked

    def finished_phase(self) -> bool:
        return self.total is not None and self.done >= self.total

    def what(self) -> str:
        """The phase and the step's message ("scoring: parsing 4 pairs"), or either alone."""
        what = self.message or self.phase or "working"
        if self.phase and self.message and not self.message.startswith(self.phase):
            what = f"{self.phase}: {self.message}"
        return what

    def timing(self, now: float) -> str:
        """"finishing…", "about 3 s left", "6 s so far" or nothing (too early to say)."""
        so_far = now - (self.started if self.started is not None else now)
        if self.finished_phase():
            return "finishing…"
        if (eta := self.eta(now)) is not None:
            return f"about {duration(eta)} left"
        return f"{duration(so_far)} so far" if so_far >= 2 else ""

    def text(self, label: str, now: float) -> str:
        """The status line: ``label — what · n/N · timing`` (n/N left out when the message
        already says it; the label when there is none)."""
        what = self.what()
        parts = [f"{label} — {what}" if label else what]
        counted = self.total is not None and f"{self.done}" in what and f"{self.total}" in what
        if self.total is not None and not counted:
            parts.append(f"{self.done}/{self.total}")
        parts.append(self.timing(now))
        return " · ".join(part for part in parts if part)

    def log_line(self, now: float) -> str:
        """The same parts for a log, count first as a log reader scans it:
        ``n/N message · phase · timing``."""
        count = f"{self.done}/{self.total}" if self.total is not None else f"{self.done}"
        parts = [f"{count} {self.message}".rstrip(),
                 self.phase if self.phase and self.phase != self.message else "",
                 self.timing(now)]
        return " · ".join(part for part in parts if part)
