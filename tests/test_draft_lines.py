"""Issue 29: the offline draft tells a dashed line (a dependency) from a solid one by the
rhythm of its pieces, not by their number: a solid line that falls apart where other lines
cross it (an editor's line jumps) stays an association, and a dashed line keeps its kind
even with an arrowhead at its end. Drawn here with PIL; the text OCR would read is given
by hand, so no OCR engine runs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image, ImageDraw

from cluestudio.core.draft import draft_from_ocr
from cluestudio.core.model import RelationType
from cluestudio.core.ocr import Box, OcrResult, TextLine
from cluestudio.core.ocr.layout import find_layout

INK = (30, 30, 30)
WIDTH, HEIGHT = 900, 500
LEFT, RIGHT = (40, 170, 220, 330), (680, 170, 860, 330)
Y = 250  # the line between the two boxes


def _draft(draw_line: Callable[[ImageDraw.ImageDraw, int], None], stroke: int = 1,
           labels: tuple[TextLine, ...] = ()) -> list[tuple[RelationType, str, str]]:
    """Two class boxes, Left and Right, and what ``draw_line`` draws between them;
    ``labels``: text OCR read beside the line."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    for x0, y0, x1, y1 in (LEFT, RIGHT):
        draw.rectangle((x0, y0, x1, y1), outline=INK, width=stroke)
        draw.line((x0, y0 + 45, x1, y0 + 45), fill=INK, width=stroke)
    draw_line(draw, stroke)
    lines = []
    for name, (x0, y0, _x1, _y1) in (("Left", LEFT), ("Right", RIGHT)):
        rect = (x0 + 40, y0 + 8, x0 + 130, y0 + 38)
        draw.rectangle((rect[0] + 3, rect[1] + 8, rect[2] - 3, rect[3] - 8), fill=INK)
        lines.append(TextLine(name, Box.from_rect(*rect), 0.99))
    lines += labels
    pixels = np.asarray(image)
    ocr = OcrResult("0" * 64, "hand", WIDTH, HEIGHT, tuple(lines),
                    layout=find_layout(pixels, text=[line.box for line in lines]))
    return [(r.type, r.begin, r.end) for r in draft_from_ocr(pixels, ocr).diagram.relations]


def _dashes(draw: ImageDraw.ImageDraw, stroke: int, on: int, off: int, stop: int) -> None:
    for x in range(LEFT[2], stop, on + off):
        draw.line((x, Y, min(x + on, stop), Y), fill=INK, width=stroke)


def _arrowhead(draw: ImageDraw.ImageDraw, stroke: int) -> None:
    """An open arrowhead (two strokes) where the line meets Right."""
    tip = RIGHT[0]
    draw.line([(tip - 14, Y - 7), (tip, Y), (tip - 14, Y + 7)], fill=INK, width=stroke)


def test_a_solid_line_crossed_by_others_with_line_jumps_is_an_association() -> None:
    def crossed(draw: ImageDraw.ImageDraw, stroke: int) -> None:
        draw.line((LEFT[2], Y, RIGHT[0], Y), fill=INK, width=stroke)
        # three lines pass across it, each with a gap cut round the crossing (a line
        # jump), so the solid line falls into four pieces
        for x in (330, 450, 560):
            draw.rectangle((x - 4, Y - 4, x + 4, Y + 4), fill="white")
            draw.line((x, 60, x, 140), fill=INK, width=stroke)
            draw.line((x, 140, x, 440), fill=INK, width=stroke)
            draw.rectangle((x - 3, Y - 3, x + 3, Y + 3), fill="white")
            draw.line((x, Y - 2, x, Y + 2), fill=INK, width=stroke)

    assert _draft(crossed) == [(RelationType.ASSOCIATION, "Left", "Right")]


def test_a_dashed_line_is_a_dependency_with_or_without_an_arrowhead() -> None:
    def dashed(draw: ImageDraw.ImageDraw, stroke: int) -> None:
        _dashes(draw, stroke, 6, 5, RIGHT[0])

    def dashed_arrow(draw: ImageDraw.ImageDraw, stroke: int) -> None:
        _dashes(draw, stroke, 6, 5, RIGHT[0])
        _arrowhead(draw, stroke)

    assert _draft(dashed) == [(RelationType.DEPENDENCY, "Left", "Right")]
    assert _draft(dashed_arrow) == [(RelationType.DEPENDENCY, "Left", "Right")]
    # a drawing at a bigger scale: thicker strokes, longer dashes
    assert _draft(lambda d, s: _dashes(d, s, 14, 10, RIGHT[0]), stroke=3) == [
        (RelationType.DEPENDENCY, "Left", "Right")]



def test_a_small_diamond_under_a_multiplicity_s_text_box_is_still_read() -> None:
    """A PlantUML-sized filled diamond in hairlines, with the multiplicity beside it read
    by OCR in a box that covers the diamond too: a composition, not a plain end."""
    tip = LEFT[2]

    def composition(draw: ImageDraw.ImageDraw, stroke: int) -> None:
        draw.polygon([(tip, Y), (tip + 6, Y - 5), (tip + 12, Y), (tip + 6, Y + 5)],
                     outline=INK, fill=INK)
        draw.line((tip + 12, Y, RIGHT[0], Y), fill=INK, width=stroke)
        for x in (tip + 4, tip + 10, tip + 16):  # "0..1" written under the line
            draw.rectangle((x, Y + 9, x + 2, Y + 17), fill=INK)

    multiplicity = TextLine("0..1", Box.from_rect(tip + 1, Y - 3, tip + 22, Y + 20), 0.9)
    assert _draft(composition, labels=(multiplicity,)) == [
        (RelationType.COMPOSITION, "Left", "Right")]
