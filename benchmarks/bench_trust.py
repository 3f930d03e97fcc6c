"""Hostile sizes (issue 25): export memory and time per row as ratings grow 10×, pack merge
work as images grow 4×, and what the schema check costs each open.

Goals: export peak memory flat (ratio ≤ 1.5 at 10× the ratings), CPU per exported row flat
(ratio ≤ 1.5); pack merge CPU per image flat (ratio ≤ 1.5 at 4× the images); the schema
check ≤ 5 ms per open. Ratios of CPU seconds measured in one run, never wall time.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import tempfile
import time
import tracemalloc
import zipfile
from pathlib import Path

from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import import_path, open_workspace, sample_course_path
from cluestudio.core.workspace.export import export_tables
from cluestudio.core.workspace.foreign import check_schema
from cluestudio.core.workspace.pack import export_pack, merge_packs

SCORES = json.dumps({"classes": 4, "attributes": 3, "methods": 2, "relations": 4,
                     "multiplicities": 1, "overall": 3.5})


def _rated(base: Path, path: Path, ratings: int) -> Path:
    path.write_bytes(base.read_bytes())
    with open_workspace(path) as ws:
        ids = [s.id for s in ws.list_submissions()]
        rows = [(f"u{i}", ids[i % len(ids)], f"g{i // len(ids)}", SCORES, "a comment")
                for i in range(ratings)]
        ws.write(lambda conn: conn.executemany(
            "INSERT INTO ratings (uid, submission_id, grader, rubric_id, scores, total,"
            " comment, created_at) VALUES (?,?,?,'class-diagram',?,60,?,'2026-01-01')", rows))
    return path


def _export(path: Path, out: Path) -> tuple[float, int]:
    with open_workspace(path, readonly=True) as ws:
        tracemalloc.start()
        started = time.process_time()
        export_tables(ws, out)
        cpu = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return cpu, peak


def _png(index: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (index % 256, index // 256 % 256, 9)).save(buffer, "PNG")
    return buffer.getvalue()


def _pack(good: Path, path: Path, images: int) -> Path:
    with zipfile.ZipFile(good) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    data = json.loads(members["data.json"])
    task = data["tasks"][0]["id"]
    for index in range(images):
        png = _png(index)
        digest = hashlib.sha256(png).hexdigest()
        members[f"images/{digest}.png"] = png
        data["submissions"].append({"task_id": task, "source_id": f"x{index}",
                                    "origin": "student", "image_hash": digest, "meta": {}})
    members["data.json"] = json.dumps(data).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return path


def main() -> None:
    small, large = (2_000, 20_000) if "--quick" in sys.argv else (20_000, 200_000)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = folder / "sample.sqlite"
        with open_workspace(base) as ws:
            run_job(import_path(ws, sample_course_path()))
            export_pack(ws, folder / "good.zip")
        figures = {}
        for n in (small, large):
            cpu, peak = _export(_rated(base, folder / f"r{n}.sqlite", n), folder / f"o{n}")
            figures[n] = (cpu, peak)
            print(f"export {n:>7,} ratings: {cpu:6.2f} s CPU, peak {peak / 2**20:6.1f} MB traced")
        per_row = (figures[large][0] / large) / (figures[small][0] / small)
        print(f"  CPU per rating ratio {per_row:.2f} (goal ≤ 1.5); peak memory ratio "
              f"{figures[large][1] / figures[small][1]:.2f} (goal ≤ 1.5)")
        merge = {}
        for n in (500, 2_000):
            pack = _pack(folder / "good.zip", folder / f"p{n}.zip", n)
            with open_workspace(folder / f"m{n}.sqlite") as ws:
                started = time.process_time()
                merge_packs(ws, [pack])
                merge[n] = time.process_time() - started
            print(f"merge a pack of {n:>5,} images: {merge[n]:6.2f} s CPU")
        print(f"  CPU per image ratio {(merge[2_000] / 2_000) / (merge[500] / 500):.2f} "
              "(goal ≤ 1.5)")
        with open_workspace(base, readonly=True) as ws:
            conn = ws._reader()
            check_schema(conn, base)  # the expected schema is built once per version
            started = time.process_time()
            for _ in range(100):
                check_schema(conn, base)
            print(f"schema check per open: {(time.process_time() - started) * 10:.2f} ms "
                  "(goal ≤ 5 ms)")


if __name__ == "__main__":
    main()
