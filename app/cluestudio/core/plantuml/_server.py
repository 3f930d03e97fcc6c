"""One warm PlantUML JVM running ClueStudio's render server: one framed request, one answer.

The server (``java/cluestudio/RenderServer.java``) reads ``<id> <command> <length>\\n`` and
that many bytes of diagram text, and answers ``<id> <status> <body length> <log length>\\n``
followed by the body and what PlantUML printed meanwhile. Each answer carries its own length
and the id it answers, and only the server's own code writes to stdout, so nothing a diagram
prints or reads can make one request's answer pass for another's (issue 14, DESIGN §8).
The answer is read by the thread that asked (no hand-over from a reader thread, which cost a
wake-up or two per diagram on a busy machine); a watchdog kills the JVM at the timeout,
which ends that read. Not thread-safe; the renderer serialises access.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

_CHUNK = 1 << 16
# The JVM's own stderr (start-up failures, VM warnings) is kept for error messages only.
_STDERR_KEEP = 1 << 20
_MAX_HEADER = 256
# An answer larger than this is a broken server, not a diagram (images are capped far lower).
_MAX_ANSWER = 512 << 20
_HEADER = re.compile(rb"([0-9a-f]{16}) (OK|ERROR|CRASH|OOM) (\d{1,10}) (\d{1,10})")

STATUSES = ("OK", "ERROR", "CRASH", "OOM")


class ServerDied(Exception):
    """The JVM exited (killed, crashed, or never started) before answering."""


class ServerTimeout(Exception):
    """The JVM did not answer in time; it has been killed."""


class ServerProtocolError(ServerDied):
    """The JVM answered something that is not the answer to our request; it has been killed."""


@dataclass(frozen=True)
class ServerAnswer:
    status: str  # OK | ERROR | CRASH | OOM
    body: bytes  # the image / report / expanded text, or the error report
    log: str  # what PlantUML printed (stdout and stderr) while handling this request


class _Stream:
    """The JVM's stderr, drained by a daemon thread so it never fills its pipe."""

    def __init__(self, name: str, source: IO[bytes], cond: threading.Condition,
                 keep: int | None = None) -> None:
        self.data = bytearray()
        self.eof = False
        self._source = source
        self._cond = cond
        self._keep = keep
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
                if self._keep is not None and len(self.data) > self._keep:
                    del self.data[: -self._keep]
                self._cond.notify_all()


class RenderServerProcess:
    """A running ``java … cluestudio.RenderServer`` and its request/answer protocol."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None = None,
                 cwd: str | None = None) -> None:
        self._cond = threading.Condition()
        self._kill_lock = threading.Lock()
        self._timed_out = False
        try:
            self.process = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                # A GUI app must not flash a console window on Windows.
                creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
            )
        except OSError as error:
            raise ServerDied(f"cannot start Java: {error}") from error
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self._stdin = self.process.stdin
        self._stdout = self.process.stdout
        self._err = _Stream("plantuml-stderr", self.process.stderr, self._cond, _STDERR_KEEP)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stderr_tail(self, limit: int = 2000) -> str:
        with self._cond:
            return self._err.data[-limit:].decode("utf-8", "replace").strip()

    def request(self, command: str, payload: bytes, timeout: float) -> ServerAnswer:
        """Send one request and wait for the answer that carries its id."""
        request_id = secrets.token_hex(8)
        # The write blocks if the JVM stops reading, the read if it stops answering; the
        # watchdog's kill unblocks either.
        watchdog = threading.Timer(timeout, self._kill_for_timeout)
        watchdog.daemon = True
        watchdog.start()
        try:
            try:
                self._stdin.write(f"{request_id} {command} {len(payload)}\n".encode("ascii"))
                self._stdin.write(payload)
                self._stdin.flush()
            except (OSError, ValueError) as error:
                self._raise_dead(f"stdin closed: {error}")
            return self._read_answer(request_id)
        except ServerTimeout:
            self.kill()
            raise
        except ServerProtocolError:
            self.kill()
            raise
        finally:
            watchdog.cancel()

    def _read_answer(self, request_id: str) -> ServerAnswer:
        try:
            line = self._stdout.readline(_MAX_HEADER + 1)
        except (OSError, ValueError):
            line = b""
        if not line.endswith(b"\n"):
            if len(line) > _MAX_HEADER:
                raise ServerProtocolError(f"answer header longer than {_MAX_HEADER} bytes")
            self._raise_dead("no answer")
        header = line[:-1]
        match = _HEADER.fullmatch(header)
        if match is None or match.group(1).decode("ascii") != request_id:
            raise ServerProtocolError(f"unexpected answer header {header[:80]!r}")
        body_size, log_size = int(match.group(3)), int(match.group(4))
        if body_size + log_size > _MAX_ANSWER:
            raise ServerProtocolError(f"answer of {body_size + log_size} bytes")
        try:
            rest = self._stdout.read(body_size + log_size)
        except (OSError, ValueError):
            rest = b""
        if len(rest) < body_size + log_size:
            self._raise_dead("answer cut short")
        return ServerAnswer(match.group(2).decode("ascii"), rest[:body_size],
                            rest[body_size:].decode("utf-8", "replace"))

    def _raise_dead(self, why: str) -> None:
        if self._timed_out:
            raise ServerTimeout
        self.kill()
        code = self.process.poll()
        tail = self.stderr_tail()
        raise ServerDied(f"{why} (exit status {code}){': ' + tail if tail else ''}")

    def _kill_for_timeout(self) -> None:
        """The watchdog: only the kill here; the asking thread, whose read it ends, releases
        the pipes (closing them under its blocked read could wait on that read)."""
        self._timed_out = True
        with self._kill_lock, contextlib.suppress(OSError):
            if self.process.poll() is None:
                self.process.kill()

    def kill(self) -> None:
        """Stop the JVM now and release its pipes and reader threads (idempotent)."""
        with self._kill_lock:
            if self.process.poll() is None:
                with contextlib.suppress(OSError):  # already gone
                    self.process.kill()
            self._release()

    def close(self, grace: float = 3.0) -> None:
        """Let the JVM finish: at end of input the server's loop returns and Java exits."""
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
        if threading.current_thread() is not self._err.thread:
            self._err.thread.join(5)
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()

