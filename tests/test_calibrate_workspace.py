"""User scenario: calibrate CLUE's weights on the ratings kept in a course workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cluestudio.core.calibrate.workspace_data import calibration_data
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import SaveRating, SaveRevision, import_path, open_workspace
from cluestudio.resources_path import annotations_dir

SAMPLE = annotations_dir() / "sample"


def _sample_workspace(path: Path):
    ws = open_workspace(path)
    run_job(import_path(ws, SAMPLE))
    return ws


def test_rated_parsable_submissions_become_pairs(tmp_path: Path) -> None:
    with _sample_workspace(tmp_path / "course.sqlite") as ws:
        summaries = ws.list_submissions()
        rated = [s for s in summaries if s.ratings]
        broken = rated[0]
        # A second grader on one submission: the human total is the mean of both.
        second = rated[1]
        first_total = ws.ratings(second.id)[0].total
        ws.execute(SaveRating(second.id, "second-grader",
                              {"classes": 0, "attributes": 0, "methods": 0, "relations": 0,
                               "multiplicities": 0, "overall": 0}))
        # The newest revision of another one no longer parses: it is left out, with why.
        ws.execute(SaveRevision(broken.id, "@startuml\nclass A {\n@enduml\n", "tester"))
        data = calibration_data(ws)

    assert len(data.ids) == len(rated) - 1
    assert f"{broken.task_id}/{broken.source_id}" not in data.ids
    assert any(reason.startswith(f"{broken.task_id}/{broken.source_id}: newest revision")
               for reason in data.skipped)
    index = data.ids.index(f"{second.task_id}/{second.source_id}")
    assert data.human_totals()[index] == (first_total + 0.0) / 2
    assert all(ref.classes and cand.classes for ref, cand in data.pairs)


def test_cli_calibrates_from_a_workspace(tmp_path: Path) -> None:
    _sample_workspace(tmp_path / "course.sqlite").close()
    result = subprocess.run(
        [sys.executable, "-m", "cluestudio", "calibrate", str(tmp_path / "course.sqlite"),
         "--embedder", "exact", "--trials", "8", "--json", "--no-plots",
         "-o", str(tmp_path / "fitted.toml"), "--report", str(tmp_path / "report")],
        capture_output=True, text=True, timeout=240,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["trials"] == 8
    assert (tmp_path / "fitted.toml").read_text(encoding="utf-8").count("w_e") == 1
    assert (tmp_path / "report" / "report.json").exists()
