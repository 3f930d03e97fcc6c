"""The OCR models' CPU on another runtime beside ONNX Runtime (issue 28's ≤ 2 s check).

    .venv/bin/python benchmarks/bench_ocr_runtimes.py [--precision f32|bf16] [--rounds 3]

Runs rapidocr's PP-OCRv6 small detector (one 1920×2560 input, about a big render's
detection) and recogniser (four batches of six lines, 48 px high, 320–800 px wide) on
ONNX Runtime as our engine opens them (``tuning.quiet_session``) and on OpenVINO's CPU
plugin, alternating, and prints each one's process CPU seconds per round and the largest
difference of their outputs. Inputs are random (the arithmetic does not depend on the
pixels). OpenVINO is no dependency of the project: install it into a scratch folder and put
that on ``PYTHONPATH`` (``pip install --target /tmp/ov openvino``); without it, or without
the models (the ``ocr`` extra), this exits 0 with a note. Figures:
``benchmarks/ocr_engines_figures.md``, "Another runtime".
"""

from __future__ import annotations

import argparse
import resource
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _models() -> Path | None:
    try:
        import rapidocr
    except ImportError:
        return None
    return Path(rapidocr.__file__).parent / "models"


def _onnxruntime_run(session: Any) -> Callable[[Any], Any]:
    name = session.get_inputs()[0].name
    return lambda x: session.run(None, {name: x})[0]


def _openvino_run(compiled: Any) -> Callable[[Any], Any]:
    return lambda x: compiled([x])[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", default="f32", choices=("f32", "bf16"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    models = _models()
    try:
        import openvino
    except ImportError:
        print("openvino is not installed (pip install --target DIR openvino; "
              "PYTHONPATH=DIR): nothing measured")
        return 0
    if models is None:
        print("the ocr extra (rapidocr's models) is not installed: nothing measured")
        return 0
    import numpy as np

    from cluestudio.core.ocr.tuning import quiet_session

    rng = np.random.default_rng(0)
    inputs = {"det": [rng.random((1, 3, 1920, 2560), dtype=np.float32) * 2 - 1],
              "rec": [rng.random((6, 3, 48, w), dtype=np.float32) * 2 - 1
                      for w in (320, 480, 640, 800)]}
    core = openvino.Core()
    config = {"INFERENCE_PRECISION_HINT": args.precision, "PERFORMANCE_HINT": "LATENCY"}
    for kind, batch in inputs.items():
        model = next(models.glob(f"*_{kind}_*.onnx"))
        session = quiet_session(model)
        compiled = core.compile_model(core.read_model(str(model)), "CPU", config)
        runs = {"onnxruntime": _onnxruntime_run(session),
                f"openvino {args.precision}": _openvino_run(compiled)}
        seconds: dict[str, list[float]] = {label: [] for label in runs}
        last: dict[str, np.ndarray] = {}
        for round_ in range(args.rounds + 1):  # the first round warms both up
            for label, run in runs.items():
                started = _cpu()
                for x in batch:
                    last[label] = run(x)
                if round_:
                    seconds[label].append(_cpu() - started)
        a, b = last.values()
        print(f"{kind}: " + ", ".join(f"{label} {min(s):.2f}–{max(s):.2f} CPU-s"
                                      for label, s in seconds.items())
              + f"; largest output difference {float(np.abs(a - b).max()):.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
