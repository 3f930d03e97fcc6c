"""Scoring a workspace (the app layer's job, shared by the CLI and the window) and the one
definition of the current score that every reader uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app.scoring import ScoringOptions, plan_scoring, score_workspace
from cluestudio.cli import main
from cluestudio.core.jobs import CancelToken, run_job
from cluestudio.core.workspace import SaveRating, import_path, open_workspace

ROOT = Path(__file__).resolve().parents[1]
EXACT = ScoringOptions(embedder="exact", device="cpu")


@pytest.fixture
def ws(tmp_path: Path) -> Any:
    from gui_course import make_course

    workspace = open_workspace(tmp_path / "course.sqlite")
    run_job(import_path(workspace, make_course(tmp_path / "course")))
    yield workspace
    workspace.close()


def test_scoring_stores_every_pair_chunk_by_chunk(ws: Any) -> None:
    ids = [s.id for s in ws.list_submissions()]
    stored: list[frozenset[int]] = []
    summary = run_job(score_workspace(ws, EXACT, chunk_size=4, on_stored=stored.append))
    assert len(ids) == 6 and sorted(summary.scored) == sorted(ids)
    assert [len(chunk) for chunk in stored] == [4, 2]  # stored as each chunk was scored
    clue = ws.metric_values("clue")
    assert set(clue) == set(ids) and all(0.0 <= v <= 1.0 for v in clue.values())
    assert {"bleu", "rouge-l", "syntactic-validity"} <= set(ws.current_scores()[ids[0]])
    assert summary.metric_seconds["clue"] > 0 and "bleu" in summary.metric_seconds


def test_scoring_is_idempotent_and_resumable(ws: Any) -> None:
    cancel = CancelToken()
    job = score_workspace(ws, EXACT, cancel, chunk_size=2,
                          on_stored=lambda ids: cancel.cancel())  # stop after one chunk
    from cluestudio.core.jobs import Cancelled

    with pytest.raises(Cancelled):
        run_job(job)
    assert len(ws.metric_values("clue")) == 2  # what was finished is kept
    rows = ws._reader().execute("SELECT count(*) FROM scores").fetchone()[0]
    resumed = run_job(score_workspace(ws, EXACT, only_missing=True))
    assert resumed.skipped == 2 and len(resumed.scored) == 4
    again = run_job(score_workspace(ws, EXACT))  # everything once more: nothing doubles
    total = ws._reader().execute("SELECT count(*) FROM scores").fetchone()[0]
    assert len(again.scored) == 6 and total == rows * 3
    assert run_job(score_workspace(ws, EXACT, only_missing=True)).planned == 0


def test_a_plugin_that_returns_text_fails_alone_and_every_other_score_is_stored(ws: Any
                                                                                ) -> None:
    from importlib.metadata import EntryPoint

    from cluestudio.core.plugins import PluginRegistry

    points = [EntryPoint(name, value, "cluestudio.metrics") for name, value in (
        ("bleu", "cluestudio_baselines.bleu:BleuMetric"),
        ("stringy", "support.hostile_metrics:Stringy"))]
    summary = run_job(score_workspace(ws, EXACT, registry=PluginRegistry(points)))
    assert "not a number" in summary.plugin_errors["stringy"]
    current = ws.current_scores()
    assert len(current) == 6
    assert all({"clue", "bleu"} <= set(scores) and "stringy" not in scores
               for scores in current.values())


def _readers(ws: Any, sid: int, grader: str = "ana") -> dict[str, float]:
    """The CLUE value of one submission as every reader of scores sees it."""
    from cluestudio.app.analysis import gather
    from cluestudio.app.submissions import load_submission
    from cluestudio.core.calibrate.workspace_data import calibration_data, stored_metrics
    from cluestudio.core.workspace.export import score_rows

    panel = load_submission(ws, sid, grader, "class-diagram").scores["clue"]
    listed = ws.metric_values("clue")[sid]
    data = calibration_data(ws)
    calibrated = float(stored_metrics(ws, data)["clue"][data.submission_ids.index(sid)])
    analysed = next(d.value for d in run_job(gather(ws, "class-diagram", CancelToken(),
                                                    figures=False, top=100))
                    .metric_queues["clue"] if int(d.id) == sid)
    task, source = ws.submission(sid).task_id, ws.submission(sid).source_id
    exported = [r["value"] for r in score_rows(ws) if r["metric"] == "clue" and r["current"]
                and (r["task_id"], r["source_id"]) == (task, source)]
    assert len(exported) == 1
    return {"panel": panel, "list": listed, "calibration": calibrated,
            "analysis": analysed, "export": exported[0]}


def test_every_reader_agrees_on_the_current_score_exact_minilm_exact(ws: Any) -> None:
    """The sequence that used to give three answers: grading panel stale (last row by
    metric), calibration newest by time, list ignoring the revision."""
    from cluestudio.core.rubric import get_rubric
    from cluestudio.core.workspace import SaveRevision

    rubric = get_rubric()
    ids = [s.id for s in ws.list_submissions()]
    for number, sid in enumerate(ids):  # ratings, so analysis and calibration see them
        level = [4, 3, 2, 1, 0, 2][number]
        ws.execute(SaveRating(sid, "ana", {i.id: min(level, i.scale.max)
                                           for i in rubric.items}, rubric=rubric))
    target = ids[1]
    minilm = ScoringOptions(embedder="minilm", device="cpu")
    run_job(score_workspace(ws, EXACT))
    exact_value = ws.metric_values("clue")[target]
    run_job(score_workspace(ws, minilm))
    minilm_value = ws.metric_values("clue")[target]
    assert minilm_value != pytest.approx(exact_value)  # two configurations, two values
    seen = _readers(ws, target)
    assert all(value == pytest.approx(minilm_value) for value in seen.values()), seen
    run_job(score_workspace(ws, EXACT))
    seen = _readers(ws, target)
    assert all(value == pytest.approx(exact_value) for value in seen.values()), seen
    # A new revision has no score yet: no reader shows the old revision's value.
    ws.execute(SaveRevision(target, "@startuml\nclass Book\nclass Member\n@enduml\n", "ana"))
    assert target not in ws.metric_values("clue")
    assert "clue" not in ws.current_scores([target]).get(target, {})


def test_scores_keep_their_whole_configuration(ws: Any) -> None:
    sid = ws.list_submissions()[0].id
    run_job(score_workspace(ws, EXACT, submission_ids=[sid]))
    run_job(score_workspace(ws, ScoringOptions("exact", "cpu", profile="oodeval-code"),
                            submission_ids=[sid]))
    rows = ws._reader().execute("SELECT profile, normalization FROM scores WHERE "
                                "metric = 'clue' AND submission_id = ?", (sid,)).fetchall()
    assert sorted(rows) == [("oodeval-code", "reference"), ("paper", "reference")]
    assert ws.current_scores([sid])[sid]["clue"].config.profile == "oodeval-code"


def test_plan_reports_submissions_without_plantuml(tmp_path: Path) -> None:
    from gui_course import make_course

    course = make_course(tmp_path / "course", tasks=("library_loans",))
    (course / "tasks" / "library_loans" / "submissions" / "s01.puml").unlink()
    with open_workspace(tmp_path / "w.sqlite") as workspace:
        run_job(import_path(workspace, course))
        items, summary = plan_scoring(workspace, EXACT)
    assert len(items) == 2 and list(summary.failed.values()) == [
        "no PlantUML yet (convert image A first)"]


def test_cli_scores_a_workspace_and_resumes(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ws_path = tmp_path / "sample.sqlite"
    assert main(["import", str(ws_path), str(ROOT / "annotations" / "sample"), "--json"]) == 0
    capsys.readouterr()
    assert main(["score", "--workspace", str(ws_path), "--embedder", "exact", "--task",
                 "online_shop", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["scored"] == 22 and first["failed"] == {}
    assert main(["score", "--workspace", str(ws_path), "--embedder", "exact",
                 "--only-missing", "--profile-metrics"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("44 scored, 22 already scored, 0 could not be scored")
    assert "seconds per metric:" in out and "clue" in out
    with open_workspace(ws_path, readonly=True) as opened:
        assert len(opened.metric_values("clue")) == 66
    assert main(["score", "--workspace", str(tmp_path / "missing.sqlite")]) == 2


def test_cli_analysis_prints_the_dock_tables(ws: Any, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.core.rubric import get_rubric

    rubric = get_rubric()
    for number, sid in enumerate(s.id for s in ws.list_submissions()):
        for grader, shift in (("ana", 0), ("ben", 1)):
            level = max(0, min(4, [4, 3, 2, 1, 0, 2][number] - shift * (number % 2)))
            ws.execute(SaveRating(sid, grader, {i.id: min(level, i.scale.max)
                                                for i in rubric.items}, rubric=rubric))
    run_job(score_workspace(ws, EXACT))
    path = ws.path
    ws.close()
    assert main(["analysis", str(path), "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert "Where clue and the humans disagree most" in text
    assert "Correlation of each metric with the human total" in text
    assert "α interval" in text and "ana × ben" in text
    assert main(["analysis", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agreement"][0]["scope"] == "total" and data["metric_disagreements"]["clue"]
