"""One writing app instance per workspace: a lock file beside the db with pid, host and time.

On POSIX the lock is an ``flock`` held for the life of the workspace, so a crashed or
``kill -9``-ed instance releases it automatically; the pid/host text is only for the
message. Where ``fcntl`` is missing the file's existence is the lock, and a lock left by a
dead process on this host is taken over.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import IO

from cluestudio.core.errors import ClueStudioError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class WorkspaceInUse(ClueStudioError):
    """Another ClueStudio instance has this workspace open for writing (``path``: the
    workspace file, so a window can offer to open it read-only)."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


def _holder_text(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return (f"pid {info.get('pid')} on host {info.get('host')} "
                f"since {info.get('since')}")
    except (OSError, ValueError):
        return "another process"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WorkspaceLock:
    """Held from :meth:`acquire` until :meth:`release` (or process death, with flock)."""

    def __init__(self, db_path: Path) -> None:
        # The real path: two openers through different names (a symlink, ../x) must meet
        # at one lock file, or both would write and one would die "database is locked".
        real = db_path.resolve()
        self.path = real.with_name(real.name + ".lock")
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        info = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                           "since": time.strftime("%Y-%m-%d %H:%M:%S")})
        if fcntl is not None:
            handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held open
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                handle.close()
                raise WorkspaceInUse(
                    f"{self.path.with_suffix('')}: workspace is in use by "
                    f"{_holder_text(self.path)}; close it there first",
                    self.path.with_suffix("")) from error
            handle.seek(0)
            handle.truncate()
            handle.write(info)
            handle.flush()
            self._file = handle
            return
        self._acquire_exclusive_create(info)  # pragma: no cover - Windows

    def _acquire_exclusive_create(self, info: str) -> None:  # pragma: no cover - Windows
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                holder = json.loads(self.path.read_text(encoding="utf-8") or "{}")
                if holder.get("host") == socket.gethostname() and not _pid_alive(
                        int(holder.get("pid", 0))):
                    self.path.unlink(missing_ok=True)  # stale: its process is gone
                    continue
                raise WorkspaceInUse(f"{self.path}: workspace is in use by "
                                     f"{_holder_text(self.path)}",
                                     self.path.with_suffix("")) from None
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(info)
            return

    def release(self) -> None:
        if self._file is not None:
            # Emptied, not deleted: deleting would let two later openers lock different
            # inodes of the "same" lock file.
            self._file.seek(0)
            self._file.truncate()
            self._file.close()
            self._file = None
        elif fcntl is None:  # pragma: no cover - Windows
            self.path.unlink(missing_ok=True)
