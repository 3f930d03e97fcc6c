"""Issue 29: a dashed line (a dependency, a realization) is told from a solid one where the
ink mask's one-pixel thickening and anti-aliasing have joined its dashes, a few px apart,
into one stroke: the dashes are found again on the grey image, as the pixels nearly as
dark as the line usually is. Lines drawn here with PIL (4× supersampled, then shrunk: a
renderer's anti-aliasing), dashed and solid, 1-3 px thick, orthogonal and slanting; a
solid line with a label's box taken out of it stays solid."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image, ImageDraw

from cluestudio.core.draft.relations import is_dashed, stroke_width
from cluestudio.core.draft.stroke_ink import dash_cores
from cluestudio.core.ocr.layout import ink_mask

UP = 4
SIZE = 300


def _line(dash: float, gap: float, width: float, angle: float, label: bool = False
          ) -> tuple[np.ndarray, np.ndarray]:
    """(grey image, its ink mask) of a line 240 px long at ``angle`` degrees, ``width`` px
    thick, dashed ``dash`` on and ``gap`` off (solid for 0); ``label``: a label's box
    (which the tracer takes out of the strokes) cut out of its middle."""
    image = Image.new("L", (SIZE * UP, SIZE * UP), 255)
    draw = ImageDraw.Draw(image)
    along = (math.cos(math.radians(angle)), math.sin(math.radians(angle)))
    x0, y0, length = 30.0, 150 - 60 * along[1], 240.0

    def at(t: float) -> tuple[float, float]:
        return ((x0 + along[0] * t) * UP, (y0 + along[1] * t) * UP)

    pen = max(1, round(width * UP))
    if dash:
        t = 0.0
        while t < length:
            draw.line([at(t), at(min(length, t + dash))], fill=40, width=pen)
            t += dash + gap
    else:
        draw.line([at(0), at(length)], fill=40, width=pen)
    gray = np.asarray(image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)).astype(np.float32)
    mask = ink_mask(gray.copy())
    if label:
        cx, cy = (v / UP for v in at(length / 2))
        mask[int(cy) - 8:int(cy) + 8, int(cx) - 25:int(cx) + 25] = False
    return gray, mask


ANGLES = (0, 90, 17, 33, 45, 71)


@pytest.mark.parametrize("width", [1, 1.5, 2, 3])
# (gaps of 2 px are found orthogonally and mostly on a slant, not always: not asserted)
@pytest.mark.parametrize(("dash", "gap"), [(5, 3), (6, 3), (8, 3), (7, 7)])
def test_dashes_the_thickened_mask_joins_are_found_on_the_grey_image(
        dash: float, gap: float, width: float) -> None:
    joined = 0
    for angle in ANGLES:
        gray, mask = _line(dash, gap, width, angle)
        stroke = stroke_width(mask)
        joined += not is_dashed(mask, stroke)
        assert is_dashed(dash_cores(mask, gray), stroke), angle
    if gap <= 3 and width >= 1.5:
        # (the case this is for: on the mask alone these dashes are one stroke)
        assert joined >= len(ANGLES) // 2


@pytest.mark.parametrize("width", [0.8, 1, 1.5, 2, 3])
@pytest.mark.parametrize("label", [False, True])
def test_a_solid_line_stays_solid_at_any_slant(width: float, label: bool) -> None:
    for angle in range(0, 91, 5):
        gray, mask = _line(0, 0, width, angle, label)
        assert not is_dashed(dash_cores(mask, gray), stroke_width(mask)), angle


def test_a_solid_line_stays_solid_in_noise() -> None:
    rng = np.random.default_rng(29)
    for width in (1, 2):
        for angle in (0, 27, 90):
            gray, _mask = _line(0, 0, width, angle)
            gray = np.clip(gray + rng.normal(0, 12, gray.shape), 0, 255).astype(np.float32)
            mask = ink_mask(gray.copy())
            assert not is_dashed(dash_cores(mask, gray), stroke_width(mask)), (width, angle)
