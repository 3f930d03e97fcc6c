"""Opening a workspace file: version check, lock, migrations, the single writer thread.

All writes go through :meth:`Workspace.write` (or :meth:`Workspace.execute` for undoable
commands), which runs the function on one dedicated thread inside one transaction
(STYLE practice 5). Reads use a connection per calling thread; WAL lets them run while
the writer writes.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import sqlite_utils

from cluestudio.core.errors import ClueStudioError, describe_failure
from cluestudio.core.workspace import foreign, schema
from cluestudio.core.workspace.commands import Changes, Command, UndoStack
from cluestudio.core.workspace.lock import WorkspaceLock
from cluestudio.core.workspace.queries import WorkspaceQueries

T = TypeVar("T")
_SQLITE_MAGIC = b"SQLite format 3\x00"


class WorkspaceError(ClueStudioError):
    """The file is missing, not a workspace, or the workspace is closed."""


def readonly_uri(path: Path) -> str:
    """The URI that opens ``path`` for reading only. On a read-only folder (a read-only
    mount, a write-protected share) SQLite cannot make the WAL index beside the file, so
    the file is opened as immutable there: nobody can change it while we read."""
    path = path.resolve()
    if not os.access(path.parent, os.W_OK):
        return f"{path.as_uri()}?immutable=1"
    return f"{path.as_uri()}?mode=ro"


def _peek(path: Path, readonly: bool = False, *, create: bool = True) -> None:
    """Refuse files that are not ours or too new, before anything is written to them.

    An empty file becomes a new workspace only when one is being created (File → New on
    the file a save dialog made): opening one (``create=False``) or reading one refuses
    it, so a zero-byte file picked by mistake is not silently made a database."""
    if path.is_dir():
        raise WorkspaceError(f"{path}: is a folder, not a workspace file (e.g. course.sqlite)")
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError as error:
        raise WorkspaceError(f"{path}: cannot read the workspace ({error.strerror})") from error
    if head and head != _SQLITE_MAGIC:
        raise WorkspaceError(f"{path}: not a ClueStudio workspace (not an SQLite file)")
    if not head:
        if readonly or not create:
            raise WorkspaceError(f"{path}: an empty file, not a workspace")
        return  # an empty file: treated as a new workspace
    conn = sqlite3.connect(readonly_uri(path), uri=True)
    try:
        foreign.harden(conn)
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = schema.user_version(conn)
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id not in (0, schema.APPLICATION_ID) or (app_id == 0 and tables):
            raise WorkspaceError(f"{path}: an SQLite file, but not a ClueStudio workspace")
        schema.check_version(version, str(path))
        foreign.check_schema(conn, path)
    except sqlite3.DatabaseError as error:
        raise WorkspaceError(describe_failure(error, path)
                             or f"{path}: unreadable workspace: {error}") from error
    except UnicodeDecodeError as error:  # SQLite's own message quotes damaged bytes
        raise WorkspaceError(f"{path}: the workspace file is damaged or unreadable (its "
                             "schema is not valid text); nothing was changed") from error
    finally:
        conn.close()


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: no implicit BEGINs; transactions are explicit (Database.atomic).
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                           timeout=10.0)
    foreign.harden(conn)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


class Workspace(WorkspaceQueries):
    """An open workspace. Use :func:`open_workspace`; close it (or use ``with``)."""

    def __init__(self, path: Path, *, readonly: bool = False, create: bool = True) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.undo_stack = UndoStack()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        if not self.path.exists():
            if not create or readonly:
                raise WorkspaceError(f"{self.path}: no such workspace")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        else:
            _peek(self.path, readonly, create=create)
        self._lock = None if readonly else WorkspaceLock(self.path)
        self._executor: ThreadPoolExecutor | None = None
        self._db: sqlite_utils.Database | None = None
        if self._lock is None:
            return
        self._lock.acquire()
        try:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="cluestudio-writer")
            self._writer_thread = self._executor.submit(threading.current_thread).result()
            self._executor.submit(self._open_writer).result()
        except BaseException:
            self.close()
            raise

    def _open_writer(self) -> None:
        conn = _connect(self.path)
        conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode: a committed transaction survives a crash of the app (kill -9);
        # only an OS crash or power cut may lose the last commits, never corrupt the file.
        conn.execute("PRAGMA synchronous = NORMAL")
        self._db = sqlite_utils.Database(conn)
        schema.migrate(conn, source=str(self.path))

    # -- writing -------------------------------------------------------------------------

    def submit(self, fn: Callable[[sqlite3.Connection], T]) -> Future[T]:
        """Run ``fn(conn)`` on the writer thread in one transaction; a future of its result."""
        if self._executor is None or self._closed:
            raise WorkspaceError(f"{self.path}: workspace is read-only or closed")
        return self._executor.submit(self._transaction, fn)

    def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """:meth:`submit` and wait. Called from the writer thread itself, it nests."""
        if threading.current_thread() is getattr(self, "_writer_thread", None):
            return self._transaction(fn)
        return self.submit(fn).result()

    def _transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        assert self._db is not None
        with self._db.atomic():
            return fn(self._db.conn)

    def execute(self, command: Command) -> Changes:
        """Do ``command`` (one transaction) and put it on the undo stack."""
        changes = self.write(command.do)
        self.undo_stack.pushed(command)
        return changes

    def undo(self) -> Changes | None:
        command = self.undo_stack.pop_undo()
        if command is None:
            return None
        try:
            changes = self.write(command.undo)
        except BaseException:
            self.undo_stack.redone(command)  # still done: put it back
            raise
        self.undo_stack.undone(command)
        return changes

    def redo(self) -> Changes | None:
        command = self.undo_stack.pop_redo()
        if command is None:
            return None
        try:
            changes = self.write(command.do)
        except BaseException:
            self.undo_stack.undone(command)
            raise
        self.undo_stack.redone(command)
        return changes

    # -- reading -------------------------------------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        if self._closed:
            raise WorkspaceError(f"{self.path}: workspace is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self.readonly:
                conn = sqlite3.connect(readonly_uri(self.path), uri=True,
                                       isolation_level=None, check_same_thread=False)
                foreign.harden(conn)
            else:
                conn = _connect(self.path)
            conn.execute("PRAGMA query_only = ON")
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def integrity_check(self) -> str:
        return str(self._reader().execute("PRAGMA integrity_check").fetchone()[0])

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._executor is not None:
            if self._db is not None:
                db = self._db
                self._executor.submit(db.close).result()
            self._executor.shutdown(wait=True)
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_workspace(path: str | Path, *, create: bool = True, readonly: bool = False
                   ) -> Workspace:
    """Open (creating and migrating if needed) the workspace at ``path``.

    Raises :class:`~cluestudio.core.workspace.schema.WorkspaceTooNew` for a newer format
    and :class:`~cluestudio.core.workspace.lock.WorkspaceInUse` when another instance
    writes to it; ``readonly=True`` needs no lock and writes nothing.
    """
    return Workspace(Path(path), readonly=readonly, create=create)
