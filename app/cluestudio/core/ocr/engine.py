"""The OCR engine: the PP-OCR detection and recognition models of the ``rapidocr`` wheel.

Why these models (docs/adr/0009-offline-ocr.md): the wheel carries PP-OCRv6, so nothing is
downloaded, and they run on ONNX Runtime on any CPU. By default our own port of rapidocr's
pipeline runs them (``onnx_pipeline``: no OpenCV, issue 28; detection at the letters' size,
recognition at full resolution, Latin script only, issue 29). ``CLUESTUDIO_OCR_PIPELINE=
rapidocr`` runs rapidocr as it comes instead (it needs OpenCV), to compare against. The
API-compatible ``rapidocrlite`` distribution (same import name, its own native runtime and
small models) is run by itself when it is the one installed. Imported on first use only.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.ocr.result import Box, TextLine
from cluestudio.core.ocr.tuning import LANGUAGE_LETTERS as LANGUAGE_LETTERS
from cluestudio.core.ocr.tuning import MAX_SIDE
from cluestudio.core.ocr.tuning import detection_scale as detection_scale
from cluestudio.core.ocr.tuning import letter_height as letter_height

if TYPE_CHECKING:
    import numpy as np

# Bump when our use of the engine changes what it reads (settings, preprocessing) or when
# core/ocr/layout.py changes the class boxes it finds: the cache keeps both under this id
# (OcrResult.layout), so cached results from the old way are not reused.
PREPARATION_VERSION = "8"  # 2: the layout also looks with thicker strokes (issue 29)
# 3: detection at the letters' size, recognition of full-resolution crops, Latin script only
# 4: detection at letters 8 px high instead of 10 (issues 28, 29: big renders' CPU), and the
#    layout's package tab over a narrow frame (draft round 4)
# 5: the letters' size told from 10 letter-shaped blobs instead of 30, and from blobs up to
#    400 px high instead of 120, so a whiteboard photo of a few big names is detected at its
#    letters' size (issue 29: a 48 MP photo's CPU)
# 6: the layout also finds boxes by steps in brightness where ink found none: dark or
#    gradient fills with light text, faint borders on grey (issue 29: random skins' themes)
# 7: where the ink is areas (a dark fill, the fill round light letters) the layout takes the
#    steps in brightness there; a render's faint steps (8 grey levels) show boxes, taken
#    where the ink found none or pieces of them, ungated; a header cut by its icon is made
#    whole; boxes of one width one over the other stack only across a rule, not paper
# 8: a photo taken from the side is seen square-on before OCR (ocr.photo: its perspective
#    measured on its strokes and taken out; then ruled or squared paper's rules wiped),
#    issue 29's photo proxy
INSTALL_HINT = ("pip install 'cluestudio[ocr]' && pip install --no-deps rapidocr==3.10.0 "
                "(its PP-OCR models; 'cluestudio[ocr,ocr-opencv]' brings its OpenCV too)")
# The models run by our own OpenCV-free port of rapidocr's pipeline (core/ocr/onnx_pipeline.py,
# issue 28) unless this is set to "rapidocr" (its own pipeline as it comes, which needs OpenCV).
PIPELINE_ENV = "CLUESTUDIO_OCR_PIPELINE"


class OcrUnavailable(ClueStudioError):
    """No OCR engine is installed (it is an optional extra)."""


class OcrEngine(Protocol):
    """Reads lines of text from an RGB image (H×W×3 uint8). Safe to call from threads."""

    @property
    def engine_id(self) -> str: ...

    def read(self, pixels: np.ndarray) -> list[TextLine]: ...


def _rapidocr_folder() -> Path | None:
    try:
        spec = importlib.util.find_spec("rapidocr")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _is_lite(folder: Path) -> bool:
    return (folder / "models" / "lite" / "det.onnx").is_file()


def ocr_available() -> bool:
    """Whether :func:`get_engine` can work (checked without importing the engine)."""
    folder = _rapidocr_folder()
    if folder is None:
        return False
    return _is_lite(folder) or importlib.util.find_spec("onnxruntime") is not None


def _distribution_version(lite: bool) -> str:
    for name in (("rapidocrlite", "rapidocr") if lite else ("rapidocr", "rapidocrlite")):
        try:
            return f"{name}-{importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return "rapidocr-unknown"


def _own_pipeline(lite: bool) -> bool:
    return not lite and os.environ.get(PIPELINE_ENV, "").strip().lower() != "rapidocr"


def installed_engine_id() -> str | None:
    """The id the engine of :func:`get_engine` will have, known without loading it (None:
    no OCR installed), so a batch can tell what is already done before paying for the models."""
    folder = _rapidocr_folder()
    if folder is None:
        return None
    return _engine_id(folder, own=_own_pipeline(_is_lite(folder)))


def _engine_id(folder: Path, *, own: bool) -> str:
    # "ppocr-nocv": our port (with issue 29's changes); "ppocr/.../plain": rapidocr as it
    # comes. The two read a little differently, so their reads are cached apart.
    lite = _is_lite(folder)
    kind = "lite" if lite else "ppocr-nocv" if own else "ppocr"
    plain = "" if lite or own else "/plain"
    return f"{_distribution_version(lite)}/{kind}/prep{PREPARATION_VERSION}{plain}"


# Said wherever the language is set (``check --help``, the settings dialog); the test of the
# recogniser's alphabet holds the engine to it.
READS_NOTE = ("OCR reads Latin script with the letters of English, German (ä ö ü ß), "
              "French and Spanish (é à ç ñ ...): the PP-OCRv6 recogniser of the ocr extra, "
              "limited to Latin letters; other scripts (Cyrillic, Greek, CJK) are not read. "
              "No per-language recogniser ships, so the language setting does not change "
              "what OCR reads: it tells the check which language image A's names are in.")


class RapidOcrEngine:
    """rapidocr as it comes, with our settings only (no angle classifier: diagram text is
    upright; detection at :data:`MAX_SIDE`): its sessions, whose idle threads spin, every
    script. The comparison for the default engine (``benchmarks/bench_ocr_cost.py``, the
    port's test), and the engine of ``rapidocrlite``."""

    def __init__(self) -> None:
        folder = _rapidocr_folder()
        if folder is None:
            raise OcrUnavailable(f"OCR is not installed: {INSTALL_HINT}")
        self.lite = _is_lite(folder)
        if not self.lite and importlib.util.find_spec("onnxruntime") is None:
            raise OcrUnavailable(f"OCR needs onnxruntime: {INSTALL_HINT}")
        params: dict[str, Any] = {
            "Global.log_level": "error", "Global.use_cls": False,
            "Global.max_side_len": MAX_SIDE,
        }
        if self.lite:
            params.update({"Det.model_type": "lite", "Rec.model_type": "lite"})
        try:
            from rapidocr import RapidOCR

            self._ocr = RapidOCR(params=params)
        except Exception as error:  # a broken install must say so, not crash the caller
            raise OcrUnavailable(f"the OCR engine failed to start ({error}); "
                                 f"reinstall it: {INSTALL_HINT}") from error
        self._id = _engine_id(folder, own=False)
        self._lock = threading.Lock()

    @property
    def engine_id(self) -> str:
        return self._id

    def read(self, pixels: np.ndarray) -> list[TextLine]:
        import numpy as np

        # rapidocr takes arrays in OpenCV's channel order (BGR).
        image = np.ascontiguousarray(pixels[:, :, ::-1])
        with self._lock:  # one ONNX session pair; the runtime already uses every core
            output = self._ocr(image, use_det=True, use_cls=False, use_rec=True)
        boxes = getattr(output, "boxes", None)
        found: Any = () if boxes is None else zip(
            boxes, getattr(output, "txts", None) or (),
            getattr(output, "scores", None) or (), strict=False)
        lines = []
        for quad, text, score in found:
            # rounded as the cache stores them, so a cached read equals a fresh one
            points = tuple((round(float(x), 1), round(float(y), 1))
                           for x, y in np.asarray(quad)[:4])
            if len(points) == 4 and str(text).strip():
                lines.append(TextLine(str(text), Box(points),  # type: ignore[arg-type]
                                      round(float(score), 4)))
        return lines


_engine: OcrEngine | None = None
_engine_lock = threading.Lock()


def get_engine() -> OcrEngine:
    """The shared engine, started on first use (model loading takes about a second)."""
    global _engine
    with _engine_lock:
        if _engine is None:
            folder = _rapidocr_folder()
            if folder is not None and _own_pipeline(_is_lite(folder)):
                _engine = _start_own_pipeline(folder)
            else:
                _engine = RapidOcrEngine()
        return _engine


def _start_own_pipeline(folder: Path) -> OcrEngine:
    if importlib.util.find_spec("onnxruntime") is None:
        raise OcrUnavailable(f"OCR needs onnxruntime: {INSTALL_HINT}")
    try:
        from cluestudio.core.ocr.onnx_pipeline import OnnxOcrEngine

        return OnnxOcrEngine(installed_engine_id() or "rapidocr-unknown", MAX_SIDE, folder)
    except Exception as error:  # a broken install must say so, not crash the caller
        raise OcrUnavailable(f"the OCR engine failed to start ({error}); "
                             f"reinstall it: {INSTALL_HINT}") from error
