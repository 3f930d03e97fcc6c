"""One worker thread that runs core jobs for the GUI and reports through a fixed signal set.

Views submit work and connect to ``started / progress / result / error / finished``; they
never wait. The UI thread therefore never blocks on the JVM, a model or the network. A job is
either a plain callable returning a value, or a core job (a generator yielding
:class:`~cluestudio.core.jobs.Progress`); both receive the :class:`CancelToken` of their handle.
"""

from __future__ import annotations

import inspect
import itertools
import logging
import queue
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import Cancelled, CancelToken, Progress
from cluestudio.gui.qt import QObject, QThread, Signal

log = logging.getLogger(__name__)

JobFunction = Callable[[CancelToken], Any]

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
    def __init__(self, runner: JobRunner) -> None:
        super().__init__()
        self.setObjectName("cluestudio-job-worker")
        self._runner = runner
        self.tasks: queue.Queue[_Task | None] = queue.Queue()

    def run(self) -> None:
        while True:
            task = self.tasks.get()
            if task is None:
                return
            self._runner._execute(task)


class JobRunner(QObject):
    """Runs jobs one at a time on a worker thread; signals carry the job id first."""

    started = Signal(int, str)
    progress = Signal(int, int, int, str)  # id, done, total (-1 unknown), message
    result = Signal(int, object)
    error = Signal(int, str)
    finished = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ids = itertools.count(1)
        self._thread = _WorkerThread(self)
        self._thread.start()
        _live_runners.add(self)

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def submit(self, function: JobFunction, label: str = "") -> JobHandle:
        handle = JobHandle(next(self._ids), label or getattr(function, "__name__", "job"))
        self._thread.tasks.put(_Task(handle, function))
        return handle

    def shutdown(self, timeout_ms: int = 10_000) -> None:
        """Cancel nothing already running, but stop taking work and join the thread."""
        if self._thread.isRunning():
            self._thread.tasks.put(None)
            self._thread.wait(timeout_ms)

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
            self.error.emit(handle.id, str(failure))
        except Exception as failure:  # a crashed job must not take the worker down
            log.error("job %s crashed:\n%s", handle.label, traceback.format_exc())
            self.error.emit(handle.id, f"{handle.label}: unexpected {type(failure).__name__}: "
                                       f"{failure}")
        finally:
            self.finished.emit(handle.id)

    def _drive(self, handle: JobHandle, job: Any) -> Any:
        while True:
            handle.cancel_token.raise_if_cancelled()
            try:
                step = next(job)
            except StopIteration as stop:
                return stop.value
            if isinstance(step, Progress):
                total = step.total if step.total is not None else -1
                self.progress.emit(handle.id, step.done, total, step.message)
