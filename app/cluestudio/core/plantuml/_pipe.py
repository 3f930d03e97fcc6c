"""One PlantUML JVM in ``-pipe`` mode: write a diagram to its stdin, read one image back.

Framing (PlantUML 1.2022.6, ``Pipe.java``): each request is an ``@@@format png|svg`` line
followed by one complete ``@start…``/``@end…`` block; PlantUML answers on stdout with the
image, or with ``-pipeNoStderr`` an ``ERROR`` report, then our delimiter line. Internal
crashes (an exception while drawing) are not reported there at all: PlantUML prints a Java
stack trace on stderr and still sends a "crash" image. To tell which stderr text belongs to
which diagram we keep the write end of the stderr pipe and append a sentinel of our own
after each answer: the pipe is FIFO, so whatever PlantUML wrote before its answer comes
before the sentinel. Not thread-safe; the renderer serialises access.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

_CHUNK = 1 << 16
# Startup noise and traces are kept for error messages, but never without bound.
_STDERR_KEEP = 1 << 20


class PipeDied(Exception):
    """The JVM exited (killed, crashed, or never started) before answering."""


class PipeTimeout(Exception):
    """The JVM did not answer in time; it has been killed."""


@dataclass(frozen=True)
class PipeReply:
    stdout: bytes  # the image, or PlantUML's ERROR report
    stderr: str  # what PlantUML wrote to stderr while drawing this diagram


class _Stream:
    """Bytes read by a daemon thread, so waits can have a deadline on every platform."""

    def __init__(self, name: str, source: IO[bytes], cond: threading.Condition) -> None:
        self.data = bytearray()
        self.eof = False
        self._source = source
        self._cond = cond
        self.thread = threading.Thread(target=self._pump, name=name, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        read = getattr(self._source, "read1", self._source.read)
        while True:
            try:
                chunk = read(_CHUNK)
            except (OSError, ValueError):
                chunk = b""
            with self._cond:
                if not chunk:
                    self.eof = True
                    self._cond.notify_all()
                    return
                self.data.extend(chunk)
                self._cond.notify_all()

    def take_until(self, marker: bytes, deadline: float, start: int = 0) -> bytes | None:
        """Wait for ``marker``; return what precedes it and drop both. ``None``: EOF first.

        Must be called with the condition held. Raises :class:`PipeTimeout` at the deadline.
        """
        scan = start
        while True:
            index = self.data.find(marker, scan)
            if index >= 0:
                head = bytes(self.data[:index])
                del self.data[: index + len(marker)]
                return head
            # A marker split across two reads is still found; old bytes are not rescanned.
            scan = max(start, len(self.data) - len(marker) + 1)
            if self.eof:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PipeTimeout
            self._cond.wait(remaining)


class PlantUMLPipe:
    """A running ``java -jar plantuml.jar -pipe …`` process and its request/answer protocol."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        token = secrets.token_hex(16)
        # Random per process: a diagram cannot contain the delimiter by accident or on purpose.
        delimiter = f"--cluestudio-{token}--"
        self._delimiter = delimiter.encode("ascii") + b"\n"
        self._sentinel = f"\n--cluestudio-stderr-{token}--\n".encode("ascii")
        self._cond = threading.Condition()
        self._kill_lock = threading.Lock()
        self._timed_out = False
        err_read, self._err_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                [*command, "-pipedelimitor", delimiter],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._err_write,
                env=dict(env) if env is not None else None,
                # A GUI app must not flash a console window on Windows.
                creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
            )
        except OSError as error:
            os.close(err_read)
            os.close(self._err_write)
            raise PipeDied(f"cannot start Java: {error}") from error
        assert self.process.stdin is not None and self.process.stdout is not None
        self._stdin = self.process.stdin
        self._out = _Stream("plantuml-stdout", self.process.stdout, self._cond)
        self._err_file = os.fdopen(err_read, "rb", buffering=0)
        self._err = _Stream("plantuml-stderr", self._err_file, self._cond)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stderr_tail(self, limit: int = 2000) -> str:
        with self._cond:
            return self._err.data[-limit:].decode("utf-8", "replace").strip()

    def request(self, data: bytes, timeout: float) -> PipeReply:
        """Send one request (format line + one block) and wait for its answer."""
        deadline = time.monotonic() + timeout
        # The write blocks if the JVM stops reading; the watchdog's kill unblocks it.
        watchdog = threading.Timer(timeout, self._kill_for_timeout)
        watchdog.daemon = True
        watchdog.start()
        try:
            try:
                self._stdin.write(data)
                self._stdin.flush()
            except (OSError, ValueError) as error:
                self._raise_dead(f"stdin closed: {error}")
            with self._cond:
                answer = self._out.take_until(self._delimiter, deadline)
            if answer is None:
                self._raise_dead("no answer")
            # OSError: closed by a concurrent kill, and then nothing more will come anyway.
            with contextlib.suppress(OSError):
                os.write(self._err_write, self._sentinel)
            with self._cond:
                err = self._err.take_until(self._sentinel, deadline)
                if err is None:  # stderr closed: everything it had is ours
                    err = bytes(self._err.data)
                    self._err.data.clear()
                if len(self._err.data) > _STDERR_KEEP:
                    del self._err.data[:-_STDERR_KEEP]
            assert answer is not None
            return PipeReply(answer, err.decode("utf-8", "replace"))
        except PipeTimeout:
            self.kill()
            raise
        finally:
            watchdog.cancel()

    def _raise_dead(self, why: str) -> None:
        if self._timed_out:
            raise PipeTimeout
        self.kill()
        code = self.process.poll()
        tail = self.stderr_tail()
        raise PipeDied(f"{why} (exit status {code}){': ' + tail if tail else ''}")

    def _kill_for_timeout(self) -> None:
        self._timed_out = True
        self.kill()

    def kill(self) -> None:
        """Stop the JVM now and release its pipes and reader threads (idempotent)."""
        with self._kill_lock:
            if self.process.poll() is None:
                with contextlib.suppress(OSError):  # already gone
                    self.process.kill()
            self._release()

    def close(self, grace: float = 3.0) -> None:
        """Let the JVM finish: on end of input PlantUML's pipe loop returns and Java exits."""
        with self._kill_lock:
            with contextlib.suppress(OSError):
                self._stdin.close()
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
            self._release()

    def _release(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        # OSError: a broken pipe on flush-at-close; the JVM is gone anyway.
        with contextlib.suppress(OSError):
            self._stdin.close()
        if self._err_write >= 0:
            os.close(self._err_write)
            self._err_write = -1
        if threading.current_thread() not in (self._out.thread, self._err.thread):
            self._out.thread.join(5)
            self._err.thread.join(5)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self._err_file.close()
