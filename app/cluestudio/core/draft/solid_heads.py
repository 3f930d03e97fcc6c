"""A relation's head read as a solid shape on the strokes as drawn, along the line's own
axis, whatever its slant (:func:`solid_head`): what :mod:`.relations` tells a hollow or
filled diamond, a hollow triangle and an arrowhead apart by. Small renderer heads on a
slanting spline, anti-aliased and with a multiplicity written against them, defeat a
row-by-row reading of the thickened ink mask."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cluestudio.core.ocr.layout import cross_dilated

if TYPE_CHECKING:
    import numpy as np

    from cluestudio.core.ocr.result import Rect


@dataclass(frozen=True)
class SolidHead:
    """A head's solid shape where a line meets a box, measured along the line's own axis
    (however the line slants): how long and wide it is, where it is widest (0 at the tip on
    the box, 1 at its far end), how much of its inside is paper (a hollow head), how evenly
    it sits on the line (the smaller side's share of the larger) and how much of its convex
    hull it fills (a notched arrowhead less than a diamond)."""

    length: float
    width: float
    peak: float
    paper: float
    balance: float
    solidity: float
    fill: float = 0.5  # its area's share of length × width (a diamond's 0.5, a disc's 0.8)


def _disk(radius: int) -> np.ndarray:
    import numpy as np

    yy, xx = np.mgrid[-radius:radius + 1, -radius:radius + 1]
    return (xx * xx + yy * yy) <= radius * radius + radius


def drawn_ink(gray: np.ndarray) -> np.ndarray:
    """The strokes of a grey window as drawn, not thickened: pixels darker than the paper
    round them by at least 40 % of the contrast there (an anti-aliased edge that is mostly
    paper is not ink, so letters stay apart from the line they sit by)."""
    from scipy import ndimage

    paper = ndimage.maximum_filter(gray, size=31)
    dark = ndimage.minimum_filter(gray, size=7)
    contrast = paper - dark
    return (paper - gray >= 0.4 * contrast) & (contrast >= 40)


def solid_head(gray: np.ndarray, point: tuple[float, float], box: Rect, stroke: int,
               texts: list[Rect], outlines: tuple[int | None, ...] = (None,)
               ) -> Iterator[SolidHead | None]:
    """The solid head (a triangle, a diamond or an arrowhead, hollow or filled) where a
    line meets ``box`` near ``point``, read on the strokes as drawn: letters of ``texts``
    (OCR's boxes) taken out, the paper the strokes close in (against the box's outline
    too) filled, and lines opened away — what is left touching the box there is the head.
    One reading for each of ``outlines`` in turn (how far beyond ``box`` its outline
    reaches; None: the mask's stroke and a pixel), None where there is none."""
    stroke = max(1, stroke)
    reach = max(48, 10 * stroke)  # how far from the box a head may reach
    x, y = int(point[0]), int(point[1])
    h, w = gray.shape
    x0, y0 = max(0, x - reach), max(0, y - reach)
    x1, y1 = min(w, x + reach + 1), min(h, y + reach + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        yield from (None for _ in outlines)
        return
    window = without_letters(drawn_ink(gray[y0:y1, x0:x1]), texts, (x0, y0))
    for outline in outlines:
        yield _measured(window, (x - x0, y - y0),
                        (box[0] - x0, box[1] - y0, box[2] - x0, box[3] - y0), stroke,
                        stroke + 1 if outline is None else outline)


def without_letters(window: np.ndarray, texts: list[Rect], offset: tuple[int, int]
                    ) -> np.ndarray:
    """``window`` (drawn ink, at ``offset`` in the image) without its letters: the pieces
    of ink that stay inside a text's box (of ``texts``, in the image, a 2 px margin round
    it): a piece stays inside when its bounding box does."""
    import numpy as np
    from scipy import ndimage

    x0, y0 = offset
    h, w = window.shape
    pieces, count = ndimage.label(window, structure=np.ones((3, 3), dtype=bool))
    spans = np.array([(s[0].start, s[0].stop, s[1].start, s[1].stop)
                      for s in ndimage.find_objects(pieces)], dtype=int).reshape(-1, 4)
    letter = np.zeros(count + 1, dtype=bool)
    for rect in texts:
        tx0, ty0 = max(0, int(rect[0]) - 2 - x0), max(0, int(rect[1]) - 2 - y0)
        tx1, ty1 = int(rect[2]) + 3 - x0, int(rect[3]) + 3 - y0
        if tx1 <= 0 or ty1 <= 0 or tx0 >= w or ty0 >= h:
            continue
        letter[1:] |= ((spans[:, 0] >= ty0) & (spans[:, 1] <= ty1)
                       & (spans[:, 2] >= tx0) & (spans[:, 3] <= tx1))
    return window & ~letter[pieces] if letter.any() else window


def _measured(window: np.ndarray, point: tuple[int, int], box: Rect, stroke: int, grow: int
              ) -> SolidHead | None:
    """:func:`solid_head` in a window of drawn ink (``point`` and ``box`` in it), the box's
    outline taken to reach ``grow`` px beyond it."""
    import numpy as np
    from scipy import ndimage

    # the box and its outline as one block: the paper a head closes in against the
    # outline is the head's inside
    drawn = max(1, stroke - 2)  # the mask's thickening taken back
    block = np.zeros_like(window)
    block_at = (slice(max(0, int(box[1]) - grow), max(0, int(box[3]) + grow + 1)),
                slice(max(0, int(box[0]) - grow), max(0, int(box[2]) + grow + 1)))
    block[block_at] = True
    solid = holes_filled(window | block) & ~block
    # lines (a stroke thick) vanish in the opening, heads stay
    radius = drawn // 2 + 1
    opened = disk_dilated(disk_eroded(solid, radius), radius)
    labels, count = ndimage.label(opened)
    if count == 0:
        return None
    # the piece that touches the box where the line meets it
    near_box = near_block(window.shape, block_at, stroke + 3)
    px, py = point
    rows, cols = np.nonzero(labels)
    of = labels[rows, cols] - 1
    indices = np.arange(1, count + 1)
    nearest = np.full(count, np.inf)
    np.minimum.at(nearest, of, np.hypot(cols - px, rows - py))
    touching = np.zeros(count, dtype=bool)
    touching[of[near_box[rows, cols]]] = True
    nearest[~touching] = np.inf
    # (the last of equally near pieces, as a scan in label order keeps)
    best = int(indices[len(nearest) - 1 - int(np.argmin(nearest[::-1]))])
    if not nearest.min() <= 2 * stroke + 5:
        return None
    blob = labels == best
    # its barbs and tips (thinner than the opening) back: the solid ink round it
    # (the morphology here on the head's surroundings only: the same pixels come out)
    near = _around(blob, 2 * radius + 2)
    head = np.zeros_like(window)
    head[near] = ndimage.binary_propagation(
        blob[near], mask=solid[near] & disk_dilated(blob[near], 2 * radius + 2))
    ys, xs = np.nonzero(head)
    if len(ys) < 9:
        return None
    centre = np.array([xs.mean(), ys.mean()])
    # the line leaving it: ink in a ring round the head, off the box
    near = _around(head, 2 + 2 * stroke + 2)
    grown = cross_dilated(head[near], 2)
    ring = (cross_dilated(grown, 2 * stroke + 2) & ~grown
            & window[near] & ~block[near])
    ry, rx = np.nonzero(ring)
    ry, rx = ry + near[0].start, rx + near[1].start
    if len(ry):
        axis = np.array([rx.mean(), ry.mean()]) - centre
    else:  # no line seen: the head points at the box
        dist = ndimage.distance_transform_edt(~block)[ys, xs]
        tip = dist <= dist.min() + 1
        axis = centre - np.array([xs[tip].mean(), ys[tip].mean()])
    norm = float(np.hypot(*axis))
    if norm < 1:
        return None
    axis /= norm
    across = np.array([-axis[1], axis[0]])
    along = (xs - centre[0]) * axis[0] + (ys - centre[1]) * axis[1]
    side = (xs - centre[0]) * across[0] + (ys - centre[1]) * across[1]
    bins = np.round(along - along.min()).astype(int)
    lo = np.full(bins.max() + 1, np.inf)
    hi = np.full(bins.max() + 1, -np.inf)
    np.minimum.at(lo, bins, side)
    np.maximum.at(hi, bins, side)
    spans = np.where(np.isfinite(lo), hi - lo + 1, 0)
    wide = np.flatnonzero(spans > drawn + 1)
    if len(wide) == 0:
        return None
    first, last = int(wide[0]), int(wide[-1])
    widest = float(spans[first:last + 1].max())
    at = np.flatnonzero(spans[first:last + 1] >= 0.9 * widest)
    length = last - first + 1
    peak = float(at.mean()) / max(1, length - 1)
    in_head = (bins >= first) & (bins <= last)
    # where the line runs: across the axis at the ring's middle
    line = 0.0
    if len(ry):
        line = float(np.median((rx - centre[0]) * across[0] + (ry - centre[1]) * across[1]))
    left, right = float(np.sum(np.maximum(0, line - side[in_head]))), float(
        np.sum(np.maximum(0, side[in_head] - line)))
    balance = min(left, right) / max(left, right, 1.0)
    near = _around(head, 1)
    core = ndimage.binary_erosion(head[near])
    paper = float((core & ~window[near]).sum()) / max(1, int(core.sum()))
    fill = float(in_head.sum()) / max(1.0, length * widest)
    return SolidHead(float(length), widest, peak, paper, balance,
                 _solidity(xs[in_head], ys[in_head]), fill)


def holes_filled(mask: np.ndarray) -> np.ndarray:
    """``ndimage.binary_fill_holes(mask)``, pixel for pixel: the paper that no path across
    or along (the plain cross) leads out of the image from, found by labelling it."""
    import numpy as np
    from scipy import ndimage

    paper, _count = ndimage.label(~mask)
    edge = np.concatenate([paper[0], paper[-1], paper[:, 0], paper[:, -1]])
    outer = np.zeros(int(paper.max()) + 1, dtype=bool)
    outer[edge] = True
    outer[0] = False
    return ~outer[paper]


def _around(mask: np.ndarray, margin: int) -> tuple[slice, slice]:
    """The part of ``mask``'s image within ``margin`` px (across or along) of its set
    pixels (some must be set): all a dilation of them by as much can reach."""
    import numpy as np

    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return (slice(max(0, int(rows[0]) - margin), int(rows[-1]) + margin + 1),
            slice(max(0, int(cols[0]) - margin), int(cols[-1]) + margin + 1))


def _disk_rows(radius: int) -> Iterator[tuple[int, int]]:
    """(row offset, half width) of each row of :func:`_disk` (each row a run)."""
    disk = _disk(radius)
    for row in range(2 * radius + 1):
        yield row - radius, int(disk[row].sum()) // 2


def disk_dilated(mask: np.ndarray, radius: int) -> np.ndarray:
    """``ndimage.binary_dilation(mask, structure=_disk(radius))``, pixel for pixel, row by
    row of the disk (a run across, then shifted): scipy's costs the disk's area a pixel."""
    import numpy as np
    from scipy import ndimage

    h = mask.shape[0]
    out = np.zeros_like(mask)
    ink = mask.view(np.uint8)
    runs: dict[int, np.ndarray] = {}  # the disk's rows above and below are alike
    for shift, half in _disk_rows(radius):
        if abs(shift) >= h:
            continue
        if half not in runs:
            runs[half] = ndimage.maximum_filter1d(ink, 2 * half + 1, axis=1,
                                                  mode="constant").view(bool)
        across = runs[half]
        # out[y] takes mask's row y - shift widened (the disk is symmetric)
        if shift >= 0:
            out[shift:] |= across[:h - shift]
        else:
            out[:h + shift] |= across[-shift:]
    return out


def disk_eroded(mask: np.ndarray, radius: int) -> np.ndarray:
    """``ndimage.binary_erosion(mask, structure=_disk(radius))`` (nothing beyond the
    image's edge), pixel for pixel, row by row of the disk."""
    import numpy as np
    from scipy import ndimage

    h = mask.shape[0]
    out = np.ones_like(mask)
    ink = mask.view(np.uint8)
    runs: dict[int, np.ndarray] = {}
    for shift, half in _disk_rows(radius):
        if abs(shift) >= h:
            return np.zeros_like(mask)
        if half not in runs:
            runs[half] = ndimage.minimum_filter1d(ink, 2 * half + 1, axis=1,
                                                  mode="constant").view(bool)
        across = runs[half]
        # out[y] needs mask's row y + shift whole across the run; rows off the image fail
        if shift >= 0:
            out[:h - shift] &= across[shift:]
            out[h - shift:] = False
        else:
            out[-shift:] &= across[:h + shift]
            out[:-shift] = False
    return out


def near_block(shape: tuple[int, ...], block: tuple[slice, slice], steps: int) -> np.ndarray:
    """The pixels of an image of ``shape`` within ``steps`` moves across or along (the
    city-block distance) of the rectangle ``block``: what ``steps`` dilations by the plain
    cross make of it, worked out directly."""
    import numpy as np

    rows, cols = np.arange(shape[0]), np.arange(shape[1])
    inside_rows, inside_cols = rows[block[0]], cols[block[1]]
    if len(inside_rows) == 0 or len(inside_cols) == 0:
        return np.zeros(shape, dtype=bool)
    down = np.maximum(0, np.maximum(inside_rows[0] - rows, rows - inside_rows[-1]))
    across = np.maximum(0, np.maximum(inside_cols[0] - cols, cols - inside_cols[-1]))
    return down[:, None] + across[None, :] <= steps


def _solidity(xs: np.ndarray, ys: np.ndarray) -> float:
    """The share of its convex hull a set of pixels fills (a notched arrowhead or an open
    V fills less of it than a diamond or a triangle)."""
    import numpy as np
    from scipy.spatial import ConvexHull, QhullError

    corners = np.concatenate([np.stack([xs + dx, ys + dy], axis=1)
                              for dx in (0, 1) for dy in (0, 1)]).astype(float)
    try:
        hull = ConvexHull(corners)
    except (QhullError, ValueError):
        return 1.0
    return float(len(xs)) / max(1.0, float(hull.volume))
