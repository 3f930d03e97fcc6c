"""A workspace is a file from someone else: its schema must be the one our code makes.

SQLite keeps triggers, views, indexes and table definitions *inside* the file, and runs them
for whoever opens it: a trigger planted in a shared workspace (``AFTER INSERT ON scores …
SET value = 0.123``) silently rewrites every score we save, a view that recurses without end
hangs whatever reads it. So on open the file's ``sqlite_master`` is compared with what
:mod:`~cluestudio.core.workspace.schema` creates at the file's version (built afresh in
memory by the very same migrations, so tables added by later migrations are covered without
a hand-written list). A file with anything more or different is refused, naming the
objects; :func:`copy_to_clean` copies its data (table rows only, never the foreign
objects) into a new workspace on request (``cluestudio clean-copy``, :mod:`.clean_copy`).
"""

from __future__ import annotations

import re
import sqlite3
from functools import cache
from pathlib import Path

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import schema

# SQLite's own bookkeeping: the AUTOINCREMENT counter and ANALYZE's statistics. Automatic
# indexes (UNIQUE, PRIMARY KEY) have no SQL and come with their table.
_INTERNAL_TABLES = frozenset({"sqlite_sequence", "sqlite_stat1", "sqlite_stat2",
                              "sqlite_stat3", "sqlite_stat4"})


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
