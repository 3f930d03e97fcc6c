"""How big an image's own text is, so that a pane opens it at a zoom that shows the diagram
(issue 29): PlantUML's 14 px text is readable at 85 %, but a whiteboard photo's marker
letters are 10–40 times bigger, and at 85 % the pane showed a patch of blank board.

Two cheap measures of a copy at most :data:`MEASURE_SIDE` wide, on the GUI thread (a few
ms CPU on the real images; a 3554×4634 render 0.06 s, half of what decoding it took): the
OCR's letter-size estimate (:func:`cluestudio.core.ocr.tuning.letter_height`), and whether
the background is flat, as in a rendering or an export, or not, as in a photo, where that
estimate counts grain and ghost writing as letters and cannot be trusted: a photo opens
whole.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from cluestudio.gui.qt import QImage, Qt

# What letter_height reads on PlantUML's 14 px text (8 px on each of the real images'
# 20 PlantUML renders): the letter size READABLE_ZOOM was chosen for.
PLANTUML_LETTER = 8.0
# Images are measured at most this wide: enough for PlantUML's letters to stay over the
# 4 px letter_height needs on a 3200 px render, and a camera's 12 MP costs ~4 times less.
MEASURE_SIDE = 2000
# A rendering or an export paints most of its page one colour; a photo's board or paper
# shades from pixel to pixel (on the 56 real images: renders, exports and screenshots
# 0.38 or more, the whiteboard photos 0.01).
FLAT_SHARE = 0.3
_CACHE: OrderedDict[int, float | None] = OrderedDict()  # QImage.cacheKey → text scale


def text_scale(image: QImage) -> float | None:
    """How many times bigger than PlantUML's the image's letters are (≥ 1: smaller ones,
    which on a photo are its grain, do not raise the zoom), or None for a photo, whose
    letters cannot be told: it is best shown whole. Cached per image."""
    key = int(image.cacheKey())
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    scale = _measure(image)
    _CACHE[key] = scale
    while len(_CACHE) > 16:
        _CACHE.popitem(last=False)
    return scale


def _measure(image: QImage) -> float | None:
    from cluestudio.core.ocr.tuning import letter_height

    factor = max(image.width(), image.height()) / MEASURE_SIDE
    if factor > 1:
        # Nearest pixels: smoothing greys the strokes, and Otsu's threshold then cut
        # the letters into small pieces (a 200 px font read as 28 px, 46 full size).
        image = image.scaled(round(image.width() / factor), round(image.height() / factor),
                             Qt.AspectRatioMode.IgnoreAspectRatio,
                             Qt.TransformationMode.FastTransformation)
    pixels = _rgb(image)
    if not flat_background(pixels):
        return None
    letters = letter_height(pixels)
    if letters is None:
        return 1.0
    return max(1.0, letters * max(1.0, factor) / PLANTUML_LETTER)


def _rgb(image: QImage) -> np.ndarray:
    """The image's pixels as a height × width × 3 array of bytes (a copy)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    rows = np.frombuffer(rgb.constBits(), np.uint8, rgb.bytesPerLine() * rgb.height())
    rows = rows.reshape(rgb.height(), rgb.bytesPerLine())
    return rows[:, :3 * rgb.width()].reshape(rgb.height(), rgb.width(), 3).copy()


def flat_background(pixels: np.ndarray) -> bool:
    """Whether one colour covers at least :data:`FLAT_SHARE` of the image (its page), on
    every 4th pixel of every 4th row: the share is the same, at 1/16 of the sorting."""
    pixels = pixels[::4, ::4]
    packed = (pixels[..., 0].astype(np.uint32) << 16 | pixels[..., 1].astype(np.uint32) << 8
              | pixels[..., 2])
    counts = np.unique(packed, return_counts=True)[1]
    return bool(counts.max() >= FLAT_SHARE * packed.size)
