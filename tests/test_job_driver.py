"""Issue 26: one job loop (core.jobs.run_job) for the CLI, the window's worker threads and
the worker process; what it passes on when it throttles is the same rule for all."""

from __future__ import annotations

import pytest

from cluestudio.core.jobs import Cancelled, CancelToken, Job, Progress, run_job


def _job() -> Job[str]:
    for _ in range(500):  # a burst of steps that do not move the count
        yield Progress(0, 3, "warming up", phase="starting")
    for done in (1, 2, 3):
        yield Progress(done, 3, f"item {done}", phase="working")
    return "result"


def test_a_throttled_driver_passes_the_first_step_and_the_end_of_the_count() -> None:
    seen: list[Progress] = []
    assert run_job(_job(), seen.append, every_s=3600) == "result"
    assert [(s.done, s.message) for s in seen] == [(0, "warming up"), (3, "item 3")]


def test_the_worker_process_rule_also_passes_every_move_of_the_count() -> None:
    seen: list[Progress] = []
    assert run_job(_job(), seen.append, every_s=3600, moves_pass=True) == "result"
    assert [s.done for s in seen] == [0, 1, 2, 3]
    assert seen[-1].phase == "working"


def test_unthrottled_the_driver_passes_every_step_and_stops_when_cancelled() -> None:
    seen: list[Progress] = []
    run_job(_job(), seen.append)
    assert len(seen) == 503
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        run_job(_job(), seen.append, cancel=token)
