"""A spawned worker process that runs batch jobs one at a time and streams messages back.

Scoring, model calls, imports and the analysis hold Python's GIL for long stretches (model
inference, scipy, parsing); run in the window's own process they stall the UI thread. Here
they run in a separate interpreter: the caller passes the job function itself (so mypy,
import-linter and a reader follow it), which goes over as ``(job id, "module:function", args,
kwargs)`` (:func:`target_name`); the function is called as ``function(*args, cancel=token,
emit=emit, **kwargs)`` and may return a value or a core job (a generator of
:class:`Progress`). Back come ``started``, ``progress`` (throttled), ``data`` (whatever the
job passes to ``emit``, e.g. a chunk of scores to store), ``result`` or ``error``, and
``finished``.

Messages are read by a thread of the caller, which hands them to ``on_message`` on that
thread: storing a chunk of results there keeps the workspace's single writer in the caller's
process and off its UI thread. A process that dies (a crash, ``kill -9``, ``os._exit`` in a
plugin) ends every job it had with an ``error`` and ``finished``; the next submit starts a
fresh process. Models and the PlantUML JVM load once per process and stay warm between jobs.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
import multiprocessing
import os
import queue
import threading
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from cluestudio.core.errors import ClueStudioError, describe_failure
from cluestudio.core.jobs import Cancelled, CancelToken, Progress, run_job
from cluestudio.core.redact import redact

log = logging.getLogger(__name__)

OnMessage = Callable[[int, str, Any], None]  # job id, kind, payload
PROGRESS_INTERVAL_S = 0.05
# How much lower than the window the worker process (and its JVM) runs, on POSIX.
WORKER_NICENESS = 10


def target_name(target: Callable[..., Any] | str) -> str:
    """``"module:function"`` of a job function, what the worker imports and calls; the
    function must be top level (a lambda or a nested function cannot be named there). A
    name given as a string passes unchanged."""
    if isinstance(target, str):
        return target
    module, name = getattr(target, "__module__", None), getattr(target, "__qualname__", "")
    if not module or not name or "." in name or "<" in name:
        raise ValueError(f"{target!r} is not a top-level function the worker can import")
    return f"{module}:{name}"


class WorkerProcess:
    """One worker process and the thread that reads its messages."""

    def __init__(self, on_message: OnMessage, *, name: str = "cluestudio-worker") -> None:
        context = multiprocessing.get_context("spawn")  # fork is unsafe beside Qt's threads
        self._commands, child_commands = context.Pipe()
        child_answers, self._answers = context.Pipe()
        self._on_message = on_message
        self._lock = threading.Lock()
        self._open: list[int] = []  # jobs sent and not finished, in order
        # Commands are pickled and written by a thread of their own: a big job's arguments,
        # or a worker still starting (not reading yet), never hold up the caller's thread.
        self._outbox: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
        self.process = context.Process(target=_main, args=(child_commands, child_answers),
                                       name=name, daemon=True)
        self.process.start()
        child_commands.close()
        child_answers.close()
        self._reader = threading.Thread(target=self._read, name=f"{name}-reader", daemon=True)
        self._reader.start()
        self._sender = threading.Thread(target=self._send_all, name=f"{name}-sender",
                                        daemon=True)
        self._sender.start()

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.is_alive()

    def busy(self) -> bool:
        with self._lock:
            return bool(self._open)

    def submit(self, job_id: int, target: Callable[..., Any] | str,
               args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> None:
        """Run ``target`` (a top-level job function, or its ``"module:function"``)."""
        name = target_name(target)
        with self._lock:
            self._open.append(job_id)
        self._outbox.put(("run", job_id, name, args, kwargs or {}))

    def cancel(self, job_id: int) -> None:
        self._outbox.put(("cancel", job_id))

    def _send_all(self) -> None:
        while (message := self._outbox.get()) is not None:
            try:
                self._commands.send(message)
            except (OSError, ValueError) as error:  # the process is gone; the reader says so
                log.info("worker process: cannot send %s: %s", message[0], error)
            except Exception as error:  # arguments that do not pickle: that job fails alone
                if message[0] == "run":
                    job_id = message[1]
                    with self._lock:
                        if job_id in self._open:
                            self._open.remove(job_id)
                    self._deliver(job_id, "error", f"could not hand the job to the worker "
                                                   f"process: {error}")
                    self._deliver(job_id, "finished", None)

    def stop(self, timeout: float = 1.0) -> None:
        """Cancel everything and end the process: politely, then by force."""
        self._outbox.put(("stop",))
        self._outbox.put(None)
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(0.5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(0.5)
        self._reader.join(2.0)
        self._sender.join(1.0)  # ends after "stop", or when the dead process's pipe breaks
        for end in (self._commands, self._answers):
            end.close()

    def _read(self) -> None:
        while True:
            try:
                job_id, kind, payload = self._answers.recv()
            except (EOFError, OSError):
                break
            if kind == "finished":
                with self._lock:
                    if job_id in self._open:
                        self._open.remove(job_id)
            self._deliver(job_id, kind, payload)
        self._outbox.put(None)  # nobody is listening any more: the sender may end
        self.process.join(2.0)
        code = self.process.exitcode
        with self._lock:
            orphans, self._open = list(self._open), []
        why = ("the worker process was stopped" if code in (0, -15, None)
               else f"the worker process stopped unexpectedly (exit status {code})")
        for job_id in orphans:
            self._deliver(job_id, "error", why)
            self._deliver(job_id, "finished", None)

    def _deliver(self, job_id: int, kind: str, payload: Any) -> None:
        try:
            self._on_message(job_id, kind, payload)
        except Exception:  # a handler's bug must not stop the reader
            log.exception("worker process: handling %s of job %s failed", kind, job_id)


# --- the worker process's side ---------------------------------------------------------------


def _yield_to_the_window() -> None:
    """Run below the window's priority: on a machine with few cores, a batch (and the JVM it
    starts, which inherits this) would otherwise take CPU time the UI thread needs to answer
    within a frame or two."""
    nice = getattr(os, "nice", None)  # POSIX; Windows keeps the normal priority
    if nice is not None:
        with contextlib.suppress(OSError):  # not allowed here: stay at the normal priority
            nice(WORKER_NICENESS)


def _main(commands: Connection, answers: Connection) -> None:
    """Entry point of the worker process."""
    from cluestudio.core.threads import single_threaded_blas

    single_threaded_blas()  # before a job imports numpy: scoring's small matrix products
    _yield_to_the_window()
    jobs: queue.Queue[tuple[int, str, tuple[Any, ...], dict[str, Any]] | None] = queue.Queue()
    tokens: dict[int, CancelToken] = {}
    lock = threading.Lock()

    def listen() -> None:
        while True:
            try:
                message = commands.recv()
            except (EOFError, OSError):
                message = ("stop",)
            if message[0] == "run":
                with lock:
                    tokens[message[1]] = CancelToken()
                jobs.put(message[1:])
            elif message[0] == "cancel":
                with lock:
                    token = tokens.get(message[1])
                if token is not None:
                    token.cancel()
            else:  # stop: cancel what runs, drop what waits
                with lock:
                    for token in tokens.values():
                        token.cancel()
                jobs.put(None)
                return

    threading.Thread(target=listen, name="cluestudio-worker-commands", daemon=True).start()
    while (job := jobs.get()) is not None:
        job_id, target, args, kwargs = job
        with lock:
            token = tokens[job_id]
        _run_one(answers, job_id, target, args, kwargs, token)
        with lock:
            tokens.pop(job_id, None)


def _run_one(answers: Connection, job_id: int, target: str, args: tuple[Any, ...],
             kwargs: dict[str, Any], cancel: CancelToken) -> None:
    def send(kind: str, payload: Any = None) -> None:
        answers.send((job_id, kind, payload))

    def emit(tag: str, payload: Any) -> None:
        send("data", (tag, payload))

    if cancel.cancelled:
        send("finished")
        return
    send("started")
    try:
        module_name, _, name = target.partition(":")
        function = getattr(importlib.import_module(module_name), name)
        outcome = function(*args, cancel=cancel, emit=emit, **kwargs)
        if inspect.isgenerator(outcome):
            outcome = _drive(outcome, cancel, send)
        if not cancel.cancelled:
            send("result", outcome)
    except Cancelled:
        pass
    except ClueStudioError as error:
        send("error", redact(str(error)))
    except BaseException as error:  # a job may not take the worker down
        known = describe_failure(error)
        if known is None:
            known = f"unexpected {type(error).__name__}: {error}"
            send("traceback", redact(traceback.format_exc()))
        send("error", redact(known))
    finally:
        send("finished")


def _drive(job: Any, cancel: CancelToken, send: Callable[[str, Any], None]) -> Any:
    """Throttled like the thread lanes (each message is a repaint in the window), but a
    count that moved always gets through: it is what n/N and the ETA are made of."""
    def report(step: Progress) -> None:
        send("progress", (step.done, step.total, step.message, step.phase))

    return run_job(job, report, cancel=cancel, every_s=PROGRESS_INTERVAL_S, moves_pass=True)
