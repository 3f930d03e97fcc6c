"""A shared workspace file must not rewrite what we save, hang us or impersonate (issue 25
item 2): its schema is compared with the one our migrations make, and anything more or
different is refused on open, naming the file and the objects; its data can be copied into a
clean workspace on request."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.workspace import WorkspaceError, open_workspace, schema
from cluestudio.core.workspace.clean_copy import copy_to_clean
from cluestudio.core.workspace.foreign import ForeignSchema

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "annotations" / "sample"

# Each is planted in a copy of a real workspace, as a colleague's file could carry it.
PLANTED = {
    "trigger on scores": "CREATE TRIGGER fix AFTER INSERT ON scores BEGIN "
                         "UPDATE scores SET value = 0.123 WHERE id = new.id; END",
    "trigger on ratings": "CREATE TRIGGER fix_ratings AFTER INSERT ON ratings BEGIN "
                          "UPDATE ratings SET total = 0 WHERE id = new.id; END",
    "recursive view": "CREATE VIEW forever AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
                      "SELECT x + 1 FROM r) SELECT x FROM r",
    "extra table": "CREATE TABLE stash (x)",
    "extra index": "CREATE INDEX sneaky ON ratings(grader, total)",
}


def planted(sample_ws: Path, tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "shared.sqlite"
    shutil.copy(sample_ws, path)
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("attack", sorted(PLANTED))
def test_a_workspace_with_foreign_schema_objects_is_refused_naming_them(
        sample_ws: Path, tmp_path: Path, attack: str) -> None:
    path = planted(sample_ws, tmp_path, PLANTED[attack])
    before = path.read_bytes()
    for readonly in (False, True):
        with pytest.raises(ForeignSchema) as refused:
            open_workspace(path, readonly=readonly)
        message = str(refused.value)
        assert str(path) in message and "\n" not in message
        assert PLANTED[attack].split()[2] in message  # the object's name
    assert path.read_bytes() == before


def test_a_changed_table_definition_is_refused(sample_ws: Path, tmp_path: Path) -> None:
    # A scores table whose value is generated, not stored: what we save would be ignored.
    path = planted(sample_ws, tmp_path, "PRAGMA writable_schema = ON",
                   "UPDATE sqlite_master SET sql = replace(sql, 'value REAL,', "
                   "'value REAL GENERATED ALWAYS AS (0.123),') WHERE name = 'scores'")
    with pytest.raises(ForeignSchema, match=r"table 'scores' \(changed definition\)"):
        open_workspace(path)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [["analysis", "{ws}"], ["export", "{ws}", "{tmp}/out"],
                                     ["score", "--workspace", "{ws}", "--embedder", "exact"]])
def test_commands_refuse_a_planted_workspace_in_one_line(
        sample_ws: Path, tmp_path: Path, command: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    path = planted(sample_ws, tmp_path, PLANTED["trigger on scores"],
                   PLANTED["recursive view"])
    argv = [part.format(ws=path, tmp=tmp_path) for part in command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"error: {path}: refused" in err and "trigger 'fix'" in err and "view 'forever'" in err
    assert not (tmp_path / "out").exists()


def test_clean_copy_keeps_the_data_and_drops_the_planted_objects(
        sample_ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = planted(sample_ws, tmp_path, *PLANTED.values())
    clean = tmp_path / "clean.sqlite"
    assert main(["clean-copy", str(path), str(clean)]) == 0
    with open_workspace(sample_ws, readonly=True) as original, \
            open_workspace(clean) as copy:
        assert copy.tasks() == original.tasks()
        assert len(copy.list_submissions()) == len(original.list_submissions())
        assert (copy._reader().execute("SELECT count(*), sum(total) FROM ratings").fetchone()
                == original._reader().execute("SELECT count(*), sum(total) FROM ratings")
                .fetchone())
        kinds = {r[0] for r in copy._reader().execute("SELECT type FROM sqlite_master")}
        assert kinds <= {"table", "index"}
    assert main(["clean-copy", str(path), str(clean)]) == 2  # never over an existing file
    assert "already exists" in capsys.readouterr().err


def test_clean_copy_of_an_older_format_migrates(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=3)
    conn.execute("INSERT INTO meta VALUES ('kept', 'yes')")
    conn.execute("CREATE VIEW v AS SELECT * FROM meta")
    conn.close()
    copy_to_clean(path, tmp_path / "clean.sqlite")
    conn = sqlite3.connect(tmp_path / "clean.sqlite")
    assert schema.user_version(conn) == schema.SCHEMA_VERSION
    assert conn.execute("SELECT value FROM meta WHERE key = 'kept'").fetchone() == ("yes",)
    conn.close()


@pytest.mark.parametrize("version", range(1, schema.SCHEMA_VERSION + 1))
def test_workspaces_of_every_older_format_still_open_and_migrate(tmp_path: Path,
                                                                 version: int) -> None:
    path = tmp_path / f"v{version}.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=version)
    conn.close()
    with open_workspace(path) as ws:
        assert schema.user_version(ws._reader()) == schema.SCHEMA_VERSION


def test_connections_do_not_trust_the_files_schema(sample_ws: Path) -> None:
    with open_workspace(sample_ws, readonly=True) as ws:
        assert ws._reader().execute("PRAGMA trusted_schema").fetchone() == (0,)


def test_clean_copy_says_which_rows_it_left_out(sample_ws: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # A reviews table without its CHECK let a verdict in that ours refuses.
    path = planted(sample_ws, tmp_path, "PRAGMA writable_schema = ON",
                   "UPDATE sqlite_master SET sql = replace(sql, \"CHECK (verdict IN "
                   "('accept', 'needs_fix', 'unusable'))\", '') WHERE name = 'reviews'")
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO reviews (submission_id, reviewer, verdict, created_at)"
                 " SELECT min(id), 'eve', 'bogus', '2026-01-01' FROM submissions")
    conn.commit()
    conn.close()
    assert main(["clean-copy", str(path), str(tmp_path / "clean.sqlite")]) == 0
    captured = capsys.readouterr()
    assert "ratings 66" in captured.out
    assert "warning: reviews: 1 row(s) left out" in captured.err


def test_a_definition_differing_only_in_quotes_and_spacing_is_ours(sample_ws: Path,
                                                                   tmp_path: Path) -> None:
    # How ALTER TABLE writes a definition back varies (quotes, spaces); what it defines
    # does not, and a legitimate file migrated elsewhere must still open.
    path = planted(sample_ws, tmp_path, "PRAGMA writable_schema = ON",
                   "UPDATE sqlite_master SET sql = replace(replace(sql, 'CREATE TABLE tasks (',"
                   " 'CREATE TABLE \"tasks\"  (\n  '), ', title', ' ,title') WHERE name = 'tasks'")
    with sqlite3.connect(path) as conn:
        assert '"tasks"' in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'tasks'"
                                         ).fetchone()[0]
    with open_workspace(path, readonly=True) as ws:
        assert len(ws.tasks()) == 3


def test_clean_copy_of_a_file_that_is_no_workspace_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE ratings (x)")
    with pytest.raises(WorkspaceError, match="not a ClueStudio workspace"):
        copy_to_clean(other, tmp_path / "clean.sqlite")
    assert not (tmp_path / "clean.sqlite").exists()
