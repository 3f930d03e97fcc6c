"""The GUI job runner: signals in order, progress from core jobs, errors and cancel."""

from __future__ import annotations

import threading

import pytest

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress

pytestmark = pytest.mark.gui


@pytest.fixture
def runner(qtbot):
    from cluestudio.gui.worker import JobRunner

    job_runner = JobRunner()
    yield job_runner
    job_runner.shutdown()


def counting_job(n: int, cancel: CancelToken, step_s: float = 0.0) -> Job[int]:
    import time

    total = 0
    for i in range(n):
        cancel.raise_if_cancelled()
        total += i
        time.sleep(step_s)
        yield Progress(i + 1, n, f"item {i}")
    return total


def test_generator_job_reports_progress_then_result(qtbot, runner) -> None:
    progress: list[tuple[int, int, int, str]] = []
    runner.progress.connect(lambda *args: progress.append(args))
    # Both waits are armed before the job starts: a fast job may signal from the worker
    # thread before a wait set up after submit() is listening.
    results: list[tuple[int, object]] = []
    runner.result.connect(lambda job_id, value: results.append((job_id, value)))
    with qtbot.waitSignal(runner.finished, timeout=5000):
        # Steps slower than the progress throttle (50 ms): every one is reported.
        handle = runner.submit(lambda cancel: counting_job(4, cancel, 0.08), "count")
    qtbot.waitUntil(lambda: bool(results))
    assert results == [(handle.id, 0 + 1 + 2 + 3)]
    qtbot.waitUntil(lambda: len(progress) == 4)
    assert [p[1] for p in progress] == [1, 2, 3, 4]
    assert progress[-1] == (handle.id, 4, 4, "item 3")


def test_fast_progress_is_throttled_but_first_and_last_steps_arrive(qtbot, runner) -> None:
    """A 1,000-pair job must not flood the UI thread with a signal per step."""
    progress: list[tuple[int, int, int, str]] = []
    runner.progress.connect(lambda *args: progress.append(args))
    with qtbot.waitSignal(runner.finished, timeout=10_000):
        handle = runner.submit(lambda cancel: counting_job(20_000, cancel), "fast")
    qtbot.waitUntil(lambda: bool(progress) and progress[-1][1] == 20_000)
    assert progress[0][1] == 1
    assert progress[-1] == (handle.id, 20_000, 20_000, "item 19999")
    assert len(progress) < 200  # ~20 a second at most; 20,000 unthrottled


def test_job_runs_off_the_ui_thread(qtbot, runner) -> None:
    ui_thread = threading.get_ident()
    with qtbot.waitSignal(runner.result, timeout=5000) as result:
        runner.submit(lambda cancel: threading.get_ident(), "where")
    assert result.args[1] != ui_thread


def test_errors_are_reported_and_the_worker_survives(qtbot, runner) -> None:
    def broken(cancel: CancelToken) -> None:
        raise ClueStudioError("reference.puml:3: bad arrow")

    def crashing(cancel: CancelToken) -> None:
        raise ZeroDivisionError("boom")

    errors: list[str] = []
    runner.error.connect(lambda job_id, message: errors.append(message))
    runner.submit(broken, "broken")
    runner.submit(crashing, "crashing")
    with qtbot.waitSignal(runner.result, timeout=5000) as result:
        runner.submit(lambda cancel: "still alive", "after")
    assert result.args[1] == "still alive"
    assert errors[0] == "reference.puml:3: bad arrow"
    assert "ZeroDivisionError" in errors[1] and "crashing" in errors[1]


def test_cancelled_job_gives_no_result(qtbot, runner) -> None:
    gate = threading.Event()

    def blocker(cancel: CancelToken) -> str:
        gate.wait(5)
        return "first"

    results: list[object] = []
    runner.result.connect(lambda job_id, value: results.append(value))
    runner.submit(blocker, "blocker")
    queued = runner.submit(lambda cancel: counting_job(10, cancel), "queued")
    queued.cancel()
    with qtbot.waitSignal(runner.finished, timeout=5000,
                          check_params_cb=lambda job_id: job_id == queued.id):
        gate.set()
    assert results == ["first"]


def test_interactive_job_completes_while_a_long_batch_job_runs(qtbot, runner) -> None:
    from cluestudio.gui.worker import BATCH, INTERACTIVE

    batch_started, release = threading.Event(), threading.Event()

    def long_batch(cancel: CancelToken) -> str:
        batch_started.set()
        release.wait(10)  # a scoring batch that will not finish before the preview
        return "batch"

    results: list[object] = []
    runner.result.connect(lambda job_id, value: results.append(value))
    batch = runner.submit(long_batch, "score 500 submissions", lane=BATCH)
    assert batch_started.wait(5)
    with qtbot.waitSignal(runner.result, timeout=5000,
                          check_params_cb=lambda job_id, value: value == "preview") as got:
        preview = runner.submit(lambda cancel: "preview", "preview", lane=INTERACTIVE)
    assert got.args[0] == preview.id != batch.id
    assert results == ["preview"] and not release.is_set()  # the batch is still running
    with qtbot.waitSignal(runner.finished, timeout=5000,
                          check_params_cb=lambda job_id: job_id == batch.id):
        release.set()
    assert results == ["preview", "batch"]


def test_unknown_lane_is_refused(runner) -> None:
    with pytest.raises(ValueError, match="no lane"):
        runner.submit(lambda cancel: None, "lost", lane="gpu")


def test_shutdown_cancels_running_and_queued_jobs_and_joins(qtbot) -> None:
    """Quitting during a long job must not wait for it to complete, nor leave a thread."""
    import time

    from cluestudio.gui.worker import JobRunner

    job_runner = JobRunner()
    started = threading.Event()
    steps: list[int] = []

    def long_job(cancel: CancelToken) -> Job[None]:
        started.set()
        for i in range(10_000):
            cancel.raise_if_cancelled()
            steps.append(i)
            time.sleep(0.01)  # ~100 s if nobody cancels it
            yield Progress(i + 1, 10_000)

    ran_queued: list[bool] = []
    job_runner.submit(long_job, "long")
    queued = job_runner.submit(lambda cancel: ran_queued.append(True), "queued")
    assert started.wait(5)
    began = time.perf_counter()
    job_runner.shutdown()
    assert time.perf_counter() - began < 5
    assert not job_runner.is_running()
    assert queued.cancelled and not ran_queued
    assert len(steps) < 10_000


@pytest.mark.parametrize("escape", [SystemExit(4), KeyboardInterrupt()])
def test_a_job_that_exits_or_interrupts_is_an_error_and_the_lane_goes_on(
        qtbot, runner, escape: BaseException) -> None:
    """A plugin calling sys.exit (or raising KeyboardInterrupt) inside a job used to end the
    worker thread: every queued job stayed unrun and Quit waited forever."""
    import time

    errors: list[tuple[int, str]] = []
    results: list[tuple[int, object]] = []
    runner.error.connect(lambda job_id, text: errors.append((job_id, text)))
    runner.result.connect(lambda job_id, value: results.append((job_id, value)))

    def bad(cancel: CancelToken) -> None:
        raise escape

    bad_handle = runner.submit(bad, "bad plugin")
    good_handle = runner.submit(lambda cancel: "still here", "after")
    qtbot.waitUntil(lambda: bool(results), timeout=5000)
    assert results == [(good_handle.id, "still here")]
    assert [job for job, _ in errors] == [bad_handle.id]
    assert type(escape).__name__ in errors[0][1]
    started = time.monotonic()
    runner.shutdown()
    assert time.monotonic() - started < 2
