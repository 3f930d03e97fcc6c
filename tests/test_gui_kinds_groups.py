"""Issue 17's item 11 and its "go beyond the peers" features, as a TA meets them in the window:
a rubric and tag set per diagram kind, the element diff on image B, and grading by group.

Scenario tests in the style of test_gui_stories.py (the same Session: keys go where the focus
is, outcomes are checked in the database and on screen).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.resources_path import annotations_dir
from test_gui_stories import Session, _ctrl, _keys, _rate_by_keys, session  # noqa: F401

ARCHITECTURE_TASK = annotations_dir() / "examples" / "architecture" / "tasks" / "shop_architecture"


def _mixed_workspace(tmp_path: Path, name: str = "mixed") -> Path:
    """One class-diagram task (library_loans, three submissions) and one component task
    (shop_architecture, three submissions) in one workspace."""
    from cluestudio.core.workspace import import_path, open_workspace
    from gui_course import make_course

    course = make_course(tmp_path / name, tasks=("library_loans",))
    shutil.copytree(ARCHITECTURE_TASK, course / "tasks" / "shop_architecture")
    path = tmp_path / f"{name}.sqlite"
    ws = open_workspace(path)
    try:
        run_job(import_path(ws, course))
    finally:
        ws.close()
    return path


def _db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def _sid(window, task_id: str, source_id: str) -> int:
    found = window.bench.require().find_submission(task_id, source_id)
    assert found is not None
    return found.id


def _show(window, sid: int) -> None:
    assert window.navigator.select(sid, reveal=True)
    for mode in (window.grading, window.review):
        if mode.isVisible():
            assert mode.view is not None and mode.view.submission.id == sid


# --- item 11: a rubric and a tag set per diagram kind --------------------------------------

@pytest.mark.gui
def test_story11_a_component_task_is_graded_with_the_architecture_rubric_and_tags(
        session, tmp_path) -> None:  # noqa: F811 - the fixture of test_gui_stories
    from cluestudio.core.rubric import get_rubric
    from cluestudio.core.workspace import SaveRating

    K = _keys()
    path = _mixed_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3)
    component = _sid(window, "shop_architecture", "s01")
    cls = _sid(window, "library_loans", "s01")
    architecture, class_rubric = get_rubric("architecture"), get_rubric("class-diagram")

    # The component task: architecture items on screen; the digits score them, Ctrl+Enter
    # saves under the architecture rubric.
    _show(window, component)
    panel = window.grading.rubric
    assert panel.rubric.id == "architecture"
    assert panel.item_labels() == [item.label for item in architecture.items]
    assert "Architecture diagram" in panel.title.text()
    _rate_by_keys(session, "432423")
    rows = _db(path).execute("SELECT submission_id, rubric_id, scores FROM ratings").fetchall()
    assert [(r["submission_id"], r["rubric_id"]) for r in rows] == [(component, "architecture")]
    assert set(__import__("json").loads(rows[0]["scores"])) == {i.id for i in architecture.items}

    # The class task in the same workspace keeps the class-diagram rubric.
    _show(window, cls)
    assert panel.rubric.id == "class-diagram"
    assert panel.item_labels() == [item.label for item in class_rubric.items]
    session.press(K.Key_F4)
    session.press(K.Key_Asterisk)  # the preset follows the rubric: every class item full
    assert panel.total() == 100.0
    session.press(K.Key_Return, modifier=_ctrl())
    got = {(r["submission_id"], r["rubric_id"])
           for r in _db(path).execute("SELECT submission_id, rubric_id FROM ratings")}
    assert got == {(component, "architecture"), (cls, "class-diagram")}

    # The list's "Mine" follows each task's rubric: a rating of the component submission
    # under the class rubric (an old import) does not count as rated.
    other = _sid(window, "shop_architecture", "s02")
    full = {i.id: i.scale.max for i in class_rubric.items}
    window.bench.require().execute(SaveRating(other, "ta", full, rubric=class_rubric))
    window.refresh_rows()
    nav = window.navigator
    assert nav.row(component).rated and nav.model.text(nav.row(component), 1).startswith("✓")
    assert nav.row(cls).rated and nav.model.text(nav.row(cls), 1) == "✓ 100"
    assert not nav.row(other).rated and nav.model.text(nav.row(other), 1) == ""
    assert window.bench.rated_by_me() == {component, cls}
    _show(window, other)
    assert panel.rubric.id == "architecture" and panel.scores() == {}  # nothing of it shown

    # A half-entered architecture rubric is a draft under that rubric, back on return.
    session.press(K.Key_F4)
    session.press("3", "1")
    _show(window, cls)
    assert panel.rubric.id == "class-diagram" and panel.total() == 100.0
    _show(window, other)
    assert panel.rubric.id == "architecture"
    assert panel.scores() == {"components": 3.0, "connectors": 1.0}

    # Review: the component task offers R2ABench's tags, the class task OODEval's.
    session.press(K.Key_F2)
    _show(window, component)
    verdict = window.review.verdict
    assert verdict.tag_set.id == "architecture"
    assert "node_omission" in verdict.tag_boxes and "class_missing" not in verdict.tag_boxes
    key = next(k for k, tag in verdict.keys.items() if tag == "node_omission")
    session.press(K.Key_F4)
    session.press("2", key)
    review = _db(path).execute("SELECT verdict, tags FROM reviews WHERE submission_id = ?",
                               (component,)).fetchall()
    assert review and review[-1]["verdict"] == "needs_fix" and "node_omission" in review[-1]["tags"]
    _show(window, cls)
    assert verdict.tag_set.id == "class-diagram"
    assert "class_missing" in verdict.tag_boxes and "node_omission" not in verdict.tag_boxes


def test_list_rows_decides_rated_by_each_tasks_own_rubric(tmp_path) -> None:
    from cluestudio.app.submissions import list_rows, load_submission
    from cluestudio.core.rubric import get_rubric
    from cluestudio.core.workspace import SaveRating, open_workspace

    ws = open_workspace(_mixed_workspace(tmp_path), create=False)
    try:
        component = ws.find_submission("shop_architecture", "s01").id
        wrong = ws.find_submission("shop_architecture", "s02").id
        cls = ws.find_submission("library_loans", "s01").id
        architecture, class_rubric = get_rubric("architecture"), get_rubric("class-diagram")
        ws.execute(SaveRating(component, "ta", {i.id: i.scale.max for i in architecture.items},
                              rubric=architecture))
        ws.execute(SaveRating(wrong, "ta", {i.id: i.scale.max for i in class_rubric.items},
                              rubric=class_rubric))
        ws.execute(SaveRating(cls, "ta", {i.id: i.scale.min for i in class_rubric.items},
                              rubric=class_rubric))
        for narrowed in (None, [component, wrong, cls]):
            rows = {r.summary.id: r for r in list_rows(ws, "ta", submission_ids=narrowed)}
            assert (rows[component].rated, rows[component].total) == (True, 100.0)
            assert (rows[cls].rated, rows[cls].total) == (True, 0.0)
            assert not rows[wrong].rated  # a class-rubric rating of a component task
        # Naming a rubric still asks for that one only.
        named = {r.summary.id: r.rated for r in list_rows(ws, "ta", "class-diagram")}
        assert named[wrong] and named[cls] and not named[component]
        assert load_submission(ws, component, "ta").rating.rubric_id == "architecture"
        assert load_submission(ws, wrong, "ta").rating is None
        assert load_submission(ws, wrong, "ta", "class-diagram").rating is not None
        assert list_rows(ws, "nobody") and not any(r.rated for r in list_rows(ws, "nobody"))
    finally:
        ws.close()
