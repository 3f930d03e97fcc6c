"""Issue 29: a relation's kind is read from the small heads a renderer draws — hollow and
filled diamonds, hollow triangles, notched arrowheads, one pixel thin and anti-aliased —
on a line that leaves its box at a slant (as a spline or a polyline does), at any scale,
with a multiplicity written right beside the head. Drawn here with PIL (4× supersampled,
then shrunk: the anti-aliasing a renderer gives); the text OCR would read is given by
hand, so no OCR engine runs."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from cluestudio.core.draft import draft_from_ocr
from cluestudio.core.model import RelationType
from cluestudio.core.ocr import Box, OcrResult, TextLine
from cluestudio.core.ocr.layout import find_layout

SIZE = 640
UP = 4  # supersampling
INK = (40, 40, 40)


def _draft_of(head: str, scale: float, slant: float, label: bool = True
              ) -> list[tuple[RelationType, str, str]]:
    """Boxes Orchard (top) and Sapling (below, off to the side by ``slant`` × the drop),
    one line between them, ``head`` where it meets Orchard, strokes ``scale`` px thick."""
    image = Image.new("RGB", (SIZE * UP, SIZE * UP), "white")
    draw = ImageDraw.Draw(image)
    width = max(1, round(scale * UP))
    orchard, sapling = (60, 60, 260, 200), (int(60 + 300 * slant), 440,
                                            int(260 + 300 * slant), 580)
    for x0, y0, x1, y1 in (orchard, sapling):
        draw.rectangle((x0 * UP, y0 * UP, x1 * UP, y1 * UP), outline=INK, fill=(254, 254, 238),
                       width=width)
        draw.line((x0 * UP, (y0 + 40) * UP, x1 * UP, (y0 + 40) * UP), fill=INK, width=width)
    tip = np.array([160.0, 200.0])
    far = np.array([(sapling[0] + sapling[2]) / 2, 440.0])
    along = (far - tip) / np.hypot(*(far - tip))
    across = np.array([-along[1], along[0]])

    def at(*points: np.ndarray) -> list[tuple[float, float]]:
        return [(float(p[0]) * UP, float(p[1]) * UP) for p in points]

    size = 1.0 + scale  # heads grow with the drawing, like a renderer's at its scale
    start = tip
    if head in ("hollow diamond", "filled diamond"):
        length, half = 13 * size / 2, 4.5 * size / 2
        mid = tip + along * length / 2
        outline = at(tip, mid + across * half, tip + along * length, mid - across * half)
        start = tip + along * length
    elif head == "hollow triangle":
        length, half = 11 * size / 2, 6.5 * size / 2
        base = tip + along * length
        outline = at(tip, base + across * half, base - across * half)
        start = base
    elif head == "arrowhead":
        length, half, notch = 10 * size / 2, 4.5 * size / 2, 3.5 * size / 2
        base = tip + along * length
        outline = at(tip, base + across * half, tip + along * (length - notch),
                     base - across * half)
        start = tip + along * (length - notch)
    else:
        outline = []
    draw.line(at(start, far), fill=INK, width=width)
    if outline:
        fill = INK if head in ("filled diamond", "arrowhead") else "white"
        draw.polygon(outline, outline=INK, fill=fill, width=width)
    lines = []
    if label:  # a multiplicity beside the head, as a renderer places it
        lines.append(_write(draw, "0..1", (tip[0] - 34, tip[1] + 4, tip[0] - 6, tip[1] + 16)))
    for name, (x0, y0, _x1, _y1) in (("Orchard", orchard), ("Sapling", sapling)):
        lines.append(_write(draw, name, (x0 + 50, y0 + 10, x0 + 150, y0 + 32), bar=True))
    shrunk = image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    pixels = np.asarray(shrunk)
    ocr = OcrResult("0" * 64, "hand", SIZE, SIZE, tuple(lines),
                    layout=find_layout(pixels, text=[line.box for line in lines]))
    return [(r.type, r.begin, r.end) for r in draft_from_ocr(pixels, ocr).diagram.relations]


def _write(draw: ImageDraw.ImageDraw, text: str, rect: tuple[float, float, float, float],
           bar: bool = False) -> TextLine:
    """Ink where OCR would read ``text``: a bar for a name, small glyph-like marks for a
    multiplicity (strokes with gaps, as letters are)."""
    x0, y0, x1, y1 = (v * UP for v in rect)
    if bar:
        draw.rectangle((x0 + 8, y0 + 20, x1 - 8, y1 - 20), fill=INK)
    else:
        step = (x1 - x0) / 4
        for i in range(4):
            draw.ellipse((x0 + i * step + 4, y0 + 4, x0 + (i + 1) * step - 4, y1 - 4),
                         outline=INK, width=UP)
    return TextLine(text, Box.from_rect(*rect), 0.99)


EXPECTED = {
    "hollow diamond": (RelationType.AGGREGATION, "Orchard", "Sapling"),
    "filled diamond": (RelationType.COMPOSITION, "Orchard", "Sapling"),
    "hollow triangle": (RelationType.GENERALIZATION, "Sapling", "Orchard"),
    "arrowhead": (RelationType.ASSOCIATION, "Sapling", "Orchard"),
}


# Known limits (strict: they fail today, and the mark goes when they are read): a notched
# arrowhead this small on a slant loses its barbs to the opening that removes lines and is
# not told from a plain end; a hollow diamond at scale 0.6 (a 0.6 px outline round
# 10 × 7 px) closes in too little paper to be hollow.
_NOT_YET = {("arrowhead", 1.0, 0.5), ("arrowhead", 1.0, 0.9), ("arrowhead", 0.6, 0.7),
            ("hollow diamond", 0.6, 0.7)}
CASES = [pytest.param(head, scale, slant, marks=[pytest.mark.xfail(
             strict=True, reason="a known limit")] if (head, scale, slant) in _NOT_YET else [])
         for head in EXPECTED
         for scale, slant in [(1.0, 0.5), (1.0, 0.9), (0.6, 0.7), (2.0, 0.6)]]


@pytest.mark.parametrize(("head", "scale", "slant"), CASES)
def test_a_small_head_on_a_slanting_line_gives_the_relation_its_kind(
        head: str, scale: float, slant: float) -> None:
    assert _draft_of(head, scale, slant) == [EXPECTED[head]]


def test_a_plain_end_beside_a_multiplicity_is_no_head() -> None:
    # the multiplicity's round glyphs beside the line close paper in: no diamond, no
    # triangle
    assert _draft_of("none", 1.0, 0.6)[0][0] == RelationType.ASSOCIATION
