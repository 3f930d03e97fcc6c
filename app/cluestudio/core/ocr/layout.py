"""Class boxes in a diagram image: closed outlines and their compartments, found without OpenCV.

Ink (dark strokes, by a local threshold so uneven light in a photo does not matter) is
slightly thickened so blur or JPEG gaps in an outline still close it; every region of
non-ink that the outside background does not reach is enclosed by strokes. Compartments are
the enclosed regions that are big and nearly fill their bounding rectangle (a class box's
header, attributes and methods); compartments stacked with the same left and right edges
make one class box. Loops formed by relation lines are not rectangles and are left out.
Works for straight (PlantUML), wobbly (``handwritten``) and slightly rotated outlines.

A box is a closed region whose fill differs from what is round it, whichever is the darker
(PlantUML's themes): where the ink is areas rather than strokes (a dark fill, the fill round
light letters) the steps in brightness there stand for it, and the boxes that steps in
brightness show (faint ones in a render: a light border on a grey gradient, a fill on a
coloured package) are taken where the ink found none, or only pieces of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from cluestudio.core.ocr.result import Box, ClassBox, Layout, Rect

if TYPE_CHECKING:
    import numpy as np


def ink_mask(gray: np.ndarray) -> np.ndarray:
    """Strokes of a grayscale image (float H×W), thickened by one pixel."""
    from scipy import ndimage

    # Ink is darker than the paper or box fill around it by a share (a photo's uneven light
    # scales both), and dark in absolute terms too, so a light box fill never counts.
    paper = ndimage.maximum_filter(gray, size=15)
    ink = (gray < 0.88 * paper) | (gray < 90)
    ink &= gray < 200
    return _bridged(ink)


def _edges(spread: np.ndarray, step: float = 20.0) -> np.ndarray:
    """Steps in brightness: pixels whose 3×3 neighbourhood spans more than ``step`` grey
    levels (``spread``: :func:`_spread`), lines bridged and thickened as :func:`ink_mask`."""
    return _bridged(spread > step)


def _spread(gray: np.ndarray) -> np.ndarray:
    """How many grey levels each pixel's 3×3 neighbourhood spans."""
    from scipy import ndimage

    return ndimage.maximum_filter(gray, size=3) - ndimage.minimum_filter(gray, size=3)


def _faint_step(spread: np.ndarray) -> float:
    """The least step in brightness that outlines a box: 8 grey levels in a render, whose
    fills are flat (a faint border on a grey fill steps by 10–20), 20 in a photo, whose
    grain makes nearly every pixel's neighbourhood span a few levels."""
    import numpy as np

    return 8.0 if float(np.mean(spread[::4, ::4] <= 2)) >= 0.5 else 20.0


def _bridged(strokes: np.ndarray) -> np.ndarray:
    """``strokes`` with short gaps in long straight lines bridged, thickened by one pixel."""
    # A blurred photo loses bits of a thin outline: bridge short gaps in long straight
    # strokes only (box edges), so text never gets joined to the edges around it.
    for axis in (1, 0):
        strokes |= _closed(_opened(strokes, 25, axis), 9, axis)
    return cross_dilated(strokes)


# Morphology with straight-line and cross structures by shifted copies of the mask, a
# line of n pixels in log2(n) doublings (scipy's binary_* visit every element of the
# structure at every pixel: 2.9 of the 5 CPU-s of a 16-megapixel render's layout went
# there, and its running min/max filters take 3-10 times as long as this). Identical
# results: outside the image counts as no ink, as scipy's border_value=0.

def _line_max(mask: np.ndarray, length: int, axis: int) -> np.ndarray:
    """Dilation of ``mask`` by a centred line of odd ``length`` along ``axis``."""
    import numpy as np

    return _sweep(mask, length, axis, np.logical_or)


def _line_min(mask: np.ndarray, length: int, axis: int) -> np.ndarray:
    """Erosion of ``mask`` by a centred line of odd ``length`` along ``axis``."""
    import numpy as np

    return _sweep(mask, length, axis, np.logical_and)


def _sweep(mask: np.ndarray, length: int, axis: int, combine: np.ufunc) -> np.ndarray:
    """``combine`` of each centred run of ``length`` pixels along ``axis`` (axis 0 or 1),
    the mask padded with False. After the doublings ``run[i]`` combines ``k`` pixels from
    ``i`` on; two such runs, overlapping, cover a window of ``length`` < 2k."""
    import numpy as np

    def along(part: slice) -> tuple[slice, ...]:
        return (part,) if axis == 0 else (slice(None), part)

    reach, size = length // 2, mask.shape[axis]
    padded_shape = list(mask.shape)
    padded_shape[axis] = size + 2 * reach
    run = np.zeros(padded_shape, bool)
    run[along(slice(reach, reach + size))] = mask
    k = 1
    while 2 * k <= length:
        end = run.shape[axis]
        run = combine(run[along(slice(0, end - k))], run[along(slice(k, end))])
        k *= 2
    return combine(run[along(slice(0, size))],
                   run[along(slice(length - k, length - k + size))])


def _opened(mask: np.ndarray, length: int, axis: int) -> np.ndarray:
    return _line_max(_line_min(mask, length, axis), length, axis)


def _closed(mask: np.ndarray, length: int, axis: int) -> np.ndarray:
    return _line_min(_line_max(mask, length, axis), length, axis)


def cross_dilated(mask: np.ndarray, steps: int = 1) -> np.ndarray:
    """``ndimage.binary_dilation(mask, iterations=steps)`` (each step by the plain 3×3 cross,
    nothing beyond the image's edge), pixel for pixel, by shifted copies: many times
    faster."""
    for _ in range(steps):
        grown = mask.copy()
        grown[1:] |= mask[:-1]
        grown[:-1] |= mask[1:]
        grown[:, 1:] |= mask[:, :-1]
        grown[:, :-1] |= mask[:, 1:]
        mask = grown
    return mask


def deskew_angle(gray: np.ndarray, limit: float = 5.0, ink: np.ndarray | None = None
                 ) -> float:
    """The tilt (degrees) that makes a diagram's strokes horizontal again: the rotation
    whose row profile of ink is sharpest (box edges become single peaks), searched in
    whole degrees, then in quarters around the best. 0 for an export; a photo is rarely
    held straight. ``ink``: ``ink_mask(gray)`` where the caller has it already."""
    import numpy as np
    from scipy import ndimage

    ink = ink_mask(gray) if ink is None else ink
    factor = max(1, int(max(ink.shape) / 400))
    small = ink[::factor, ::factor].astype(np.float32)

    def sharpness(angle: float) -> float:
        turned = small if angle == 0 else ndimage.rotate(small, angle, reshape=False,
                                                         order=0, prefilter=False)
        return float(np.square(np.diff(turned.sum(axis=1))).sum())

    def best_of(angles: list[float]) -> float:
        scored = [(sharpness(a), -abs(a), a) for a in angles]
        return max(scored)[2]  # ties keep the smaller tilt

    coarse = best_of([float(a) for a in np.arange(-limit, limit + 0.5, 1.0)])
    return best_of([coarse + d for d in (-0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75)])


def upright_gray(pixels: np.ndarray, angle: float) -> np.ndarray:
    """The grayscale image turned by ``angle`` degrees (0: as it is)."""
    import numpy as np
    from scipy import ndimage

    # the mean of the three channels (their sum is exact in 16 bits; float32 as before),
    # without a float copy of every channel (added plane by plane: the same sums, many
    # times faster than numpy's sum over the short last axis)
    total = pixels[..., 0].astype(np.uint16)
    for channel in range(1, pixels.shape[2]):
        total += pixels[..., channel]
    gray = total.astype(np.float32) / np.float32(3)
    if not angle:
        return gray
    # corners turned in from outside take the paper's brightness: no edge to read as ink
    paper = float(np.percentile(gray, 90))
    return ndimage.rotate(gray, angle, reshape=False, order=1, cval=paper)


def straightened(pixels: np.ndarray) -> tuple[np.ndarray, float]:
    """(grayscale image turned upright, the angle it was turned by)."""
    gray, angle, _ink = _straightened_ink(pixels)
    return gray, angle


def _straightened_ink(pixels: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """:func:`straightened` and the upright image's :func:`ink_mask`: an image that needs
    no turning keeps the ink the tilt was measured on (not found twice)."""
    gray = upright_gray(pixels, 0.0)
    ink = ink_mask(gray)
    angle = deskew_angle(gray, ink=ink)
    if abs(angle) < 0.2:
        return gray, 0.0, ink
    gray = upright_gray(pixels, angle)
    return gray, angle, ink_mask(gray)


def find_layout(pixels: np.ndarray, *, min_side: int = 12,
                text: Sequence[Box] = ()) -> Layout:
    """The class boxes of an RGB image (H×W×3 uint8), tilt corrected (``Layout.angle``).
    ``text``: where OCR read lines of text (image pixels), so thick strokes of writing are
    not taken for outlines."""

    gray, angle, ink = _straightened_ink(pixels)
    center = (pixels.shape[1] / 2, pixels.shape[0] / 2)
    spread = _spread(gray)  # for the areas of ink and the faint outlines below
    ink = _strokes(ink, [line.rect[3] - line.rect[1] for line in text],
                   lambda: _edges(spread))
    boxes = _boxes(ink, min_side)
    # A marker's or a pen's outline has gaps a pixel's thickening does not close (a corner
    # drawn in two strokes that do not meet): look again with thicker strokes, and keep
    # the boxes found only that way (grown back by the thickening). Thickened writing would
    # touch the rules above and below it and cut a header in two: it is wiped first (the
    # middle of each line of text, so an outline it overlaps stays closed).
    grow = 3
    thick = ink.copy()
    layout = Layout((), angle, center)
    lines: list[Rect] = []  # each line of text, upright
    for line in text:
        x0, y0, x1, y1 = line.rect
        cx, cy = layout.upright(line.center)
        lines.append((cx - (x1 - x0) / 2, cy - (y1 - y0) / 2, cx + (x1 - x0) / 2,
                      cy + (y1 - y0) / 2))
        half_w, half_h = (x1 - x0) / 2 - 0.2 * (y1 - y0), 0.3 * (y1 - y0)
        if half_w > 0:
            thick[max(0, int(cy - half_h)):max(0, int(cy + half_h)),
                  max(0, int(cx - half_w)):max(0, int(cx + half_w))] = False
    # A hand-drawn side often stops short of the side it should meet: straight strokes
    # are drawn on, along their own direction, by up to ``reach`` pixels.
    reach = 12
    for axis in (1, 0):
        thick |= _line_max(_opened(thick, 25, axis), 2 * reach + 1, axis)
    thick = cross_dilated(thick, grow)
    # … and a rounded corner leaves less of each side straight
    for box in _boxes(thick, min_side, cover=0.7, overlap=6):
        grown = ClassBox(_grown(box.rect, grow),
                         tuple(_grown(r, grow) for r in box.compartments))
        same = [i for i, b in enumerate(boxes) if _overlap(grown.rect, b.rect)]
        if not same:
            boxes.append(grown)
        elif (len(same) == 1 and len(boxes[same[0]].compartments) == 1
              and len(grown.compartments) > 1
              and _similar(grown.rect, boxes[same[0]].rect, 3 * grow)
              and not _cut_through_text(grown, lines)):
            # the same box, whose compartment rule stops short of its sides: the thick
            # look splits it where the thin one could not
            boxes[same[0]] = grown
    # A box whose outline is no darker than the paper (a faint border on a grey gradient, a
    # light fill on white) has no ink round it, or ink only where the gradient darkens: look
    # at the steps in brightness too (a render's faint ones, a photo's of 20 grey levels).
    boxes = _with_edge_boxes(boxes, _edges(spread, _faint_step(spread)), min_side)
    boxes = [b for b in boxes if not _package_tab(ink, b) and not _frame_tab(ink, b)]
    return Layout(tuple(boxes), angle, center)


def _cut_through_text(box: ClassBox, lines: Sequence[Rect]) -> bool:
    """Whether a rule between two of ``box``'s compartments runs through a line of text
    (``lines``, upright): the thickened remains of a line as wide as its box (a long
    stereotype in a narrow box) reach both sides and look like a rule; a rule never
    crosses a line of text, it runs between two."""
    for upper, lower in itertools.pairwise(box.compartments):
        middle = (upper[3] + lower[1]) / 2
        for x0, y0, x1, y1 in lines:
            inside = min(x1, box.rect[2]) - max(x0, box.rect[0]) >= 0.5 * (x1 - x0)
            if inside and y0 + 2 < middle < y1 - 1:
                return True
    return False


def _with_edge_boxes(boxes: list[ClassBox], edges: np.ndarray, min_side: int
                     ) -> list[ClassBox]:
    """``boxes`` (found by the ink) and the boxes steps in brightness show: those where
    nothing was found, or in place of pieces of them (ink only round the bottom
    compartment, or round a header cut short by its icon)."""
    boxes = list(boxes)
    framed = False
    for box in _boxes(edges, min_side):
        same = [i for i, b in enumerate(boxes) if _overlap(box.rect, b.rect)]
        if not same:
            # a class's header over its members; a lone region (a button, a panel, a
            # scan's smudge) is not taken on this evidence alone
            if len(box.compartments) >= 2:
                boxes.append(box)
        elif (len(box.compartments) >= 2
              and all(_inside(boxes[i].rect, box.rect)
                      and not _similar(box.rect, boxes[i].rect, 6)
                      and len(boxes[i].compartments) < len(box.compartments) for i in same)):
            boxes = [b for i, b in enumerate(boxes) if i not in same] + [box]
        elif (len(same) == 1 and _similar(box.rect, boxes[same[0]].rect, 6)
              and len(boxes[same[0]].compartments) == 1 < len(box.compartments)):
            # the same box, its rules too faint for the ink (dark on a dark fill)
            boxes[same[0]] = box
        elif _marked(edges, box.rect) and all(
                len(boxes[i].compartments) == 1 and _inside(box.rect, boxes[i].rect)
                and not _similar(box.rect, boxes[i].rect, 6) for i in same):
            # inside what the ink showed as one region: a package whose fill hides the
            # boxes in it from the ink; with two or more found in it, it is a frame (a
            # solid dark blot, a marker's scribble of a word, has nothing in it: no box)
            boxes.append(box)
            framed = True
    return _unframed(boxes, min_side) if framed else boxes


def _marked(edges: np.ndarray, rect: Rect) -> bool:
    """Whether anything is drawn inside ``rect`` (its rim left out): steps in brightness."""
    x0, y0, x1, y1 = (int(v) for v in rect)
    return bool(edges[y0 + 3:y1 - 3, x0 + 3:x1 - 3].any())


def _strokes(ink: np.ndarray, heights: Sequence[float], edges: Callable[[], np.ndarray]
             ) -> np.ndarray:
    """``ink`` where it is strokes; where it is areas (a box filled dark, or the fill round
    light letters, which is darker than they are), the steps in brightness there instead:
    the outline of a filled box is where its fill meets the paper, whatever their
    brightness. An area is ink a line of text high (and 9 pixels) and two lines long: a
    stroke, even a marker's, is narrower, a marker's scribble of a word lower, and a filled
    icon (PlantUML's circled kind letter) shorter. ``heights``: of the lines of text read."""
    import numpy as np

    line = int(np.median(heights)) if len(heights) else 18
    high, long = max(9, line | 1), max(9, 2 * line + 1)
    areas = _line_min(_line_min(ink, long, 1), high, 0)
    if not areas.any():
        return ink
    # grown back, and a few pixels more: the outline at the area's edge
    areas = _line_max(_line_max(areas, long + 8, 1), high + 8, 0)
    return np.where(areas, edges(), ink)


def _package_tab(ink: np.ndarray, box: ClassBox) -> bool:
    """Whether ``box`` is a package's (or a frame's) name tab: one compartment whose bottom
    side runs on to the right as the top of the frame below it, as far as the tab is wide
    or to the frame's own corner, where it turns down. A class box's sides end at its
    corners."""
    import numpy as np

    if len(box.compartments) != 1:
        return False
    x0, y0, x1, y1 = (int(v) for v in box.rect)
    reach = max(40, x1 - x0)
    band = np.asarray(ink[max(0, y1 - 2):y1 + 6, x1 + 6:x1 + 6 + reach]).any(axis=0)
    if band.shape[0] < reach:
        return False
    if float(band.mean()) >= 0.95:
        return True
    # a frame narrower than twice its tab: its top runs on unbroken, then turns down
    run = int(np.argmin(band))
    if run < 20:
        return False
    end = x1 + 6 + run
    side = np.asarray(ink[y1 + 4:y1 + 4 + 2 * (y1 - y0), end - 6:end])
    above = np.asarray(ink[max(0, y1 - (y1 - y0)):max(0, y1 - 3), end - 6:end])
    return bool(side.size and side.all(axis=0).any() and not above.any())


def _frame_tab(ink: np.ndarray, box: ClassBox) -> bool:
    """Whether ``box`` is a UML frame's name tab (``class Shop``, ``pkg Model``): one
    compartment in the frame's top-left corner, so that its top side runs on to the right
    as the frame's top (40 pixels: a frame may be little wider than its tab) and its left
    side runs on down as the frame's left (twice the tab's height at least). A class box's
    sides end at its corners."""
    import numpy as np

    if len(box.compartments) != 1:
        return False
    x0, y0, x1, y1 = (int(v) for v in box.rect)
    right, down = 40, max(40, 2 * (y1 - y0))
    top = np.asarray(ink[max(0, y0 - 5):y0 + 1, x1 + 4:x1 + 4 + right]).any(axis=0)
    left = np.asarray(ink[y1 + 4:y1 + 4 + down, max(0, x0 - 5):x0 + 1]).any(axis=1)
    return (top.shape[0] == right and left.shape[0] == down
            and float(top.mean()) >= 0.95 and float(left.mean()) >= 0.95)


def _grown(rect: Rect, by: float) -> Rect:
    return (rect[0] - by, rect[1] - by, rect[2] + by, rect[3] + by)


def _similar(a: Rect, b: Rect, slack: float) -> bool:
    return all(abs(p - q) <= slack for p, q in zip(a, b, strict=True))


def _overlap(a: Rect, b: Rect) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _boxes(ink: np.ndarray, min_side: int, cover: float = 0.85, overlap: int = 0
           ) -> list[ClassBox]:
    """The class boxes outlined by ``ink``: enclosed, nearly rectangular regions."""
    import numpy as np
    from scipy import ndimage

    labels, count = ndimage.label(~ink)
    if count == 0:
        return []
    outside = set(np.unique(np.concatenate(
        [labels[0, :], labels[-1, :], labels[:, 0], labels[:, -1]])).tolist())
    sizes = np.bincount(labels.ravel(), minlength=count + 1)
    slices = ndimage.find_objects(labels)
    parts: list[Rect] = []
    thin: list[Rect] = []  # empty compartments: a few pixels high
    for index, found in enumerate(slices, start=1):
        if found is None or index in outside:
            continue
        height = found[0].stop - found[0].start
        width = found[1].stop - found[1].start
        if width < 2 * min_side or height < 3:
            continue
        # Text inside a compartment is ink, so the region's own pixels fill less than all of
        # its rectangle: compare with the rectangle minus that ink.
        area = height * width
        inked = int(ink[found].sum())
        if sizes[index] < 0.8 * max(1, area - inked):
            continue
        rect = (float(found[1].start), float(found[0].start), float(found[1].stop),
                float(found[0].stop))
        if height < min_side:
            if sizes[index] >= 0.8 * area:
                thin.append(rect)
        elif _outlined(ink, rect, cover):
            parts.append(rect)
    return _stack(_uncut(parts, ink), thin, overlap, min_side, ink)


def _uncut(parts: list[Rect], ink: np.ndarray) -> list[Rect]:
    """``parts`` with a header cut short by the icon in it made whole again: a part right
    over a wider one below, sharing its right (or left) side, whose top and bottom rules
    run on, unbroken, to the wider part's other side (PlantUML's circled kind letter can
    touch both rules of a low header; the piece beside it is too narrow to be a part), and
    the cut, less the pieces as high beside it, is no wider than an icon. A package's name
    tab sits over its frame too, but its top ends where the tab does."""
    import numpy as np

    out = list(parts)
    whole: list[Rect] = []
    for k, part in enumerate(parts):
        x0, y0, x1, y1 = part
        tolerance = max(6.0, 0.04 * (x1 - x0))
        for below in parts:
            if not 0 <= below[1] - y1 <= 18 or below[2] - below[0] <= x1 - x0 + tolerance:
                continue
            if abs(below[2] - x1) <= tolerance and below[0] < x0 - tolerance:
                gap = slice(int(below[0]) + 2, int(x0))
            elif abs(below[0] - x0) <= tolerance and below[2] > x1 + tolerance:
                gap = slice(int(x1), int(below[2]) - 2)
            else:
                continue
            rules = [np.asarray(ink[max(0, int(y) - 3):int(y) + 3, gap]).any(axis=0)
                     for y in (y0, y1)]
            # what of the cut no piece as high covers: an icon and its margins
            beside = sum(max(0.0, min(o[2], gap.stop) - max(o[0], gap.start)) for o in parts
                         if o is not part and abs(o[1] - y0) <= 4 and abs(o[3] - y1) <= 4)
            narrow = gap.stop - gap.start - beside <= 2.5 * (y1 - y0)
            if narrow and all(r.size and float(r.mean()) >= 0.95 for r in rules):
                out[k] = (min(x0, below[0]), y0, max(x1, below[2]), y1)
                whole.append(out[k])
                break
    # the pieces the icon left are inside the part made whole
    return [p for p in dict.fromkeys(out) if p in whole
            or not any(_inside(p, w) for w in whole)]


def _outlined(ink: np.ndarray, rect: Rect, cover: float = 0.85) -> bool:
    """Whether ink runs along all four sides of ``rect``: a compartment is drawn with four
    strokes; a loop of relation lines has slanted sides. The band reaches inside the
    rectangle as far as outside it: a box in a photo is a trapezoid (perspective), so its
    bounding rectangle touches each side only at one end, and the rest runs inside."""
    import numpy as np

    height, width = ink.shape
    x0, y0, x1, y1 = (int(v) for v in rect)
    across = 4 + int(0.04 * (x1 - x0))
    down = 4 + int(0.04 * (y1 - y0))

    def band(rows: slice, cols: slice, axis: int) -> float:
        return float(np.asarray(ink[rows, cols]).any(axis=axis).mean())

    top = band(slice(max(0, y0 - across), y0 + across), slice(x0, x1), 0)
    bottom = band(slice(max(0, y1 - across), min(height, y1 + across)), slice(x0, x1), 0)
    left = band(slice(y0, y1), slice(max(0, x0 - down), x0 + down), 1)
    right = band(slice(y0, y1), slice(max(0, x1 - down), min(width, x1 + down)), 1)
    return min(top, bottom, left, right) >= cover


def _stack(parts: list[Rect], thin: list[Rect] = [], overlap: int = 0,  # noqa: B006
           min_side: int = 12, ink: np.ndarray | None = None) -> list[ClassBox]:
    """Group compartments into class boxes: same left/right edges, touching vertically; an
    empty (thin) compartment joins a box but never starts one. ``overlap``: how far regions
    of thickened strokes may overlap and still stack. With ``ink``: only across a rule
    (two boxes of the same width one over the other have paper between them)."""
    starts = len(parts)
    parts = sorted(parts, key=lambda r: (r[1], r[0])) + sorted(thin, key=lambda r: r[1])
    used = [False] * len(parts)
    boxes: list[ClassBox] = []
    for i, first in enumerate(parts[:starts]):
        if used[i]:
            continue
        used[i] = True
        column = [first]
        while True:
            last = column[-1]
            # a hand-drawn box's sides wander
            tolerance = max(6.0, (0.05 if overlap else 0.04) * (last[2] - last[0]))
            nxt = next((j for j, r in enumerate(parts) if not used[j]
                        and abs(r[0] - last[0]) <= tolerance
                        and abs(r[2] - last[2]) <= tolerance
                        and -overlap <= r[1] - last[3] <= 18
                        and not _paper_between(ink, last, r)), None)
            if nxt is None:
                break
            used[nxt] = True
            column.append(parts[nxt])
        rect = (min(r[0] for r in column), column[0][1], max(r[2] for r in column),
                column[-1][3])
        boxes.append(ClassBox(rect, tuple(column)))
    return _unframed(boxes, min_side)


def _unframed(boxes: list[ClassBox], min_side: int) -> list[ClassBox]:
    """``boxes`` less frames and the boxes inside others."""
    # A frame round class boxes (a package's body, a UML frame) is no class: the boxes in
    # it are. It is one region holding two or more boxes of a class's size, or one with
    # compartments of its own that leaves room round it. Any other region inside another
    # (an icon's interior or a check box, a note's fold, the paper inside a doubled
    # stroke) is not a class of its own.
    frames = [o for o in boxes if len(o.compartments) == 1 and _frame(o, [
        b for b in boxes if b is not o and _inside(b.rect, o.rect)
        and b.rect[3] - b.rect[1] >= 2 * min_side])]
    return [b for b in boxes if not any(b is f for f in frames) and not any(
        o is not b and _inside(b.rect, o.rect) and not any(o is f for f in frames)
        for o in boxes)]


def _paper_between(ink: np.ndarray | None, upper: Rect, lower: Rect) -> bool:
    """Whether three rows or more between ``upper`` and ``lower`` are mostly free of ink
    (one such row is the gap in a doubled rule)."""
    import numpy as np

    if ink is None:
        return False
    x0, x1 = int(max(upper[0], lower[0])), int(min(upper[2], lower[2]))
    rows = np.asarray(ink[int(upper[3]):int(lower[1]), x0:x1])
    if rows.shape[0] < 3 or not rows.size:
        return False
    free = rows.mean(axis=1) < 0.5
    return bool((free[:-2] & free[1:-1] & free[2:]).any())


def _frame(outer: ClassBox, inner: list[ClassBox]) -> bool:
    """Whether ``outer`` is a frame round the class boxes ``inner`` (those inside it)."""
    if len(inner) >= 2:
        return True
    return bool(inner) and len(inner[0].compartments) >= 2 and (
        _area(inner[0].rect) <= 0.8 * _area(outer.rect))


def _area(rect: Rect) -> float:
    return (rect[2] - rect[0]) * (rect[3] - rect[1])


def _inside(inner: Rect, outer: Rect) -> bool:
    return (inner[0] >= outer[0] - 1 and inner[1] >= outer[1] - 1 and inner[2] <= outer[2] + 1
            and inner[3] <= outer[3] + 1)
