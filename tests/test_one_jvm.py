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
    """What the window's worker process runs for each "Score" (plan_and_score_job), twice
    in one process, as two clicks would; every pair gets its validity from that one JVM."""
    course = shutil.copy(sample_ws, tmp_path / "course.sqlite")
    code = (
        "import sys\n"
        "from cluestudio.app.scoring import plan_and_score_job\n"
        "from cluestudio.app.scoring_records import ScoringOptions\n"
        "from cluestudio.core.jobs import CancelToken, run_job\n"
        "valid = []\n"
        "def emit(tag, chunk):\n"
        "    valid.extend(r.value for item in chunk for r in item.rows\n"
        "                 if r.metric == 'syntactic-validity')\n"
        "for _ in range(2):\n"
        "    run_job(plan_and_score_job(sys.argv[1], ScoringOptions(embedder='exact'),\n"
        "                               cancel=CancelToken(), emit=emit))\n"
        "print(len(valid), sum(valid))\n")
    done = subprocess.run([sys.executable, "-c", code, str(course)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    checked, passed = done.stdout.split()
    assert int(checked) == 2 * 66 and float(passed) > 0  # the sample course's 66 pairs, twice
    assert _starts(counted_java) == 1
