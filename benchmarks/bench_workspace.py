"""Workspace speed: open + list 10,000 submissions, save-rating latency, sample import.

Goals (issue "Course workspace in SQLite"): open and list 10,000 submissions ≤ 1 s;
save a rating p95 ≤ 5 ms (through the writer thread, committed); import the sample
course in seconds.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import (
    SaveRating,
    Task,
    import_path,
    open_workspace,
    ops,
    sample_course_path,
)

SCORES = {"classes": 4, "attributes": 3, "methods": 2, "relations": 4, "multiplicities": 1,
          "overall": 3.5}
PUML = "@startuml\nclass A {\n  - x : int\n}\nclass B\nA -- B\n@enduml\n"


def _populate(path: Path, n: int) -> None:
    with open_workspace(path) as ws:
        def fill(conn):  # type: ignore[no-untyped-def]
            for t in range(10):
                ops.upsert_task(conn, Task(f"t{t}", f"Task {t}", "req", PUML))
            for i in range(n):
                sid, _ = ops.ensure_submission(conn, f"t{i % 10}", f"s{i:05d}", "student", None)
                conn.execute("INSERT INTO conversions(uid, submission_id, puml, content_hash,"
                             " author, author_kind, created_at) VALUES (?,?,?,?,?,?,?)",
                             (f"u{i}", sid, PUML, "h", "import", "import", "now"))
        ws.write(fill)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.sqlite"
        start = time.perf_counter()
        _populate(path, 10_000)
        print(f"create 10,000 submissions:     {time.perf_counter() - start:7.2f} s")

        start = time.perf_counter()
        ws = open_workspace(path)
        rows = ws.list_submissions()
        elapsed = time.perf_counter() - start
        print(f"open + list {len(rows)} submissions: {elapsed * 1000:7.0f} ms  (goal ≤ 1000 ms)")

        start = time.perf_counter()
        ws.list_submissions(task_id="t3")
        print(f"list one task (1,000):         {(time.perf_counter() - start) * 1000:7.1f} ms")

        samples = []
        for row in rows[:500]:
            t0 = time.perf_counter()
            ws.execute(SaveRating(row.id, "bench", SCORES, seconds=12.0))
            samples.append((time.perf_counter() - t0) * 1000)
        samples.sort()
        p95 = samples[int(len(samples) * 0.95)]
        print(f"save rating: median {statistics.median(samples):.2f} ms, p95 {p95:.2f} ms "
              f"(goal p95 ≤ 5 ms), n={len(samples)}")
        ws.close()

        sample = sample_course_path()
        n_files = sum(1 for _ in sample.rglob("*") if _.is_file())
        with open_workspace(Path(tmp) / "sample.sqlite") as ws:
            start = time.perf_counter()
            report = run_job(import_path(ws, sample))
            elapsed = time.perf_counter() - start
            print(f"import sample course ({n_files} files, "
                  f"{report.counts.get('submissions_added', 0)} submissions): {elapsed:.2f} s")
        print(f"(cpu count {os.cpu_count()}, shared machine: figures are indicative)")


if __name__ == "__main__":
    main()
