"""Class boxes in a diagram image: closed outlines and their compartments, found without OpenCV.

Ink (dark strokes, by a local threshold so uneven light in a photo does not matter) is
slightly thickened so blur or JPEG gaps in an outline still close it; every region of
non-ink that the outside background does not reach is enclosed by strokes. Compartments are
the enclosed regions that are big and nearly fill their bounding rectangle (a class box's
header, attributes and methods); compartments stacked with the same left and right edges
make one class box. Loops formed by relation lines are not rectangles and are left out.
Works for straight (PlantUML), wobbly (``handwritten``) and slightly rotated outlines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluestudio.core.ocr.result import ClassBox, Layout, Rect

if TYPE_CHECKING:
    import numpy as np


def _ink(gray: np.ndarray) -> np.ndarray:
    import numpy as np
    from scipy import ndimage

    # Ink is darker than its neighbourhood by a margin (a local threshold), and dark in
    # absolute terms too, so a light box fill never counts as a stroke.
    local = ndimage.uniform_filter(gray, size=31)
    ink = (gray < local - 18) | (gray < 90)
    ink &= gray < 200
    return np.asarray(ndimage.binary_dilation(ink, iterations=1))


def find_layout(pixels: np.ndarray, *, min_side: int = 12) -> Layout:
    """The class boxes of an RGB image (H×W×3 uint8)."""
    import numpy as np
    from scipy import ndimage

    gray = pixels.astype(np.float32).mean(axis=2)
    ink = _ink(gray)
    labels, count = ndimage.label(~ink)
    if count == 0:
        return Layout(())
    outside = set(np.unique(np.concatenate(
        [labels[0, :], labels[-1, :], labels[:, 0], labels[:, -1]])).tolist())
    sizes = np.bincount(labels.ravel(), minlength=count + 1)
    slices = ndimage.find_objects(labels)
    parts: list[Rect] = []
    for index, found in enumerate(slices, start=1):
        if found is None or index in outside:
            continue
        height = found[0].stop - found[0].start
        width = found[1].stop - found[1].start
        if height < min_side or width < 2 * min_side:
            continue
        # Text inside a compartment is ink, so the region's own pixels fill less than all of
        # its rectangle: compare with the rectangle minus that ink.
        area = height * width
        inked = int(ink[found].sum())
        if sizes[index] < 0.8 * max(1, area - inked):
            continue
        rect = (float(found[1].start), float(found[0].start), float(found[1].stop),
                float(found[0].stop))
        if _outlined(ink, rect):
            parts.append(rect)
    return Layout(tuple(_stack(parts)))


def _outlined(ink: np.ndarray, rect: Rect, cover: float = 0.85) -> bool:
    """Whether ink runs along all four sides of ``rect``: a compartment is drawn with four
    strokes; a loop of relation lines has slanted sides. The band allows a photo's tilt."""
    import numpy as np

    height, width = ink.shape
    x0, y0, x1, y1 = (int(v) for v in rect)
    across = 4 + int(0.04 * (x1 - x0))
    down = 4 + int(0.04 * (y1 - y0))

    def band(rows: slice, cols: slice, axis: int) -> float:
        return float(np.asarray(ink[rows, cols]).any(axis=axis).mean())

    top = band(slice(max(0, y0 - across), y0 + 2), slice(x0, x1), 0)
    bottom = band(slice(max(0, y1 - 2), min(height, y1 + across)), slice(x0, x1), 0)
    left = band(slice(y0, y1), slice(max(0, x0 - down), x0 + 2), 1)
    right = band(slice(y0, y1), slice(max(0, x1 - 2), min(width, x1 + down)), 1)
    return min(top, bottom, left, right) >= cover


def _stack(parts: list[Rect]) -> list[ClassBox]:
    """Group compartments into class boxes: same left/right edges, touching vertically."""
    parts = sorted(parts, key=lambda r: (r[1], r[0]))
    used = [False] * len(parts)
    boxes: list[ClassBox] = []
    for i, first in enumerate(parts):
        if used[i]:
            continue
        used[i] = True
        column = [first]
        while True:
            last = column[-1]
            tolerance = max(6.0, 0.04 * (last[2] - last[0]))
            nxt = next((j for j, r in enumerate(parts) if not used[j]
                        and abs(r[0] - last[0]) <= tolerance
                        and abs(r[2] - last[2]) <= tolerance
                        and 0 <= r[1] - last[3] <= 18), None)
            if nxt is None:
                break
            used[nxt] = True
            column.append(parts[nxt])
        rect = (min(r[0] for r in column), column[0][1], max(r[2] for r in column),
                column[-1][3])
        boxes.append(ClassBox(rect, tuple(column)))
    # A region inside another (an icon's interior, a note's fold) is not a class of its own.
    return [b for b in boxes if not any(o is not b and _inside(b.rect, o.rect) for o in boxes)]


def _inside(inner: Rect, outer: Rect) -> bool:
    return (inner[0] >= outer[0] - 1 and inner[1] >= outer[1] - 1 and inner[2] <= outer[2] + 1
            and inner[3] <= outer[3] + 1)
