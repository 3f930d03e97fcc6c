"""A whiteboard photographed from the side (issue 29): its class boxes come out as
trapezoids and parallelograms, which the layout takes for no boxes. Before OCR the photo is
seen square-on (``ocr.photo.squared``); renders and photos held square are left alone. An
exam on ruled paper: its rules, edge to edge, cut the sheet into strips the layout takes for
boxes; a photo loses them before OCR (``ocr.photo.unruled``)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from cluestudio.core.ocr.layout import find_layout
from cluestudio.core.ocr.photo import prepared, squared, unruled
from cluestudio.core.ocr.resample import homography

WIDTH, HEIGHT = 1000, 760


def _board() -> Image.Image:
    """Two class boxes in marker on a light board: a header over members, scribbled text."""
    image = Image.new("RGB", (WIDTH, HEIGHT), (232, 234, 230))
    draw = ImageDraw.Draw(image)
    ink = (40, 45, 60)
    for x0, y0 in ((140, 160), (560, 300)):
        draw.rectangle((x0, y0, x0 + 300, y0 + 230), outline=ink, width=5)
        draw.line((x0, y0 + 70, x0 + 300, y0 + 70), fill=ink, width=5)
        # lines of "letters": short strokes, as handwriting's ink is
        for row, (left, count) in enumerate(((70, 7), (25, 11), (25, 9))):
            y = y0 + 22 if row == 0 else y0 + 50 + 50 * row
            for k in range(count):
                x = x0 + left + 22 * k
                draw.line((x, y, x + 8, y + 26), fill=ink, width=4)
                draw.line((x + 8, y + 26, x + 15, y + 4), fill=ink, width=4)
    draw.line((440, 300, 560, 400), fill=ink, width=5)
    return image


def _from_the_side(image: Image.Image, noise: float = 3.0) -> np.ndarray:
    """``image`` photographed from the left and a little below: its far side shorter, its
    sides leaning, its rules sloping; with a phone's grain."""
    corners = np.array([(70, 40), (930, 110), (950, 640), (40, 730)], np.float64)
    rect = np.array([(0, 0), (WIDTH, 0), (WIDTH, HEIGHT), (0, HEIGHT)], np.float64)
    back = homography(corners, rect)
    back /= back[2, 2]
    photo = image.transform((WIDTH, HEIGHT), Image.Transform.PERSPECTIVE,
                            tuple(back.ravel()[:8]), Image.Resampling.BICUBIC,
                            fillcolor=(120, 118, 110))
    return _grain(np.asarray(photo), noise)


def _grain(pixels: np.ndarray, noise: float) -> np.ndarray:
    grain = np.random.default_rng(5).normal(0, noise, (*pixels.shape[:2], 1))
    return np.clip(pixels + grain, 0, 255).astype(np.uint8)


def _class_boxes(pixels: np.ndarray) -> list:
    return [b for b in find_layout(pixels).boxes if len(b.compartments) == 2
            and b.rect[2] - b.rect[0] > 150]


def test_a_board_photographed_from_the_side_is_seen_square_on_and_its_boxes_found() -> None:
    photo = _from_the_side(_board())
    assert len(_class_boxes(photo)) < 2  # as it was taken: the sloping boxes are lost
    square = squared(photo)
    boxes = _class_boxes(square)
    assert len(boxes) == 2, [b.rect for b in find_layout(square).boxes]
    # the two boxes as drawn: as wide as each other, about as high as wide × 230/300
    widths = [b.rect[2] - b.rect[0] for b in boxes]
    heights = [b.rect[3] - b.rect[1] for b in boxes]
    assert abs(widths[0] - widths[1]) <= 0.12 * max(widths)
    for w, h in zip(widths, heights, strict=True):
        assert 0.6 <= h / w <= 0.95


def test_a_render_and_a_photo_held_square_are_left_as_they_are() -> None:
    render = np.asarray(_board())
    assert squared(render) is render
    held_square = _grain(render, 3.0)
    assert squared(held_square) is held_square


def _exam_sheet() -> Image.Image:
    """A sheet of ruled paper on a desk (faint blue rules every 30 px, edge to edge) with
    three name-only class boxes in pen, each crossed by a rule or two."""
    image = Image.new("RGB", (WIDTH, HEIGHT), (150, 110, 72))
    draw = ImageDraw.Draw(image)
    draw.rectangle((120, 60, 880, 700), fill=(247, 245, 236))
    for y in range(80, 700, 30):
        draw.line((120, y, 880, y), fill=(170, 190, 222), width=2)
    ink = (40, 45, 60)
    for x0, y0 in ((260, 150), (560, 300), (300, 480)):
        draw.rectangle((x0, y0, x0 + 200, y0 + 64), outline=ink, width=2)
        for k in range(6):  # the name: a pen's letters
            x = x0 + 40 + 22 * k
            draw.line((x, y0 + 20, x + 8, y0 + 46), fill=ink, width=2)
            draw.line((x + 8, y0 + 46, x + 15, y0 + 24), fill=ink, width=2)
    return image


def _name_boxes(pixels: np.ndarray) -> list:
    """The boxes found of a name-only class's size (the sheet's, not the desk's grain)."""
    return [b for b in find_layout(pixels).boxes
            if 150 <= b.rect[2] - b.rect[0] <= 260 and 40 <= b.rect[3] - b.rect[1] <= 90]


def test_an_exam_on_ruled_paper_loses_its_rules_before_the_layout() -> None:
    photo = _grain(np.asarray(_exam_sheet()), 3.0)
    # the rules run from edge to edge of the sheet: the strips between them are taken for
    # boxes, and the classes inside them for no class of their own
    assert len(_name_boxes(photo)) < 3
    seen = prepared(photo)
    boxes = _name_boxes(seen)
    assert len(boxes) == 3, [b.rect for b in find_layout(seen).boxes]
    for box in boxes:  # each as drawn, 200 × 64
        width, height = box.rect[2] - box.rect[0], box.rect[3] - box.rect[1]
        assert 190 <= width <= 215 and 55 <= height <= 75
    # the writing across the rules is kept: as dark as it was where a rule crosses a box
    assert seen[150:215, 260:263].min() <= photo[150:215, 260:263].min() + 10


def test_renders_keep_their_lines() -> None:
    render = np.asarray(_board())  # evenly spaced rows of writing, dark: no ruling
    assert unruled(render) is render
    ruled = np.asarray(_exam_sheet())  # without a photo's grain: not looked at
    assert prepared(ruled) is ruled
