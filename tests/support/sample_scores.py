"""Every stored metric value of the bundled courses, for the scoring regression test.

``tests/fixtures/sample_scores_before.json`` was written by this module from the code as it
was before issue 21 (the scoring speed-ups): a change that makes scoring faster must not move
any value. Regenerate only when a metric's definition changes on purpose:

    PYTHONPATH=app:plugins python -m support.sample_scores  (from tests/)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "sample_scores_before.json"
COURSES = {"sample": ROOT / "annotations" / "sample",
           "architecture": ROOT / "annotations" / "examples" / "architecture"}
EMBEDDERS = ("exact", "minilm")


def course_scores(folder: Path, embedder: str, workdir: Path, **options: Any
                  ) -> dict[str, dict[str, float | None]]:
    """Import ``folder`` into a fresh workspace, score it, and return
    ``{"task/source": {metric: value}}`` of every stored row."""
    from cluestudio.app.scoring import ScoringOptions, score_workspace
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import import_path, open_workspace

    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"{folder.name}-{embedder}.sqlite"
    with open_workspace(path) as ws:
        run_job(import_path(ws, folder))
        summary = run_job(score_workspace(ws, ScoringOptions(embedder=embedder, device="cpu"),
                                          **options))
        if summary.plugin_errors:
            raise AssertionError(f"metrics failed: {summary.plugin_errors}")
        rows = ws._reader().execute(
            "SELECT t.id, u.source_id, s.metric, s.value FROM scores s JOIN submissions u"
            " ON u.id = s.submission_id JOIN tasks t ON t.id = u.task_id").fetchall()
    out: dict[str, dict[str, float | None]] = {}
    for task, source, metric, value in rows:
        out.setdefault(f"{task}/{source}", {})[metric] = value
    return out


def all_scores(workdir: Path) -> dict[str, Any]:
    return {f"{course}:{embedder}": course_scores(folder, embedder, workdir / course)
            for course, folder in COURSES.items() for embedder in EMBEDDERS}


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        data = all_scores(Path(tmp))
    FIXTURE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    counts = {key: sum(len(v) for v in rows.values()) for key, rows in data.items()}
    print(f"wrote {FIXTURE}: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
