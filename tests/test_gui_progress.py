"""Issue 24, item 5: "Batch progress sits at 0/66 for ~25 s, jumps to 50/66, then done;
elapsed time resets per phase; no ETA ever appears". The TA scores a course and watches
the status bar: n/N over the whole job moves as chunks land, the time counts from the
job's start, and an estimate appears once there is a rate."""

from __future__ import annotations

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def test_the_time_so_far_counts_from_the_job_start_not_the_phase() -> None:
    from cluestudio.gui.widgets.job_panel import PhaseClock

    clock = PhaseClock()
    clock.update(0, None, "loading the embedder", now=0.0)
    clock.update(0, None, "Text: starting", now=5.0)  # another phase, same job
    assert clock.text("score", 6.0) == "score — Text: starting · 6 s so far"


def test_the_estimate_spans_the_phases_of_one_count() -> None:
    from cluestudio.gui.widgets.job_panel import PhaseClock

    clock = PhaseClock()
    clock.update(0, None, "loading the embedder", now=0.0)
    clock.update(0, 66, "CLUE: comparing strings", now=4.0)  # the count starts
    clock.update(4, 66, "parsing 4 pairs", now=6.0)  # each chunk names its own phase
    clock.update(8, 66, "Text: 4 pairs", now=8.0)
    assert clock.text("score", 8.0) == "score — Text: 4 pairs · 8/66 · about 29 s left"


def test_scoring_a_course_moves_the_bar_before_the_end(session, tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))  # 6 submissions
    seen: list[tuple[int, int]] = []
    job = window.score_listed()
    assert job is not None
    job.progress.connect(lambda done, total, _message: seen.append((done, total)))
    with session.qtbot.waitSignal(job.finished, timeout=180_000):
        pass
    totals = {total for _, total in seen if total > 0}
    assert totals == {6}, seen  # n/N over the whole job
    assert any(0 < done < 6 for done, _ in seen), seen  # it moved on the way


def test_the_terminal_and_the_window_show_the_same_text_for_one_job(qtbot) -> None:
    """Issue 26: one ``Progress`` (with its phase) and one clock for the CLI's stderr and
    the window's status bar, so the two cannot disagree about the phase or the time left."""
    import io

    from cluestudio.cli.output import ProgressBar
    from cluestudio.core.jobs import Progress
    from cluestudio.gui.widgets.job_panel import JobStatus
    from cluestudio.gui.worker import JobHandle

    steps = [(0.0, Progress(0, None, "", phase="loading the embedder")),
             (3.0, Progress(0, 6, "starting", phase="scoring")),
             (5.0, Progress(2, 6, "parsing 2 pairs", phase="scoring")),
             (9.0, Progress(4, 6, "Text: 2 pairs", phase="scoring")),
             (10.0, Progress(6, 6, "storing", phase="storing"))]
    clock = {"now": 0.0}
    status = JobStatus()
    qtbot.addWidget(status)
    status.now = lambda: clock["now"]
    handle = JobHandle("score")
    status.track(handle)
    handle.started.emit()
    stream = io.StringIO()
    bar = ProgressBar(stream=stream, label="score", now=lambda: clock["now"])
    window_lines, terminal_lines = [], []
    for now, step in steps:
        clock["now"] = now
        handle.stepped.emit(step)
        bar(step)
        window_lines.append(status.text())
        line = bar.line(step, now)
        terminal_lines.append(line.split("] ", 1)[1] if line.startswith("[") else line)
    assert terminal_lines == window_lines
    assert window_lines[0] == "score — loading the embedder"
    assert window_lines[2] == "score — scoring: parsing 2 pairs · 2/6 · about 4 s left"
    assert window_lines[-1] == "score — storing · 6/6 · finishing…"
