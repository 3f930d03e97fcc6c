"""The window's job runners: per-job handles, thread lanes, and the batch worker process."""

from __future__ import annotations

import os
import signal
import threading
import time

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
    total = 0
    for i in range(n):
        cancel.raise_if_cancelled()
        total += i
        time.sleep(step_s)
        yield Progress(i + 1, n, f"item {i}")
    return total


def recorder(handle):
    """Everything a handle emits, in order: (signal name, args...)."""
    seen: list[tuple] = []
    handle.started.connect(lambda: seen.append(("started",)))
    handle.progress.connect(lambda d, t, m: seen.append(("progress", d, t, m)))
    handle.result.connect(lambda value: seen.append(("result", value)))
    handle.error.connect(lambda message: seen.append(("error", message)))
    handle.finished.connect(lambda: seen.append(("finished",)))
    return seen


def test_a_handle_reports_started_progress_result_finished_in_order(qtbot, runner) -> None:
    # Steps slower than the progress throttle (50 ms): every one is reported.
    handle = runner.submit(lambda cancel: counting_job(4, cancel, 0.08), "count")
    seen = recorder(handle)
    qtbot.waitUntil(lambda: handle.done, timeout=5000)
    assert seen[0] == ("started",)
    assert [s[1] for s in seen if s[0] == "progress"] == [1, 2, 3, 4]
    assert ("progress", 4, 4, "item 3") in seen
    assert seen[-2:] == [("result", 0 + 1 + 2 + 3), ("finished",)]


def test_each_job_speaks_only_through_its_own_handle(qtbot, runner) -> None:
    first = runner.submit(lambda cancel: "one", "first")
    second = runner.submit(lambda cancel: "two", "second")
    one, two = recorder(first), recorder(second)
    qtbot.waitUntil(lambda: first.done and second.done, timeout=5000)
    assert ("result", "one") in one and ("result", "two") not in one
    assert ("result", "two") in two and ("result", "one") not in two


def test_fast_progress_is_throttled_but_first_and_last_steps_arrive(qtbot, runner) -> None:
    """A 1,000-pair job must not flood the UI thread with a signal per step."""
    handle = runner.submit(lambda cancel: counting_job(20_000, cancel), "fast")
    seen = recorder(handle)
    qtbot.waitUntil(lambda: handle.done, timeout=10_000)
    progress = [s for s in seen if s[0] == "progress"]
    assert progress[0][1] == 1
    assert progress[-1] == ("progress", 20_000, 20_000, "item 19999")
    assert len(progress) < 200  # ~20 a second at most; 20,000 unthrottled


def test_job_runs_off_the_ui_thread(qtbot, runner) -> None:
    ui_thread = threading.get_ident()
    handle = runner.submit(lambda cancel: threading.get_ident(), "where")
    with qtbot.waitSignal(handle.result, timeout=5000) as result:
        pass
    assert result.args[0] != ui_thread


def test_errors_are_reported_and_the_lane_survives(qtbot, runner) -> None:
    def broken(cancel: CancelToken) -> None:
        raise ClueStudioError("reference.puml:3: bad arrow")

    def crashing(cancel: CancelToken) -> None:
        raise ZeroDivisionError("boom")

    first, second = runner.submit(broken, "broken"), runner.submit(crashing, "crashing")
    after = runner.submit(lambda cancel: "still alive", "after")
    qtbot.waitUntil(lambda: after.done, timeout=5000)
    assert first.failure == "reference.puml:3: bad arrow"
    assert second.failure is not None and "ZeroDivisionError" in second.failure


def test_cancelled_job_gives_no_result(qtbot, runner) -> None:
    gate = threading.Event()

    def blocker(cancel: CancelToken) -> str:
        gate.wait(5)
        return "first"

    first = runner.submit(blocker, "blocker")
    queued = runner.submit(lambda cancel: counting_job(10, cancel), "queued")
    queued_seen = recorder(queued)
    queued.cancel()
    gate.set()
    qtbot.waitUntil(lambda: first.done and queued.done, timeout=5000)
    assert queued_seen == [("finished",)]


def test_interactive_job_completes_while_a_long_batch_job_runs(qtbot, runner) -> None:
    from cluestudio.gui.worker import BATCH, INTERACTIVE

    batch_started, release = threading.Event(), threading.Event()

    def long_batch(cancel: CancelToken) -> str:
        batch_started.set()
        release.wait(10)
        return "batch"

    batch = runner.submit(long_batch, "export", lane=BATCH)
    assert batch_started.wait(5)
    preview = runner.submit(lambda cancel: "preview", "preview", lane=INTERACTIVE)
    qtbot.waitUntil(lambda: preview.done, timeout=5000)
    assert not batch.done and not release.is_set()  # the batch is still running
    release.set()
    qtbot.waitUntil(lambda: batch.done, timeout=5000)


def test_unknown_lane_is_refused(runner) -> None:
    with pytest.raises(ValueError, match="no lane"):
        runner.submit(lambda cancel: None, "lost", lane="gpu")


def test_shutdown_cancels_running_and_queued_jobs_and_joins(qtbot) -> None:
    """Quitting during a long job must not wait for it to complete, nor leave a thread."""
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

    def bad(cancel: CancelToken) -> None:
        raise escape

    bad_handle = runner.submit(bad, "bad plugin")
    good_handle = runner.submit(lambda cancel: "still here", "after")
    good = recorder(good_handle)
    qtbot.waitUntil(lambda: good_handle.done, timeout=5000)
    assert ("result", "still here") in good
    assert bad_handle.failure is not None and type(escape).__name__ in bad_handle.failure
    started = time.monotonic()
    runner.shutdown()
    assert time.monotonic() - started < 2


# --- the batch worker process ----------------------------------------------------------------

# A spawned process starts with this process's sys.path, tests/ included.
SAMPLES = "support.worker_process_samples"


@pytest.fixture
def processes(qtbot):
    from cluestudio.gui.worker import ProcessRunner

    runner = ProcessRunner()
    yield runner
    runner.shutdown()


def test_a_process_job_streams_progress_data_and_result_to_its_handle(qtbot, processes) -> None:
    stored: list[tuple[str, object, str]] = []
    handle = processes.submit(f"{SAMPLES}:count", (5,), label="count",
                              on_data=lambda tag, value: stored.append(
                                  (tag, value, threading.current_thread().name)))
    seen = recorder(handle)
    qtbot.waitUntil(lambda: handle.done, timeout=30_000)
    assert seen[0] == ("started",) and seen[-2:] == [("result", 10), ("finished",)]
    assert [s[1] for s in seen if s[0] == "progress"][-1] == 5
    # Data is handled on the reader thread, never the UI thread, in the order it was sent.
    assert [value for _, value, _ in stored] == [0, 1, 2, 3, 4]
    assert all(name != threading.main_thread().name for _, _, name in stored)
    assert processes.pid != os.getpid()


@pytest.mark.parametrize("how", ["crash", "exit", "kill"])
def test_a_worker_that_dies_is_an_error_and_the_next_job_runs(qtbot, processes,
                                                            how: str) -> None:
    first = processes.submit(f"{SAMPLES}:hang" if how == "kill" else f"{SAMPLES}:{how}",
                             label=how)
    queued = processes.submit(f"{SAMPLES}:count", (3,), label="queued behind it")
    if how == "kill":
        qtbot.waitUntil(lambda: processes.pid is not None, timeout=30_000)
        time.sleep(1.0)  # let it start the hanging job
        os.kill(processes.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: first.done and queued.done, timeout=60_000)
    assert first.failure is not None and "worker process stopped unexpectedly" in first.failure
    assert queued.failure is not None  # it was in the dead process: reported, not lost
    again = processes.submit(f"{SAMPLES}:count", (3,), label="after")
    with qtbot.waitSignal(again.result, timeout=60_000) as result:
        pass
    assert result.args == [3]


def test_a_failing_job_is_reported_and_the_worker_stays(qtbot, processes) -> None:
    bad = processes.submit(f"{SAMPLES}:fail", label="fail")
    qtbot.waitUntil(lambda: bad.done, timeout=30_000)
    pid = processes.pid
    assert bad.failure == "sample.puml:2: a clear error"
    good = processes.submit(f"{SAMPLES}:count", (2,), label="good")
    qtbot.waitUntil(lambda: good.done, timeout=30_000)
    assert processes.pid == pid  # the same warm process


def test_a_storing_error_stops_the_job_and_reports_once(qtbot, processes) -> None:
    def refuse(tag: str, value: object) -> None:
        raise ClueStudioError("course.sqlite: the disk is full; nothing of this was saved")

    handle = processes.submit(f"{SAMPLES}:count", (200,), {"step_s": 0.01}, label="store",
                              on_data=refuse)
    seen = recorder(handle)
    qtbot.waitUntil(lambda: handle.done, timeout=30_000)
    assert [s for s in seen if s[0] == "error"] == [
        ("error", "course.sqlite: the disk is full; nothing of this was saved")]
    assert not any(s[0] == "result" for s in seen)


def test_quit_returns_within_two_seconds_with_a_job_running(qtbot, processes) -> None:
    handle = processes.submit(f"{SAMPLES}:hang", label="hang")
    qtbot.waitUntil(lambda: processes.pid is not None, timeout=30_000)
    time.sleep(1.0)
    began = time.monotonic()
    processes.shutdown()
    assert time.monotonic() - began < 2
    assert not processes.is_running()
    qtbot.waitUntil(lambda: handle.done, timeout=5000)


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="process priorities are POSIX")
def test_the_worker_process_runs_below_the_windows_priority(qtbot, processes) -> None:
    """On 2 cores a batch at the window's priority took the CPU the UI thread needed (UI
    stalls of 50-80 ms while 1,000 pairs scored; benchmarks/bench_gui.py)."""
    from cluestudio.app.worker_process import WORKER_NICENESS

    handle = processes.submit(f"{SAMPLES}:count", (2,), label="count")
    qtbot.waitUntil(lambda: handle.done and processes.pid is not None, timeout=30_000)
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, processes.pid) == min(19, mine + WORKER_NICENESS)


def test_latest_job_delivers_only_the_newest_jobs_answer(qtbot) -> None:
    from cluestudio.gui.worker import JobHandle, LatestJob

    latest, got = LatestJob(), []
    old, new = JobHandle("old"), JobHandle("new")
    latest.start(old, lambda v: got.append(("result", v)), lambda m: got.append(("error", m)))
    latest.start(new, lambda v: got.append(("result", v)), lambda m: got.append(("error", m)))
    assert old.cancelled and not new.cancelled and latest.busy()
    old.result.emit("stale picture")  # a slow answer for the older request
    old.error.emit("stale failure")
    assert got == [] and latest.busy()
    new.result.emit("picture")
    assert got == [("result", "picture")] and not latest.busy()
    new.error.emit("late")  # nothing more once it was delivered
    assert got == [("result", "picture")]
