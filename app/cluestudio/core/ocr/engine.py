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
PREPARATION_VERSION = "3"  # 2: the layout also looks with thicker strokes (issue 29)
# 3: detection at the letters' size, recognition of full-resolution crops, Latin script only
# Detection looks at most at this side; PlantUML text is ~11 px high, so a big diagram
# shrunk to rapidocr's default 2000 px loses its smallest labels.
MAX_SIDE = 3200
# Detection needs letters about this high (the typical letter's ink, in pixels); a drawing
# with bigger letters is shrunk to that before detection, which costs in proportion to its
# pixels. Recognition still reads each found line at the image's own resolution.
DETECT_LETTER_HEIGHT = 10
# PP-OCR's detector enlarges an image whose short side is below this (its limit_side_len):
# shrinking under it would only be undone at a higher cost.
DETECT_MIN_SIDE = 736
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


def letter_height(pixels: np.ndarray) -> float | None:
    """The height in pixels of the image's typical letter (the lower quartile of letter-
    shaped ink blobs, so that big titles do not hide small labels), or None when too few
    blobs look like letters to say."""
    import cv2
    import numpy as np

    gray = cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2GRAY)
    _, ink = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    width, height, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    letters = ((height >= 4) & (height <= 120) & (width <= 1.5 * height)
               & (width >= 0.15 * height) & (area >= 0.15 * width * height))
    if int(letters.sum()) < 30:
        return None
    return float(np.percentile(height[letters], 25))


def detection_scale(pixels: np.ndarray) -> float:
    """By how much to shrink ``pixels`` before text detection (≤ 1): to :data:`MAX_SIDE`,
    and further while its letters stay :data:`DETECT_LETTER_HEIGHT` high, but not below the
    short side at which the detector would enlarge it again."""
    h, w = pixels.shape[:2]
    scale = min(1.0, MAX_SIDE / max(h, w))
    letters = letter_height(pixels)
    if letters:
        floor = min(1.0, DETECT_MIN_SIDE / min(h, w))
        scale = min(scale, max(DETECT_LETTER_HEIGHT / letters, floor))
    return scale


# What the recogniser may write: its dictionary (PP-OCRv6's) holds Chinese and Japanese as
# well as Latin letters, and on a diagram a smudge read as "壬" is never right. Letters of
# other scripts are left out of its choice; digits, punctuation and symbols stay.
def latin_script(character: str) -> bool:
    import unicodedata

    if len(character) != 1:
        return False
    if unicodedata.category(character).startswith("L"):
        return unicodedata.name(character, "").startswith("LATIN")
    return ord(character) < 0x2E80  # CJK punctuation, full-width forms and beyond: no


# The languages the ``[ocr] language`` setting offers and the letters each writes beyond
# ASCII: the recogniser reads a language when its dictionary has all of them.
LANGUAGE_LETTERS = {"en": "", "de": "äöüßÄÖÜ", "fr": "àâæçéèêëîïôœùûüÿÀÂÇÉÈÊËÎÏÔŒÙÛÜ",
                    "es": "áéíóúüñÁÉÍÓÚÜÑ"}


# Said wherever the language is set (``check --help``, the settings dialog); the test of the
# recogniser's alphabet holds the engine to it.
READS_NOTE = ("OCR reads Latin script with the letters of English, German (ä ö ü ß), "
              "French and Spanish (é à ç ñ ...): the PP-OCRv6 recogniser of the ocr extra, "
              "limited to Latin letters; other scripts (Cyrillic, Greek, CJK) are not read. "
              "No per-language recogniser ships, so the language setting does not change "
              "what OCR reads: it tells the check which language image A's names are in.")


class _LatinOnly:
    """rapidocr's CTC decoder with the letters of other scripts taken out of each choice (a
    position whose best guess was such a letter gets its best Latin one, at that one's
    lower confidence, so the check sees the doubt)."""

    def __init__(self, decoder: Any) -> None:
        import numpy as np

        self._decoder = decoder
        self.character = decoder.character
        # index 0 is CTC's blank, the last the space rapidocr adds: both always allowed
        self.banned = np.array([0 < i < len(self.character) - 1
                                and not latin_script(c)
                                for i, c in enumerate(self.character)])

    def __call__(self, preds: Any, *args: Any, **kwargs: Any) -> Any:
        preds[:, :, self.banned] = 0.0
        return self._decoder(preds, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._decoder, name)


def _quiet_session(model: Path) -> Any:
    """An ONNX Runtime session whose idle threads sleep: by default they spin, waiting for
    work, and on 2 busy cores that doubled the CPU time of every image (measured)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.enable_cpu_mem_arena = False  # as rapidocr sets it
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


DET_MODEL = "PP-OCRv6_det_small.onnx"
REC_MODEL = "PP-OCRv6_rec_small.onnx"


class RapidOcrEngine:
    """rapidocr with our settings: no angle classifier (diagram text is upright; a photo's
    small tilt is handled by the detector's rotated boxes); detection on a copy shrunk to
    the letters' size, recognition of each found line cut from the image itself; Latin
    script only."""

    def __init__(self, *, plain: bool = False) -> None:
        """``plain``: rapidocr as it comes (its own sessions, whose threads spin while they
        wait, detection at :data:`MAX_SIDE`, every script): the engine before issue 29's
        cost work, kept for ``benchmarks/bench_ocr_cost.py`` to compare against."""
        folder = _rapidocr_folder()
        if folder is None:
            raise OcrUnavailable(f"OCR is not installed: {INSTALL_HINT}")
        self.lite = _is_lite(folder)
        self.plain = plain or self.lite  # the lite models come with their own runtime
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
            if not self.plain:
                self._load_models(folder / "models")
        except ClueStudioError:
            raise
        except Exception as error:  # a broken install must say so, not crash the caller
            raise OcrUnavailable(f"the OCR engine failed to start ({error}); "
                                 f"reinstall it: {INSTALL_HINT}") from error
        self._id = (installed_engine_id() or "rapidocr-unknown") + (
            "/plain" if plain and not self.lite else "")
        self._lock = threading.Lock()

    def _load_models(self, models: Path) -> None:
        """Both models now, in sessions of our own (rapidocr takes a ready session when its
        configuration allows objects), and the recogniser's decoder limited to Latin."""
        config = self._ocr.cfg
        config._set_flag("allow_objects", True)
        for section, name in (("Det", DET_MODEL), ("Rec", REC_MODEL)):
            if (models / name).is_file():
                config[section].session = _quiet_session(models / name)
        self._ocr._load_det_model()
        recogniser = self._ocr._load_rec_model()
        recogniser.postprocess_op = _LatinOnly(recogniser.postprocess_op)

    @property
    def engine_id(self) -> str:
        return self._id

    @property
    def alphabet(self) -> frozenset[str]:
        """The characters the recogniser can write (empty when the engine does not say)."""
        recogniser = getattr(self._ocr, "text_rec", None)
        decoder = getattr(recogniser, "postprocess_op", None)
        if not isinstance(decoder, _LatinOnly):
            return frozenset()
        return frozenset(c for c, banned in zip(decoder.character, decoder.banned,
                                                strict=True) if not banned and len(c) == 1)

    def languages(self) -> list[str]:
        """The setting's languages whose letters the recogniser writes."""
        alphabet = self.alphabet
        return [code for code, letters in LANGUAGE_LETTERS.items()
                if alphabet and set(letters) <= alphabet]

    def read(self, pixels: np.ndarray) -> list[TextLine]:
        import numpy as np

        # rapidocr takes arrays in OpenCV's channel order (BGR).
        image = np.ascontiguousarray(pixels[:, :, ::-1])
        scale = 1.0 if self.plain else detection_scale(pixels)
        with self._lock:  # one ONNX session pair; the runtime already uses every core
            if self.plain:
                output = self._ocr(image, use_det=True, use_cls=False, use_rec=True)
                boxes = getattr(output, "boxes", None)
                found: Any = () if boxes is None else zip(
                    boxes, getattr(output, "txts", None) or (),
                    getattr(output, "scores", None) or (), strict=False)
            else:
                found = self._detect_and_recognise(image, scale)
        lines = []
        for quad, text, score in found:
            # rounded as the cache stores them, so a cached read equals a fresh one
            points = tuple((round(float(x), 1), round(float(y), 1))
                           for x, y in np.asarray(quad)[:4])
            if len(points) == 4 and str(text).strip():
                lines.append(TextLine(str(text), Box(points),  # type: ignore[arg-type]
                                      round(float(score), 4)))
        return lines

    def _detect_and_recognise(self, image: np.ndarray, scale: float
                              ) -> list[tuple[Any, str, float]]:
        """Lines of text: boxes found on a copy shrunk by ``scale``, each read from
        ``image`` itself."""
        import cv2
        import numpy as np
        from rapidocr.ch_ppocr_rec import TextRecInput
        from rapidocr.utils.process_img import get_rotate_crop_image

        small = image
        if scale < 0.95:
            h, w = image.shape[:2]
            small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                               interpolation=cv2.INTER_AREA)
        else:
            scale = 1.0
        detected = self._ocr(small, use_det=True, use_cls=False, use_rec=False)
        boxes = getattr(detected, "boxes", None)
        if boxes is None or not len(boxes):
            return []
        quads = np.asarray(boxes, dtype=np.float32) / np.float32(scale)
        crops = [get_rotate_crop_image(image, quad.copy()) for quad in quads]
        kept = [i for i, crop in enumerate(crops) if crop.size]
        if not kept:
            return []
        # all lines in one call, as rapidocr batches them (sorted by width, six at a
        # time): a line is read the same as in rapidocr's own pipeline
        read = self._ocr._load_rec_model()(TextRecInput(img=[crops[i] for i in kept]))
        threshold = float(self._ocr.text_score)
        found = []
        for i, text, score in zip(kept, read.txts or (), read.scores or (), strict=False):
            if float(score) >= threshold:
                found.append((quads[i], str(text), float(score)))
        return found


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
