"""One JVM per process for a whole scoring run (issue 28 item 3): the validity metric asks the
process's warm renderer, which starts beside the encoder's load, and nothing else of the run
starts a Java of its own — in the CLI and in the window's worker process, whose later jobs
reuse it.

Java is started through a wrapper (``CLUESTUDIO_JAVA``, the documented override) that notes
each start in a file before it runs the real runtime."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cluestudio.core.plantuml.runtime import RuntimeMissing, java_executable


def _real_java() -> Path:
    try:
        java = java_executable()
    except RuntimeMissing:
        pytest.skip("no Java runtime")
    if not java.exists():
        pytest.skip("no Java runtime")
    return java


@pytest.fixture
def counted_java(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A java that appends a line to the returned file each time it starts."""
    if sys.platform == "win32":
        pytest.skip("the counting wrapper is a shell script")
    log = tmp_path / "java-starts.txt"
    wrapper = tmp_path / "java"
    wrapper.write_text(f'#!/bin/sh\necho "$$" >> "{log}"\nexec "{_real_java()}" "$@"\n',
                       encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("CLUESTUDIO_JAVA", str(wrapper))
    return log


def _starts(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").split()) if log.exists() else 0


def test_the_cli_scores_a_course_with_one_jvm(sample_ws: Path, tmp_path: Path,
                                              counted_java: Path) -> None:
    course = shutil.copy(sample_ws, tmp_path / "course.sqlite")
    done = subprocess.run([sys.executable, "-m", "cluestudio", "score", "--workspace",
                           str(course), "--embedder", "exact", "--json"],
                          capture_output=True, text=True, timeout=300, env=os.environ.copy(),
                          check=False)
    assert done.returncode == 0, done.stderr
    assert '"syntactic-validity"' in done.stdout or "r2a-validity" in done.stdout, done.stdout
    assert _starts(counted_java) == 1


def test_the_worker_process_keeps_one_jvm_across_scoring_jobs(sample_ws: Path,
                                                              tmp_path: Path,
                                                              counted_java: Path) -> None:
    """The window's worker process (app/worker_process.py) runs "Score" twice, as two clicks
    would; every pair gets its validity from the one JVM that process started."""
    import threading

    from cluestudio.app.scoring import plan_and_score_job
    from cluestudio.app.scoring_records import ScoringOptions
    from cluestudio.app.worker_process import WorkerProcess

    course = shutil.copy(sample_ws, tmp_path / "course.sqlite")
    valid: list[float] = []
    outcomes: dict[int, tuple[str, object]] = {}
    finished = {1: threading.Event(), 2: threading.Event()}

    def on_message(job_id: int, kind: str, payload: object) -> None:
        if kind == "data":
            _, chunk = payload  # type: ignore[misc]
            valid.extend(row.value for item in chunk for row in item.rows
                         if row.metric == "syntactic-validity")
        elif kind in ("result", "error"):
            outcomes[job_id] = (kind, payload)
        elif kind == "finished":
            finished[job_id].set()

    worker = WorkerProcess(on_message)
    try:
        for job_id in (1, 2):
            worker.submit(job_id, plan_and_score_job,
                          (str(course), ScoringOptions(embedder="exact")))
            assert finished[job_id].wait(300), outcomes
    finally:
        worker.stop()
    assert [kind for kind, _ in outcomes.values()] == ["result", "result"], outcomes
    assert len(valid) == 2 * 66 and sum(valid) > 0  # the sample course's 66 pairs, twice
    assert _starts(counted_java) == 1
