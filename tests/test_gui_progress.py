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
