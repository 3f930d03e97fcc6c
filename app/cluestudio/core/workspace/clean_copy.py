"""Copying the data of a refused workspace into a clean one (``cluestudio clean-copy``).

A file refused for schema objects ClueStudio did not make (:mod:`.foreign`) may still hold
work worth keeping. Its rows of our tables are copied, read-only and under a step budget,
into a new workspace made by our own schema code; the foreign triggers, views and indexes
stay behind, and rows a changed definition let in that break our constraints are counted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from cluestudio.core.workspace import schema
from cluestudio.core.workspace.foreign import expected_objects, harden
from cluestudio.core.workspace.store import WorkspaceError, open_workspace, readonly_uri

# A bound on the SQLite virtual-machine steps the copy may take (a hostile generated column
# or CHECK is refused on open; this is the backstop).
_PROGRESS_STEPS = 10_000
_PROGRESS_LIMIT = 200_000  # × _PROGRESS_STEPS instructions in all


def copy_to_clean(source: Path, target: Path) -> dict[str, tuple[int, int]]:
    """Copy the rows of our tables from ``source`` into a new workspace ``target`` made by
    our own schema code (then migrated to the current version); foreign triggers, views
    and indexes stay behind. Returns (rows copied, rows left out) per table: a row that
    breaks our schema's constraints (a changed definition let it in) is left out."""
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
        if conn.execute("PRAGMA src.application_id").fetchone()[0] != schema.APPLICATION_ID:
            raise WorkspaceError(f"{source}: not a ClueStudio workspace; nothing to copy")
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
