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


def counting_job(n: int, cancel: CancelToken) -> Job[int]:
    total = 0
    for i in range(n):
        cancel.raise_if_cancelled()
        total += i
        yield Progress(i + 1, n, f"item {i}")
    return total


def test_generator_job_reports_progress_then_result(qtbot, runner) -> None:
    progress: list[tuple[int, int, int, str]] = []
    runner.progress.connect(lambda *args: progress.append(args))
    with qtbot.waitSignal(runner.finished, timeout=5000):
        handle = runner.submit(lambda cancel: counting_job(4, cancel), "count")
        with qtbot.waitSignal(runner.result, timeout=5000) as result:
            pass
    assert result.args == [handle.id, 0 + 1 + 2 + 3]
    qtbot.waitUntil(lambda: len(progress) == 4)
    assert [p[1] for p in progress] == [1, 2, 3, 4]
    assert progress[-1] == (handle.id, 4, 4, "item 3")


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
