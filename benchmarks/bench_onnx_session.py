"""Does a saved, pre-optimised ONNX model make the encoder's session start faster? (issue 28)

    .venv/bin/python benchmarks/bench_onnx_session.py [--runs 6]

ONNX Runtime optimises a graph each time a session is made; ``optimized_model_filepath``
can save the result so later sessions load it as is. Interleaved runs: a session from our
export as it is (what ``OnnxEmbedder`` makes) beside one from the saved optimised file,
median CPU and wall seconds. Measured at load 6.8: 0.085 vs 0.080 CPU-s, 0.155 vs 0.137 s:
5 ms of CPU a cold start, so no such cache is kept (docs/adr/0015).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def session_seconds(path: Path, save: Path | None = None) -> tuple[float, float]:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    if save is not None:
        options.optimized_model_filepath = str(save)
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    cpu, wall = time.process_time(), time.perf_counter()
    onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args()
    from cluestudio.core.embed.hf import minilm_path
    from cluestudio.core.embed.ort import exported_model

    export = exported_model(minilm_path())
    with tempfile.TemporaryDirectory() as tmp:
        optimised = Path(tmp) / "optimised.onnx"
        session_seconds(export, save=optimised)
        rows: dict[str, list[tuple[float, float]]] = {"as exported": [], "pre-optimised": []}
        for _ in range(args.runs):
            rows["as exported"].append(session_seconds(export))
            rows["pre-optimised"].append(session_seconds(optimised))
    print(f"ONNX Runtime session start, MiniLM; load average {os.getloadavg()[0]:.1f}")
    for name, samples in rows.items():
        print(f"  {name:<14}: {statistics.median(c for c, _ in samples):.3f} CPU-s, "
              f"{statistics.median(w for _, w in samples):.3f} s median of {args.runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
