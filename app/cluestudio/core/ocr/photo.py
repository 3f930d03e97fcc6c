"""A photographed diagram seen square-on: its perspective taken out before OCR (issue 29).

A board or a sheet photographed from the side shows its boxes as trapezoids and
parallelograms: the top and bottom sides slope, the left and right sides lean, each by its
own angle, and the angles change across the picture (perspective). The layout finds a box
as an enclosed region that nearly fills its bounding rectangle; a compartment 60 px high
whose rules slope by 8° over 200 px fills two thirds of it, and is lost, whatever the
deskew's one rotation does. Here the slope of the diagram's horizontal strokes is measured
in its upper and its lower half, the lean of its vertical strokes in its left and its right
half (each the angle whose profile of ink is sharpest); the four lines through the halves'
middles at those angles bound a quadrilateral, which a homography takes to a rectangle.
Renders and screenshots (straight strokes, flat fills) and photos held square are left as
they are.
numpy, scipy and Pillow only.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# Strokes are measured on a copy this many pixels on its longer side (the angles do not
# need more, and the search stays a few tens of milliseconds).
MEASURE_SIDE = 800
# Slopes and leans searched, in degrees either way: a phone held up to 25° from square-on
# to a board, and turned a little.
MAX_ANGLE = 20.0
# How far the vertical strokes' lean may differ from a turn's (the horizontal ones' slope,
# mirrored): the shear of a board seen from the side, not an italic hand's slant or the
# slanting lines of relations.
MAX_SHEAR = 12.0
# How much sharper strokes must be at an angle than at the one expected (square, or the
# whole drawing's) to be taken: the strokes of a perspective line up several times over; a
# reflection's outline or a few slanting lines gain a fifth at most (measured).
CLEARLY_SHARPER = 1.3
# Below this (degrees) the strokes slope too little to tell a render turned from one not.
SQUARE_ENOUGH = 1.0
# A photo's perspective is taken out where its strokes shear (vertical ones lean other than
# a turn of the horizontal ones would make them) or converge (its halves' angles differ) by
# this many degrees or more, or where it is turned by more than the layout's deskew takes
# well (MAX_TURN; it searches ±5°).
MIN_SKEW = 2.5
MAX_TURN = 4.0
# The fewest ink pixels (of the measuring copy) a half must have to measure its angle.
MIN_INK = 400
# The most ink pixels the angles are measured on (a regular sample of them beyond that).
MAX_POINTS = 40_000


def grainy(gray: np.ndarray) -> bool:
    """Whether ``gray`` (float H×W) has a photo's grain: most pixels' 3×3 neighbourhoods
    span more than 2 grey levels (a render's or a screenshot's fills are flat; a photo's
    grain can be smoothed away by its JPEG, so this alone does not tell)."""
    import numpy as np
    from scipy import ndimage

    spread = ndimage.maximum_filter(gray, size=3) - ndimage.minimum_filter(gray, size=3)
    return float(np.mean(spread <= 2)) < 0.5


def strokes(gray: np.ndarray) -> np.ndarray:
    """The ink of ``gray`` that is strokes: not areas (a dark wall or desk round the board,
    a filled shape), whose edges would outweigh the drawing's lines."""
    from cluestudio.core.ocr.layout import _line_max, _line_min, ink_mask

    ink = ink_mask(gray)
    areas = _line_min(_line_min(ink, 15, 1), 15, 0)
    return ink & ~_line_max(_line_max(areas, 21, 1), 21, 0)


def _sharpest(xs: np.ndarray, ys: np.ndarray, vertical: bool, around: float = 0.0,
              span: float = MAX_ANGLE) -> float:
    """The angle (degrees) of the strokes the points ``xs, ys`` of ink draw: for horizontal
    strokes their slope (dy/dx = tan), for vertical ones their lean (dx/dy = tan); the one
    along which the points' profile is sharpest (strokes become single peaks), within
    ``span`` of ``around``, and ``around`` itself unless the best is clearly sharper."""
    import numpy as np

    along, across = (ys, xs) if vertical else (xs, ys)

    def sharpness(angle: float) -> float:
        t = math.radians(angle)
        offset = across * math.cos(t) - along * math.sin(t)
        counts = np.bincount((offset - offset.min()).astype(np.intp))
        return float(np.square(np.diff(counts.astype(np.float64))).sum())

    def best_of(angles: list[float]) -> float:
        return max((sharpness(a), -abs(a), a) for a in angles)[2]  # ties: the smaller

    coarse = best_of([float(a) for a in np.arange(around - span, around + span + 0.5, 1.0)])
    best = best_of([coarse + d for d in (-0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75)])
    return best if sharpness(best) >= CLEARLY_SHARPER * sharpness(around) else around


def _meet(p: tuple[float, float], slope: float, q: tuple[float, float], lean: float
          ) -> tuple[float, float]:
    """Where the line through ``p`` of ``slope`` (dy/dx) meets the one through ``q`` of
    ``lean`` (dx/dy)."""
    # y = p_y + (x - p_x) slope; x = q_x + (y - q_y) lean
    x = (q[0] + (p[1] - q[1] - p[0] * slope) * lean) / (1 - slope * lean)
    return x, p[1] + (x - p[0]) * slope


def perspective_quad(ink: np.ndarray, grain: bool = True
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """(the quadrilateral the diagram's strokes show, the rectangle it should be), corner
    for corner (top left first, clockwise), in ``ink``'s pixels; None where the strokes
    are square enough or too few to tell. Without ``grain`` (no photo's, see
    :func:`grainy`) the horizontal strokes (rules, lines of text: many, and reliable) must
    slope as a whole: a render's never do, and a lean of its vertical ones alone (italic
    names, slanting lines, few box sides) is no evidence."""
    import numpy as np

    ys, xs = np.nonzero(ink)
    if len(xs) < 2 * MIN_INK:
        return None
    # every k-th point is enough for the angles (and keeps each profile a fraction of a ms)
    step = max(1, len(xs) // MAX_POINTS)
    xs, ys = xs[::step].astype(np.float64), ys[::step].astype(np.float64)
    whole_slope = _sharpest(xs, ys, vertical=False)
    if not grain and abs(whole_slope) < SQUARE_ENOUGH:
        return None
    whole_lean = _sharpest(xs, ys, vertical=True, around=-whole_slope, span=MAX_SHEAR)
    mid_x, mid_y = float(np.median(xs)), float(np.median(ys))

    def half(chosen: np.ndarray, vertical: bool, whole: float) -> tuple[float, float]:
        """(the half's angle, the middle of its points across the strokes)."""
        place = float(np.median(xs[chosen] if vertical else ys[chosen]))
        if int(chosen.sum()) < MIN_INK:
            return whole, place
        return _sharpest(xs[chosen], ys[chosen], vertical, whole, span=6.0), place

    top, y_top = half(ys < mid_y, False, whole_slope)
    bottom, y_bottom = half(ys >= mid_y, False, whole_slope)
    left, x_left = half(xs < mid_x, True, whole_lean)
    right, x_right = half(xs >= mid_x, True, whole_lean)
    angles = (top, bottom, left, right)
    # A photo only turned a little is left to the layout's deskew, with OCR reading it as
    # taken (resampled, a letter can read otherwise: a whiteboard's "Animal" as "Anima|");
    # one seen from the side (sheared, its sides converging) or turned further is squared.
    skew = max(abs(whole_slope + whole_lean), abs(top - bottom), abs(left - right))
    if skew < MIN_SKEW and abs(whole_slope) <= MAX_TURN:
        return None
    slopes = [math.tan(math.radians(a)) for a in angles]
    # horizontal strokes slope one way when vertical ones lean the other (a turn), so the
    # lean is measured as dx/dy with y down: a turn by t gives slope tan t, lean -tan t
    quad = np.array([
        _meet((mid_x, y_top), slopes[0], (x_left, mid_y), slopes[2]),
        _meet((mid_x, y_top), slopes[0], (x_right, mid_y), slopes[3]),
        _meet((mid_x, y_bottom), slopes[1], (x_right, mid_y), slopes[3]),
        _meet((mid_x, y_bottom), slopes[1], (x_left, mid_y), slopes[2])])
    square = np.array([(x_left, y_top), (x_right, y_top), (x_right, y_bottom),
                       (x_left, y_bottom)], np.float64)
    if not np.isfinite(quad).all() or x_right - x_left < 20 or y_bottom - y_top < 20:
        return None
    return quad, square


def _measuring_copy(gray: np.ndarray, factor: int) -> np.ndarray:
    """``gray`` shrunk ``factor`` times by the mean of each block, and softened: a photo's
    sensor noise, left as it is, would be ink speckled all over the board and the wall."""
    from scipy import ndimage

    height, width = (n - n % factor for n in gray.shape)
    blocks = gray[:height, :width].reshape(height // factor, factor, width // factor, factor)
    return ndimage.gaussian_filter(blocks.mean(axis=(1, 3)), 1.0)


def squared(pixels: np.ndarray) -> np.ndarray:
    """``pixels`` (H×W×3 uint8) with a photo's perspective taken out, the diagram's strokes
    horizontal and vertical again; the same array where it is no photo or held square."""
    import numpy as np
    from PIL import Image

    from cluestudio.core.ocr.layout import upright_gray
    from cluestudio.core.ocr.resample import homography

    height, width = pixels.shape[:2]
    factor = max(1, math.ceil(max(height, width) / MEASURE_SIDE))
    gray = upright_gray(pixels, 0.0)
    ink = strokes(_measuring_copy(gray, factor))
    found = perspective_quad(ink, grainy(gray[::factor, ::factor]))
    if found is None:
        return pixels
    quad, square = (corners * factor for corners in found)
    forward = homography(quad, square)
    # the picture's frame after the turn: round where the drawing goes (the ink's extent
    # taken forward), not its far corners, which perspective can throw far off
    ys, xs = np.nonzero(ink)
    points = np.stack([xs * factor, ys * factor, np.ones(len(xs))])
    moved = forward @ points
    moved = moved[:2] / moved[2]
    low = np.percentile(moved, 2, axis=1)
    high = np.percentile(moved, 98, axis=1)
    margin = 0.1 * (high - low)
    low, high = low - margin, high + margin
    # no bigger than the photo was, give or take (its letters keep their size, near enough)
    scale = min(1.0, math.sqrt(1.3 * width * height / max(1.0, float(np.prod(high - low)))))
    size = (max(32, int((high[0] - low[0]) * scale)), max(32, int((high[1] - low[1]) * scale)))
    frame = np.array([[scale, 0, -low[0] * scale], [0, scale, -low[1] * scale], [0, 0, 1]])
    back = np.linalg.inv(frame @ forward)
    back /= back[2, 2]
    paper = tuple(int(v) for v in np.percentile(pixels[::factor, ::factor].reshape(-1, 3),
                                                90, axis=0))
    turned = Image.fromarray(pixels).transform(size, Image.Transform.PERSPECTIVE,
                                               tuple(back.ravel()[:8]),
                                               Image.Resampling.BICUBIC, fillcolor=paper)
    return np.asarray(turned)
