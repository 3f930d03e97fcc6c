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
from test_gui_stories import Session, _course_workspace, _ctrl, _keys, _rate_by_keys

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
    found = window.bench.session.require().find_submission(task_id, source_id)
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
        session, tmp_path) -> None:
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
    window.bench.session.require().execute(SaveRating(other, "ta", full, rubric=class_rubric))
    window.refresh_rows()
    nav = window.navigator
    assert nav.row(component).rated and nav.model.text(nav.row(component), 1).startswith("✓")
    assert nav.row(cls).rated and nav.model.text(nav.row(cls), 1) == "✓ 100"
    assert not nav.row(other).rated and nav.model.text(nav.row(other), 1) == ""
    assert window.bench.session.rated_by_me() == {component, cls}
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


# --- the element diff on image B -----------------------------------------------------------

def _expected_annotation(window, sid: int, text: str | None = None) -> str:
    """The coloured text the app layer makes of this submission (computed here, apart)."""
    from cluestudio.app.diagram_diff import diff_against

    view = window.bench.session.view(sid)
    return diff_against(view.task.reference_puml, text or view.head_puml)[1].text


def _shows_png_of(image_view, text: str) -> bool:
    """Whether ``image_view`` shows the rendering the preview path made of ``text``."""
    from cluestudio.app import preview
    from cluestudio.gui.widgets.image_decode import image_from_bytes

    png = preview.cached_png(text)
    return png is not None and image_view.image is not None and \
        image_view.image == image_from_bytes(png)


@pytest.mark.gui
def test_element_diff_colours_b_lists_what_is_missing_and_follows_the_submission(
        session, tmp_path) -> None:

    K = _keys()
    window = session.open(_course_workspace(tmp_path))
    session.press(K.Key_F3)
    grading, qtbot = window.grading, session.qtbot
    first = _sid(window, "library_loans", "s01")
    second = _sid(window, "library_loans", "s02")
    _show(window, first)
    qtbot.waitUntil(lambda: grading.image_b.image is not None, timeout=30_000)
    head = grading.view.head_puml
    assert _shows_png_of(grading.image_b, head)

    # Ctrl+D: B is the annotated text as rendered by the preview path, not plain B.
    with qtbot.waitSignal(grading.diff_shown, timeout=30_000) as shown:
        session.press(K.Key_D, modifier=_ctrl())
    assert shown.args == [first] and window.menu_actions["element_diff"].isChecked()
    picture = grading.diff_picture
    expected = _expected_annotation(window, first)
    assert picture.annotated_text == expected != head
    assert "#back:" in expected and "legend" in expected  # colours and the key to them
    assert _shows_png_of(grading.image_b, expected) and not _shows_png_of(grading.image_b, head)
    # The reference's missing elements are listed beside it, in the metric panel.
    rows = grading.metrics.tree_texts()
    missing = [m["text"] for m in picture.missing]
    assert {"Loan", "Reservation", "Librarian", "Fine"} <= set(missing)
    assert f"Missing from the candidate ({len(missing)})" in rows
    for name in ("Loan", "Reservation", "Fine"):
        assert f"{name} | class" in rows
    assert grading.metrics.metrics_visible() and grading.diff_note.isVisible()

    # Off again: plain B, and the panel back to what it said before.
    session.press(K.Key_D, modifier=_ctrl())
    assert not grading.diff_on() and not window.menu_actions["element_diff"].isChecked()
    assert _shows_png_of(grading.image_b, head) and grading.diff_picture is None
    assert grading.metrics.element_diff() is None and not grading.diff_note.isVisible()

    # On, and straight to the next submission before the diff lands: only the next one's
    # diff ever reaches B.
    seen: list[int] = []
    grading.diff_shown.connect(seen.append)
    grading.set_element_diff(True)
    session.press(K.Key_PageDown, modifier=_ctrl())
    assert window.navigator.current_id() == second
    qtbot.waitUntil(lambda: second in seen, timeout=30_000)
    qtbot.wait(200)  # a stale result would arrive about now
    assert seen == [second]
    next_head = grading.view.head_puml
    assert grading.diff_picture.candidate_text == next_head
    assert _shows_png_of(grading.image_b, _expected_annotation(window, second))
    assert "Loan" not in [m["text"] for m in grading.diff_picture.missing]  # s02 has Loan
    assert "Loan | class" not in grading.metrics.tree_texts()

    # Review: the same between the edited text and the reference, following each edit.
    session.press(K.Key_F2)
    review = window.review
    assert not window.menu_actions["element_diff"].isChecked()  # review's own toggle
    with qtbot.waitSignal(review.diff_shown, timeout=30_000):
        session.press(K.Key_D, modifier=_ctrl())
    assert review.diff_picture.annotated_text == _expected_annotation(window, second)
    edited = next_head.replace("@enduml", "class Shelf\n@enduml")
    with qtbot.waitSignal(review.diff_shown, timeout=30_000):
        review.editor.setPlainText(edited)
    assert review.diff_picture.candidate_text == edited
    coloured = review.diff_picture.annotated_text
    assert coloured == _expected_annotation(window, second, edited)
    assert any("Shelf" in line and "D55E00" in line for line in coloured.splitlines())
    assert "missing" in review.diff_note.text() and "Reservation" in review.diff_note.text()
    assert _shows_png_of(review.image_b, coloured)


@pytest.mark.gui
def test_element_diff_is_refused_where_it_cannot_or_may_not_be_shown(qtbot, tmp_path) -> None:
    from cluestudio.core.settings import ScoringSettings, Settings, UISettings

    K = _keys()
    blind = Settings(ui=UISettings(grader="ta", blind_grading=True),
                     scoring=ScoringSettings(embedder="exact"))
    ta = Session(qtbot, blind)
    try:
        window = ta.open(_mixed_workspace(tmp_path))
        ta.press(K.Key_F3)
        grading = window.grading
        component = _sid(window, "shop_architecture", "s01")
        cls = _sid(window, "library_loans", "s01")
        # A component task: no CLUE, so no element diff; B stays plain.
        _show(window, component)
        qtbot.waitUntil(lambda: grading.image_b.image is not None, timeout=30_000)
        ta.press(K.Key_D, modifier=_ctrl())
        assert grading.diff_on() and grading.diff_picture is None
        assert "compares class diagrams" in grading.diff_note.text()
        assert _shows_png_of(grading.image_b, grading.view.head_puml)
        # Blind grading, not rated yet: CLUE's matching stays hidden until the rating is
        # saved, then the diff appears.
        _show(window, cls)
        qtbot.wait(300)
        assert grading.diff_picture is None and "blind grading" in grading.diff_note.text()
        assert grading.element_diff.requests == 0
        with qtbot.waitSignal(grading.diff_shown, timeout=30_000):
            _rate_by_keys(ta)
        assert grading.diff_picture.submission_id == cls
        # A text that does not parse: the note names the line, B keeps the last good one.
        ta.press(K.Key_F2)
        review = window.review
        review.set_element_diff(True)
        qtbot.waitUntil(lambda: review.diff_picture is not None, timeout=30_000)
        broken = review.editor.toPlainText().replace("class Member", "class Member {{", 1)
        review.editor.setPlainText(broken)
        qtbot.waitUntil(lambda: "does not parse" in review.diff_note.text(), timeout=30_000)
        assert "line" in review.diff_note.text() and review.image_b.image is not None
    finally:
        ta.close()


# --- grade by group ------------------------------------------------------------------------

GROUP_BASE = ("@startuml\nclass Book\nclass Member\nclass Loan\nLoan --> Member\n"
              "Loan --> Book\n@enduml\n")
GROUP_TWINS = {  # the same diagram: a comment, another order, indentation
    "s04": GROUP_BASE.replace("@startuml", "@startuml\n' checked twice"),
    "s05": "@startuml\nclass Loan\nclass Book\nclass Member\nLoan --> Book\nLoan --> Member\n"
           "@enduml\n",
    "s06": GROUP_BASE.replace("class ", "  class "),
}


def _group_workspace(tmp_path: Path) -> Path:
    """library_loans with s01..s03 (s03 = GROUP_BASE) and three twins of s03: a group of 4."""
    from cluestudio.core.workspace import import_path, open_workspace
    from gui_course import CONVERSIONS, make_course

    assert CONVERSIONS["s03"] == GROUP_BASE
    course = make_course(tmp_path / "groups", tasks=("library_loans",))
    for source, text in GROUP_TWINS.items():
        (course / "tasks" / "library_loans" / "submissions" / f"{source}.puml").write_text(
            text, encoding="utf-8")
    path = tmp_path / "groups.sqlite"
    ws = open_workspace(path)
    try:
        run_job(import_path(ws, course))
    finally:
        ws.close()
    return path


def _ratings(path: Path) -> dict[str, sqlite3.Row]:
    return {r["source_id"]: r for r in _db(path).execute(
        "SELECT s.source_id, r.* FROM ratings r JOIN submissions s ON s.id = r.submission_id")}


def _find_groups(window, session) -> None:
    session.press(_keys().Key_G, modifier=_ctrl())
    session.qtbot.waitUntil(lambda: "library_loans" in window.groups.groupings, timeout=90_000)


@pytest.mark.gui
def test_grade_by_group_one_rating_for_four_near_identical_submissions_one_undo(
        session, tmp_path) -> None:
    from cluestudio.gui.qt import Qt

    K = _keys()
    path = _group_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3)
    ids = {s: _sid(window, "library_loans", s) for s in ("s01", "s02", "s03", "s04", "s05",
                                                         "s06")}
    _show(window, ids["s03"])
    panel = window.grading.group_panel
    assert "Not grouped yet" in panel.text.text() and not panel.apply_button.isEnabled()

    # Ctrl+G: the task's groups, found in the worker process; the panel names them.
    _find_groups(window, session)
    group = window.groups.group_of(window.grading.view)
    assert group is not None and group.size == 4
    assert set(group.submission_ids) == {ids[s] for s in ("s03", "s04", "s05", "s06")}
    qtbot = session.qtbot
    qtbot.waitUntil(lambda: "Group of <b>4</b>" in panel.text.text(), timeout=5000)
    assert all(s in panel.text.text() for s in ("s03", "s04", "s05", "s06"))
    assert panel.apply_button.isEnabled()

    # Hostile: nothing rated yet, so nothing to apply; the message says what to do.
    asked: list[str] = []
    window.groups.confirm = lambda dialog: asked.append(dialog.question) or "apply"
    messages: list[str] = []
    window.groups.status.connect(messages.append)
    session.press(K.Key_G, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)
    assert not asked and "Rate s03 first" in messages[-1] and "Nothing was applied" in messages[-1]
    assert _ratings(path) == {}

    # Rate s03, then apply: the preview says 3 ratings, all three get it, marked.
    _rate_by_keys(session, "432423")
    source_total = _ratings(path)["s03"]["total"]
    session.press(K.Key_G, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)
    assert len(asked) == 1 and "This writes 3 rating(s): s04, s05, s06" in asked[0]
    assert "group of 4" in asked[0] and "Undo" in asked[0]
    rated = _ratings(path)
    assert set(rated) == {"s03", "s04", "s05", "s06"}
    for source in ("s04", "s05", "s06"):
        assert rated[source]["total"] == source_total and rated[source]["group_from"] == "s03"
        assert rated[source]["group_key"] == group.key
        assert rated[source]["scores"] == rated["s03"]["scores"]
    assert rated["s03"]["group_key"] is None  # the source keeps its own, individual rating
    nav = window.navigator
    for source in ("s04", "s05", "s06"):
        row = nav.row(ids[source])
        assert nav.model.text(row, 1) == f"✓ {source_total:.0f} ≈"
        assert "applied from your rating of s03" in nav.model.data(
            nav.model.index(nav.model._where[ids[source]], 1), Qt.ItemDataRole.ToolTipRole)
    assert nav.model.text(nav.row(ids["s03"]), 1) == f"✓ {source_total:.0f}"

    # One Ctrl+Z takes all three back; the source's own rating stays.
    assert "Apply rating" in window.undo_action.text()
    session.press(K.Key_Z, modifier=_ctrl())
    assert set(_ratings(path)) == {"s03"}
    assert not nav.row(ids["s05"]).rated and nav.model.text(nav.row(ids["s05"]), 1) == ""
    session.press(K.Key_Z, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)  # redo
    redone = _ratings(path)
    assert set(redone) == {"s03", "s04", "s05", "s06"}
    assert all(redone[s]["group_from"] == "s03" for s in ("s04", "s05", "s06"))

    # Each copy stays editable on its own: changing s05 changes s05 only, and it is its own.
    _show(window, ids["s05"])
    assert "applied from s03" in panel.text.text()
    assert window.grading.rubric.scores() == {k: float(v) for k, v in __import__(
        "json").loads(rated["s05"]["scores"]).items()}
    session.press(K.Key_F4)
    session.press(K.Key_Up, K.Key_Up, K.Key_Up, K.Key_Up, K.Key_Up, K.Key_Up, "0")  # item 1
    session.press(K.Key_Return, modifier=_ctrl())
    after = _ratings(path)
    assert after["s05"]["total"] < source_total and after["s05"]["group_key"] is None
    for source in ("s03", "s04", "s06"):
        assert after[source]["total"] == source_total
        assert tuple(after[source]) == tuple(redone[source])
    assert nav.model.text(nav.row(ids["s05"]), 1) == f"✓ {after['s05']['total']:.0f}"

    # A member already rated is kept unless the grader asks to overwrite: the preview says so.
    _show(window, ids["s03"])
    session.press(K.Key_G, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)
    assert "Every other member already has a rating of yours" in asked[-1]
    assert "3 member(s) you already rated keep their rating" in asked[-1]
    assert _ratings(path)["s05"]["total"] == after["s05"]["total"]  # "apply" wrote nothing
    window.groups.confirm = lambda dialog: "overwrite"
    session.press(K.Key_G, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)
    assert _ratings(path)["s05"]["total"] == source_total
    session.press(K.Key_Z, modifier=_ctrl())
    assert _ratings(path)["s05"]["total"] == after["s05"]["total"]  # undone exactly

    # A singleton has no group to apply to.
    _show(window, ids["s01"])
    assert "No other submission" in panel.text.text()
    session.press(K.Key_G, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)
    assert "no group to apply to" in messages[-1]


@pytest.mark.gui
def test_a_cancelled_group_search_leaves_nothing(session, tmp_path) -> None:
    K = _keys()
    path = _group_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3)
    _show(window, _sid(window, "library_loans", "s03"))
    _rate_by_keys(session)
    job = window.groups.find_groups()
    assert job is not None
    # Cancelled the moment it starts working (Jobs → Cancel, Ctrl+.); whatever the worker
    # still sends back is not kept.
    job.started.connect(window.commands.cancel_job)
    session.qtbot.waitUntil(lambda: job.done, timeout=90_000)
    assert job.cancelled and window.groups.groupings == {} and not window.groups.busy()
    panel = window.grading.group_panel
    assert "Not grouped yet" in panel.text.text()
    messages: list[str] = []
    window.groups.status.connect(messages.append)
    assert window.groups.apply_to_group() is None
    assert "Find the groups of task library_loans first" in messages[-1]
    assert set(_ratings(path)) == {"s03"}
    # Found again (not cancelled), the groups are there.
    _find_groups(window, session)
    assert window.groups.group_of(window.grading.view).size == 4


@pytest.mark.gui
def test_the_group_box_and_diff_toggles_fit_the_small_screens(session, tmp_path) -> None:
    from test_gui_stories import _inside

    window = session.open(_course_workspace(tmp_path))
    for width, height in ((1366, 768), (1024, 700)):
        window.resize(width, height)
        for index, widgets in ((0, (window.review.diff_button,)),
                               (1, (window.grading.group_panel, window.grading.diff_button,
                                    window.grading.group_panel.apply_button))):
            window.modes.setCurrentIndex(index)
            session.qtbot.wait(30)
            for widget in widgets:
                assert widget.isVisible() and _inside(window, widget), (width, widget)
        assert window.grading.group_panel.height() >= 60
        assert window.grading.rubric.height() >= 90 and window.grading.metrics.height() >= 90


@pytest.mark.gui
def test_the_new_keys_are_the_only_users_of_their_keys() -> None:
    from cluestudio.gui.menus import effective_shortcuts, keyboard_markdown

    keys, problems = effective_shortcuts()
    assert not problems
    used = [key for key in keys.values() if key]
    assert len(used) == len(set(used))
    assert (keys["element_diff"], keys["find_groups"], keys["apply_group_rating"]) == (
        "Ctrl+D", "Ctrl+G", "Ctrl+Shift+G")
    text = keyboard_markdown()
    assert "`Ctrl+D` | Element diff on image B" in text and "**Grade menu**" in text


@pytest.mark.gui
def test_groups_found_before_a_diagram_changed_are_not_applied(session, tmp_path) -> None:
    K = _keys()
    path = _group_workspace(tmp_path)
    window = session.open(path)
    session.press(K.Key_F3)
    source, twin = _sid(window, "library_loans", "s03"), _sid(window, "library_loans", "s04")
    _show(window, source)
    _rate_by_keys(session)
    _find_groups(window, session)
    assert window.groups.group_of(window.grading.view).size == 4
    # s04 is corrected in review: it may no longer be s03's twin, so the groups go.
    view = window.bench.session.view(twin)
    window.bench.session.save_revision(view, view.head_puml.replace("class Loan", "class Loan {\n"
                                                            "  due : Date\n}"))
    assert window.groups.groupings == {}
    assert "changed since" in window.grading.group_panel.text.text()
    window.groups.confirm = lambda *_: pytest.fail("nothing to confirm: no groups")
    assert window.groups.apply_to_group() is None
    assert set(_ratings(path)) == {"s03"}
    _find_groups(window, session)  # found again: s04 is on its own now
    assert window.groups.group_of(window.grading.view).size == 3
