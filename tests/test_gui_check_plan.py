"""Issue 26: "Check all listed" in the window and ``cluestudio check --workspace`` are one job
with one plan (app/checks.py). A TA who checks everything listed in the window reads the
same submissions the CLI would: a component task is not checked by either, and a conversion
already checked (same revision, image and engine) is not read again by either."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app import checks
from cluestudio.cli import main
from cluestudio.core.check.check import CHECK_VERSION
from cluestudio.core.jobs import run_job
from cluestudio.core.ocr.engine import installed_engine_id
from cluestudio.core.settings import ScoringSettings, Settings, UISettings
from cluestudio.core.workspace import Task, import_path, open_workspace, ops, sample_course_path

pytestmark = [pytest.mark.gui]

COMPONENT = "@startuml\n[Web] --> [Db]\n@enduml\n"


def _sample_course_with_a_component_task_and_a_stored_check(path: Path) -> dict[str, int]:
    ws = open_workspace(path)
    try:
        run_job(import_path(ws, sample_course_path()))
        first = ws.list_submissions()[0]
        head = ws.head_revision(first.id)
        image = ws.submission(first.id).image_hash  # type: ignore[union-attr]
        assert head is not None and image

        def extend(conn: Any) -> int:
            ops.upsert_task(conn, Task("arch", "Architecture", "req", COMPONENT,
                                       diagram_kind="component"))
            sid = ops.ensure_submission(conn, "arch", "c1", "student", image)[0]
            ops.add_revision(conn, sid, COMPONENT, "import", "import")
            # checked already with the engine a run would use: due for neither path
            ops.put_check_result(conn, first.id, head.id, image, {
                "version": CHECK_VERSION, "engine": installed_engine_id() or "",
                "triage": 0.1, "flagged": False})
            return sid

        component = ws.write(extend)
    finally:
        ws.close()
    return {"checked": first.id, "component": component}


def test_check_all_listed_plans_the_submissions_check_workspace_plans(
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

    path = tmp_path / "sample.sqlite"
    special = _sample_course_with_a_component_task_and_a_stored_check(path)
    planned: list[checks.CheckPlan] = []
    plan_checks = checks.plan_checks

    def recorded(*args: Any, **kwargs: Any) -> checks.CheckPlan:  # the real plan, kept
        plan = plan_checks(*args, **kwargs)
        planned.append(plan)
        return plan

    monkeypatch.setattr(checks, "plan_checks", recorded)
    runner = JobRunner()
    window = MainWindow(runner, Settings(ui=UISettings(grader="ta"),
                                         scoring=ScoringSettings(embedder="exact")))
    window.ask_before_discard = False
    qtbot.addWidget(window)
    try:
        window.open(open_workspace(path))
        everything = {s.id for s in window.bench.session.require().list_submissions()}
        assert set(window.navigator.ids()) == everything  # nothing filtered out
        job = window.check_listed()  # Jobs → Check all listed conversions
        assert job is not None
        job.cancel()  # the plan is what this story is about, not the OCR
        qtbot.waitUntil(lambda: job.done, timeout=60_000)
    finally:
        window.close()
        runner.shutdown()
    (in_window,) = planned

    assert main(["check", "--workspace", str(path), "--plan", "--json"]) == 0
    by_cli = json.loads(capsys.readouterr().out)
    assert in_window.submission_ids == [i["submission_id"] for i in by_cli["to_check"]]
    assert {o.submission_id: o.reason for o in in_window.outcomes} == {
        o["submission_id"]: o["reason"] for o in by_cli["skipped"]}
    # and the plan is the rules', not merely the same mistake twice
    assert special["component"] not in in_window.submission_ids
    assert special["checked"] not in in_window.submission_ids
    assert len(in_window.submission_ids) == len(everything) - 2
