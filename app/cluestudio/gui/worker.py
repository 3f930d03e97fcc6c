"""Where the window's background work runs, and the handle each job reports through.

Every job, wherever it runs, gives its submitter a :class:`JobHandle` with a fixed signal set
(STYLE practice 4): ``started``, ``progress(done, total, message)``, ``result(object)``,
``error(str)``, ``finished``. A view connects to the handles of its own jobs; nothing filters
global signals by job id. A handle's signals are always emitted on the UI thread, relayed
there through the event loop, so a view that connects right after submitting hears every
one of them, however fast the job is.

- :class:`JobRunner` runs jobs on threads of this process, one thread per lane: ``batch``
  for quick workspace work (exports, merges) and ``interactive`` for what a user is waiting
  to see (the live preview, the diagrams of the submission on screen), so a preview never
  queues behind anything else. Use it only for work that holds the GIL briefly.
- :class:`ProcessRunner` runs long batch jobs (scoring, model calls, imports, analysis) in a
  worker process (:mod:`cluestudio.app.worker_process`), so they never stall the UI thread.

A job is a callable taking a :class:`CancelToken` (thread lanes) or a ``"module:function"``
name (the worker process); either may return a value or a core job that yields progress.
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
from dataclasses import dataclass
from typing import Any

from cluestudio.core.errors import ClueStudioError, describe_failure
from cluestudio.core.jobs import Cancelled, CancelToken, Progress, run_job
from cluestudio.core.redact import redact
from cluestudio.gui.qt import QObject, QThread, Signal

log = logging.getLogger(__name__)

JobFunction = Callable[[CancelToken], Any]
DataHandler = Callable[[str, Any], None]  # tag, payload; runs on the worker's reader thread

BATCH = "batch"
INTERACTIVE = "interactive"
LANES: tuple[str, ...] = (BATCH, INTERACTIVE)
PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress signals a second per job

_ids = itertools.count(1)
# Every runner whose thread or process is alive, so tests can fail on a leaked one.
_live_runners: weakref.WeakSet[Any] = weakref.WeakSet()


def running_workers() -> list[str]:
    """Labels of job runners whose worker thread or process is still running."""
    return [r.objectName() or type(r).__name__ for r in _live_runners if r.is_running()]


class JobHandle(QObject):
    """One job: cancel it, and connect to its signals (emitted once each, in this order:
    started, progress…, result or error, finished; a job cancelled before it started emits
    only finished)."""

    started = Signal()
    progress = Signal(int, int, str)  # done, total (-1 unknown), message
    stepped = Signal(object)  # the job's Progress (phase too); re-emitted as ``progress``
    result = Signal(object)
    error = Signal(str)
    finished = Signal()

    def __init__(self, label: str, cancel: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.id = next(_ids)
        self.label = label
        self.cancel_token = CancelToken()
        self._cancel_more = cancel
        self.done = False
        self.failure: str | None = None  # the error message, once there is one
        self.last_step: Progress | None = None  # the newest Progress, for its phase
        self.stepped.connect(self._on_step)
        self.finished.connect(self._mark_done)
        self.error.connect(self._remember)

    def cancel(self) -> None:
        self.cancel_token.cancel()
        if self._cancel_more is not None:
            self._cancel_more()

    @property
    def cancelled(self) -> bool:
        return self.cancel_token.cancelled

    def _mark_done(self) -> None:
        self.done = True

    def _on_step(self, step: Progress) -> None:
        self.last_step = step
        self.progress.emit(step.done, -1 if step.total is None else step.total, step.message)

    def _remember(self, message: str) -> None:
        self.failure = message


class LatestJob:
    """The one job a view has in flight (STYLE practice 7): starting another cancels it,
    and only the newest job's result or error reaches the view, so a slow answer for an
    older request never overwrites a newer one."""

    def __init__(self) -> None:
        self.handle: JobHandle | None = None

    def start(self, handle: JobHandle, on_result: Callable[[object], None],
              on_error: Callable[[str], None]) -> JobHandle:
        self.cancel()
        self.handle = handle
        handle.result.connect(lambda value, h=handle: self._deliver(h, on_result, value))
        handle.error.connect(lambda message, h=handle: self._deliver(h, on_error, message))
        return handle

    def _deliver(self, handle: JobHandle, to: Callable[[Any], None], value: Any) -> None:
        if handle is self.handle:  # anything else is stale: a newer job superseded it
            self.handle = None
            to(value)

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def busy(self) -> bool:
        return self.handle is not None


@dataclass
class _Task:
    handle: JobHandle
    function: JobFunction


Relay = Callable[[JobHandle, str, tuple[Any, ...]], None]


def _emit_now(handle: JobHandle, kind: str, args: tuple[Any, ...]) -> None:
    """On the UI thread: emit the handle's signal ``kind``."""
    getattr(handle, kind).emit(*args)


class _Relay(QObject):
    """Carries a handle's signal from a worker thread to the UI thread (queued)."""

    carry = Signal(object, str, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.carry.connect(_emit_now)

    def __call__(self, handle: JobHandle, kind: str, args: tuple[Any, ...] = ()) -> None:
        self.carry.emit(handle, kind, args)


class _LaneThread(QThread):
    def __init__(self, lane: str, relay: Relay) -> None:
        super().__init__()
        self.setObjectName(f"cluestudio-job-worker-{lane}")
        self.tasks: queue.Queue[_Task | None] = queue.Queue()
        self.current: JobHandle | None = None  # read by shutdown() on the UI thread
        self._relay = relay

    def run(self) -> None:
        while True:
            task = self.tasks.get()
            if task is None:
                return
            self.current = task.handle
            try:
                _execute(task.handle, task.function, self._relay)
            finally:
                self.current = None

    def cancel_all(self) -> None:
        """Cancel the job running now and every queued one (they then finish at once)."""
        running = self.current
        if running is not None:
            running.cancel()
        with self.tasks.mutex:
            for task in self.tasks.queue:
                if task is not None:
                    task.handle.cancel()


def _execute(handle: JobHandle, function: JobFunction, relay: Relay) -> None:
    """Run one job on the calling (worker) thread; its signals go out through ``relay``."""
    if handle.cancelled:
        relay(handle, "finished", ())
        return
    relay(handle, "started", ())
    try:
        outcome = function(handle.cancel_token)
        if inspect.isgenerator(outcome):
            outcome = _drive(handle, outcome, relay)
        if not handle.cancelled:
            relay(handle, "result", (outcome,))
    except Cancelled:
        pass
    except ClueStudioError as failure:
        relay(handle, "error", (redact(str(failure)),))
    except BaseException as failure:
        # A crashed job must not take the lane down: SystemExit or KeyboardInterrupt raised
        # by plugin code on this thread would otherwise end it, leaving every queued job
        # unrun and Quit waiting forever.
        known = describe_failure(failure)
        if known is None:
            log.error("job %s crashed:\n%s", handle.label, traceback.format_exc())
            known = f"unexpected {type(failure).__name__}: {failure}"
        relay(handle, "error", (redact(known),))
    finally:
        relay(handle, "finished", ())


def _drive(handle: JobHandle, job: Any, relay: Relay) -> Any:
    """Throttled: every signal is a queued call and a repaint on the UI thread, and 3,000 of
    them from a 1,000-pair job stalled it ~0.5 s. The first step and the last of each count
    always get through."""
    return run_job(job, lambda step: relay(handle, "stepped", (step,)),
                   cancel=handle.cancel_token, every_s=PROGRESS_INTERVAL_S)


class JobRunner(QObject):
    """Runs callables one at a time per lane, each lane on its own thread."""

    def __init__(self, parent: QObject | None = None, *,
                 lanes: tuple[str, ...] = LANES) -> None:
        super().__init__(parent)
        if not lanes or len(set(lanes)) != len(lanes):
            raise ValueError(f"lanes must be distinct names, not {lanes!r}")
        self._relay = _Relay(self)
        self._threads = {lane: _LaneThread(lane, self._relay) for lane in lanes}
        self._live: set[JobHandle] = set()  # kept alive until their finished is delivered
        for thread in self._threads.values():
            thread.start()
        _live_runners.add(self)

    @property
    def lanes(self) -> tuple[str, ...]:
        return tuple(self._threads)

    def is_running(self) -> bool:
        return any(thread.isRunning() for thread in self._threads.values())

    def stop(self, patience_ms: int) -> bool:
        """Cancel every job and end the lanes, waiting ``patience_ms`` at most in all;
        whether every lane ended. Quit uses it: a job that cannot be cancelled (a JVM
        starting, a render) holds nothing that needs saving, so the app need not wait."""
        running = [t for t in self._threads.values() if t.isRunning()]
        for thread in running:
            thread.cancel_all()
            thread.tasks.put(None)
        deadline = time.monotonic() + patience_ms / 1000
        return all(thread.wait(max(0, int(1000 * (deadline - time.monotonic()))))
                   for thread in running)

    def submit(self, function: JobFunction, label: str = "", lane: str | None = None
               ) -> JobHandle:
        """Queue ``function`` on ``lane`` (default: the first lane); never blocks."""
        thread = self._threads.get(lane or next(iter(self._threads)))
        if thread is None:
            raise ValueError(f"no lane {lane!r}; this runner has {', '.join(self._threads)}")
        handle = JobHandle(label or getattr(function, "__name__", "job"))
        self._live.add(handle)
        handle.finished.connect(lambda h=handle: self._live.discard(h))
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


class ProcessRunner(QObject):
    """Runs named job functions in one warm worker process (started on first use, and again
    after it died). ``on_data`` handlers run on the reader thread, off the UI thread: that is
    where results are stored (the workspace's writer is in this process)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._process: Any = None
        self._handles: dict[int, tuple[JobHandle, DataHandler | None]] = {}
        self._closed = False
        self._relay = _Relay(self)
        _live_runners.add(self)

    def is_running(self) -> bool:
        process = self._process
        return process is not None and process.alive()

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.alive() else None

    def submit(self, target: Callable[..., Any] | str, args: tuple[Any, ...] = (),
               kwargs: dict[str, Any] | None = None, label: str = "",
               on_data: DataHandler | None = None) -> JobHandle:
        """Run ``target`` (a top-level job function) in the worker process; never blocks."""
        from cluestudio.app.worker_process import WorkerProcess, target_name

        handle = JobHandle(label or target_name(target).rpartition(":")[2])
        with self._lock:
            if self._closed:
                raise ClueStudioError("the window is closing; no new jobs")
            if self._process is None or not self._process.alive():
                self._process = WorkerProcess(self._on_message)
            process = self._process
            self._handles[handle.id] = (handle, on_data)
        handle._cancel_more = lambda: process.cancel(handle.id)
        process.submit(handle.id, target, args, kwargs)
        return handle

    def _on_message(self, job_id: int, kind: str, payload: Any) -> None:
        """On the reader thread: turn a worker message into the handle's signal."""
        with self._lock:
            entry = self._handles.get(job_id)
        if entry is None:
            return
        handle, on_data = entry
        relay = self._relay
        if kind == "started":
            relay(handle, "started", ())
        elif kind == "progress":
            relay(handle, "stepped", (Progress(*payload),))
        elif kind == "data":
            if on_data is not None and not handle.cancelled:
                try:
                    on_data(*payload)
                except ClueStudioError as error:
                    self._fail(handle, redact(str(error)))
                except Exception as error:
                    log.error("job %s: storing its results failed:\n%s", handle.label,
                              traceback.format_exc())
                    self._fail(handle, describe_failure(error)
                               or f"unexpected {type(error).__name__}: {error}")
        elif kind == "result":
            if handle.failure is None:
                relay(handle, "result", (payload,))
        elif kind == "error":
            if handle.failure is None:
                handle.failure = payload
                relay(handle, "error", (payload,))
        elif kind == "traceback":
            log.error("job %s crashed in the worker process:\n%s", handle.label, payload)
        elif kind == "finished":
            with self._lock:
                self._handles.pop(job_id, None)
            relay(handle, "finished", ())

    def _fail(self, handle: JobHandle, message: str) -> None:
        """The job's results could not be kept (a full disk): stop it, report once."""
        if handle.failure is None:
            handle.failure = message
            self._relay(handle, "error", (message,))
        handle.cancel()

    def shutdown(self, timeout: float = 0.25) -> None:
        """Cancel every job and stop the worker process (killed if it does not stop within
        ``timeout`` seconds), so Quit never waits on a long job. The process holds no data
        (results are stored here, as they arrive), and its JVM ends with its input."""
        with self._lock:
            self._closed = True
            process, self._process = self._process, None
        if process is not None:
            process.stop(timeout)
