"""Thread pools of the numeric libraries, set before they load (no numpy imported here)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnxruntime


def single_threaded_blas() -> None:
    """One OpenBLAS thread for numpy and scipy in this process and the processes it starts
    (executor workers), unless the user chose otherwise. Not for the window's own process,
    which does no large matrix products (in one A/B at load 12 its first paint came ~0.3 s
    later with it); its worker process, where scoring runs, calls this itself
    (app/worker_process.py), as the CLI does for every other command.

    Our matrix products are small (CodeBERTScore's ~300×300 similarities, CLUE's cosines),
    and OpenBLAS's extra threads spin while they wait: on 2 busy cores the sample course's
    66 CodeBERTScore matrices cost 0.24–0.55 CPU-s with them and 0.05 without (issue 28).
    ONNX Runtime keeps its own thread pool. Takes effect only before numpy is imported.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def quiet_session_options(log_level: int = 3) -> onnxruntime.SessionOptions:
    """ONNX Runtime session options whose idle threads sleep instead of spinning for work
    after each run, for every session we open (the encoder's, the OCR models'): on 2 busy
    cores spinning workers doubled the CPU time of every OCR image and starved the matching
    that follows an encoder batch (issue 28). Graph optimisations: all (ONNX Runtime's
    default). ``log_level``: ONNX Runtime's severity below which it says nothing."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = log_level
    return options
