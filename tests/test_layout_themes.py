"""The layout on boxes drawn the way PlantUML themes draw them (issue 29): a dark fill with
light letters, a grey gradient with a faint border, a light fill on a coloured package, a
header cut by its circled icon, two boxes of one width one over the other. Drawn here with
PIL, so no renderer or OCR runs: a box is a closed region whose fill differs from what is
round it, whichever is the darker."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cluestudio.core.ocr import Box
from cluestudio.core.ocr.layout import find_layout
from cluestudio.core.ocr.result import ClassBox

Colour = tuple[int, int, int]
FONT = ImageFont.load_default(size=15)
LINE = 20  # a line of text's height, as OCR gives it


def _box(draw: ImageDraw.ImageDraw, x0: int, y0: int, lines: list[list[str]], *,
         fill: Colour, text: Colour, border: Colour, rule: Colour, width: int = 190,
         icon: Colour | None = None) -> list[Box]:
    """A class box at (x0, y0): one compartment per list of lines (the first: the name),
    rules between them; ``icon``: a circle at the header's left that touches both of its
    rules. Returns where the lines of text are (as OCR would give them)."""
    heights = [max(1, len(part)) * LINE + 10 for part in lines]
    y1 = y0 + sum(heights) + len(heights) - 1
    draw.rectangle((x0, y0, x0 + width, y1), fill=fill, outline=border)
    read, top = [], y0
    for k, part in enumerate(lines):
        if k:
            draw.line((x0, top, x0 + width, top), fill=rule)
        left = x0 + (45 if k == 0 and icon else 12)
        if k == 0 and icon:
            draw.ellipse((x0 + 8, top, x0 + 8 + heights[0], top + heights[0]),
                         fill=icon, outline=text)
        for i, words in enumerate(part):
            y = top + 5 + i * LINE
            draw.text((left, y + 2), words, fill=text, font=FONT)
            read.append(Box.from_rect(left, y, left + 9 * len(words), y + LINE))
        top += heights[k] + 1
    return read


def _gradient(image: Image.Image, rect: tuple[int, int, int, int], top: int, bottom: int
              ) -> None:
    """Fill ``rect`` with a vertical grey gradient from ``top`` to ``bottom``."""
    x0, y0, x1, y1 = rect
    pixels = np.asarray(image).copy()
    shades = np.linspace(top, bottom, y1 - y0).astype(np.uint8)
    pixels[y0:y1, x0:x1] = shades[:, None, None]
    image.paste(Image.fromarray(pixels))


def _found(image: Image.Image, text: list[Box]) -> list[ClassBox]:
    return list(find_layout(np.asarray(image), text=text).boxes)


def _one_over(boxes: list[ClassBox], x: int, y: int) -> ClassBox:
    found = [b for b in boxes if b.rect[0] - 4 <= x <= b.rect[2] + 4
             and b.rect[1] - 4 <= y <= b.rect[3] + 4]
    assert len(found) == 1, [b.rect for b in boxes]
    return found[0]


MEMBERS = [["Harbour"], ["berths : int", "depth : float"], ["moor(ship) : void"]]


def test_filled_boxes_with_light_letters_are_found_with_their_compartments() -> None:
    # a mid-blue fill: darker than the letters on it, so the ink takes the fill round
    # every letter for strokes and cuts the compartments up; and a dark one
    image = Image.new("RGB", (700, 330), "white")
    draw = ImageDraw.Draw(image)
    text = []
    for x0, fill in ((40, (52, 152, 219)), (260, (52, 152, 219)), (480, (62, 62, 66))):
        text += _box(draw, x0, 60, MEMBERS, fill=fill, text=(250, 250, 250),
                     border=fill, rule=(235, 235, 235))
    boxes = _found(image, text)
    assert len(boxes) == 3, [b.rect for b in boxes]
    for x0 in (40, 260, 480):
        box = _one_over(boxes, x0 + 95, 100)
        assert len(box.compartments) == 3
        assert abs(box.rect[0] - x0) <= 8 and abs(box.rect[2] - (x0 + 190)) <= 8


def test_a_dark_paper_with_light_outlined_boxes() -> None:
    # a dark theme's whole page: the paper is as dark as ink, the boxes' fill darker still
    image = Image.new("RGB", (520, 330), (40, 40, 40))
    draw = ImageDraw.Draw(image)
    text = []
    for x0 in (40, 290):
        text += _box(draw, x0, 60, MEMBERS, fill=(20, 20, 20), text=(120, 230, 120),
                     border=(120, 230, 120), rule=(120, 230, 120))
    boxes = _found(image, text)
    assert len(boxes) == 2, [b.rect for b in boxes]
    assert all(len(b.compartments) == 3 for b in boxes)


def test_faint_borders_on_a_grey_gradient_are_found() -> None:
    # a light fill darkening downwards on white, its border only 12 grey levels darker
    # than the paper: no ink anywhere but the letters
    image = Image.new("RGB", (700, 330), "white")
    text = []
    for x0 in (40, 260, 480):
        _gradient(image, (x0, 60, x0 + 191, 60 + 3 * 30 + 20 + 3), 248, 215)
        draw = ImageDraw.Draw(image)
        draw.rectangle((x0, 60, x0 + 190, 60 + 112), outline=(243, 243, 243))
        for y in (91, 142):
            draw.line((x0, y, x0 + 190, y), fill=(252, 252, 252))
        for k, words in enumerate(["Harbour", "berths : int", "moor() : void"]):
            y = 60 + 5 + [0, 31, 82][k]
            draw.text((x0 + 12, y + 2), words, fill=(30, 30, 30), font=FONT)
            text.append(Box.from_rect(x0 + 12, y, x0 + 12 + 9 * len(words), y + LINE))
    boxes = _found(image, text)
    assert len(boxes) == 3, [b.rect for b in boxes]
    assert all(len(b.compartments) == 3 for b in boxes)


def test_light_boxes_on_a_coloured_package_are_its_classes_not_the_package() -> None:
    # the package's fill is darker than its boxes' and no ink outlines either: the ink
    # sees one region, the package; the boxes in it are the classes
    image = Image.new("RGB", (760, 360), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 40, 740, 340), fill=(243, 151, 155))
    text = []
    for x0 in (60, 300, 520):
        text += _box(draw, x0, 90, MEMBERS, fill=(130, 200, 175), text=(250, 250, 250),
                     border=(130, 200, 175), rule=(150, 215, 190))
    boxes = _found(image, text)
    assert len(boxes) == 3, [b.rect for b in boxes]
    for x0 in (60, 300, 520):
        assert len(_one_over(boxes, x0 + 95, 130).compartments) == 3


def test_a_header_cut_by_its_icon_stays_one_header() -> None:
    # the circled kind letter as high as the header: it touches both of the header's rules
    image = Image.new("RGB", (520, 330), "white")
    draw = ImageDraw.Draw(image)
    text = []
    for x0 in (40, 290):
        text += _box(draw, x0, 60, MEMBERS, fill=(62, 62, 66), text=(235, 235, 235),
                     border=(45, 45, 48), rule=(95, 95, 100), icon=(150, 150, 155))
    boxes = _found(image, text)
    assert len(boxes) == 2, [b.rect for b in boxes]
    for x0 in (40, 290):
        box = _one_over(boxes, x0 + 120, 70)
        header = box.compartments[0]
        assert header[0] <= x0 + 4 and header[2] >= x0 + 186
        assert len(box.compartments) == 3


def test_two_boxes_of_one_width_one_over_the_other_stay_two() -> None:
    # the gap between them, under 18 pixels, is paper, not a compartment's rule
    image = Image.new("RGB", (320, 420), "white")
    draw = ImageDraw.Draw(image)
    text = _box(draw, 60, 40, MEMBERS, fill=(250, 250, 235), text=(20, 20, 20),
                border=(20, 20, 20), rule=(20, 20, 20))
    text += _box(draw, 60, 40 + 112 + 12, MEMBERS, fill=(250, 250, 235), text=(20, 20, 20),
                 border=(20, 20, 20), rule=(20, 20, 20))
    boxes = _found(image, text)
    assert len(boxes) == 2, [b.rect for b in boxes]
    assert all(len(b.compartments) == 3 for b in boxes)
