"""What our engine changes about running PP-OCR (issues 28, 29), as pure functions the
OpenCV-free pipeline (``onnx_pipeline``) uses: how far to shrink an image for detection
(from the size of its letters), which letters the recogniser may write (Latin script), and
ONNX Runtime sessions whose idle threads sleep. numpy and scipy only: no OpenCV."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnxruntime

# Detection looks at most at this side; PlantUML text is ~11 px high, so a big diagram
# shrunk to rapidocr's default 2000 px loses its smallest labels.
MAX_SIDE = 3200
# Detection needs letters about this high (the typical letter's ink, in pixels); a drawing
# with bigger letters is shrunk to that before detection, which costs in proportion to its
# pixels. Recognition still reads each found line at the image's own resolution. 8 px
# (preparation 4; 10 before): on the 56 real images every draft and check figure the same
# to two decimals, ~0.64x the detection pixels where letters are bigger (bench_realimages).
DETECT_LETTER_HEIGHT = 8
# PP-OCR's detector enlarges an image whose short side is below this (its limit_side_len):
# shrinking under it would only be undone at a higher cost.
DETECT_MIN_SIDE = 736
# The fewest letter-shaped ink blobs from which to tell the letters' size (30 before
# preparation 5): a whiteboard photo of a few class names has a dozen, big ones, and was
# detected at 3200 px, ~3 s CPU of a 5 s draft (issue 29); fewer than this and the size
# is not told (the image is not shrunk for its letters).
MIN_LETTERS = 10
# The tallest ink blob taken for a letter (120 px before preparation 5): a phone photo of
# a whiteboard, even decoded reduced, has marker letters 100–200 px high; not told, it was
# detected at 3200 px (~3 s CPU), where the detector misses letters that big (issue 29).
MAX_LETTER_HEIGHT = 400


# Whole-image passes over a multi-megapixel image go by bands of about this many pixels:
# a histogram or a count over the whole image at once first widens it to 64-bit integers,
# a temporary of 8 bytes a pixel (~130 MB for 16 Mpx) that the kernel must map and zero
# on every image (~0.3 s of system CPU, measured); band by band the counts are the same.
BAND_PIXELS = 1 << 18


def _band_rows(width: int) -> int:
    return max(1, BAND_PIXELS // max(1, width))


def _otsu(counts: np.ndarray) -> int:
    """Otsu's threshold of an 8-bit image, from the count of each of its 256 grey levels,
    as OpenCV picks it (the first grey level with the largest between-class variance; the
    ink is at or below it)."""
    p = counts.astype(np.float64) / max(1.0, float(counts.sum()))
    q1 = np.cumsum(p)
    m1 = np.cumsum(np.arange(256) * p)
    q2 = 1.0 - q1
    eps = float(np.finfo(np.float32).eps)
    valid = (np.minimum(q1, q2) >= eps) & (np.maximum(q1, q2) <= 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = q1 * q2 * (m1 / q1 - (m1[-1] - m1) / q2) ** 2
    sigma = np.where(valid, sigma, 0.0)
    return int(np.argmax(sigma)) if sigma.max() > 0 else 0


def _gray_and_histogram(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's RGB→grey (fixed point) of ``pixels`` and the count of each grey level, by
    bands of rows: small temporaries."""
    height, width = pixels.shape[:2]
    gray = np.empty((height, width), np.uint8)
    counts = np.zeros(256, np.int64)
    rows = _band_rows(width)
    for start in range(0, len(gray), rows):
        red, green, blue = (pixels[start:start + rows, :, i] for i in range(3))
        band = gray[start:start + rows]
        band[...] = (red * np.uint32(4899) + green * np.uint32(9617)
                     + blue * np.uint32(1868) + 8192) // 16384
        counts += np.bincount(band.ravel(), minlength=256)
    return gray, counts


def _label_sizes(labels: np.ndarray, count: int) -> np.ndarray:
    """How many pixels carry each label 1..``count`` (by bands of rows, see BAND_PIXELS;
    bands of at least 8 pixels a label, so that the counts added up stay few)."""
    sizes = np.zeros(count + 1, np.int64)
    rows = max(1, max(BAND_PIXELS, 8 * count) // max(1, labels.shape[1]))
    for start in range(0, len(labels), rows):
        sizes += np.bincount(labels[start:start + rows].ravel(), minlength=count + 1)
    return sizes[1:]


def letter_height(pixels: np.ndarray) -> float | None:
    """The height in pixels of the image's typical letter (the lower quartile of letter-
    shaped ink blobs, so that big titles do not hide small labels), or None when too few
    blobs look like letters to say."""
    from scipy import ndimage

    gray, counts = _gray_and_histogram(pixels)
    labels, count = ndimage.label(gray <= _otsu(counts), structure=np.ones((3, 3), bool))
    if count < MIN_LETTERS:
        return None
    windows = ndimage.find_objects(labels)
    height = np.array([w[0].stop - w[0].start for w in windows])
    width = np.array([w[1].stop - w[1].start for w in windows])
    area = _label_sizes(labels, count)
    letters = ((height >= 4) & (height <= MAX_LETTER_HEIGHT) & (width <= 1.5 * height)
               & (width >= 0.15 * height) & (area >= 0.15 * width * height))
    if int(letters.sum()) < MIN_LETTERS:
        return None
    return float(np.percentile(height[letters], 25))


def detection_scale(pixels: np.ndarray, max_side: int = MAX_SIDE) -> float:
    """By how much to shrink ``pixels`` before text detection (≤ 1): to ``max_side``, and
    further while its letters stay :data:`DETECT_LETTER_HEIGHT` high, but not below the
    short side at which the detector would enlarge it again."""
    h, w = pixels.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    letters = letter_height(pixels)
    if letters:
        floor = min(1.0, DETECT_MIN_SIDE / min(h, w))
        scale = min(scale, max(DETECT_LETTER_HEIGHT / letters, floor))
    return scale


# What the recogniser may write: its dictionary (PP-OCRv6's) holds Chinese and Japanese as
# well as Latin letters, and on a diagram a smudge read as "壬" is never right. Letters of
# other scripts are left out of its choice; digits, punctuation and symbols stay.
def latin_script(character: str) -> bool:
    if len(character) != 1:
        return False
    if unicodedata.category(character).startswith("L"):
        return unicodedata.name(character, "").startswith("LATIN")
    return ord(character) < 0x2E80  # CJK punctuation, full-width forms and beyond: no


def non_latin(characters: list[str]) -> np.ndarray:
    """Which of the CTC classes ``characters`` are letters of other scripts (a position
    whose best guess was one gets its best Latin one, at that one's lower confidence, so
    the check sees the doubt). Index 0 is CTC's blank, the last the space: both allowed."""
    return np.array([0 < i < len(characters) - 1 and not latin_script(c)
                     for i, c in enumerate(characters)], bool)


# The languages the ``[ocr] language`` setting offers and the letters each writes beyond
# ASCII: the recogniser reads a language when its dictionary has all of them.
LANGUAGE_LETTERS = {"en": "", "de": "äöüßÄÖÜ", "fr": "àâæçéèêëîïôœùûüÿÀÂÇÉÈÊËÎÏÔŒÙÛÜ",
                    "es": "áéíóúüñÁÉÍÓÚÜÑ"}


def quiet_session(model: Path) -> onnxruntime.InferenceSession:
    """An ONNX Runtime session whose idle threads sleep: by default they spin, waiting for
    work, and on 2 busy cores that doubled the CPU time of every image (measured). The
    other options are those rapidocr's OrtInferSession sets, but for its memory arena
    (:func:`released_run`); threads: all cores."""
    import onnxruntime as ort

    from cluestudio.core.threads import quiet_session_options

    return ort.InferenceSession(str(model), quiet_session_options(log_level=4),
                                providers=["CPUExecutionProvider"])


def released_run() -> onnxruntime.RunOptions:
    """Run options that hand the memory arena's blocks back when a run ends. rapidocr turns
    the arena off instead, so each tensor of a run is a fresh allocation the kernel must
    map and zero: on a 3200×2464 render's detection 1.75 million page faults, 3 s of system
    CPU beside 2 s of arithmetic (0.5 s with the arena, measured). Shrunk after each run,
    the arena holds nothing between images."""
    import onnxruntime as ort

    options = ort.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options
