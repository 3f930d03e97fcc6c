"""Issue 17's stories, one offscreen scenario each, driven the way a TA drives the workbench.

Each test is named after the numbered story of the issue ("story01" … "story13"; story 14 is
in test_system_check.py) and checks the outcome in the database and on screen, not a
widget's internals alone. Keys go to the widget that has focus, as a keyboard user's do;
file dialogs are replaced by the path the user would pick (the action methods take it).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import run_job
from cluestudio.core.settings import ScoringSettings, Settings, UISettings, load_settings

pytestmark = pytest.mark.gui

FULL = {"classes": 4, "attributes": 3, "methods": 2, "relations": 4, "multiplicities": 2,
        "overall": 3}


# --- a workbench on a small course --------------------------------------------------------

def _course_workspace(tmp_path: Path, name: str = "course", **course: object) -> Path:
    from cluestudio.core.workspace import import_path, open_workspace
    from gui_course import make_course

    path = tmp_path / f"{name}.sqlite"
    ws = open_workspace(path)
    try:
        run_job(import_path(ws, make_course(tmp_path / name, **course)))  # type: ignore[arg-type]
    finally:
        ws.close()
    return path


class Session:
    """One TA at one window: keys go where the focus is; windows are closed at the end."""

    def __init__(self, qtbot, settings: Settings | None = None) -> None:
        from cluestudio.gui.worker import JobRunner

        self.qtbot = qtbot
        self.settings = settings or Settings(ui=UISettings(grader="ta"),
                                             scoring=ScoringSettings(embedder="exact"))
        self.runner = JobRunner()
        self.windows: list = []
        self.keys_pressed = 0

    def open(self, path: Path):
        from cluestudio.core.workspace import open_workspace
        from cluestudio.gui.main_window import MainWindow

        window = MainWindow(self.runner, self.settings)
        window.ask_before_discard = False
        self.qtbot.addWidget(window)
        self.windows.append(window)
        window.open(open_workspace(path, create=False))
        window.resize(1366, 768)
        window.show()
        window.activateWindow()
        self.qtbot.waitExposed(window)
        self.qtbot.waitUntil(window.isActiveWindow, timeout=5000)  # keys reach it
        return window

    def press(self, *keys, modifier=None) -> None:
        from cluestudio.gui.qt import QApplication, Qt

        for key in keys:
            target = QApplication.focusWidget()
            assert target is not None, "nothing has keyboard focus"
            self.qtbot.keyClick(target, key, modifier or Qt.KeyboardModifier.NoModifier)
            self.keys_pressed += 1

    def close(self) -> None:
        for window in self.windows:
            window.close()
        self.runner.shutdown()


def _db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def _ctrl():
    from cluestudio.gui.qt import Qt

    return Qt.KeyboardModifier.ControlModifier


def _ctrl_shift():
    from cluestudio.gui.qt import Qt

    return Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _keys():
    from cluestudio.gui.qt import Qt

    return Qt.Key


def assert_screen_is_the_list(window) -> None:
    """Whatever is on screen is the submission the list says is current, of the open
    workspace: the one a save would write to."""
    current = window.navigator.current_id()
    ws = window.bench.session.require()
    for mode in (window.review, window.grading):
        if mode.view is None:
            continue
        assert mode.view.submission.id == current
        assert mode.view.workspace == str(ws.path.resolve())
    if window.grading.view is not None and window.modes.currentIndex() == 1:
        row = window.navigator.row(current)
        task = ws.task(row.summary.task_id)
        assert window.grading.reference_text.toPlainText() == task.reference_puml
        assert row.summary.source_id in window.heading.text()


def _put_clue(window, sid: int, value: float) -> None:
    """Store a CLUE score of the head revision exactly as a scoring job's sink does."""
    from cluestudio.core.workspace import Changes, ops

    ws = window.bench.session.require()
    head = ops.text_hash(window.bench.session.view(sid).head_puml)
    ws.write(lambda conn: ops.put_score(conn, sid, head, "clue", value,
                                        explanation={"clue": value}))
    window.bench.session.note_changes(Changes(scores=frozenset({sid})))


def _rate_by_keys(session: Session, digits: str = "432423", *, stay: bool = True) -> None:
    K = _keys()
    session.press(K.Key_F4)
    session.press(*digits)
    session.press(K.Key_Return, modifier=_ctrl() if stay else None)


# --- story 1 ----------------------------------------------------------------------------

def test_story01_a_rating_lands_on_the_submission_on_screen_after_new_import_and_reopen(
        session, tmp_path) -> None:
    from gui_course import make_course

    K = _keys()
    first = _course_workspace(tmp_path, "first")
    window = session.open(first)
    session.press(K.Key_F3)
    window.navigator.select(window.navigator.ids()[-1])  # online_shop · s03
    assert_screen_is_the_list(window)

    # Ctrl+N: an empty new workspace shows nothing a save could reach.
    second = tmp_path / "second.sqlite"
    window.files.new_workspace(second)
    assert window.navigator.ids() == [] and window.grading.view is None
    assert window.review.view is None and not window.grading.rubric.isEnabled()
    assert "No submission" in window.heading.text()
    assert not window.grading.save_rating()

    # Ctrl+I: a course with one task; the panes follow the list as it fills.
    window.files.import_course_folder(make_course(tmp_path / "other", tasks=("online_shop",)))
    session.qtbot.waitUntil(lambda: len(window.navigator.ids()) == 3, timeout=60_000)
    session.qtbot.waitUntil(lambda: window.grading.view is not None, timeout=10_000)
    assert_screen_is_the_list(window)
    stale = window.grading.view

    # Ctrl+O: the first workspace again; the same id numbers mean other submissions there.
    window.files.open_workspace(first)
    assert_screen_is_the_list(window)
    shown = window.grading.view.submission
    _rate_by_keys(session)
    ratings = _db(first).execute("SELECT submission_id FROM ratings").fetchall()
    assert [r["submission_id"] for r in ratings] == [shown.id]
    assert _db(second).execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0

    # A view of the closed workspace can never be saved onto the open one.
    with pytest.raises(ClueStudioError, match="no longer open"):
        window.bench.session.save_rating(stale, FULL, "", 1.0)
    assert _db(first).execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 1


def test_story01_a_filter_that_lists_nothing_leaves_nothing_on_screen(session, tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    session.press(_keys().Key_F3)
    nav = window.navigator
    nav.state_box.setCurrentIndex(nav.state_box.findData("rated"))  # nobody rated yet
    assert nav.ids() == [] and window.grading.view is None
    assert not window.grading.save_rating()
    nav.state_box.setCurrentIndex(0)
    assert_screen_is_the_list(window)


# --- story 2 ----------------------------------------------------------------------------

def test_story02_a_half_entered_rubric_survives_moving_away_and_a_restart(session,
                                                                          tmp_path) -> None:
    K = _keys()
    path = _course_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3, K.Key_F4)
    sid = window.grading.view.submission.id
    session.press("4", "3")  # classes 4, attributes 3: two of six items
    assert window.navigator.row(sid).draft
    session.press(K.Key_PageDown, modifier=_ctrl())
    assert window.grading.view.submission.id != sid
    assert window.grading.rubric.scores() == {}
    session.press(K.Key_PageUp, modifier=_ctrl())
    assert window.grading.rubric.scores() == {"classes": 4, "attributes": 3}
    assert window.grading.rubric.draft_label.isVisibleTo(window.grading.rubric)

    window.close()  # the laptop lid closes; nothing was saved
    again = session.open(path)
    assert again.navigator.current_id() == sid  # back where the grader was
    assert again.modes.currentIndex() == 1
    assert again.grading.rubric.scores() == {"classes": 4, "attributes": 3}
    assert again.navigator.row(sid).draft
    session.press(K.Key_F4, "2", "4", "2", "3")
    session.press(K.Key_Return, modifier=_ctrl())
    row = _db(path).execute("SELECT scores FROM ratings WHERE submission_id=?",
                            (sid,)).fetchone()
    assert json.loads(row["scores"]) == {"classes": 4, "attributes": 3, "methods": 2,
                                         "relations": 4, "multiplicities": 2, "overall": 3}
    assert not again.navigator.row(sid).draft
    assert sid not in again.bench.drafts.identities()


def test_story02_a_draft_never_reaches_another_student_with_the_same_id(session,
                                                                        tmp_path) -> None:
    """A workspace file made anew at the same path numbers submissions from 1 again."""
    K = _keys()
    path = _course_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3, K.Key_F4, "4")
    sid = window.grading.view.submission.id
    window.close()
    path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    from cluestudio.core.workspace import import_path, open_workspace
    from gui_course import make_course

    ws = open_workspace(path)
    run_job(import_path(ws, make_course(tmp_path / "renamed", tasks=("online_shop",))))
    ws.close()
    again = session.open(path)
    again.navigator.select(sid)
    assert again.grading.view.submission.id == sid
    assert again.grading.rubric.scores() == {}
    assert not again.navigator.row(sid).draft


# --- story 3 ----------------------------------------------------------------------------

def test_story03_undo_and_redo_redraw_the_rubric_from_the_database(session, tmp_path) -> None:
    K = _keys()
    path = _course_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3)
    sid = window.grading.view.submission.id
    _rate_by_keys(session)
    saved = window.grading.rubric.scores()
    assert window.navigator.row(sid).rated

    session.press(K.Key_Z, modifier=_ctrl())
    assert _db(path).execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0
    assert window.grading.rubric.scores() == {}
    assert "—" in window.grading.rubric.total_label.text()
    assert not window.navigator.row(sid).rated

    session.press(K.Key_Z, modifier=_ctrl_shift())
    total = _db(path).execute("SELECT total FROM ratings").fetchone()[0]
    assert window.grading.rubric.scores() == saved
    assert f"{total:.1f}" in window.grading.rubric.total_label.text()
    row = window.navigator.row(sid)
    assert row.rated and row.total == pytest.approx(total)

    # Undo while another submission is on screen: that one's panel is left alone.
    session.press(K.Key_PageDown, modifier=_ctrl())
    session.press(K.Key_F4, "4")
    other = window.grading.view.submission.id
    session.press(K.Key_Z, modifier=_ctrl())
    assert not window.navigator.row(sid).rated
    assert window.grading.view.submission.id == other
    assert window.grading.rubric.scores() == {"classes": 4}


# --- story 4 ----------------------------------------------------------------------------

def test_story04_a_submission_opened_before_a_batch_shows_its_score_when_it_lands(
        session, tmp_path) -> None:
    path = _course_workspace(tmp_path)
    window = session.open(path)
    session.press(_keys().Key_F3)
    sid = window.grading.view.submission.id
    assert not window.grading.metrics.metrics_visible()  # "Not scored yet"
    job = window.score_listed()
    assert job is not None
    with session.qtbot.waitSignal(job.finished, timeout=180_000):
        pass
    assert window.errors.count() == 0, window.errors.item(0).text()
    current = window.bench.session.require().metric_values("clue")
    assert sid in current
    assert window.grading.view.submission.id == sid
    assert window.grading.metrics.metrics_visible()
    assert window.grading.view.scores["clue"] == pytest.approx(current[sid])
    assert window.navigator.row(sid).clue == pytest.approx(current[sid])
    session.press(_keys().Key_PageDown, modifier=_ctrl())  # a neighbour, never opened before
    nxt = window.grading.view.submission.id
    assert window.grading.view.scores["clue"] == pytest.approx(current[nxt])


# --- story 5 ----------------------------------------------------------------------------

def test_story05_blind_grading_hides_every_metric_value_until_i_rated(qtbot, tmp_path) -> None:
    from cluestudio.core.workspace import SaveRating
    from cluestudio.gui.navigator import SORT_ROLE
    from cluestudio.gui.qt import Qt

    path = _course_workspace(tmp_path)
    session = Session(qtbot)
    try:
        window = session.open(path)
        ids = window.navigator.ids()
        values = (0.5, 0.1, 0.9, 0.3, 0.7, 0.2)  # not in the names' order
        for number, sid in enumerate(ids):
            _put_clue(window, sid, values[number])
            window.bench.session.require().execute(SaveRating(
                sid, "bob", {**FULL, "overall": number % 4}, rubric=window.bench.default_rubric))
        by_name = window.navigator.ids()
        window.navigator.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)  # by CLUE
        by_value = [by_name[i] for i in (2, 4, 0, 3, 5, 1)]
        assert window.navigator.ids() == by_value
        window.blind_action.trigger()
        assert window.navigator.ids() in (by_name, by_name[::-1])  # the order tells nothing
        session.press(_keys().Key_F3)
        model = window.navigator.model
        for row in range(model.rowCount()):
            clue_cell = model.index(row, 3)
            assert model.data(clue_cell) in ("", "·")
            assert "CLUE" not in model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
            assert model.data(clue_cell, SORT_ROLE) == -1.0  # sorting reveals no order
        assert not window.navigator.score_box.isEnabled()
        assert not window.grading.metrics.metrics_visible()

        with qtbot.waitSignal(window.analysis.shown, timeout=120_000):
            window.show_analysis()
        assert window.analysis.metric_queue.topLevelItemCount() == 0
        assert "Blind grading" in window.analysis.correlations.toPlainText()

        window.modes.setCurrentIndex(1)
        sid = window.grading.view.submission.id
        _rate_by_keys(session)
        rated_row = window.navigator.model.rows.index(window.navigator.row(sid))
        assert model.data(model.index(rated_row, 3)) not in ("", "·")
        assert window.grading.metrics.metrics_visible()
        with qtbot.waitSignal(window.analysis.shown, timeout=120_000):
            window.show_analysis()
        queued = [window.analysis.metric_queue.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
                  for i in range(window.analysis.metric_queue.topLevelItemCount())]
        assert queued == [sid]
    finally:
        session.close()


# --- story 6 ----------------------------------------------------------------------------

def _inside(window, widget) -> bool:
    """Whether ``widget`` (or the scroll area showing it) lies within the window."""
    from cluestudio.gui.qt import QRect, QScrollArea

    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QScrollArea):
        parent = parent.parentWidget()
    if parent is not None and parent.widget() is widget:
        widget = parent
    top_left = widget.mapTo(window, widget.rect().topLeft())
    return window.rect().contains(QRect(top_left, widget.size()))


def test_story06_the_window_fits_1366x768_and_1024x700_with_every_mode_usable(session,
                                                                             tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    for width, height in ((1366, 768), (1024, 700)):
        window.resize(width, height)
        session.qtbot.wait(50)
        assert (window.width(), window.height()) == (width, height)
        for index, panes in (
                (0, (window.review.image_a, window.review.image_b, window.review.editor,
                     window.review.verdict)),
                (1, (window.grading.reference_tabs, window.grading.candidate_tabs,
                     window.grading.rubric, window.grading.metrics)),
                (2, (window.analysis.tabs,))):
            window.modes.setCurrentIndex(index)
            session.qtbot.wait(30)
            for pane in panes:
                assert pane.isVisible(), (index, pane)
                assert pane.width() >= 150 and pane.height() >= 90, (width, index, pane,
                                                                      pane.size())
                assert _inside(window, pane), (index, pane)
        assert window.analysis.tabs.height() >= 300  # a mode of its own, not a squeezed dock


# --- story 7 ----------------------------------------------------------------------------

def _big_image(path: Path) -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (2400, 1500), "white")
    draw = ImageDraw.Draw(image)
    for i in range(12):
        x, y = 60 + 380 * (i % 6), 80 + 700 * (i // 6)
        draw.rectangle([x, y, x + 300, y + 400], outline="black", width=3)
    image.save(path)


def _big_workspace(tmp_path: Path, draw=_big_image, **course_options) -> Path:
    """The small course with every image A 2400×1500: too big to fit readable anywhere
    (or drawn by ``draw``)."""
    from cluestudio.core.workspace import import_path, open_workspace
    from gui_course import make_course

    course = make_course(tmp_path / "big", **course_options)
    for png in course.glob("tasks/*/submissions/*.png"):
        draw(png)
    path = tmp_path / "big.sqlite"
    ws = open_workspace(path)
    run_job(import_path(ws, course))
    ws.close()
    return path


def test_story07_diagrams_open_readable_and_keep_the_zoom_i_chose(session, tmp_path) -> None:
    from cluestudio.gui.widgets.image_views import READABLE_ZOOM

    window = session.open(_big_workspace(tmp_path))
    window.resize(1600, 1000)
    session.press(_keys().Key_F3)
    image_a = window.grading.image_a
    session.qtbot.waitUntil(lambda: image_a.image is not None, timeout=10_000)
    session.qtbot.wait(50)
    assert image_a.zoom() >= READABLE_ZOOM  # text of 13 px stays >= 9 px
    from cluestudio.gui.qt import QLabel

    label = window.grading.findChild(QLabel, "zoomLabel")
    assert label.text() == f"A {round(100 * image_a.zoom())}%"  # A's, by its name
    window.commands.zoom_in()
    chosen = image_a.zoom()
    assert chosen > READABLE_ZOOM and label.text() == f"A {round(100 * chosen)}%"  # live
    session.press(_keys().Key_PageDown, modifier=_ctrl())
    session.qtbot.waitUntil(lambda: image_a.image is not None, timeout=10_000)
    assert image_a.zoom() == pytest.approx(chosen)  # kept across submissions
    assert label.text() == f"A {round(100 * chosen)}%"


# --- story 8 ----------------------------------------------------------------------------

def test_story08_the_heading_says_where_i_am_and_the_list_shows_whole_marks(session,
                                                                          tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    session.press(_keys().Key_F3)
    session.press(_keys().Key_PageDown, modifier=_ctrl())
    view = window.grading.view
    task = window.bench.session.require().task(view.submission.task_id)
    text = window.heading.text()
    assert task.title in text and view.submission.source_id in text
    assert "2 of 6 listed" in text and "rated by you: <b>0</b> of 6" in text
    _rate_by_keys(session)
    assert "rated by you: <b>1</b> of 6" in window.heading.text()
    table = window.navigator.table
    metrics = table.fontMetrics()
    assert table.columnWidth(1) >= metrics.horizontalAdvance("✓ 46") + 8
    for column in range(5):
        assert table.columnWidth(column) >= table.sizeHintForColumn(column), column
    assert table.horizontalScrollBar().maximum() == 0  # nothing cut off or scrolled away


# --- story 9 ----------------------------------------------------------------------------

def test_story09_grading_six_submissions_takes_about_two_keys_each(session, tmp_path) -> None:
    K = _keys()
    path = _course_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3, K.Key_F4)
    start = session.keys_pressed
    for number in range(6):
        if number == 2:  # this one lost a point on relations: preset, item, digit, save
            session.press("*", "r", "3", K.Key_Return)
        else:
            session.press("*", K.Key_Return)  # all full marks, save and next unrated
    per_submission = (session.keys_pressed - start) / 6
    print(f"\nkeystrokes per submission: {per_submission:.2f} "
          f"(before: 6 digits + Ctrl+Enter + Ctrl+Shift+PgDown = 8)")
    assert per_submission <= 3
    rows = _db(path).execute("SELECT scores FROM ratings").fetchall()
    assert len(rows) == 6
    relations = sorted(json.loads(r["scores"])["relations"] for r in rows)
    assert relations == [3, 4, 4, 4, 4, 4]
    assert "rated by you" in window.statusBar().currentMessage()


# --- story 10 ---------------------------------------------------------------------------

def test_story10_progress_names_the_phase_counts_and_estimates() -> None:
    from cluestudio.gui.widgets.job_panel import PhaseClock

    clock = PhaseClock()
    clock.update(0, None, "loading the embedder", now=0.0)
    assert clock.text("score", 3.0) == "score — loading the embedder · 3 s so far"
    clock.update(0, 10, "scoring pairs", now=3.0)
    clock.update(4, 10, "scoring pairs", now=5.0)
    assert clock.text("score", 5.0) == "score — scoring pairs · 4/10 · about 3 s left"
    clock.update(10, 10, "scored 10 of 10", now=6.0)
    assert clock.finished_phase()
    assert clock.text("score", 6.0) == "score — scored 10 of 10 · finishing…"


def test_story10_a_real_scoring_job_never_shows_a_full_bar_while_it_works(session,
                                                                         tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    seen: list[tuple[int, int, str]] = []
    bar = window.job_status.bar
    job = window.score_current()
    assert job is not None
    job.progress.connect(lambda *_: seen.append((bar.maximum(), bar.value(),
                                                 window.job_status.text())))
    with session.qtbot.waitSignal(job.finished, timeout=180_000):
        pass
    assert seen, "no progress reported"
    for maximum, value, text in seen:
        assert not (maximum > 0 and value >= maximum), (text, "a full bar while working")
        assert text.startswith(job.label)
    assert any("/" in text or " of " in text for _, _, text in seen)


# --- story 12 ---------------------------------------------------------------------------

def test_story12_the_explanation_lists_what_the_candidate_added(session, tmp_path) -> None:
    from cluestudio.app.scoring import ScoringOptions, score_workspace
    from cluestudio.core.workspace import Changes

    window = session.open(_course_workspace(tmp_path))
    session.press(_keys().Key_F3)
    view = window.grading.view
    reference = window.bench.session.require().task(view.submission.task_id).reference_puml
    first_class = next(line for line in reference.splitlines() if line.startswith("class "))
    name = first_class.split()[1].rstrip("{")
    extra = reference.replace("@enduml", f"class {name} {{\n  email : String\n}}\n@enduml")
    window.bench.session.save_revision(view, extra)
    ws = window.bench.session.require()
    run_job(score_workspace(ws, ScoringOptions(embedder="exact"),
                            submission_ids=[view.submission.id]))
    window.bench.session.note_changes(Changes(scores=frozenset({view.submission.id})))
    texts = window.grading.metrics.tree_texts()
    assert any("Extra in the candidate" in t for t in texts), texts
    assert any("email" in t for t in texts), texts


# --- story 13 ---------------------------------------------------------------------------

def test_story13_restart_reopens_where_i_was(session, tmp_path) -> None:
    path = _course_workspace(tmp_path)
    window = session.open(path)
    session.press(_keys().Key_F3)
    window.navigator.select(window.navigator.ids()[4])
    sid = window.navigator.current_id()
    window.close()
    again = session.open(path)
    assert again.modes.currentIndex() == 1 and again.navigator.current_id() == sid
    assert again.grading.view.submission.id == sid


def test_story13_an_empty_error_list_stays_closed_after_a_restart(session, tmp_path) -> None:
    path = _course_workspace(tmp_path)
    window = session.open(path)
    window.commands.show_errors()
    assert window.error_dock.isVisible()
    window.close()
    again = session.open(path)
    assert not again.error_dock.isVisible()
    again.report_error("score", "s01: a clear error")
    assert again.error_dock.isVisible()


def test_story13_quit_does_not_wait_for_a_running_job(session, tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    job = window.bench.processes.submit("support.worker_process_samples:hang", label="hang")
    session.qtbot.waitUntil(lambda: window.bench.processes.pid is not None, timeout=60_000)
    window.close()
    assert not window.bench.processes.is_running()
    session.qtbot.waitUntil(lambda: job.done, timeout=5000)


def test_story13_help_lists_every_key_and_the_settings_file_remaps_them(qtbot,
                                                                        tmp_path) -> None:
    from cluestudio.gui.menus import MENUS
    from cluestudio.gui.qt import QApplication, QTimer
    from cluestudio.gui.shortcuts_dialog import shortcuts_html

    html = shortcuts_html()
    for _, entries in MENUS:
        for entry in entries:
            if entry.shortcut:
                assert entry.shortcut in html, entry
    settings = Settings(ui=UISettings(grader="ta"),
                        extra={"keys": {"save_revision": "Ctrl+Shift+S", "undo": "Q",
                                        "no_such_action": "F9"}})
    session = Session(qtbot, settings)
    try:
        window = session.open(_course_workspace(tmp_path))
        assert window.menu_actions["save_revision"].shortcut().toString() == "Ctrl+Shift+S"
        assert window.menu_actions["undo"].shortcut().toString() == "Ctrl+Z"  # refused: types text
        problems = [window.errors.item(i).text() for i in range(window.errors.count())]
        assert any("undo" in p for p in problems) and any("no_such_action" in p
                                                          for p in problems)
        shown: list[str] = []

        def close_dialog() -> None:
            dialog = QApplication.activeModalWidget()
            shown.append(dialog.text.toPlainText())
            dialog.reject()

        QTimer.singleShot(100, close_dialog)
        session.press(_keys().Key_F1)
        window.activateWindow()  # offscreen Qt does not give it back by itself
        session.qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        assert shown and "Ctrl+Shift+S" in shown[0] and "Save revision" in shown[0]
        # The remapped key saves a revision.
        session.press(_keys().Key_F2, _keys().Key_F6)
        editor = window.review.editor
        editor.moveCursor(editor.textCursor().MoveOperation.Start)
        editor.moveCursor(editor.textCursor().MoveOperation.Down)  # after @startuml
        session.qtbot.keyClicks(editor, "' a comment")
        session.press(_keys().Key_Return)
        sid = window.review.view.submission.id
        session.press(_keys().Key_S, modifier=_ctrl_shift())
        assert len(window.bench.session.view(sid).revisions) == 2
    finally:
        session.close()


def test_story13_the_first_start_asks_who_is_grading_once(qtbot, tmp_path) -> None:
    session = Session(qtbot, Settings(scoring=ScoringSettings(embedder="exact")))
    try:
        window = session.open(_course_workspace(tmp_path))
        asked: list[str] = []
        window.ask_grader_name(lambda default: asked.append(default) or "Ada Lovelace")
        window.ask_grader_name(lambda default: asked.append(default) or "Someone Else")
        assert len(asked) == 1
        assert load_settings()[0].ui.grader == "Ada Lovelace"
        session.press(_keys().Key_F3)
        _rate_by_keys(session)
        ws = window.bench.session.require()
        assert [r.grader for r in ws.ratings()] == ["Ada Lovelace"]
        assert "Ada Lovelace" in window.heading.text()
    finally:
        session.close()


def test_story13_labels_say_what_they_count(session, tmp_path) -> None:
    from cluestudio.gui.menus import effective_shortcuts
    from cluestudio.gui.widgets.zoom_bar import ZoomBar

    window = session.open(_course_workspace(tmp_path))
    header = window.analysis.agreement_overview.headerItem()
    assert "two or more graders" in header.toolTip(1)
    assert "every rating" in header.toolTip(3).lower()
    # Revisions are numbered in their submission, not by database id.
    session.press(_keys().Key_F2)
    view = window.review.view
    extended = view.head_puml.replace("@enduml", "class Extra\n@enduml")
    window.bench.session.save_revision(view, extended)
    labels = [window.review.history.item(i).text()
              for i in range(window.review.history.count())]
    assert [label.split(" · ")[0] for label in labels] == ["Revision 1 of 2", "Revision 2 of 2"]
    # The zoom buttons name the keys the menus really use.
    keys, _ = effective_shortcuts()
    for bar in window.findChildren(ZoomBar):
        tips = [b.toolTip() for b in bar._buttons.values()]
        assert f"Actual size ({keys['actual_size']})" in tips
        assert not any("Ctrl+1" in tip for tip in tips)


def test_story13_the_readme_keyboard_section_is_the_apps() -> None:
    from cluestudio.gui.menus import keyboard_markdown

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("<!-- keyboard:start")
    body = readme[readme.index("\n", start) + 1:readme.index("<!-- keyboard:end -->")]
    assert body == keyboard_markdown(), (
        "README's keyboard section differs from the app's keys; replace it with "
        "cluestudio.gui.menus.keyboard_markdown()")
