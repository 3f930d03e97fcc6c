"""The Analysis dock: disagreement queues from stored ratings and scores, figures, and
click-to-grade."""

from __future__ import annotations

import pytest

from cluestudio.core.jobs import CancelToken, run_job
from cluestudio.core.settings import Settings

pytestmark = pytest.mark.gui

pytest.importorskip("cluestudio.core.calibrate")


def _course(tmp_path):
    from cluestudio.core.rubric import get_rubric
    from cluestudio.core.workspace import SaveRating, import_path, open_workspace, ops
    from cluestudio.core.workspace.ops import text_hash
    from gui_course import make_course

    ws = open_workspace(tmp_path / "course.sqlite")
    run_job(import_path(ws, make_course(tmp_path / "course")))
    rubric = get_rubric()
    ids = [s.id for s in ws.list_submissions()]
    # Six submissions: CLUE tracks the human totals except for one (the planted outlier),
    # and the two graders disagree most on the last one.
    clue = [0.9, 0.7, 0.5, 0.3, 0.1, 0.95]
    for number, sid in enumerate(ids):
        level = 4 if number < 2 else 2 if number < 4 else 0
        if number == 5:
            level = 0  # high CLUE, low human total: the top metric disagreement
        items = {i.id: min(level, 2 if i.id == "multiplicities" else 4) for i in rubric.items}
        ws.execute(SaveRating(sid, "ana", items, rubric=rubric))
        other = {k: (4 - v if number == 4 else v) for k, v in items.items()}
        other["multiplicities"] = min(other["multiplicities"], 2)
        ws.execute(SaveRating(sid, "ben", other, rubric=rubric))
        head = ws.head_revision(sid)
        ws.write(lambda conn, sid=sid, head=head, value=clue[number]: ops.put_score(
            conn, sid, text_hash(head.puml), "clue", value))
    return ws, ids


def test_gather_ranks_the_planted_disagreements(tmp_path) -> None:
    from cluestudio.app.analysis import gather

    ws, ids = _course(tmp_path)
    try:
        data = run_job(gather(ws, "class-diagram", CancelToken(), resamples=50))
    finally:
        ws.close()
    assert not data.note and set(data.metric_queues) == {"clue"}
    assert int(data.metric_queues["clue"][0].id) == ids[5]
    assert int(data.grader_queue[0].id) == ids[4]
    assert "clue" in data.correlations and data.figures["scatter"][:4] == b"\x89PNG"


def test_probe_scores_are_correlated_too(tmp_path) -> None:
    from cluestudio.app.analysis import gather
    from cluestudio.core.workspace import ops

    ws, ids = _course(tmp_path)
    try:
        for number, sid in enumerate(ids[:4]):
            ws.write(lambda conn, sid=sid, number=number: ops.put_probe_result(
                conn, sid, "vlm-seed003", "m", "h", em=float(number % 2),
                rel_acc=number / 4, result={}))
        data = run_job(gather(ws, "class-diagram", CancelToken(), resamples=20,
                              figures=False))
    finally:
        ws.close()
    assert {"clue", "probe-em[m]", "probe-rel-acc[m]"} <= set(data.metric_queues)
    assert "probe-rel-acc[m]" in data.correlations


def test_too_few_ratings_say_so(tmp_path) -> None:
    from cluestudio.app.analysis import gather
    from cluestudio.core.workspace import import_path, open_workspace
    from gui_course import make_course

    ws = open_workspace(tmp_path / "empty.sqlite")
    try:
        run_job(import_path(ws, make_course(tmp_path / "course", ("library_loans",))))
        data = run_job(gather(ws, "class-diagram", CancelToken()))
    finally:
        ws.close()
    assert "rate and score at least 3" in data.note and not data.figures


def test_analysis_tab_opens_a_queued_submission_in_grading_mode(qtbot, tmp_path) -> None:
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

    ws, ids = _course(tmp_path)
    runner = JobRunner()
    window = MainWindow(runner, Settings())
    window.ask_before_discard = False
    qtbot.addWidget(window)
    try:
        window.open(ws)
        window.show()
        window.navigator.task_box.setCurrentIndex(1)  # a filter that hides the outlier
        with qtbot.waitSignal(window.analysis.shown, timeout=60_000):
            window.show_analysis()
        view = window.analysis
        assert window.modes.currentWidget() is view and view.isVisible()
        assert view.height() > 300  # a mode of its own, not a squeezed dock
        assert view.metric_queue.topLevelItemCount() == 6
        assert view.grader_queue.topLevelItemCount() >= 1
        assert view.figures.findChild(type(view.note), "figure-scatter") is not None
        title = view.figures.findChild(type(view.note), "figure-title-scatter")
        assert title is not None and "against the human total" in title.text()  # not an id
        assert "may leave the rubric's range" in view.metric_queue.headerItem().toolTip(4)
        top = view.metric_queue.topLevelItem(0)
        view.metric_queue.itemDoubleClicked.emit(top, 1)
        assert window.modes.currentIndex() == 1
        assert window.grading.view.submission.id == ids[5]
    finally:
        window.close()
        runner.shutdown()
