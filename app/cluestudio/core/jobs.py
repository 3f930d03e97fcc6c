"""Long work as plain generators: yield :class:`Progress`, return the result, honour cancel.

The same job function runs on the GUI worker thread (which turns each ``Progress`` into a
signal) and in the CLI (which prints a progress line); neither knows about the other.

    def score_pairs(pairs, cancel: CancelToken) -> Job[list[float]]:
        out = []
        for i, pair in enumerate(pairs):
            cancel.raise_if_cancelled()
            out.append(score(pair))
            yield Progress(i + 1, len(pairs), pair.name)
        return out

    result = run_job(score_pairs(pairs, CancelToken()), on_progress=print)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from cluestudio.core.errors import ClueStudioError

R = TypeVar("R")


@dataclass(frozen=True)
class Progress:
    done: int
    total: int | None = None  # None when the amount of work is not known in advance
    message: str = ""

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


def run_job(job: Job[R], on_progress: Callable[[Progress], None] | None = None) -> R:
    """Drive ``job`` to the end and return its result (the generator's return value)."""
    while True:
        try:
            progress = next(job)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if on_progress is not None:
            on_progress(progress)


def within(job: Job[R], done: int, total: int | None, prefix: str = "") -> Job[R]:
    """Run a sub-job as one phase of a larger one: its steps become messages of the outer
    job's progress (``done`` of ``total``, ``prefix`` + the step's message); its value is
    returned."""
    while True:
        try:
            step = next(job)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if isinstance(step, Progress):
            yield Progress(done, total, f"{prefix}{step.message}")
