"""The ink a relation tracer follows, whatever the theme: dark strokes on light paper, or
light strokes (a dark or mid-grey theme's lines) turned dark in a negative, and in either
no dark *area* (a package's dark fill, a dark page in the negative) taken for a stroke —
only what is darker than the paper right beside it. :mod:`.relations` traces both
polarities where the strokes' own polarity is not clear and keeps the one that ties more
boxes together."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluestudio.core.ocr.layout import cross_dilated

if TYPE_CHECKING:
    import numpy as np

    from cluestudio.core.ocr.result import Rect

STEP = 50  # grey levels: a stroke differs from what is beside it by more
_REACH = 3  # px each side of a ridge where it is compared (a stroke is narrower)
_AROUND_BOX = 12  # px round a box: its outline and shadow, not a line's ink
_AREA = 25  # px: a dark region this wide both ways is an area (a fill), not a stroke
_CLEAR = 0.5  # one polarity's ridges at least twice the other's: it is the strokes'


def ridge_counts(gray: np.ndarray, boxes: list[Rect]) -> tuple[int, int]:
    """(light, dark) thin ridges round the boxes: pixels lighter (darker) by :data:`STEP`
    than both pixels a few px to either side, across the rows (on every other row) or
    the columns (every other column). A ridge is a line's or a letter's, never the edge
    of a fill or a shadow."""
    import numpy as np

    g = gray.astype(np.int16)
    r = _REACH
    rows, cols = g[::2], g[:, ::2]
    counts = [0, 0]
    for mid, one, other, axis in ((rows[:, r:-r], rows[:, :-2 * r], rows[:, 2 * r:], 1),
                                  (cols[r:-r], cols[:-2 * r], cols[2 * r:], 0)):
        outside = np.ones(mid.shape, dtype=bool)
        for x0, y0, x1, y1 in boxes:
            ya, yb = max(0, int(y0) - _AROUND_BOX), int(y1) + _AROUND_BOX + 1
            xa, xb = max(0, int(x0) - _AROUND_BOX), int(x1) + _AROUND_BOX + 1
            if axis == 1:  # rows sampled, columns shifted by the reach
                outside[ya // 2:yb // 2 + 1, max(0, xa - r):max(0, xb - r)] = False
            else:
                outside[max(0, ya - r):max(0, yb - r), xa // 2:xb // 2 + 1] = False
        counts[0] += int(np.count_nonzero(outside & (mid > np.maximum(one, other) + STEP)))
        counts[1] += int(np.count_nonzero(outside & (mid < np.minimum(one, other) - STEP)))
    return counts[0], counts[1]


def polarities(gray: np.ndarray, boxes: list[Rect]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(grey image, ink mask) pairs to trace: as drawn (:func:`line_ink`) where the strokes
    are dark or their polarity is unclear, the negative where they are light or it is
    unclear (a mid-grey page with light lines and black package frames). In the negative
    ink is what is darker than the page by :data:`STEP`: next to a light box fill or a
    black frame (light in the negative) the page is no stroke."""
    import numpy as np

    light, dark = ridge_counts(gray, boxes)
    chosen = []
    if light < dark or light * _CLEAR <= dark:
        chosen.append((gray, line_ink(gray)))
    if light > dark or dark * _CLEAR <= light:
        negative = np.float32(255) - gray
        page = _page_level(negative, boxes)
        chosen.append((negative, cross_dilated(negative < page - STEP)))
    return chosen


def _page_level(gray: np.ndarray, boxes: list[Rect]) -> float:
    """The usual grey level round the boxes (every other pixel each way)."""
    import numpy as np

    sample = gray[::2, ::2]
    page = np.ones(sample.shape, dtype=bool)
    for x0, y0, x1, y1 in boxes:
        page[int(y0) // 2:int(y1) // 2 + 1, int(x0) // 2:int(x1) // 2 + 1] = False
    return float(np.median(sample[page] if page.any() else sample))


def line_ink(gray: np.ndarray) -> np.ndarray:
    """:func:`..ocr.layout.ink_mask`, less the inside of dark areas (a fill at least
    :data:`_AREA` px across, dark in absolute terms but no darker than what is round it):
    their edges and the strokes on them stay."""
    from scipy import ndimage

    from cluestudio.core.ocr.layout import ink_mask

    ink = ink_mask(gray)
    dark = (gray < 90).view("uint8")
    areas = ndimage.maximum_filter(ndimage.minimum_filter(dark, size=_AREA), size=_AREA)
    if not areas.any():
        return ink
    paper = ndimage.maximum_filter(gray, size=15)
    return ink & (~areas.view(bool) | cross_dilated(gray < 0.88 * paper))
