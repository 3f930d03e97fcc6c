"""The ink a relation tracer follows, whatever the theme: dark strokes on light paper, or
light strokes (a dark or mid-grey theme's lines) turned dark in a negative, and in either
no dark *area* (a package's dark fill, a dark page in the negative) taken for a stroke —
only what is darker than the paper right beside it (:func:`polarities`). :mod:`.relations`
traces both polarities where there are light strokes and dark ones and keeps the one that
ties more boxes together. A frame's outline round boxes (a package's body), which every line
leaving it crosses, is found here too (:func:`frame_outlines`), to be taken out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluestudio.core.ocr.layout import cross_dilated

if TYPE_CHECKING:
    import numpy as np

    from cluestudio.core.ocr.result import Rect

STEP = 50  # grey levels: a stroke differs from what is beside it by more
_REACH = 3  # px each side of a ridge where it is compared (a stroke is narrower)
_AROUND_BOX = 12  # px round a box: its outline and shadow, not a line's ink
_AREA = 28  # px: a dark region this wide both ways is an area (a fill), not a stroke
_SPARSE = 4  # px between the pixels areas are looked for on
_CLEAR = 0.25  # light ridges four times the dark ones: the dark ones are no strokes
_SOME = 0.1  # light ridges a tenth of the dark ones: light strokes (no page has them else)
_PAGE_MARGIN = 20  # grey levels: ink is darker than the page round the boxes by more
_DASH_SHARE = 0.7  # of the run's usual darkness: a dash's (a gap of 2 px falls below)


def ridge_counts(gray: np.ndarray, boxes: list[Rect], page: float) -> tuple[int, int]:
    """(light, dark) thin ridges round the boxes: pixels lighter (darker) by :data:`STEP`
    than both pixels a few px to either side and than the ``page`` level, across the rows
    (on every other row) or the columns (every other column). A ridge is a line's or a
    letter's, never the edge of a fill or a shadow, nor the paper between two strokes."""
    import numpy as np

    r = _REACH
    rows, cols = gray[::2].astype(np.int16), gray[:, ::2].astype(np.int16)
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
        light = (mid > np.maximum(one, other) + STEP) & (mid > page + STEP)
        dark = (mid < np.minimum(one, other) - STEP) & (mid < page - STEP)
        counts[0] += int(np.count_nonzero(outside & light))
        counts[1] += int(np.count_nonzero(outside & dark))
    return counts[0], counts[1]


def polarities(gray: np.ndarray, boxes: list[Rect]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(grey image, ink mask) pairs to trace: as drawn (:func:`line_ink`) unless light
    strokes far outnumber dark ones, the negative where there are light strokes (a dark
    page's, or a mid-grey one's with black package frames). Where there are light strokes
    ink is darker than the page round the boxes, either way: beside a light line or a
    light box fill the page is none. (Without any, as in a photo, whose light is uneven,
    ink is what is darker than the paper near it.)"""
    import numpy as np

    page = page_level(gray, boxes)
    light, dark = ridge_counts(gray, boxes, page)
    both = light > 0 and dark * _SOME <= light
    chosen = []
    if light * _CLEAR <= dark:
        ink = line_ink(gray)
        chosen.append((gray, ink & cross_dilated(gray < page - _PAGE_MARGIN) if both else ink))
    if both:
        negative = np.float32(255) - gray
        chosen.append((negative, cross_dilated(negative < (255 - page) - STEP)))
    return chosen


def page_level(gray: np.ndarray, boxes: list[Rect]) -> float:
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
    their edges and the strokes on them stay. Areas are found on every fourth pixel each
    way (they are large)."""
    import numpy as np
    from scipy import ndimage

    from cluestudio.core.ocr.layout import ink_mask

    ink = ink_mask(gray)
    dark = (gray[::_SPARSE, ::_SPARSE] < 90).view(np.uint8)
    size = _AREA // _SPARSE
    areas = ndimage.maximum_filter(ndimage.minimum_filter(dark, size=size), size=size)
    if not areas.any():
        return ink
    h, w = gray.shape
    areas = areas.view(bool)[np.arange(h) // _SPARSE][:, np.arange(w) // _SPARSE]
    paper = ndimage.maximum_filter(gray, size=15)
    return ink & (~areas | cross_dilated(gray < 0.88 * paper))


def frame_outlines(lines: np.ndarray, boxes: list[Rect], stroke: int) -> np.ndarray:
    """The outlines of frames round boxes among ``lines`` (the strokes outside the class
    boxes) — a package's body, a UML frame: a rectangle of straight strokes, each side at
    least as long as the smallest box's, with a class box inside. Lines crossing a frame
    cross its outline, which would tie every line that leaves the package into one (and a
    head on it would close paper in); where it is taken out they keep a gap a stroke or two
    wide, which the tracer bridges."""
    import numpy as np
    from scipy import ndimage

    from cluestudio.core.draft.components import pieces

    frames = np.zeros_like(lines)
    if not boxes:
        return frames
    shortest = (int(min(b[2] - b[0] for b in boxes)), int(min(b[3] - b[1] for b in boxes)))
    ink = lines.view(np.uint8)
    runs = []  # strokes straight across (axis 1) and down (axis 0), at least a box long
    for axis, length in ((1, shortest[0]), (0, shortest[1])):
        length = max(length, 20)
        run = np.zeros_like(lines)
        # (only rows, or columns, with that much ink can hold such a stroke)
        some = np.flatnonzero(np.count_nonzero(lines, axis=axis) >= length)
        if len(some):
            part = ink[some] if axis == 1 else ink[:, some]
            kept = ndimage.minimum_filter1d(part, length, axis=axis)
            kept = ndimage.maximum_filter1d(kept, length, axis=axis).view(bool)
            if axis == 1:
                run[some] = kept
            else:
                run[:, some] = kept
        runs.append(run)
    across, down = runs
    if not across.any() or not down.any():
        return frames
    tol = 2 * max(1, stroke) + 4
    sides: list[list[tuple[float, int, int, np.ndarray, tuple[slice, slice]]]] = [[], []]
    for k, mask in enumerate((across, down)):
        for found, piece in pieces(mask):
            # (where it is across its length, its two ends, its pixels)
            if k == 0:
                sides[k].append(((found[0].start + found[0].stop) / 2, found[1].start,
                                 found[1].stop, piece, found))
            else:
                sides[k].append(((found[1].start + found[1].stop) / 2, found[0].start,
                                 found[0].stop, piece, found))

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= tol

    for i, top in enumerate(sides[0]):
        for bottom in sides[0][i + 1:]:
            if not (near(top[1], bottom[1]) and near(top[2], bottom[2])):
                continue
            y0, y1 = sorted((top[0], bottom[0]))
            x0, x1 = min(top[1], bottom[1]), max(top[2], bottom[2])
            if y1 - y0 < shortest[1] or not any(
                    x0 < b[0] and b[2] < x1 and y0 < b[1] and b[3] < y1 for b in boxes):
                continue
            # (a side runs on past a corner where a package's name tab stands on it)
            walls = [v for v in sides[1] if v[1] <= y0 + tol and v[2] >= y1 - tol
                     and (near(v[0], x0) or near(v[0], x1))]
            if not (any(near(v[0], x0) for v in walls) and any(near(v[0], x1) for v in walls)):
                continue
            for k, (_at, _start, _stop, piece, found) in enumerate((top, bottom, *walls)):
                frames[found] |= piece & ~_crossed(lines, found, 0 if k < 2 else 1)
    return frames


def _crossed(lines: np.ndarray, found: tuple[slice, slice], axis: int) -> np.ndarray:
    """Where a frame's side (``found``: its strokes' extent, across the rows for ``axis``
    0, down the columns for 1) is crossed: the lines go on both sides of it there, and a
    pixel more each way (a line or a head that crosses the frame keeps its ink)."""
    import numpy as np
    from scipy import ndimage

    h, w = lines.shape
    rows, cols = found
    if axis == 0:
        before = lines[max(0, rows.start - 2), cols] if rows.start >= 2 else np.zeros(
            cols.stop - cols.start, dtype=bool)
        after = lines[min(h - 1, rows.stop + 1), cols] if rows.stop + 1 < h else np.zeros(
            cols.stop - cols.start, dtype=bool)
        through = ndimage.binary_dilation(before & after)
        return np.broadcast_to(through[None, :], (rows.stop - rows.start, len(through)))
    before = lines[rows, max(0, cols.start - 2)] if cols.start >= 2 else np.zeros(
        rows.stop - rows.start, dtype=bool)
    after = lines[rows, min(w - 1, cols.stop + 1)] if cols.stop + 1 < w else np.zeros(
        rows.stop - rows.start, dtype=bool)
    through = ndimage.binary_dilation(before & after)
    return np.broadcast_to(through[:, None], (len(through), cols.stop - cols.start))


def dash_cores(strokes: np.ndarray, gray: np.ndarray) -> np.ndarray:
    """``strokes`` (a run's ink mask, thickened by a pixel; ``gray`` the same window) where
    the ink, averaged over 3×3 px, is nearly as dark (:data:`_DASH_SHARE`) against the
    paper right round the run as it usually is along it: a dashed line's dashes apart
    again where the mask's thickening and anti-aliasing closed the gaps of a few px
    between them. (The averaging keeps a thin slanting line whole, whose ink two pixels
    share in turn; a solid line stays one piece.)"""
    import numpy as np
    from scipy import ndimage

    around = cross_dilated(strokes, 3) & ~strokes
    if not around.any() or not strokes.any():
        return strokes
    page = float(np.median(gray[around]))
    dark = ndimage.uniform_filter(np.clip(page - gray, 0, None).astype(np.float32), 3)
    level = float(np.percentile(dark[strokes], 75))
    return strokes & (dark >= _DASH_SHARE * level) if level > 0 else np.zeros_like(strokes)
