"""Where the chunks of a batch job run: this process, this machine's cores, or a Dask or Ray
cluster (DESIGN §10, docs/cluster.md).

A batch job is a pure function over a chunk of items keyed by content hash (for scoring,
:func:`cluestudio.app.score_chunk.score_chunk_on_worker`, handed here by
:func:`cluestudio.app.scoring.score_on`); this module knows no job and imports none. An
:class:`Executor` runs such calls somewhere and hands the results back; :func:`run_chunks`
keeps a bounded number of chunks in flight, sizes them so each takes about
``target_seconds`` (the measured cost per character of text decides), retries a failed chunk
with back-off, and gives each chunk's result to the caller exactly once. The caller, on the
client, is the workspace's only writer and stores idempotently, so a chunk computed twice (a
worker lost after finishing it) changes nothing. Workers load each model once and keep their
own embedding cache; the client never ships a model, only texts.

- ``local``: in this process (no executor object; :func:`cluestudio.app.scoring.score_items`).
- ``processes``: a pool of spawned processes on this machine; a killed worker breaks the
  pool, which is rebuilt and the chunks it had are sent again.
- ``dask``: ``distributed.Client`` on ``--scheduler ADDRESS``, or a ``LocalCluster`` of
  ``--workers`` processes here; Dask reschedules the tasks of a lost worker.
- ``ray``: ``ray.init(address)`` on ``--ray-address``, or a local Ray; Ray retries the
  tasks of a lost worker.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import Cancelled, CancelToken, Job, Progress

T = TypeVar("T")
EXECUTORS = ("local", "processes", "dask", "ray")
POLL_S = 0.05


class ExecutorError(ClueStudioError):
    """An executor that cannot start (a missing extra, an unreachable scheduler)."""


@dataclass(frozen=True)
class ExecutorOptions:
    kind: str = "local"
    workers: int = 0  # processes / a local cluster: 0 = this machine's cores (at least 2)
    scheduler: str = ""  # dask: a running scheduler, e.g. tcp://10.0.0.5:8786
    ray_address: str = ""  # ray: a running cluster, e.g. 10.0.0.5:6379 or ray://…:10001
    retries: int = 3  # per chunk, for failures other than a lost worker
    target_seconds: float = 5.0  # chunk size is adapted so a chunk takes about this long
    connect_timeout: float = 20.0  # seconds to reach a running scheduler or cluster

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ExecutorError(f"unknown executor {self.kind!r}; use one of "
                                f"{', '.join(EXECUTORS)}")
        if self.scheduler and self.kind != "dask":
            raise ExecutorError("--scheduler is for --executor dask")
        if self.ray_address and self.kind != "ray":
            raise ExecutorError("--ray-address is for --executor ray")
        if self.workers < 0:
            raise ExecutorError("--workers must be 0 (this machine's cores) or more")


def _local_workers(options: ExecutorOptions) -> int:
    return options.workers or max(2, os.cpu_count() or 2)


class Executor:
    """Runs ``fn(*args)`` somewhere; the engines below differ only in how."""

    name = "executor"
    workers = 1

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        raise NotImplementedError

    def done(self, handles: Sequence[Any], timeout: float) -> list[Any]:
        """The handles that finished (waits up to ``timeout`` for at least one)."""
        deadline = time.monotonic() + timeout
        while True:
            finished = [h for h in handles if h.done()]
            if finished or time.monotonic() >= deadline:
                return finished
            time.sleep(POLL_S)

    def result(self, handle: Any) -> Any:
        return handle.result()

    def cancel(self, handle: Any) -> None:
        handle.cancel()

    def lost_worker(self, error: BaseException) -> bool:
        """Whether ``error`` means the worker died (resubmit, not the chunk's fault)."""
        return False

    def recover(self) -> None:
        """Make the executor usable again after a lost worker (processes: a new pool)."""

    def describe(self) -> str:
        return f"{self.name}, {self.workers} workers"

    def close(self) -> None:
        pass

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ProcessesExecutor(Executor):
    """Spawned processes on this machine (``--executor processes``)."""

    name = "processes"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool = self._new_pool()
        self.pids_seen: set[int] = set()

    def _new_pool(self) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self._pool.submit(fn, *args)

    def done(self, handles: Sequence[Any], timeout: float) -> list[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait

        finished, _ = wait(list(handles), timeout=timeout, return_when=FIRST_COMPLETED)
        return list(finished)

    def lost_worker(self, error: BaseException) -> bool:
        from concurrent.futures.process import BrokenProcessPool

        return isinstance(error, BrokenProcessPool)

    def recover(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def worker_pids(self) -> list[int]:
        return list(getattr(self._pool, "_processes", {}) or {})

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """A Dask cluster (``--executor dask [--scheduler ADDRESS]``)."""

    name = "dask"

    def __init__(self, scheduler: str, workers: int, connect_timeout: float = 20.0) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as error:
            raise ExecutorError("--executor dask needs Dask: pip install 'cluestudio[cluster]'"
                                ) from error
        self._cluster: Any = None
        try:
            if scheduler:
                self.client = Client(scheduler, timeout=f"{connect_timeout}s")
            else:
                # Loopback only: a scheduler runs whatever pickle it is sent (docs/security.md).
                self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                             processes=True, dashboard_address=None,
                                             host="127.0.0.1")
                self.client = Client(self._cluster)
        except (OSError, TimeoutError) as error:
            raise ExecutorError(f"cannot reach the Dask scheduler {scheduler or '(local)'}: "
                                f"{error}") from error
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})) or workers)
        self.address = scheduler or self._cluster.scheduler_address

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        # pure=False: a resubmitted chunk is a new task, never a cached old result.
        return self.client.submit(fn, *args, pure=False)

    def worker_pids(self) -> dict[str, int]:
        return dict(self.client.run(os.getpid))

    def describe(self) -> str:
        return f"dask at {self.address}, {self.workers} workers"

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


class RayExecutor(Executor):
    """A Ray cluster (``--executor ray [--ray-address ADDRESS]``)."""

    name = "ray"

    def __init__(self, address: str, workers: int) -> None:
        try:
            import ray
        except ImportError as error:
            raise ExecutorError("--executor ray needs Ray: pip install 'cluestudio[cluster]'"
                                ) from error
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            try:
                ray.init(address=address or None, num_cpus=None if address else workers,
                         include_dashboard=False, log_to_driver=False,
                         runtime_env={"env_vars": _worker_env()} if not address else None)
            except (ConnectionError, RuntimeError, ValueError) as error:
                raise ExecutorError(f"cannot start or reach Ray {address or '(local)'}: "
                                    f"{error}") from error
        self.workers = max(1, int(ray.cluster_resources().get("CPU", workers)))
        self._remote: dict[Callable[..., Any], Any] = {}

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        remote = self._remote.get(fn)
        if remote is None:
            # max_retries: Ray reruns the task of a worker that died.
            remote = self._remote[fn] = self._ray.remote(max_retries=3)(fn)
        return remote.remote(*args)

    def done(self, handles: Sequence[Any], timeout: float) -> list[Any]:
        finished, _ = self._ray.wait(list(handles), num_returns=1, timeout=timeout)
        return list(finished)

    def result(self, handle: Any) -> Any:
        return self._ray.get(handle)

    def cancel(self, handle: Any) -> None:
        self._ray.cancel(handle, force=True)

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()


def _worker_env() -> dict[str, str]:
    """What a local Ray's workers need to import this checkout as the client does."""
    keep = ("PYTHONPATH", "CLUESTUDIO_CACHE_DIR", "CLUESTUDIO_CONFIG_DIR", "HF_HUB_OFFLINE",
            "TRANSFORMERS_OFFLINE")
    return {k: os.environ[k] for k in keep if k in os.environ}


def open_executor(options: ExecutorOptions) -> Executor | None:
    """The executor ``options`` ask for; None for ``local`` (score in this process)."""
    if options.kind == "local":
        return None
    if options.kind == "processes":
        return ProcessesExecutor(_local_workers(options))
    if options.kind == "dask":
        return DaskExecutor(options.scheduler, options.workers or 2, options.connect_timeout)
    return RayExecutor(options.ray_address, _local_workers(options))


# --- chunks ------------------------------------------------------------------------------


class ChunkSizer:
    """Chunk sizes that make each chunk take about ``target_seconds`` on a worker.

    The first chunks are small, so an estimate comes back quickly; after that each chunk is
    filled until its texts' estimated cost (seconds per character, averaged over what came
    back) reaches the target. Long texts therefore make short chunks."""

    def __init__(self, target_seconds: float = 5.0, first: int = 4, largest: int = 500,
                 fixed: int | None = None) -> None:
        self.target_seconds = target_seconds
        self.first, self.largest, self.fixed = first, largest, fixed
        self.seconds_per_char: float | None = None

    def observe(self, chars: int, seconds: float) -> None:
        if chars <= 0 or seconds <= 0:
            return
        rate = seconds / chars
        previous = self.seconds_per_char
        self.seconds_per_char = rate if previous is None else 0.7 * previous + 0.3 * rate

    def take(self, items: Iterator[T], size_of: Callable[[T], int]) -> list[T]:
        """The next chunk from ``items`` (empty when they are used up)."""
        if self.fixed is not None:
            return [item for _, item in zip(range(self.fixed), items, strict=False)]
        if self.seconds_per_char is None:
            return [item for _, item in zip(range(self.first), items, strict=False)]
        budget = self.target_seconds / self.seconds_per_char  # characters per chunk
        chunk: list[T] = []
        used = 0
        for item in items:
            chunk.append(item)
            used += max(1, size_of(item))
            if used >= budget or len(chunk) >= self.largest:
                break
        return chunk


@dataclass
class _Flight:
    chunk_id: int
    items: list[Any]
    chars: int
    attempt: int = 0


def run_chunks(executor: Executor, fn: Callable[..., Any], items: Iterable[T],
               extra: tuple[Any, ...], cancel: CancelToken, *,
               on_result: Callable[[list[T], Any], str],
               on_failure: Callable[[list[T], BaseException], str],
               size_of: Callable[[T], int], sizer: ChunkSizer, retries: int = 3,
               total: int | None = None, in_flight: int | None = None) -> Job[int]:
    """Run ``fn(chunk_id, chunk, *extra)`` for chunks of ``items`` on ``executor``.

    At most ``in_flight`` chunks (default two per worker) are out at once. ``on_result``
    (on this thread) gets each finished chunk once, with ``fn``'s value; a chunk that keeps
    failing after ``retries`` goes to ``on_failure``. A lost worker does not use up a
    retry. Both return a progress line. The value is the number of items done.
    """
    limit = in_flight or 2 * max(1, executor.workers)
    source = iter(items)
    pending: dict[Any, _Flight] = {}
    waiting: list[tuple[float, _Flight]] = []  # failed chunks, to resend after a back-off
    ids = iter(range(1 << 62))
    done = 0
    exhausted = False

    def send(flight: _Flight) -> None:
        pending[executor.submit(fn, flight.chunk_id, flight.items, *extra)] = flight

    try:
        while True:
            cancel.raise_if_cancelled()
            now = time.monotonic()
            for entry in [w for w in waiting if w[0] <= now]:
                waiting.remove(entry)
                send(entry[1])
            while not exhausted and len(pending) + len(waiting) < limit:
                chunk = sizer.take(source, size_of)
                if not chunk:
                    exhausted = True
                    break
                send(_Flight(next(ids), chunk, sum(size_of(i) for i in chunk)))
            if not pending and not waiting:
                return done
            if not pending:
                time.sleep(POLL_S)
                continue
            for handle in executor.done(list(pending), timeout=0.5):
                if handle not in pending:
                    continue  # resent already, with the rest of a broken pool's chunks
                flight = pending.pop(handle)
                try:
                    value = executor.result(handle)
                except Cancelled:
                    raise
                except Exception as error:  # a worker's failure, never the client's
                    message = _failed(executor, flight, error, retries, pending, waiting,
                                      send, on_failure)
                    if message is None:
                        continue
                    done += len(flight.items)
                    yield Progress(done, total, message)
                    continue
                seconds = float(getattr(value, "seconds", 0.0) or 0.0)
                sizer.observe(flight.chars, seconds)
                message = on_result(flight.items, value)
                done += len(flight.items)
                yield Progress(done, total, message)
    finally:
        for handle in pending:
            executor.cancel(handle)


def _failed(executor: Executor, flight: _Flight, error: BaseException, retries: int,
            pending: dict[Any, _Flight], waiting: list[tuple[float, _Flight]],
            send: Callable[[_Flight], None],
            on_failure: Callable[[list[Any], BaseException], str]) -> str | None:
    """Resend a failed chunk (None), or give it up (the progress line)."""
    if executor.lost_worker(error):
        # Every chunk the broken pool had is lost with it: rebuild, resend them all.
        lost = [flight, *pending.values()]
        pending.clear()
        executor.recover()
        for again in lost:
            send(again)
        return None
    if flight.attempt < retries:
        flight.attempt += 1
        waiting.append((time.monotonic() + min(30.0, 0.5 * math.pow(2, flight.attempt)),
                        flight))
        return None
    return on_failure(flight.items, error)
