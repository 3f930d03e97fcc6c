"""Scoring on executors (issue 20): worker processes, a Dask LocalCluster and Ray give the
scores of the in-process run; a worker killed mid-job loses nothing and stores nothing twice;
chunks adapt to the cost of their texts; a failing chunk is retried with back-off."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app.executors import (
    ChunkSizer,
    Executor,
    ExecutorError,
    ExecutorOptions,
    ProcessesExecutor,
    open_executor,
    run_chunks,
)
from cluestudio.app.scoring import ScoringOptions, score_workspace
from cluestudio.core.jobs import CancelToken, run_job
from cluestudio.core.workspace import import_path, open_workspace

pytestmark = [pytest.mark.java, pytest.mark.xdist_group("java")]

ROOT = Path(__file__).resolve().parents[1]
EXACT = ScoringOptions(embedder="exact", device="cpu")


def _sample(path: Path) -> Any:
    ws = open_workspace(path)
    run_job(import_path(ws, ROOT / "annotations" / "sample"))
    return ws


def _rows(ws: Any) -> list[tuple[Any, ...]]:
    """Every stored score (without its time), sorted: what two runs must agree on."""
    return sorted(ws._reader().execute(
        "SELECT submission_id, content_hash, metric, metric_version, embedder, profile, "
        "normalization, weights_hash, value, explanation FROM scores").fetchall())


@pytest.fixture(scope="module")
def local_rows(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, ...]]:
    with _sample(tmp_path_factory.mktemp("local") / "w.sqlite") as ws:
        summary = run_job(score_workspace(ws, EXACT))
        assert len(summary.scored) == 66 and not summary.plugin_errors
        return _rows(ws)


def _killer(pids: Any, after: int = 1) -> Any:
    """An ``on_stored`` that kills one worker process once ``after`` chunks are stored."""
    stored = []

    def on_stored(ids: frozenset[int]) -> None:
        stored.append(ids)
        if len(stored) == after:
            os.kill(pids()[0], signal.SIGKILL)

    return on_stored, stored


def test_dask_local_cluster_gives_the_local_scores(tmp_path: Path,
                                                   local_rows: list[tuple[Any, ...]]) -> None:
    pytest.importorskip("distributed")
    with open_executor(ExecutorOptions("dask", workers=2)) as executor, \
            _sample(tmp_path / "w.sqlite") as ws:
        assert executor.workers == 2
        summary = run_job(score_workspace(ws, EXACT, executor=executor, chunk_size=None))
        assert len(summary.scored) == 66 and summary.failed == {}
        assert len(summary.workers) == 2  # both worker processes scored chunks
        assert _rows(ws) == local_rows


def test_a_local_dask_cluster_listens_on_loopback_only() -> None:
    # Scheduler and workers run whatever pickle they are sent: nothing off this machine
    # may reach them (issue 25, docs/security.md).
    pytest.importorskip("distributed")
    with open_executor(ExecutorOptions("dask", workers=1)) as executor:
        addresses = [executor.address, *executor.client.scheduler_info()["workers"]]
        assert addresses and all(a.startswith("tcp://127.0.0.1:") for a in addresses)


def test_a_dask_worker_killed_mid_job_loses_nothing_and_stores_nothing_twice(
        tmp_path: Path, local_rows: list[tuple[Any, ...]]) -> None:
    pytest.importorskip("distributed")
    with open_executor(ExecutorOptions("dask", workers=2)) as executor, \
            _sample(tmp_path / "w.sqlite") as ws:
        on_stored, stored = _killer(lambda: list(executor.worker_pids().values()))
        summary = run_job(score_workspace(ws, EXACT, executor=executor, chunk_size=4,
                                          on_stored=on_stored))
        assert len(stored) > 1 and len(summary.scored) == 66 and summary.failed == {}
        assert _rows(ws) == local_rows  # every score once, each the local value


def test_a_killed_worker_process_is_replaced_and_its_chunks_sent_again(
        tmp_path: Path, local_rows: list[tuple[Any, ...]]) -> None:
    with ProcessesExecutor(2) as executor, _sample(tmp_path / "w.sqlite") as ws:
        on_stored, stored = _killer(executor.worker_pids)
        summary = run_job(score_workspace(ws, EXACT, executor=executor, chunk_size=5,
                                          on_stored=on_stored))
        assert len(stored) > 1 and len(summary.scored) == 66 and summary.failed == {}
        assert _rows(ws) == local_rows


def test_ray_in_local_mode_gives_the_local_scores(tmp_path: Path,
                                                  local_rows: list[tuple[Any, ...]]) -> None:
    pytest.importorskip("ray", reason="Ray is not installed here ([cluster] extra)")
    with open_executor(ExecutorOptions("ray", workers=2)) as executor, \
            _sample(tmp_path / "w.sqlite") as ws:
        summary = run_job(score_workspace(ws, EXACT, executor=executor, chunk_size=None))
        assert len(summary.scored) == 66 and summary.failed == {}
        assert _rows(ws) == local_rows


def test_executor_options_are_checked() -> None:
    assert open_executor(ExecutorOptions()) is None  # local: this process
    with pytest.raises(ExecutorError, match="unknown executor"):
        ExecutorOptions("spark")
    with pytest.raises(ExecutorError, match="--scheduler is for --executor dask"):
        ExecutorOptions("ray", scheduler="tcp://x:8786")
    with pytest.raises(ExecutorError, match="--ray-address"):
        ExecutorOptions("dask", ray_address="x:6379")


def test_an_unreachable_scheduler_is_a_clear_error() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(ExecutorError, match=r"cannot reach the Dask scheduler tcp://127\.0\.0\.1:9"):
        open_executor(ExecutorOptions("dask", scheduler="tcp://127.0.0.1:9",
                                      connect_timeout=2))


# --- the chunk driver, on threads (the engines above only say where a call runs) -----------


class ThreadExecutor(Executor):
    name = "threads"

    def __init__(self, workers: int = 2) -> None:
        self.workers = workers
        self.pool = ThreadPoolExecutor(workers)

    def submit(self, fn: Any, *args: Any) -> Any:
        return self.pool.submit(fn, *args)

    def close(self) -> None:
        self.pool.shutdown()


class Flaky:
    """Fails the first ``failures`` calls for each chunk, then returns its items."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: dict[tuple[int, ...], int] = {}
        self.lock = threading.Lock()

    def __call__(self, chunk_id: int, items: list[int]) -> Any:
        with self.lock:
            key = tuple(items)
            self.calls[key] = self.calls.get(key, 0) + 1
            if self.calls[key] <= self.failures:
                raise RuntimeError(f"transient failure {self.calls[key]}")
        return type("Outcome", (), {"items": items, "seconds": 0.01})()


def _drive(fn: Any, items: list[int], retries: int) -> tuple[list[int], list[int]]:
    results: list[int] = []
    failed: list[int] = []
    with ThreadExecutor() as executor:
        run_job(run_chunks(executor, fn, items, (), CancelToken(),
                           on_result=lambda chunk, value: results.extend(value.items) or "ok",
                           on_failure=lambda chunk, error: failed.extend(chunk) or "gave up",
                           size_of=lambda item: 1, sizer=ChunkSizer(fixed=3),
                           retries=retries))
    return results, failed


def test_a_failing_chunk_is_retried_and_each_result_handed_over_once() -> None:
    flaky = Flaky(failures=2)
    results, failed = _drive(flaky, list(range(10)), retries=2)
    assert sorted(results) == list(range(10)) and failed == []
    assert set(flaky.calls.values()) == {3}  # two failures, then the answer


def test_a_chunk_that_keeps_failing_is_given_up_not_stored() -> None:
    results, failed = _drive(Flaky(failures=5), list(range(4)), retries=1)
    assert results == [] and sorted(failed) == [0, 1, 2, 3]


def test_chunk_size_follows_the_cost_of_the_texts() -> None:
    sizer = ChunkSizer(target_seconds=1.0, first=2)
    texts: Iterator[str] = iter(["x" * 100] * 50)
    assert len(sizer.take(texts, len)) == 2  # no estimate yet: a small probe
    sizer.observe(200, 0.2)  # 1 ms per character → 1,000 characters per second
    assert len(sizer.take(texts, len)) == 10
    long_texts = iter(["x" * 500] * 10)
    assert len(sizer.take(long_texts, len)) == 2  # longer texts, shorter chunks
    assert len(ChunkSizer(fixed=7).take(iter(range(20)), lambda i: 1)) == 7
