"""A workspace is a file from someone else: its schema must be the one our code makes.

SQLite keeps triggers, views, indexes and table definitions *inside* the file, and runs them
for whoever opens it: a trigger planted in a shared workspace (``AFTER INSERT ON scores …
SET value = 0.123``) silently rewrites every score we save, a view that recurses without end
hangs whatever reads it. So on open the file's ``sqlite_master`` is compared with what
:mod:`~cluestudio.core.workspace.schema` creates at the file's version (built afresh in
memory by the very same migrations, so tables added by later migrations are covered without
a hand-written list). A file with anything more or different is refused, naming the
objects; :func:`copy_to_clean` copies its data (table rows only, never the foreign
objects) into a new workspace on request (``cluestudio clean-copy``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from functools import cache
from pathlib import Path

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import schema

# SQLite's own bookkeeping: the AUTOINCREMENT counter and ANALYZE's statistics. Automatic
# indexes (UNIQUE, PRIMARY KEY) have no SQL and come with their table.
_INTERNAL_TABLES = frozenset({"sqlite_sequence", "sqlite_stat1", "sqlite_stat2",
                              "sqlite_stat3", "sqlite_stat4"})
# A bound on the SQLite virtual-machine steps one statement of the copy may take (a
# hostile generated column or CHECK is refused first; this is the backstop).
_PROGRESS_STEPS = 10_000
_PROGRESS_LIMIT = 200_000  # × _PROGRESS_STEPS instructions per statement


class ForeignSchema(ClueStudioError):
    """The workspace carries schema objects ClueStudio did not make; nothing was changed."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        shown = ", ".join(problems[:6]) + (f" and {len(problems) - 6} more"
                                           if len(problems) > 6 else "")
        super().__init__(
            f"{path}: refused: the workspace carries schema objects ClueStudio did not make "
            f"({shown}); nothing was changed. To keep its data, copy it into a clean "
            f"workspace: cluestudio clean-copy {path} CLEAN.sqlite")


def _normal(sql: str | None) -> str:
    """SQL as a definition, not as typed: identifier quotes and spacing vary with how (and
    by which SQLite version) ALTER TABLE rewrote it; what it defines does not."""
    text = re.sub(r'["`\[\]]', "", sql or "")
    text = re.sub(r"\s*([(),])\s*", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def schema_objects(conn: sqlite3.Connection, database: str = "main"
                   ) -> dict[tuple[str, str], str]:
    """(type, name) → normalised SQL of every object a user could have made."""
    found = {}
    for kind, name, sql in conn.execute(
            f"SELECT type, name, sql FROM {database}.sqlite_master"):
        if kind == "table" and name in _INTERNAL_TABLES:
            continue
        if kind == "index" and sql is None and str(name).startswith("sqlite_autoindex_"):
            continue
        found[(str(kind), str(name))] = _normal(sql)
    return found


@cache
def expected_objects(version: int) -> dict[tuple[str, str], str]:
    """What our migrations make at ``version``: built in memory by the same functions."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        schema.migrate(conn, target=version, source="<expected schema>")
        return schema_objects(conn)
    finally:
        conn.close()


def foreign_objects(conn: sqlite3.Connection, version: int, database: str = "main"
                    ) -> list[str]:
    """Each object of the file that our schema at ``version`` does not have, or has with
    different SQL, and each of ours the file lacks; [] when the schema is exactly ours."""
    expected = expected_objects(version)
    actual = schema_objects(conn, database)
    problems = []
    for key, sql in sorted(actual.items()):
        if key not in expected:
            problems.append(f"{key[0]} {key[1]!r}")
        elif expected[key] != sql:
            problems.append(f"{key[0]} {key[1]!r} (changed definition)")
    problems += [f"{kind} {name!r} (missing)" for kind, name in sorted(expected)
                 if (kind, name) not in actual]
    return problems


def harden(conn: sqlite3.Connection) -> None:
    """SQLite's defences for a file from elsewhere: defensive mode where Python offers it
    (3.12+: no writes to sqlite_master, no ``PRAGMA writable_schema``), and untrusted
    schema in any case (functions with side effects are not run from views, triggers or
    generated columns a file carries)."""
    setconfig = getattr(conn, "setconfig", None)
    defensive = getattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE", None)
    if setconfig is not None and defensive is not None:
        setconfig(defensive, True)
    conn.execute("PRAGMA trusted_schema = OFF")


def check_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`ForeignSchema` unless ``conn``'s schema is exactly ours at its version."""
    version = schema.user_version(conn)
    if version == 0 or version > schema.SCHEMA_VERSION:
        return  # a new file, or one check_version refuses anyway
    problems = foreign_objects(conn, version)
    if problems:
        raise ForeignSchema(path, problems)


def copy_to_clean(source: Path, target: Path) -> dict[str, tuple[int, int]]:
    """Copy the rows of our tables from ``source`` into a new workspace ``target`` made by
    our own schema code (then migrated to the current version); foreign triggers, views
    and indexes stay behind. Returns (rows copied, rows left out) per table: a row that
    breaks our schema's constraints (a changed definition let it in) is left out."""
    from cluestudio.core.workspace.store import WorkspaceError, open_workspace, readonly_uri

    source, target = Path(source), Path(target)
    if target.exists() and target.stat().st_size:
        raise WorkspaceError(f"{target}: already exists; choose a new file for the clean copy")
    if source.resolve() == target.resolve():
        raise WorkspaceError(f"{target}: the clean copy must be a different file")
    conn = sqlite3.connect("file::memory:", uri=True, isolation_level=None)
    harden(conn)
    conn.set_progress_handler(_step_budget(), _PROGRESS_STEPS)
    counts: dict[str, tuple[int, int]] = {}
    try:
        conn.execute("ATTACH DATABASE ? AS src", (readonly_uri(source),))
        version = int(conn.execute("PRAGMA src.user_version").fetchone()[0])
        schema.check_version(version, str(source))
        conn.execute("DETACH DATABASE src")
        conn.close()
        conn = sqlite3.connect(target.resolve().as_uri(), uri=True, isolation_level=None)
        harden(conn)
        conn.set_progress_handler(_step_budget(), _PROGRESS_STEPS)
        schema.migrate(conn, target=version, source=str(target))
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("ATTACH DATABASE ? AS src", (readonly_uri(source),))
        conn.execute("BEGIN")
        for kind, table in sorted(expected_objects(version)):
            if kind != "table":
                continue
            ours = [r[1] for r in conn.execute(f'PRAGMA main.table_info("{table}")')]
            theirs = {r[1] for r in conn.execute(f'PRAGMA src.table_info("{table}")')}
            columns = ", ".join(f'"{c}"' for c in ours if c in theirs)
            if not columns:
                continue
            cursor = conn.execute(f'INSERT OR IGNORE INTO main."{table}" ({columns}) '
                                  f'SELECT {columns} FROM src."{table}"')
            total = conn.execute(f'SELECT count(*) FROM src."{table}"').fetchone()[0]
            counts[table] = (cursor.rowcount, int(total) - cursor.rowcount)
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE src")
    except sqlite3.DatabaseError as error:
        conn.close()
        target.unlink(missing_ok=True)
        raise WorkspaceError(f"{source}: could not copy its data ({error}); "
                             f"{target} was not made") from error
    finally:
        conn.close()
    open_workspace(target).close()  # bring the copy up to the current version
    return counts


def _step_budget() -> Callable[[], int]:
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 1 if steps[0] > _PROGRESS_LIMIT else 0

    return tick
