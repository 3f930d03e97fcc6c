"""The OCR engine: PP-OCR detection and recognition models run by the ``rapidocr`` package.

Why this engine (docs/adr/0009-offline-ocr.md): its wheel carries the PP-OCRv6 models, so
nothing is downloaded; it runs on ONNX Runtime on any CPU; and it needs the *headless*
OpenCV build, so servers without libGL can run it. The API-compatible ``rapidocrlite``
distribution (same import name, its own native runtime and small models) is used the same
way when it is the one installed. Either is imported on first use only.
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

if TYPE_CHECKING:
    import numpy as np

# Bump when our use of the engine changes what it reads (settings, preprocessing), so
# cached results from the old way are not reused.
PREPARATION_VERSION = "2"  # 2: the layout also looks with thicker strokes (issue 29)
# rapidocr shrinks larger images to this side first; PlantUML text is ~11 px high, so a
# big diagram shrunk to the default 2000 px loses its smallest labels.
MAX_SIDE = 3200
INSTALL_HINT = ("pip install 'cluestudio[ocr]' && pip install --no-deps rapidocr==3.10.0 "
                "(its PP-OCR models; 'cluestudio[ocr,ocr-opencv]' brings its OpenCV too)")
# The models run by our own OpenCV-free port of rapidocr's pipeline (core/ocr/onnx_pipeline.py,
# issue 28) unless this is set to "rapidocr" (its own pipeline, which needs OpenCV).
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
    """The id :class:`RapidOcrEngine` will have, known without loading it (None: no OCR
    installed), so a batch can tell what is already done before paying for the models."""
    folder = _rapidocr_folder()
    if folder is None:
        return None
    lite = _is_lite(folder)
    # "ppocr-nocv": the same models read by our port, cached apart from rapidocr's own reads
    kind = "lite" if lite else "ppocr-nocv" if _own_pipeline(lite) else "ppocr"
    return f"{_distribution_version(lite)}/{kind}/prep{PREPARATION_VERSION}"


class RapidOcrEngine:
    """rapidocr with our settings: no angle classifier (diagram text is upright; a photo's
    small tilt is handled by the detector's rotated boxes), a larger size limit."""

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
        except ClueStudioError:
            raise
        except Exception as error:  # a broken install must say so, not crash the caller
            raise OcrUnavailable(f"the OCR engine failed to start ({error}); "
                                 f"reinstall it: {INSTALL_HINT}") from error
        self._id = installed_engine_id() or "rapidocr-unknown"
        self._lock = threading.Lock()

    @property
    def engine_id(self) -> str:
        return self._id

    def read(self, pixels: np.ndarray) -> list[TextLine]:
        import numpy as np

        # rapidocr takes arrays in OpenCV's channel order (BGR).
        image = np.ascontiguousarray(pixels[:, :, ::-1])
        with self._lock:  # one ONNX session pair; the runtime already uses every core
            output = self._ocr(image)
        boxes = getattr(output, "boxes", None)
        texts = getattr(output, "txts", None) or ()
        scores = getattr(output, "scores", None) or ()
        if boxes is None:
            return []
        lines = []
        for quad, text, score in zip(boxes, texts, scores, strict=False):
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
