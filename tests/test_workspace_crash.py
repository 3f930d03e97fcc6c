"""kill -9 in the middle of 1,000 rating saves: every committed rating survives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from cluestudio.core.workspace import open_workspace

CHILD = r"""
import sys
from cluestudio.core.workspace import SaveRating, Task, open_workspace, ops
ws = open_workspace(sys.argv[1])
def seed(conn):
    ops.upsert_task(conn, Task("t", "T"))
    return [ops.ensure_submission(conn, "t", f"s{i:04d}", "student", None)[0]
            for i in range(1000)]
ids = ws.write(seed)
print("ready", flush=True)
scores = {"classes": 4, "attributes": 3, "methods": 2, "relations": 4,
          "multiplicities": 1, "overall": 3.5}
for sid in ids:
    ws.execute(SaveRating(sid, "grader", scores, seconds=1.0))
    print(sid, flush=True)  # only after the commit returned
"""


def test_kill_9_during_rating_saves_loses_nothing_committed(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    committed = []
    while len(committed) < 300:
        line = proc.stdout.readline()
        assert line, "child ended early"
        committed.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    committed += [int(x) for x in proc.stdout.read().split()]
    # The lock died with the process: the workspace opens again at once.
    with open_workspace(path) as ws:
        assert ws.integrity_check() == "ok"
        rated = {r.submission_id for r in ws.ratings()}
        assert set(committed) <= rated
        assert len(rated) < 1000  # it really was interrupted
