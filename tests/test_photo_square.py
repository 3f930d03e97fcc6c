"""A whiteboard photographed from the side (issue 29): its class boxes come out as
trapezoids and parallelograms, which the layout takes for no boxes. Before OCR the photo is
seen square-on (``ocr.photo.squared``); renders and photos held square are left alone."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from cluestudio.core.ocr.layout import find_layout
from cluestudio.core.ocr.photo import squared
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
