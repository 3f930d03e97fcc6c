"""Issue 29: the offline draft reads a relation's kind from the shape at the line's end —
a hollow diamond is an aggregation, a filled one a composition, a hollow triangle a
generalization, an arrowhead (filled or two strokes) a directed association — whatever the
drawing's stroke width, head size and direction. Drawn here with PIL; the text OCR would
read is given by hand, so no OCR engine runs."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from cluestudio.core.draft import draft_from_ocr
from cluestudio.core.model import RelationType
from cluestudio.core.ocr import Box, OcrResult, TextLine
from cluestudio.core.ocr.layout import find_layout

INK = (30, 30, 30)
SIZE = 700


def _draft_of(head: str, stroke: int, length: int, vertical: bool, slant: int = 0
              ) -> list[tuple[RelationType, str, str]]:
    """Two class boxes, Whole and Part, joined by one line; ``head`` drawn where the line
    meets Whole, ``length`` px long; ``slant``: how far the line's far end is off straight."""
    image = Image.new("RGB", (SIZE, SIZE), "white")
    draw = ImageDraw.Draw(image)
    if vertical:
        whole, part = (250, 60, 450, 200), (250, 480, 450, 620)
        tip, along, far = np.array([350.0, 200 + stroke / 2]), np.array([0.0, 1.0]), (
            350.0 + slant, 480.0)
    else:
        whole, part = (40, 250, 220, 420), (480, 250, 660, 420)
        tip, along, far = np.array([220.0 + stroke / 2, 335.0]), np.array([1.0, 0.0]), (
            480.0, 335.0 + slant)
    for x0, y0, x1, y1 in (whole, part):
        draw.rectangle((x0, y0, x1, y1), outline=INK, width=stroke)
        draw.line((x0, y0 + 45, x1, y0 + 45), fill=INK, width=stroke)
    across = np.array([-along[1], along[0]]) * length * 0.3

    def at(v: np.ndarray) -> tuple[float, float]:
        return float(v[0]), float(v[1])

    base = tip + along * length
    if head in ("hollow diamond", "filled diamond"):
        mid = tip + along * length / 2
        outline = [at(tip), at(mid + across), at(base), at(mid - across)]
    elif head in ("hollow triangle", "filled arrowhead"):
        outline = [at(tip), at(base + 1.2 * across), at(base - 1.2 * across)]
    else:  # an open arrowhead (two strokes) or none
        outline, base = [], tip
        if head == "open arrowhead":
            back = tip + along * length * 0.7
            draw.line([at(back + across), at(tip), at(back - across)], fill=INK, width=stroke)
    draw.line([at(base), far], fill=INK, width=stroke)
    if outline:
        filled = INK if head in ("filled diamond", "filled arrowhead") else None
        draw.polygon(outline, outline=INK, fill=filled, width=stroke)
    lines = []
    for name, (x0, y0, _x1, _y1) in (("Whole", whole), ("Part", part)):
        rect = (x0 + 40, y0 + 8, x0 + 130, y0 + 38)
        draw.rectangle((rect[0] + 3, rect[1] + 8, rect[2] - 3, rect[3] - 8), fill=INK)
        lines.append(TextLine(name, Box.from_rect(*rect), 0.99))
    pixels = np.asarray(image)
    ocr = OcrResult("0" * 64, "hand", SIZE, SIZE, tuple(lines),
                    layout=find_layout(pixels, text=[line.box for line in lines]))
    return [(r.type, r.begin, r.end) for r in draft_from_ocr(pixels, ocr).diagram.relations]


EXPECTED = {
    "hollow diamond": (RelationType.AGGREGATION, "Whole", "Part"),
    "filled diamond": (RelationType.COMPOSITION, "Whole", "Part"),
    "hollow triangle": (RelationType.GENERALIZATION, "Part", "Whole"),
    "filled arrowhead": (RelationType.ASSOCIATION, "Part", "Whole"),
    "open arrowhead": (RelationType.ASSOCIATION, "Part", "Whole"),
    "none": (RelationType.ASSOCIATION, "Whole", "Part"),
}


@pytest.mark.parametrize("head", list(EXPECTED))
@pytest.mark.parametrize(("stroke", "length", "vertical"), [
    (1, 16, False),  # a PlantUML-sized head in hairlines
    (1, 40, True),  # a big head in an export drawn at a large scale
    (2, 26, True),
    (4, 36, False),  # marker strokes
    (6, 60, True),
])
def test_the_head_at_a_line_s_end_gives_the_relation_its_kind(
        head: str, stroke: int, length: int, vertical: bool) -> None:
    assert _draft_of(head, stroke, length, vertical) == [EXPECTED[head]]


@pytest.mark.parametrize("head", ["hollow diamond", "filled diamond", "hollow triangle"])
def test_a_slanting_line_keeps_its_head(head: str) -> None:
    assert _draft_of(head, 2, 30, False, slant=14) == [EXPECTED[head]]
