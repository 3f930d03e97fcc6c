"""Issue 26: each job is one module whose window and CLI paths are the same function. A TA who
imports a course, finds groups or opens the Analysis view in the window gets what
``cluestudio import``, ``cluestudio group`` and ``cluestudio analysis`` give on the same
workspace (the checks have their own test: test_gui_check_plan.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cluestudio.cli import main
from cluestudio.core.settings import Settings

pytestmark = [pytest.mark.gui]


def _window(qtbot: Any) -> Any:
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

    window = MainWindow(JobRunner(), Settings())
    window.ask_before_discard = False
    qtbot.addWidget(window)
    return window


def _close(window: Any) -> None:
    window.close()
    window.runner.shutdown()


def test_importing_a_course_folder_in_the_window_plans_what_cluestudio_import_plans(
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cluestudio.core.workspace import importer, sample
    from gui_course import make_course

    course = make_course(tmp_path / "folder")
    planned: list[importer.ImportPlan] = []
    apply_plan = importer.apply_plan

    def recorded(ws: Any, plan: importer.ImportPlan) -> Any:  # the real store, plan kept
        planned.append(copy.deepcopy(plan))
        return apply_plan(ws, plan)

    monkeypatch.setattr(importer, "apply_plan", recorded)  # the window's store
    monkeypatch.setattr(sample, "apply_plan", recorded)  # import_path's store
    window = _window(qtbot)
    try:
        window.files.new_workspace(tmp_path / "window.sqlite")
        window.files.import_course_folder(course)  # File → Import course folder
        qtbot.waitUntil(lambda: len(window.navigator.ids()) == 6, timeout=60_000)
    finally:
        _close(window)
    assert main(["import", str(tmp_path / "cli.sqlite"), str(course), "--json"]) == 0

    in_window, by_cli = planned
    assert in_window == by_cli
    assert len(in_window.submissions) == 6 and in_window.tasks


def test_find_groups_in_the_window_groups_what_cluestudio_group_groups(
        qtbot, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_gui_group_rule import HOSPITAL, _find_groups, _hospital_workspace, _open_on
    from test_gui_stories import Session

    path = _hospital_workspace(tmp_path)
    session = Session(qtbot)
    try:
        window, ids = _open_on(session, path, "s001")
        _find_groups(session, window)  # Ctrl+G in grading mode
        in_window = window.groups.groupings[HOSPITAL.name].to_dict()
    finally:
        session.close()
    assert main(["group", str(path), HOSPITAL.name, "--json"]) == 0
    by_cli = json.loads(capsys.readouterr().out)

    in_window.pop("seconds"), by_cli.pop("seconds")
    assert json.loads(json.dumps(in_window)) == by_cli
    # and the plan is the task's submissions, not the same mistake twice
    (s001,) = [g for g in by_cli["groups"] if g["representative"] == ids["s001"]]
    assert {m["submission_id"] for m in s001["members"]} == {ids[s] for s in
                                                             ("s001", "s101", "s102")}


def test_the_analysis_view_shows_what_cluestudio_analysis_prints(
        qtbot, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("cluestudio.core.calibrate")
    from cluestudio.cli.cmd_analysis import as_dict
    from test_gui_analysis import _course

    ws, _ = _course(tmp_path)  # two graders, CLUE scores, planted disagreements
    path = ws.path
    window = _window(qtbot)
    try:
        window.open(ws)
        window.show()
        with qtbot.waitSignal(window.analysis.shown, timeout=60_000):
            window.show_analysis()  # the Analysis view, gathered in the worker process
        rubric_id = window.bench.default_rubric.id
        in_window = window.analysis.data
    finally:
        _close(window)
    assert main(["analysis", str(path), "--rubric", rubric_id, "--top", "50", "--json"]) == 0
    by_cli = json.loads(capsys.readouterr().out)

    def text(data: Any) -> str:  # NaN (an undefined α) compares equal only as text
        return json.dumps(data, sort_keys=True, default=str)

    assert text(as_dict(in_window, rubric_id)) == text(by_cli)
    assert by_cli["metric_disagreements"]["clue"] and by_cli["grader_disagreements"]
