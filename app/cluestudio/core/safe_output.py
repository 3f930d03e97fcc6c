"""Every file ClueStudio writes for someone else goes through here (issue 25).

**One safe writer.** :func:`atomic_open` writes a new file beside the target and renames it
over the target only when everything was written: readers never see half a file, a
stopped or failed write leaves no temporary file, and a symlink at the target is replaced
by the new file instead of having its target overwritten (a link planted in an output
folder cannot make us write through it to a file of the user's).

**CSV cells that cannot attack the next program.** A spreadsheet runs a cell that starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a formula
(``=HYPERLINK(…)``, ``=cmd|' /C calc'!A0``). Task ids, submission ids, grader names and
comments are other people's text, so :func:`csv_writer` / :func:`csv_dict_writer` prefix
such a cell with ``'`` as OWASP recommends; numbers (``-3``, ``-0.5``, ``1e-3``) stay
numbers.
"""

from __future__ import annotations

import csv
import os
import re
import secrets
import stat
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

_FORMULA_START = frozenset("=+-@\t\r")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def neutralise(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet shows as text, never runs as a formula."""
    # A set lookup first: an export calls this for every cell of every row.
    if (isinstance(value, str) and value and value[0] in _FORMULA_START
            and not _NUMBER.match(value)):
        return "'" + value
    return value


class _NeutralWriter:
    """csv.writer's interface, every cell neutralised."""

    def __init__(self, writer: Any) -> None:
        self._writer = writer

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([neutralise(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(handle: IO[str], **options: Any) -> _NeutralWriter:
    """A ``csv.writer`` whose cells cannot be formulas."""
    return _NeutralWriter(csv.writer(handle, **options))


def csv_dict_writer(handle: IO[str], fieldnames: Collection[str], **options: Any
                    ) -> csv.DictWriter[str]:
    """A ``csv.DictWriter`` whose cells cannot be formulas."""
    writer = csv.DictWriter(handle, fieldnames=fieldnames, **options)
    writer.writer = _NeutralWriter(writer.writer)  # type: ignore[assignment]
    return writer


class OutputError(OSError):
    """Writing an output failed; ``filename`` is the output, not its temporary file."""


class OutputSet:
    """Outputs that appear together or not at all: each is written to a temporary file
    beside it, and all are renamed into place when the ``with`` block ends without an
    error (renaming needs no room, so a full disk stops us before any output changed).
    On an error every temporary file is removed and the error names the output."""

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []

    @contextmanager
    def open(self, path: Path, mode: str = "w", *, encoding: str | None = "utf-8",
             newline: str | None = "") -> Iterator[IO[Any]]:
        path = Path(path)
        if "b" in mode:
            encoding = newline = None
        stream = _stream_fd(path)
        if stream is not None:  # -o /dev/stdout, a pipe: a stream, not a file to replace
            with open(stream, mode, encoding=encoding, newline=newline) as handle:
                yield handle
            return
        temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        # O_EXCL|O_NOFOLLOW: a name planted in the folder is never written through; 0o666
        # lets the user's umask decide the permissions, as for any file they write.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(temp, flags, 0o666)
        except OSError as error:
            raise OutputError(error.errno, error.strerror, str(path)) from error
        self._staged.append((temp, path))
        try:
            with open(fd, mode, encoding=encoding, newline=newline) as handle:
                yield handle
        except OSError as error:
            raise OutputError(error.errno, error.strerror, str(path)) from error

    def __enter__(self) -> OutputSet:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        try:
            if kind is None:
                for temp, path in self._staged:
                    try:
                        os.replace(temp, path)  # replaces a symlink itself, not its target
                    except OSError as error:
                        raise OutputError(error.errno, error.strerror, str(path)) from error
        finally:
            for temp, _ in self._staged:
                temp.unlink(missing_ok=True)


def _stream_fd(path: Path) -> int | None:
    """A descriptor open for writing when ``path`` is a terminal, ``/dev/null`` or a pipe
    (``-o /dev/stdout``): those are written into, not replaced. A pipe nobody reads is an
    error at once (opened without blocking), not a hang."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        return None
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise OutputError(error.errno, error.strerror, str(path)) from error
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


@contextmanager
def atomic_open(path: Path, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = "") -> Iterator[IO[Any]]:
    """A handle on a new file that becomes ``path`` when the ``with`` block ends without
    an error; otherwise the new file is removed and ``path`` is as it was."""
    with OutputSet() as outputs, outputs.open(path, mode, encoding=encoding,
                                              newline=newline) as handle:
        yield handle


def write_text(path: Path, text: str) -> None:
    with atomic_open(path, "w", newline=None) as handle:
        handle.write(text)


def write_bytes(path: Path, data: bytes) -> None:
    with atomic_open(path, "wb") as handle:
        handle.write(data)


def write_with(path: Path, write: Callable[[IO[str]], object]) -> None:
    """``write(handle)`` into a new file that becomes ``path`` when it returns."""
    with atomic_open(path) as handle:
        write(handle)
