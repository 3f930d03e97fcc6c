"""A workspace under attack or on a failing disk (issue 14): one-line errors naming the file,
never a traceback, and nothing already stored is lost."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.workspace import open_workspace, schema
from cluestudio.core.workspace.lock import WorkspaceInUse
from cluestudio.core.workspace.schema import MigrationFailed
from support.mounts import tmpfs_runner

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "annotations" / "sample"
ARCHITECTURE = ROOT / "annotations" / "examples" / "architecture"


def copy_of(sample_ws: Path, tmp_path: Path, name: str = "course.sqlite") -> Path:
    target = tmp_path / name
    shutil.copy(sample_ws, target)
    return target


def test_two_writers_through_a_symlink_meet_at_one_lock(sample_ws: Path, tmp_path: Path) -> None:
    real = copy_of(sample_ws, tmp_path)
    (tmp_path / "alias").mkdir()
    link = tmp_path / "alias" / "link.sqlite"
    link.symlink_to(real)
    with open_workspace(real):
        for other in (link, tmp_path / "alias" / ".." / "course.sqlite"):
            with pytest.raises(WorkspaceInUse):
                open_workspace(other)


@pytest.mark.parametrize("command", [["export", "{ws}", "{tmp}/out"],
                                     ["pack", "export", "{ws}", "{tmp}/p.zip"],
                                     ["calibrate", "{ws}", "-o", "{tmp}/w.toml", "--trials", "2"],
                                     ["comments", "bank", "{ws}"],
                                     ["score", "--workspace", "{ws}"],
                                     ["team", "agreement", "{ws}"],
                                     ["roster", "{ws}", "{tmp}/roster.csv"]])
def test_an_empty_file_is_not_a_workspace(tmp_path: Path, command: list[str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    (tmp_path / "roster.csv").write_text("student_id,name\ns1,Ann\n", encoding="utf-8")
    argv = [part.format(ws=empty, tmp=tmp_path) for part in command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{empty}: an empty file, not a workspace" in err and "Traceback" not in err
    assert empty.stat().st_size == 0  # not turned into a database behind the TA's back


def test_only_creating_a_workspace_turns_an_empty_file_into_one(tmp_path: Path) -> None:
    from cluestudio.core.workspace import WorkspaceError

    empty = tmp_path / "picked.sqlite"
    empty.touch()  # what a save dialog leaves for File → New
    with pytest.raises(WorkspaceError, match="an empty file, not a workspace"):
        open_workspace(empty, create=False)
    assert empty.stat().st_size == 0
    with open_workspace(empty) as ws:  # create=True, the default: a new workspace
        assert ws.counts()["tasks"] == 0
    with open_workspace(empty, create=False) as ws:  # and from now on it is one
        assert ws.counts()["tasks"] == 0


def damage(path: Path, *, schema_too: bool = False) -> None:
    """Overwrite the root page of every table (and the schema page too, if asked): the file
    opens, and the damage shows when a command reads its data."""
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    roots = [r for (r,) in conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE type='table' AND rootpage > 1")]
    conn.close()
    with open(path, "r+b") as handle:
        for page in [*roots, *([1] if schema_too else [])]:
            handle.seek((page - 1) * page_size + (100 if page == 1 else 0))
            handle.write(b"\xff" * (page_size - (100 if page == 1 else 0)))


@pytest.mark.parametrize("command", [["pack", "export", "{ws}", "{tmp}/p.zip"],
                                     ["import", "{ws}", str(SAMPLE)],
                                     ["calibrate", "{ws}", "-o", "{tmp}/w.toml", "--trials", "2"],
                                     ["export", "{ws}", "{tmp}/out", "--tables", "scores"]])
def test_a_damaged_workspace_is_a_one_line_error(sample_ws: Path, tmp_path: Path,
                                                 command: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    ws = copy_of(sample_ws, tmp_path)
    damage(ws, schema_too=command[0] == "export")  # found on open, not while reading
    argv = [part.format(ws=ws, tmp=tmp_path) for part in command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{ws}: the workspace file is damaged or unreadable" in err


def test_a_failing_migration_leaves_the_file_unchanged(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=1)
    conn.execute("INSERT INTO meta VALUES ('kept', 'yes')")
    before = list(conn.iterdump())
    conn.close()

    def broken_step(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise sqlite3.OperationalError("no such column: nonsense")

    steps = list(schema.MIGRATIONS)
    steps[1] = broken_step
    monkeypatch.setattr(schema, "MIGRATIONS", steps)
    with pytest.raises(MigrationFailed, match=r"from format 1 to 2 .* the file was not changed"):
        open_workspace(path)
    conn = sqlite3.connect(path)
    assert schema.user_version(conn) == 1
    assert list(conn.iterdump()) == before  # no half-applied step, no lost row
    conn.close()


# A real full disk: a 12 MB tmpfs in a mount namespace of our own (no root needed where user
# namespaces are allowed). The script fills it, then imports, exports and saves a rating.
FULL_DISK = """
import json, os, shutil, sys
from pathlib import Path
from cluestudio.cli import main
from cluestudio.core.workspace import open_workspace
from cluestudio.core.workspace.commands import SaveRating

disk, sample_ws, architecture = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
ws_path = disk / "course.sqlite"
shutil.copy(sample_ws, ws_path)
with open_workspace(ws_path) as ws:
    tasks_before = len(ws.tasks())
    sid = ws.list_submissions()[0].id
filler = disk / "filler"
with open(filler, "wb") as handle:
    try:
        while True:
            handle.write(b"x" * 65536)
            handle.flush()
    except OSError:
        pass
results = {}
for name, argv in (("import", ["import", str(ws_path), architecture]),
                   ("export", ["export", str(ws_path), str(disk / "out")])):
    results[name] = main(argv)
try:
    with open_workspace(ws_path) as ws:
        ws.execute(SaveRating(sid, "tess", {"classes": 4, "attributes": 4, "operations": 4,
                                              "relationships": 4, "naming": 4, "layout": 4}))
    results["save"] = "saved?"
except Exception as error:
    from cluestudio.core.errors import describe_failure
    results["save"] = describe_failure(error, ws_path) or repr(error)
filler.unlink()
with open_workspace(ws_path) as ws:
    results["tasks_after"] = len(ws.tasks())
    results["tasks_before"] = tasks_before
    results["integrity"] = ws.integrity_check()
print("RESULT " + json.dumps(results))
"""


@pytest.mark.skipif(tmpfs_runner() is None,
                    reason="needs Linux mount namespaces (unshare -rm) for a real full disk")
@pytest.mark.timeout(300)
def test_a_full_disk_loses_nothing_and_says_so(sample_ws: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "full_disk.py"
    script.write_text(textwrap.dedent(FULL_DISK))
    command = (f"mount -t tmpfs -o size=12m tmpfs {disk} && exec {sys.executable} {script} "
               f"{disk} {sample_ws} {ARCHITECTURE}")
    done = subprocess.run([*(tmpfs_runner() or []), "sh", "-c", command],
                          capture_output=True, text=True, timeout=280, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.split("RESULT ", 1)[1])
    assert result["import"] == 2 and result["export"] == 2
    assert "the disk is full" in result["save"]
    assert result["tasks_after"] == result["tasks_before"] == 3
    assert result["integrity"] == "ok"
    assert done.stderr.count("the disk is full") >= 2
    assert "Traceback" not in done.stderr
