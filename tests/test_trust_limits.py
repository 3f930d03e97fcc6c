"""Hostile sizes and failing disks (issue 25 items 4 and 10): exports stream in bounded
memory, oversized fields are refused on every way in with the same limits, a job says why
it left a submission out, a full disk during an export changes no file and names the one
that failed, and a read-only workspace can still be analysed and exported."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import (
    CommandError,
    ImportFailed,
    SaveRating,
    SaveRevision,
    SetReviewVerdict,
    import_path,
    open_workspace,
)
from cluestudio.core.workspace import export as export_module
from cluestudio.core.workspace.export import export_tables
from cluestudio.core.workspace.source_files import MAX_NAME_BYTES, MAX_TEXT_BYTES
from support.mounts import tmpfs_runner

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "annotations" / "sample"
SCORES = {"classes": 4, "attributes": 3, "methods": 2, "relations": 4, "multiplicities": 1,
          "overall": 3.5}


def with_graders(sample_ws: Path, path: Path, graders: int) -> Path:
    """The sample course rated by ``graders`` more graders, written the fast way."""
    shutil.copy(sample_ws, path)
    with open_workspace(path) as ws:
        ids = [s.id for s in ws.list_submissions()]
        rows = [(f"u{g}-{sid}", sid, f"grader{g}", json.dumps(SCORES), "a comment")
                for g in range(graders) for sid in ids]
        ws.write(lambda conn: conn.executemany(
            "INSERT INTO ratings (uid, submission_id, grader, rubric_id, scores, total, comment,"
            " created_at) VALUES (?, ?, ?, 'class-diagram', ?, 60, ?, '2026-01-01')", rows))
    return path


def export_peak(path: Path, out: Path) -> int:
    with open_workspace(path, readonly=True) as ws:
        tracemalloc.start()
        try:
            export_tables(ws, out)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def test_export_memory_does_not_grow_with_the_number_of_ratings(sample_ws: Path,
                                                                 tmp_path: Path) -> None:
    small = with_graders(sample_ws, tmp_path / "small.sqlite", 10)
    large = with_graders(sample_ws, tmp_path / "large.sqlite", 80)
    small_peak = export_peak(small, tmp_path / "small")
    large_peak = export_peak(large, tmp_path / "large")
    small_size = (tmp_path / "small" / "ratings.json").stat().st_size
    large_size = (tmp_path / "large" / "ratings.json").stat().st_size
    assert large_size / small_size > 6  # 8× the ratings really were exported
    # Memory follows the batch, not the table: 8× the rows, well under 2× the peak.
    assert large_peak / small_peak < 1.5, (small_peak, large_peak)


def test_an_oversized_field_is_exported_as_a_note_of_its_size(sample_ws: Path,
                                                              tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    shutil.copy(sample_ws, path)
    huge = "x" * (3 * MAX_TEXT_BYTES)
    with open_workspace(path) as ws:  # as a file edited outside ClueStudio could hold it
        ws.write(lambda conn: conn.execute("UPDATE ratings SET comment = ? WHERE id = "
                                           "(SELECT min(id) FROM ratings)", (huge,)))
        export_tables(ws, tmp_path / "out")
    text = (tmp_path / "out" / "ratings.csv").read_text(encoding="utf-8")
    assert f"[{len(huge)} bytes: over the 1 MB limit, not exported]" in text
    assert len(text) < MAX_TEXT_BYTES


def test_a_stopped_export_keeps_the_old_files_and_leaves_no_temporary_file(
        sample_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    with open_workspace(sample_ws, readonly=True) as ws:
        export_tables(ws, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def stopped(ws: object) -> object:
        yield {"task_id": "t", "source_id": "s"}
        raise KeyboardInterrupt

    monkeypatch.setitem(export_module._ROWS, "reviews", stopped)
    with open_workspace(sample_ws, readonly=True) as ws, pytest.raises(KeyboardInterrupt):
        export_tables(ws, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_oversized_fields_are_refused_by_the_editor(sample_ws: Path, tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    shutil.copy(sample_ws, path)
    over = "x" * (MAX_TEXT_BYTES + 1)
    with open_workspace(path) as ws:
        sid = ws.list_submissions()[0].id
        before = ws.counts()
        for command in (lambda: SaveRating(sid, "ann", SCORES, comment=over),
                        lambda: SaveRating(sid, "a" * (MAX_NAME_BYTES + 1), SCORES),
                        lambda: SetReviewVerdict(sid, "ann", "accept", comment=over),
                        lambda: SaveRevision(sid, f"@startuml\n' {over}\n@enduml", "ann")):
            with pytest.raises(CommandError, match=r"over|at most"):
                ws.execute(command())
        SaveRating(sid, "ann", SCORES, comment="x" * MAX_TEXT_BYTES)  # the limit itself is fine
        assert ws.counts() == before


@pytest.mark.parametrize("where", ["ratings.csv comment", "ratings.csv grader", "jsonl id",
                                   "pack comment"])
def test_oversized_fields_are_refused_by_imports_and_packs(sample_ws: Path, tmp_path: Path,
                                                           where: str) -> None:
    from cluestudio.core.workspace.pack import export_pack, merge_packs

    over_text, over_name = "x" * (MAX_TEXT_BYTES + 1), "g" * (MAX_NAME_BYTES + 1)
    with open_workspace(tmp_path / "target.sqlite") as ws:
        if where.startswith("ratings.csv"):
            course = tmp_path / "course"
            shutil.copytree(SAMPLE, course)
            comment, grader = ((over_text, "ann") if where.endswith("comment")
                               else ("ok", over_name))
            (course / "ratings.csv").write_text(
                "task_id,source_id,grader,total,comment\n"
                f"online_shop,s001,{grader},50,{comment}\n", encoding="utf-8")
            with pytest.raises(ImportFailed, match=r"bytes, over the [\d,]+-byte limit"):
                run_job(import_path(ws, course))
        elif where == "jsonl id":
            source = tmp_path / "data.jsonl"
            source.write_text(json.dumps({"task_id": over_name, "reference": "@startuml\n"
                                          "class A\n@enduml"}) + "\n", encoding="utf-8")
            with pytest.raises(ImportFailed, match=r"task_id is [\d,]+ bytes, over the"):
                run_job(import_path(ws, source))
        else:
            with open_workspace(sample_ws, readonly=True) as source_ws:
                export_pack(source_ws, tmp_path / "p.zip")
            with zipfile.ZipFile(tmp_path / "p.zip") as zf:
                members = {n: zf.read(n) for n in zf.namelist()}
            data = json.loads(members["data.json"])
            data["ratings"][0]["comment"] = over_text
            members["data.json"] = json.dumps(data).encode()
            with zipfile.ZipFile(tmp_path / "bad.zip", "w") as zf:
                for name, content in members.items():
                    zf.writestr(name, content)
            with pytest.raises(ImportFailed, match=r"ratings\[0\]: bad 'comment'"):
                merge_packs(ws, [tmp_path / "bad.zip"])
        assert ws.tasks() == []


def test_a_submission_left_out_of_a_scoring_job_is_reported_with_why(sample_ws: Path,
                                                                     tmp_path: Path) -> None:
    from cluestudio.app.scoring import ScoringOptions, ScoringPlan

    path = tmp_path / "w.sqlite"
    shutil.copy(sample_ws, path)
    with open_workspace(path) as ws:
        plan = ScoringPlan(ws, ScoringOptions(embedder="exact", device="cpu"))
        sid = ws.list_submissions()[0].id
        ws.execute(SaveRevision(sid, "@startuml\nclass Changed\n@enduml", "ann"))
        scored = {item.submission_id for item in plan}
    assert sid not in scored and len(scored) == len(plan) - 1
    assert "changed while the job ran" in plan.summary.failed[sid]


needs_mounts = pytest.mark.skipif(tmpfs_runner() is None,
                                  reason="needs Linux mount namespaces (unshare -rm)")

FULL_DISK_EXPORT = """
import json, os, sys
from pathlib import Path
from cluestudio.cli import main
disk, small, large = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
out = disk / "out"
first = main(["export", small, str(out)])
before = {p.name: p.read_bytes() for p in out.iterdir()}
with open(disk / "filler", "wb") as handle:  # leave about 300 KB free
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    handle.write(b"x" * max(0, free - (300 << 10)))
second = main(["export", large, str(out)])
after = {p.name: p.read_bytes() for p in out.iterdir()}
print("RESULT " + json.dumps({"first": first, "second": second, "same": before == after,
                              "names": sorted(after)}))
"""


@needs_mounts
@pytest.mark.timeout(300)
def test_a_full_disk_during_export_changes_no_file_and_names_the_one_that_failed(
        sample_ws: Path, tmp_path: Path) -> None:
    large = with_graders(sample_ws, tmp_path / "large.sqlite", 40)
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "full.py"
    script.write_text(textwrap.dedent(FULL_DISK_EXPORT), encoding="utf-8")
    command = (f"mount -t tmpfs -o size=8m tmpfs {disk} && exec {sys.executable} {script} "
               f"{disk} {sample_ws} {large}")
    done = subprocess.run([*(tmpfs_runner() or []), "sh", "-c", command],
                          capture_output=True, text=True, timeout=280, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.split("RESULT ", 1)[1])
    assert result["first"] == 0 and result["second"] == 2
    assert result["same"]  # not one of the old files changed
    assert all(not name.startswith(".") for name in result["names"])  # no temporary file
    error = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and f"{disk}/out/ratings." in error[0]
    assert "the disk is full" in error[0] and "Traceback" not in done.stderr


@needs_mounts
@pytest.mark.timeout(120)
def test_a_read_only_workspace_can_be_analysed_and_exported(sample_ws: Path,
                                                            tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.copy(sample_ws, shared / "course.sqlite")
    conn = sqlite3.connect(shared / "course.sqlite")  # checkpointed: one file holds all
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    python = f"{sys.executable} -m cluestudio"
    command = (f"mount --bind {shared} {shared} && mount -o remount,ro,bind {shared} && "
               f"{python} analysis {shared}/course.sqlite --json > {tmp_path}/analysis.json && "
               f"{python} export {shared}/course.sqlite {tmp_path}/out")
    done = subprocess.run([*(tmpfs_runner() or []), "sh", "-c", command],
                          capture_output=True, text=True, timeout=110, check=False,
                          env={**os.environ, "PYTHONPATH": sys_path()})
    assert done.returncode == 0, done.stderr[-3000:]
    analysis = json.loads((tmp_path / "analysis.json").read_text(encoding="utf-8"))
    assert analysis["rubric"]
    assert (tmp_path / "out" / "ratings.csv").read_text(encoding="utf-8").count("\n") > 66


def sys_path() -> str:
    return ":".join(p for p in sys.path if p)


def test_analysis_does_not_read_comments_into_memory(sample_ws: Path, tmp_path: Path) -> None:
    from cluestudio.app.analysis import gather
    from cluestudio.core.jobs import CancelToken
    from cluestudio.core.rubric import DEFAULT_RUBRIC_ID

    path = with_graders(sample_ws, tmp_path / "w.sqlite", 1)  # two graders: agreement too
    with open_workspace(path) as ws:  # 4 MiB comments, as a file edited elsewhere could hold
        ws.write(lambda conn: conn.execute(
            "UPDATE ratings SET comment = replace(hex(zeroblob(?)), '0', 'x')",
            (2 * MAX_TEXT_BYTES,)))
    with open_workspace(path, readonly=True) as ws:
        def analyse() -> object:
            return run_job(gather(ws, DEFAULT_RUBRIC_ID, CancelToken(), figures=False,
                                  resamples=20))

        analyse()  # imports (numpy, scipy) happen once, outside the measure
        tracemalloc.start()
        try:
            data = analyse()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert data.agreement  # type: ignore[attr-defined]
    assert peak < 4 * MAX_TEXT_BYTES  # not even one of the 132 comments of 4 MiB was read


def test_pack_export_memory_does_not_grow_with_the_number_of_ratings(sample_ws: Path,
                                                                      tmp_path: Path) -> None:
    from cluestudio.core.workspace.pack import export_pack

    peaks = {}
    for graders in (10, 80):  # both past one batch of rows
        path = with_graders(sample_ws, tmp_path / f"w{graders}.sqlite", graders)
        with open_workspace(path, readonly=True) as ws:
            export_pack(ws, tmp_path / "warm.zip")  # imports and caches outside the measure
            tracemalloc.start()
            try:
                counts = export_pack(ws, tmp_path / f"p{graders}.zip")
                peaks[graders] = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        assert counts["ratings"] == 66 * (graders + 1)
    assert peaks[80] / peaks[10] < 1.5, peaks  # 7× the ratings, not 7× the memory


def test_a_pack_too_large_to_merge_is_not_written(sample_ws: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from cluestudio.core.workspace import pack

    monkeypatch.setattr(pack, "MAX_DATA_BYTES", 20_000)
    with open_workspace(sample_ws, readonly=True) as ws, \
            pytest.raises(pack.PackTooLarge, match=r"over the .* a merge accepts; export one "
                                                   r"grader's work at a time"):
        pack.export_pack(ws, tmp_path / "big.zip")
    assert list(tmp_path.iterdir()) == []
