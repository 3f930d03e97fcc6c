"""Lines told apart where they touch: a run of strokes that reaches more than two boxes
(lines that cross, lines that leave a box side by side with multiplicities written
between them) is followed line by line from where each line leaves a box, straight on
through crossings, to the box where it ends (:func:`followed_lines`). What
:mod:`.relations` then reads as one relation each."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


Ring = tuple[tuple[int, int, int, int], tuple[int, int, int, int]]
Contact = tuple[int, tuple[float, float]]  # box index, where a line meets it (image)

_AHEAD = 45  # degrees either side of the way the line goes that the next step may turn
_CORNER = 100  # degrees: where nothing is ahead, an orthogonal line's corner
_FAN = 5  # degrees between the rays looked along
_BAND = 6  # px beyond a box's ring where the lines leaving it are told apart


def contacts(component: np.ndarray, found: tuple[slice, slice], rings: list[Ring]
             ) -> list[Contact]:
    """Where the strokes of ``component`` (at ``found`` in the image) leave a box: one
    contact for each piece of them in a band just beyond the ring round the box (several
    lines leaving one box are several contacts; a box's shadow, in the ring, would tie
    them into one)."""
    import numpy as np
    from scipy import ndimage

    out: list[Contact] = []
    h, w = component.shape
    for b, (outer, inner) in enumerate(rings):
        # the band, in the component's own coordinates
        y0, x0 = outer[1] - _BAND - found[0].start, outer[0] - _BAND - found[1].start
        y1, x1 = outer[3] + _BAND - found[0].start, outer[2] + _BAND - found[1].start
        cy0, cx0, cy1, cx1 = max(0, y0), max(0, x0), min(h, y1), min(w, x1)
        if cy0 >= cy1 or cx0 >= cx1:
            continue
        window = component[cy0:cy1, cx0:cx1].copy()
        iy0, iy1 = outer[1] - found[0].start - cy0, outer[3] - found[0].start - cy0
        ix0, ix1 = outer[0] - found[1].start - cx0, outer[2] - found[1].start - cx0
        window[max(0, iy0):max(0, iy1), max(0, ix0):max(0, ix1)] = False
        # where the strokes touch the box (just outside the part cleared round it): a
        # line that ends at the box reaches it, one that passes a corner does not
        touching = component[cy0:cy1, cx0:cx1] & _strip(window.shape, (
            inner[0] - found[1].start - cx0, inner[1] - found[0].start - cy0,
            inner[2] - found[1].start - cx0, inner[3] - found[0].start - cy0), 2)
        labels, _count = ndimage.label(window, structure=np.ones((3, 3), dtype=bool))
        for index, (down, across) in enumerate(ndimage.find_objects(labels), start=1):
            reach = inner[1] - outer[1] + _BAND + 2  # from the band to the strip
            near = touching[max(0, down.start - reach):down.stop + reach,
                            max(0, across.start - reach):across.stop + reach]
            if not near.any():
                continue
            ys, xs = np.nonzero(labels[down, across] == index)
            out.append((b, (float(xs.mean()) + across.start + cx0 + found[1].start,
                            float(ys.mean()) + down.start + cy0 + found[0].start)))
    return out


def _strip(shape: tuple[int, ...], rect: tuple[int, int, int, int], width: int
           ) -> np.ndarray:
    """The pixels of an image of ``shape`` within ``width`` px outside ``rect``."""
    import numpy as np

    strip = np.zeros(shape, dtype=bool)
    x0, y0, x1, y1 = rect
    strip[max(0, y0 - width):max(0, y1 + width), max(0, x0 - width):max(0, x1 + width)] = True
    strip[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = False
    return strip


def _inside(point: np.ndarray, rect: tuple[int, int, int, int]) -> bool:
    return bool(rect[0] <= point[0] < rect[2] and rect[1] <= point[1] < rect[3])


def _follow(component: np.ndarray, found: tuple[slice, slice], start: Contact,
            rings: list[Ring], step: float) -> tuple[int, np.ndarray, list[np.ndarray]] | None:
    """(box, where it ends, the points passed) of the line that leaves ``start``'s box at
    ``start``, followed along ``component``: each step goes ``step`` px the way of the
    rays with ink among those fanned out within :data:`_AHEAD` degrees of the way it went
    (the run of them nearest straight on, so a crossing line is passed straight over)."""
    import numpy as np

    box, (x, y) = start
    origin = np.array([found[1].start, found[0].start], dtype=float)
    h, w = component.shape
    inner = rings[box][1]
    point = np.array([x, y])
    # out of the box, across the side it leaves by
    side = min(((abs(x - inner[0]), (-1.0, 0.0)), (abs(x - inner[2]), (1.0, 0.0)),
                (abs(y - inner[1]), (0.0, -1.0)), (abs(y - inner[3]), (0.0, 1.0))))[1]
    heading = float(np.arctan2(side[1], side[0]))
    passed = [point.copy()]
    left_home = False
    outers = np.array([outer for outer, _inner in rings], dtype=float)
    fans = [np.radians(np.arange(-reach, reach + 1, _FAN)) for reach in (_AHEAD, _CORNER)]
    for _ in range(int(2 * (h + w) / step) + 8):
        chosen = None
        for turns in fans:
            angles = heading + turns
            ahead = point[None, :] + step * np.stack([np.cos(angles), np.sin(angles)], 1)
            local = np.round(ahead - origin).astype(int)
            inked = ((local[:, 0] >= 0) & (local[:, 0] < w) & (local[:, 1] >= 0)
                     & (local[:, 1] < h))
            inked[inked] = component[local[inked, 1], local[inked, 0]]
            if inked.any():
                chosen = _run_nearest_straight(inked, angles)
                break
        if chosen is None:
            return None  # the line ends nowhere near a box
        point = point + step * np.array([np.cos(chosen), np.sin(chosen)])
        heading = chosen
        passed.append(point.copy())
        near = np.flatnonzero((outers[:, 0] <= point[0]) & (point[0] < outers[:, 2])
                              & (outers[:, 1] <= point[1]) & (point[1] < outers[:, 3]))
        for b in near.tolist():
            inner = rings[b][1]
            if b == box and not left_home:
                continue
            # it ends at the box when it heads into it, not when it passes by its side
            # or a corner
            way = np.array([np.cos(heading), np.sin(heading)])
            ray = point[None, :] + np.arange(0, step + _BAND + 2)[:, None] * way[None, :]
            if not ((ray[:, 0] >= inner[0]) & (ray[:, 0] < inner[2]) & (ray[:, 1] >= inner[1])
                    & (ray[:, 1] < inner[3])).any():
                continue
            return (b, point, passed) if b != box else None  # (back home: a wrong turn)
        left_home = left_home or not _inside(point, rings[box][0])
    return None


def _run_nearest_straight(inked: np.ndarray, angles: np.ndarray) -> float:
    """The middle angle of the run of inked rays nearest the middle one (straight on)."""
    import numpy as np

    middle = len(inked) // 2
    hits = np.flatnonzero(inked)
    nearest = int(hits[np.argmin(np.abs(hits - middle))])
    lo = hi = nearest
    while lo > 0 and inked[lo - 1]:
        lo -= 1
    while hi < len(inked) - 1 and inked[hi + 1]:
        hi += 1
    return float(angles[lo:hi + 1].mean())


def followed_lines(component: np.ndarray, found: tuple[slice, slice], rings: list[Ring],
                   step: float) -> list[tuple[np.ndarray, tuple[slice, slice]]]:
    """The lines of a run that reaches more than two boxes, one (strokes, their extent in
    the image) for each pair of contacts a line was followed between, from either end;
    the strokes are the run's within a step of the points the line passed."""
    import numpy as np
    from scipy import ndimage

    ends = contacts(component, found, rings)
    reached: dict[int, tuple[int, list[np.ndarray]]] = {}
    for i, start in enumerate(ends):
        followed = _follow(component, found, start, rings, step)
        if followed is None:
            continue
        box, at, passed = followed
        # the contact of that box where the line arrived
        near = [(float(np.hypot(*(np.array(p) - at))), j) for j, (b, p) in enumerate(ends)
                if b == box]
        if near:
            reached[i] = (min(near)[1], passed)
    # a line followed from both its ends is sure; one followed from one end only counts
    # where neither end is taken (a line that merely passes a box's side makes a contact
    # there that leads along the line to its end: the end leads back elsewhere)
    pairs: dict[frozenset[int], list[np.ndarray]] = {}
    for i, (j, passed) in reached.items():
        if reached.get(j, (None,))[0] == i:
            pairs.setdefault(frozenset((i, j)), passed)
    taken = {k for pair in pairs for k in pair}
    for i, (j, passed) in reached.items():
        if i not in taken and j not in taken and i != j:
            pairs[frozenset((i, j))] = passed
            taken |= {i, j}
    # a short way between two boxes along part of a longer line (boxes side by side that
    # a line passes between) is that line's, not a relation of its own
    kept: list[np.ndarray] = []
    for passed in sorted(pairs.values(), key=len, reverse=True):
        points = np.array(passed)
        if not any(float((np.hypot(*(points[:, None, :] - other[None, :, :]).transpose(
                2, 0, 1)).min(axis=1) <= step).mean()) >= 0.7 for other in kept):
            kept.append(points)
    origin = np.array([found[1].start, found[0].start])
    out = []
    reach = int(np.ceil(step)) + 1
    h, w = component.shape
    for route in kept:
        at = np.round(route - origin).astype(int)
        at = at[(at[:, 0] >= 0) & (at[:, 0] < w) & (at[:, 1] >= 0) & (at[:, 1] < h)]
        if len(at) == 0:
            continue
        # the run's strokes within reach of the points passed, worked out round them only
        x0, y0 = np.maximum(at.min(axis=0) - reach, 0)
        x1, y1 = at.max(axis=0) + reach + 1
        path = np.zeros((min(h, y1) - y0, min(w, x1) - x0), dtype=np.uint8)
        path[at[:, 1] - y0, at[:, 0] - x0] = 1
        near = ndimage.maximum_filter(path, size=2 * reach + 1).view(bool)
        strokes = np.zeros_like(component)
        strokes[y0:y0 + near.shape[0], x0:x0 + near.shape[1]] = near
        out.append((component & strokes, found))
    return out
