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

import itertools
import math
from dataclasses import dataclass
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
    return _squared_and_back(pixels)[0]


def _squared_and_back(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(:func:`squared`'s pixels, the 3×3 matrix taking a point of them back to the
    photo's own pixel, None where the pixels are the photo's own)."""
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
        return pixels, None
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
    return np.asarray(turned), back


# A photographed exam on ruled or squared paper: once the sheet is square, its printed rules
# are level lines, evenly spaced, across the whole sheet, fainter than the writing; through
# a class box they cut its compartments into strips that the layout takes for boxes.
RULE_STRIPS = 8  # the sheet is looked at in this many strips across the rules
RULE_STRIPS_MET = 5  # a rule is a line found at the same height in this many strips or more
MIN_RULES = 6  # the fewest such lines, evenly spaced, that make a ruling


def _faint_lines(ratio: np.ndarray) -> list[tuple[float, int, int, float]]:
    """Thin faint lines across a strip (rows of ``ratio``, a pixel's brightness over the
    paper's round it): (middle, first row, last row, the line's brightness)."""
    import numpy as np

    faint = (ratio < 0.95) & (ratio > 0.45)
    rows = np.flatnonzero(faint.mean(axis=1) >= 0.45)
    found = []
    for run in np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1) if len(rows) else []:
        first, last = int(run[0]), int(run[-1])
        level = float(np.median(ratio[first:last + 1]))
        # thin, and lighter than writing: a pen's or a marker's line is darker
        if last - first <= 5 and 0.6 <= level <= 0.97:
            found.append(((first + last) / 2, first, last, level))
    return found


def _rules(ratio: np.ndarray) -> list[tuple[int, int, int, int, float]]:
    """The printed rules running along axis 1 of ``ratio``: (first row, last row, first
    column, end column, brightness) for each strip a rule was found in; [] where the
    faint lines across the sheet are too few or not evenly spaced to be a ruling."""
    import numpy as np

    bounds = np.linspace(0, ratio.shape[1], RULE_STRIPS + 1).astype(int).tolist()
    strips = [_faint_lines(ratio[:, left:right]) for left, right in itertools.pairwise(bounds)]
    # a rule runs across the sheet: a line at the same height (±2 px) in most strips
    rules: list[tuple[float, list[tuple[int, tuple[float, int, int, float]]]]] = []
    for middle in sorted({round(line[0]) for strip in strips for line in strip}):
        met = [(k, line) for k, strip in enumerate(strips) for line in strip
               if abs(line[0] - middle) <= 2]
        if (len({k for k, _ in met}) >= RULE_STRIPS_MET
                and not any(abs(middle - other) <= 3 for other, _ in rules)):
            rules.append((middle, met))
    if len(rules) < MIN_RULES:
        return []
    gaps = np.diff([middle for middle, _ in rules])
    step = float(np.median(gaps))
    if step < 8 or float(np.mean(np.abs(gaps - step) <= 0.12 * step)) < 0.6:
        return []
    return [(first, last, bounds[k], bounds[k + 1], level)
            for _middle, met in rules for k, (_m, first, last, level) in met]


def unruled(pixels: np.ndarray) -> np.ndarray:
    """``pixels`` (H×W×3 uint8, square-on) with the printed rules of ruled or squared paper
    wiped to the paper's colour where no writing crosses them (pixels darker than the rule
    are kept); the same array where there is no ruling."""
    import numpy as np
    from scipy import ndimage

    from cluestudio.core.ocr.layout import upright_gray

    gray = ndimage.gaussian_filter(upright_gray(pixels, 0.0), 1.0)
    ratio = gray / np.maximum(ndimage.maximum_filter(gray, size=9), 1.0)
    wipe = np.zeros(gray.shape, bool)
    for along in (ratio, ratio.T):  # rules across, then (squared paper) down
        marks = wipe if along is ratio else wipe.T
        for first, last, left, right, level in _rules(along):
            rows = slice(max(0, first - 1), last + 2)
            marks[rows, left:right] |= along[rows, left:right] >= level - 0.08
    if not wipe.any():
        return pixels
    out = pixels.copy()
    out[wipe] = ndimage.maximum_filter(pixels, size=(9, 9, 1))[wipe]
    return out


@dataclass(frozen=True)
class PreparedPhoto:
    """A photo as OCR and the layout see it, and the way back to the photo's own pixels."""

    pixels: np.ndarray  # H×W×3 uint8: square-on, the paper's rules wiped
    # 3×3 homography taking a point of ``pixels`` to the photo's pixel it shows (the matrix
    # PIL's PERSPECTIVE transform was given); None: ``pixels`` are in the photo's own frame
    back: np.ndarray | None = None


def prepared_photo(pixels: np.ndarray) -> PreparedPhoto:
    """A photo as OCR and the layout should see it: square-on (:func:`squared`) and, once
    squared, without the rules of the paper it was written on (:func:`unruled`; a render,
    a screenshot or a photo held square is left exactly as it is, ``back`` None)."""
    seen, back = _squared_and_back(pixels)
    if back is None and not _grainy_sample(pixels):
        return PreparedPhoto(pixels)  # a render or a screenshot: no paper (and no cost)
    return PreparedPhoto(unruled(seen), back)


def prepared(pixels: np.ndarray) -> np.ndarray:
    """:func:`prepared_photo`'s pixels."""
    return prepared_photo(pixels).pixels


def _grainy_sample(pixels: np.ndarray) -> bool:
    """:func:`grainy` on a copy of at most :data:`MEASURE_SIDE` pixels a side."""
    from cluestudio.core.ocr.layout import upright_gray

    factor = max(1, math.ceil(max(pixels.shape[:2]) / MEASURE_SIDE))
    return grainy(upright_gray(pixels[::factor, ::factor], 0.0))
