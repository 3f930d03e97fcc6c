"""Jobs for the worker-process tests: they run in a spawned interpreter, so they live in a
module it can import."""

from __future__ import annotations

import os
import time
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress


def count(n: int, step_s: float = 0.0, *, cancel: CancelToken, emit: Any) -> Job[int]:
    total = 0
    for i in range(n):
        cancel.raise_if_cancelled()
        emit("item", i)
        total += i
        time.sleep(step_s)
        yield Progress(i + 1, n, f"item {i}")
    return total


def hang(*, cancel: CancelToken, emit: Any) -> None:
    time.sleep(600)  # ignores cancel: only a kill ends it


def crash(*, cancel: CancelToken, emit: Any) -> None:
    import ctypes

    ctypes.string_at(0)  # a segmentation fault, as a broken native extension would


def exit(*, cancel: CancelToken, emit: Any) -> None:
    os._exit(9)  # a plugin that ends the process without a word


def fail(*, cancel: CancelToken, emit: Any) -> None:
    raise ClueStudioError("sample.puml:2: a clear error")


def blas_threads(*, cancel: CancelToken, emit: Any) -> list[int]:
    """The OpenBLAS thread counts numpy and scipy run with in this process."""
    import numpy  # noqa: F401  (loads OpenBLAS)
    import threadpoolctl

    return sorted({pool["num_threads"] for pool in threadpoolctl.threadpool_info()
                   if pool["internal_api"] == "openblas"})
