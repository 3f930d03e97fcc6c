"""User scenarios on the whole workbench, driven by the keyboard (offscreen).

A grader rates three submissions; a reviewer breaks a conversion, sees the error line, fixes
it and saves; then the database is checked directly.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings

pytestmark = pytest.mark.gui


@pytest.fixture
def workbench(qtbot, tmp_path):
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner
    from gui_course import make_course

    path = tmp_path / "course.sqlite"
    ws = open_workspace(path)
    run_job(import_path(ws, make_course(tmp_path / "course")))
    runner = JobRunner()
    window = MainWindow(runner, Settings())
    window.ask_before_discard = False
    qtbot.addWidget(window)
    try:
        window.open(ws)
        window.show()
        window.activateWindow()
        qtbot.waitExposed(window)
        yield window, path
    finally:
        window.close()
        runner.shutdown()


def _keys(qtbot, keys, modifier=None) -> None:
    from cluestudio.gui.qt import QApplication, Qt

    for key in keys:
        target = QApplication.focusWidget()
        assert target is not None, "nothing has keyboard focus"
        qtbot.keyClick(target, key, modifier or Qt.KeyboardModifier.NoModifier)


def _type(qtbot, widget, text: str) -> None:
    """Type ``text`` key by key; a newline is the Return key (QTest has no key for "\\n")."""
    from cluestudio.gui.qt import Qt

    for line_number, line in enumerate(text.split("\n")):
        if line_number:
            qtbot.keyClick(widget, Qt.Key.Key_Return)
        if line:
            qtbot.keyClicks(widget, line)


def _db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def test_grader_rates_three_submissions_by_keyboard(qtbot, workbench) -> None:
    from cluestudio.gui.qt import Qt

    window, path = workbench
    ctrl = Qt.KeyboardModifier.ControlModifier
    _keys(qtbot, [Qt.Key.Key_F3])
    assert window.modes.currentIndex() == 1
    rated = []
    for _ in range(3):
        _keys(qtbot, [Qt.Key.Key_F4])  # focus the rubric
        assert window.grading.rubric.hasFocus()
        sid = window.grading.view.submission.id
        _keys(qtbot, "43242" "3")
        with qtbot.waitSignal(window.grading.rating_saved):
            _keys(qtbot, [Qt.Key.Key_Return], ctrl)
        rated.append(sid)
        _keys(qtbot, [Qt.Key.Key_PageDown], ctrl | Qt.KeyboardModifier.ShiftModifier)
        assert window.grading.view.submission.id not in rated
    # Undo the last rating, redo it: undo lives in core, the list follows.
    _keys(qtbot, [Qt.Key.Key_Z], ctrl)
    assert len(window.bench.session.require().ratings()) == 2
    _keys(qtbot, [Qt.Key.Key_Z], ctrl | Qt.KeyboardModifier.ShiftModifier)
    window.close()

    from cluestudio.core.rubric import get_rubric

    expected = get_rubric().total({"classes": 4, "attributes": 3, "methods": 2, "relations": 4,
                                   "multiplicities": 2, "overall": 3})
    rows = _db(path).execute("SELECT * FROM ratings ORDER BY submission_id").fetchall()
    assert [r["submission_id"] for r in rows] == sorted(rated)
    for row in rows:
        assert row["total"] == pytest.approx(expected)
        assert row["seconds"] is not None and row["seconds"] >= 0
        assert row["rubric_id"] == "class-diagram"


def test_navigation_filters_and_blind_grading(qtbot, workbench) -> None:
    window, _ = workbench
    nav = window.navigator
    assert len(nav.ids()) == 6
    nav.task_box.setCurrentIndex(nav.task_box.findData("online_shop"))
    assert len(nav.ids()) == 3
    nav.state_box.setCurrentIndex(nav.state_box.findData("rated"))
    assert nav.ids() == []
    nav.state_box.setCurrentIndex(0)
    window.modes.setCurrentIndex(1)
    window.blind_action.trigger()
    sid = window.grading.view.submission.id
    _put_clue(window, sid, 0.7)
    assert window.grading.view.scores  # the score is on screen's data, not yet visible
    assert not window.grading.metrics.metrics_visible()
    for key in "432423":
        window.grading.rubric.handle_key(0, key)
    assert window.grading.save_rating()
    assert window.grading.metrics.metrics_visible()


def _put_clue(window, sid: int, value: float) -> None:
    """Store a CLUE score of the submission's head revision, as a scoring job would."""
    from cluestudio.core.workspace import Changes, ops

    ws = window.bench.session.require()
    head = ops.text_hash(window.bench.session.view(sid).head_puml)
    ws.write(lambda conn: ops.put_score(conn, sid, head, "clue", value,
                                        explanation={"clue": value}))
    window.bench.session.note_changes(Changes(scores=frozenset({sid})))


def _parser_available() -> bool:
    try:
        from cluestudio.core.plantuml import parse_plantuml  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _parser_available(), reason="the PlantUML parser has not landed")
def test_reviewer_fixes_a_syntax_error_and_saves(qtbot, workbench) -> None:
    from cluestudio.gui.qt import Qt, QTextCursor

    window, path = workbench
    ctrl = Qt.KeyboardModifier.ControlModifier
    _keys(qtbot, [Qt.Key.Key_F2, Qt.Key.Key_F6])
    editor = window.review.editor
    assert editor.hasFocus()
    sid = window.review.view.submission.id
    # Type an unclosed class body just before @enduml.
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.movePosition(QTextCursor.MoveOperation.Up)
    editor.setTextCursor(cursor)
    with qtbot.waitSignal(window.review.preview_shown, timeout=60_000,
                          check_params_cb=lambda r: r.parse_error is not None):
        _type(qtbot, editor, "class Fine {\n")
    bad_line = editor.toPlainText().splitlines().index("class Fine {") + 1
    assert bad_line in editor.error_lines() or editor.error_lines(), editor.error_message()
    with qtbot.waitSignal(window.review.preview_shown, timeout=60_000,
                          check_params_cb=lambda r: r.parse_error is None):
        _type(qtbot, editor, "amount : int\n}\n")
    assert not [e for e in editor.error_lines() if e == bad_line]
    _keys(qtbot, [Qt.Key.Key_S], ctrl)
    _keys(qtbot, [Qt.Key.Key_F4, "2", "h"])  # verdict "needs fix", tag h
    window.close()

    db = _db(path)
    revisions = db.execute("SELECT * FROM conversions WHERE submission_id = ? ORDER BY id",
                           (sid,)).fetchall()
    assert len(revisions) == 2 and "class Fine {" in revisions[-1]["puml"]
    assert revisions[-1]["author_kind"] == "human" and revisions[-1]["parse_ok"] == 1
    assert revisions[-1]["parent_id"] == revisions[0]["id"]
    review = db.execute("SELECT * FROM reviews WHERE submission_id = ?", (sid,)).fetchone()
    assert review["verdict"] == "needs_fix" and review["tags"] != "[]"


def test_start_up_opens_the_sample_course(qtbot) -> None:
    """`cluestudio gui` with no workspace: the bundled sample course, copied to the data dir."""
    from cluestudio.gui.app import build_workbench

    window, runner = build_workbench(sample=True)
    qtbot.addWidget(window)
    try:
        window.ask_before_discard = False
        window.show()
        assert window.bench.ws is not None and window.bench.ws.tasks()
        if window.navigator.ids():  # the sample ships submissions once they are generated
            assert window.review.view is not None
            assert window.review.requirement.toPlainText()
    finally:
        window.close()
        runner.shutdown()
