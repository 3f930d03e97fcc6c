"""Worker threads ("lanes") that run core jobs for the GUI and report through a fixed signal set.

Views submit work and connect to ``started / progress / result / error / finished``; they
never wait. The UI thread therefore never blocks on the JVM, a model or the network. A job is
either a plain callable returning a value, or a core job (a generator yielding
:class:`~cluestudio.core.jobs.Progress`); both receive the :class:`CancelToken` of their handle.

Each lane is one thread running its jobs in order. ``batch`` takes long work (scoring,
import, prefetch, model calls); ``interactive`` takes what a user is waiting to see (the live
preview, the diagrams of the submission on screen), so a preview never queues behind a batch.
"""

from __future__ import annotations

import inspect
import itertools
import logging
import queue
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError, describe_failure
from cluestudio.core.jobs import Cancelled, CancelToken, Progress
from cluestudio.core.redact import redact
from cluestudio.gui.qt import QObject, QThread, Signal

log = logging.getLogger(__name__)

JobFunction = Callable[[CancelToken], Any]

BATCH = "batch"
INTERACTIVE = "interactive"
LANES: tuple[str, ...] = (BATCH, INTERACTIVE)
PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress signals a second per job

# Every runner whose worker thread is alive, so tests can fail on a leaked one.
_live_runners: weakref.WeakSet[JobRunner] = weakref.WeakSet()


def running_workers() -> list[str]:
    """Labels of job runners whose worker thread is still running."""
    return [r.objectName() or "JobRunner" for r in _live_runners if r.is_running()]


@dataclass
class JobHandle:
    """What a view keeps of a submitted job: its id, label and a way to cancel it."""

    id: int
    label: str
    cancel_token: CancelToken = field(default_factory=CancelToken)

    def cancel(self) -> None:
        self.cancel_token.cancel()

    @property
    def cancelled(self) -> bool:
        return self.cancel_token.cancelled


@dataclass
class _Task:
    handle: JobHandle
    function: JobFunction


class _WorkerThread(QThread):
    def __init__(self, runner: JobRunner, lane: str) -> None:
        super().__init__()
        self.setObjectName(f"cluestudio-job-worker-{lane}")
        self._runner = runner
        self.tasks: queue.Queue[_Task | None] = queue.Queue()
        self.current: JobHandle | None = None  # read by shutdown() on the UI thread

    def run(self) -> None:
        while True:
            task = self.tasks.get()
            if task is None:
                return
            self.current = task.handle
            try:
                self._runner._execute(task)
            finally:
                self.current = None

    def cancel_all(self) -> None:
        """Cancel the job running now and every queued one (they then finish at once)."""
        running = self.current
        if running is not None:
            running.cancel()
        # Queued jobs stay queued: the lane still "runs" them, and a cancelled job just
        # emits `finished`, so every view hears about each job it submitted.
        with self.tasks.mutex:
            for task in self.tasks.queue:
                if task is not None:
                    task.handle.cancel()


class JobRunner(QObject):
    """Runs jobs one at a time per lane, each lane on its own thread; signals carry the job id.

    Job ids are unique across lanes, so a view tells its jobs apart by id alone. ``submit``
    without a lane uses the first one (``batch`` by default).
    """

    started = Signal(int, str)
    progress = Signal(int, int, int, str)  # id, done, total (-1 unknown), message
    result = Signal(int, object)
    error = Signal(int, str)
    finished = Signal(int)

    def __init__(self, parent: QObject | None = None, *,
                 lanes: tuple[str, ...] = LANES) -> None:
        super().__init__(parent)
        if not lanes or len(set(lanes)) != len(lanes):
            raise ValueError(f"lanes must be distinct names, not {lanes!r}")
        self._ids = itertools.count(1)
        self._id_lock = threading.Lock()  # submit may be called from any thread
        self._threads = {lane: _WorkerThread(self, lane) for lane in lanes}
        for thread in self._threads.values():
            thread.start()
        _live_runners.add(self)

    @property
    def lanes(self) -> tuple[str, ...]:
        return tuple(self._threads)

    def is_running(self) -> bool:
        return any(thread.isRunning() for thread in self._threads.values())

    def submit(self, function: JobFunction, label: str = "", lane: str | None = None
               ) -> JobHandle:
        """Queue ``function`` on ``lane`` (default: the first lane); never blocks."""
        thread = self._threads.get(lane or next(iter(self._threads)))
        if thread is None:
            raise ValueError(f"no lane {lane!r}; this runner has {', '.join(self._threads)}")
        with self._id_lock:
            job_id = next(self._ids)
        handle = JobHandle(job_id, label or getattr(function, "__name__", "job"))
        thread.tasks.put(_Task(handle, function))
        return handle

    def shutdown(self, *, cancel: bool = True, patience_ms: int = 10_000) -> None:
        """Stop taking work and join every lane; by default cancel what is queued or running.

        Joins without a time limit: destroying a QThread that still runs aborts the process,
        and every job stops at its next cancellation check (renders and model calls have
        their own time-outs). After ``patience_ms`` it logs which job it is waiting for.
        """
        running = [t for t in self._threads.values() if t.isRunning()]
        for thread in running:
            if cancel:
                thread.cancel_all()
            thread.tasks.put(None)
        for thread in running:
            if not thread.wait(patience_ms):
                job = thread.current
                log.warning("waiting for job %r to stop before quitting",
                            job.label if job else "?")
                thread.wait()

    # Runs on the worker thread. Signals emitted here are queued to receivers on the UI thread.
    def _execute(self, task: _Task) -> None:
        handle = task.handle
        if handle.cancelled:
            self.finished.emit(handle.id)
            return
        self.started.emit(handle.id, handle.label)
        try:
            outcome = task.function(handle.cancel_token)
            if inspect.isgenerator(outcome):
                outcome = self._drive(handle, outcome)
            if not handle.cancelled:
                self.result.emit(handle.id, outcome)
        except Cancelled:
            pass
        except ClueStudioError as failure:
            self.error.emit(handle.id, redact(str(failure)))
        except BaseException as failure:
            # A crashed job must not take the worker down: SystemExit or KeyboardInterrupt
            # raised by plugin code on this thread would otherwise end it, leaving every
            # queued job unrun and Quit waiting forever.
            known = describe_failure(failure)
            if known is not None:  # a full disk, a damaged file: the world, not a bug
                log.info("job %s failed: %s", handle.label, known, exc_info=True)
                self.error.emit(handle.id, redact(f"{handle.label}: {known}"))
                return
            log.error("job %s crashed:\n%s", handle.label, traceback.format_exc())
            self.error.emit(handle.id, redact(f"{handle.label}: unexpected "
                                              f"{type(failure).__name__}: {failure}"))
        finally:
            self.finished.emit(handle.id)

    def _drive(self, handle: JobHandle, job: Any) -> Any:
        last_emit = float("-inf")
        while True:
            handle.cancel_token.raise_if_cancelled()
            try:
                step = next(job)
            except StopIteration as stop:
                return stop.value
            if isinstance(step, Progress):
                # Throttled: every signal is a queued call and a repaint on the UI thread,
                # and 3,000 of them from a 1,000-pair scoring job stalled it ~0.5 s. The
                # first step and the last of each phase always get through.
                now = time.monotonic()
                if (now - last_emit < PROGRESS_INTERVAL_S
                        and (step.total is None or step.done < step.total)):
                    continue
                last_emit = now
                total = step.total if step.total is not None else -1
                self.progress.emit(handle.id, step.done, total, step.message)
