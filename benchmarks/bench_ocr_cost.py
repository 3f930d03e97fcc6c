"""CPU seconds of the OCR engine per image, ours beside rapidocr as it comes (issues 28, 29).

    .venv/bin/python benchmarks/bench_ocr_cost.py [--every N] [--folders plantucd ...]

On ``../shared/realimages/`` (``$CLUESTUDIO_REALIMAGES`` elsewhere; exits 0 with a note when
absent: the images are never copied into the project). Each image is read by both engines
in one process, in alternating order, and the process's CPU time (all threads) of each
read is taken: ``plain`` is rapidocr 3.10 as it comes (its own pipeline with OpenCV, its
ONNX Runtime sessions, whose idle threads spin; detection at 3200 px; every script),
``ours`` the engine as ``get_engine`` makes it (the OpenCV-free port, threads that sleep;
detection shrunk to the letters' size; each line recognised from the image itself; Latin
script only). The layout is not included
(``bench_realimages.py`` times OCR and layout together). Also printed: how many lines each
read and how many of the plain engine's lines ours reads with the same text.

``--stages``: our engine alone, and where its CPU goes on each image, the layout
included (where a big render's seconds went, issues 28, 29): the letters' size, the
shrink and other resizes, the detection model, its post-processing, the crops, the
recognition model, the layout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from bench_realimages import KINDS, items, realimages_folder

from cluestudio.core.ocr import onnx_pipeline
from cluestudio.core.ocr.engine import OcrEngine, RapidOcrEngine, get_engine
from cluestudio.core.ocr.image import load_image_file
from cluestudio.core.ocr.layout import find_layout

# onnx_pipeline's own steps, timed where it calls them (its module's names)
STAGES = {"detection_scale": "letters' size", "resize_area": "resizes",
          "resize_linear": "resizes", "detect": "detection post-processing",
          "crop_quad": "crops", "_rec_input": "crops", "ctc_decode": "CTC decoding"}


def _cpu_read(engine: OcrEngine, pixels) -> tuple[float, list[str]]:  # type: ignore[no-untyped-def]
    started = time.process_time()
    lines = engine.read(pixels)
    return time.process_time() - started, [line.text for line in lines]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1, help="every Nth image only")
    parser.add_argument("--folders", nargs="*", default=None)
    parser.add_argument("--stages", action="store_true",
                        help="our engine only: its CPU per stage, the layout included")
    args = parser.parse_args(argv)
    root = realimages_folder()
    if root is None:
        print("no ../shared/realimages/ next to the repository (set CLUESTUDIO_REALIMAGES): "
              "nothing to measure")
        return 0
    if args.stages:
        return _stages(list(items(root, args.folders))[::max(1, args.every)])
    engines = {"plain": RapidOcrEngine(), "ours": get_engine()}
    cpu: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    same = total = 0
    load_before = os.getloadavg()
    for number, item in enumerate(list(items(root, args.folders))[::max(1, args.every)]):
        pixels = load_image_file(item.image).pixels
        order = ("plain", "ours") if number % 2 == 0 else ("ours", "plain")
        texts: dict[str, list[str]] = {}
        for name in order:
            seconds, texts[name] = _cpu_read(engines[name], pixels)
            for group in (item.kind, "all"):
                cpu[group][name].append(seconds)
        ours = list(texts["ours"])
        for text in texts["plain"]:
            total += 1
            if text in ours:
                ours.remove(text)
                same += 1
        print(f"{number + 1} images", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    print(f"{os.cpu_count()} cores; load average {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after")
    print(f"{'CPU s per image':24} {'plain median/max':>18} {'ours median/max':>18} "
          f"{'ours/plain (sum)':>17}")
    for group in (*KINDS, "all"):
        if group not in cpu:
            continue
        plain, ours_cpu = cpu[group]["plain"], cpu[group]["ours"]
        print(f"{group + f' ({len(plain)})':24} "
              f"{statistics.median(plain):8.2f}/{max(plain):<9.2f} "
              f"{statistics.median(ours_cpu):8.2f}/{max(ours_cpu):<9.2f} "
              f"{sum(ours_cpu) / sum(plain):17.2f}")
    print(f"lines of the plain engine that ours reads with the same text: {same}/{total}")
    return 0


class _Timed:
    """Adds the CPU seconds of each call of ``call`` to ``spent[stage]``."""

    def __init__(self, call: Callable[..., Any], stage: str, spent: dict[str, float]) -> None:
        self.call, self.stage, self.spent = call, stage, spent

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return self.call(*args, **kwargs)
        finally:
            self.spent[self.stage] += time.process_time() - started


class _TimedSession:
    def __init__(self, session: Any, stage: str, spent: dict[str, float]) -> None:
        self.session, self.run = session, _Timed(session.run, stage, spent)

    def get_inputs(self) -> Any:
        return self.session.get_inputs()


def _stages(chosen: list[Any]) -> int:
    engine = get_engine()
    if not isinstance(engine, onnx_pipeline.OnnxOcrEngine):
        print("the stages are those of our own pipeline; it is not the engine in use")
        return 0
    spent: dict[str, float] = defaultdict(float)
    for name, stage in STAGES.items():
        setattr(onnx_pipeline, name, _Timed(getattr(onnx_pipeline, name), stage, spent))
    timed: Any = engine  # its sessions replaced by timed ones
    timed._det = _TimedSession(engine._det, "detection model", spent)
    timed._rec = _TimedSession(engine._rec, "recognition model", spent)
    rows: list[tuple[str, int, dict[str, float]]] = []
    load_before = os.getloadavg()
    for number, item in enumerate(chosen):
        pixels = load_image_file(item.image).pixels
        spent.clear()
        started = time.process_time()
        lines = engine.read(pixels)
        spent["OCR, all"] = time.process_time() - started
        started = time.process_time()
        find_layout(pixels, text=[line.box for line in lines])
        spent["layout"] = time.process_time() - started
        rows.append((item.kind, pixels.shape[0] * pixels.shape[1], dict(spent)))
        print(f"{number + 1} images", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    print(f"{os.cpu_count()} cores; load average {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after; CPU s per image, median/max, then the 3 biggest")
    names = ["OCR, all", *dict.fromkeys(STAGES.values()), "detection model",
             "recognition model", "layout"]
    biggest = sorted(rows, key=lambda row: -row[1])[:3]
    for name in names:
        values = [row[2].get(name, 0.0) for row in rows]
        print(f"{name:26} {statistics.median(values):6.2f}/{max(values):<6.2f} "
              + " ".join(f"{row[2].get(name, 0.0):6.2f}" for row in biggest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
