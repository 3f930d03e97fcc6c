"""A whiteboard photographed from the side, made here (issue 29): three class boxes with
their names and attributes written in, seen from the left and a little below (its far side
shorter, its sides leaning), with a phone's grain; and where each class name's letters are
in the photo's own pixels, to compare the check's marks with."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cluestudio.core.ocr.resample import homography

WIDTH, HEIGHT = 1400, 1000
# Class name → top left of its box on the board.
CLASSES = {"Order": (120, 120), "Customer": (760, 120), "Invoice": (120, 560)}
# Where the board's corners land in the photo (top left first, clockwise).
CORNERS = ((90, 50), (1330, 150), (1350, 850), (60, 960))
# The conversion of the board with its Invoice class dropped.
WITHOUT_INVOICE = ("@startuml\nclass Order {\n  id : int\n  total : float\n}\n"
                   "class Customer {\n  id : int\n  total : float\n}\n"
                   "Order -- Customer\n@enduml\n")
Rect = tuple[float, float, float, float]


def _board() -> tuple[Image.Image, dict[str, Rect]]:
    board = Image.new("RGB", (WIDTH, HEIGHT), (232, 234, 230))
    draw = ImageDraw.Draw(board)
    name_font, member_font = ImageFont.load_default(size=44), ImageFont.load_default(size=36)
    ink = (40, 45, 60)
    words = {}
    for name, (x, y) in CLASSES.items():
        draw.rectangle((x, y, x + 480, y + 320), outline=ink, width=6)
        draw.line((x, y + 90, x + 480, y + 90), fill=ink, width=6)
        words[name] = draw.textbbox((x + 90, y + 20), name, font=name_font)
        draw.text((x + 90, y + 20), name, fill=ink, font=name_font)
        for k, member in enumerate(("id : int", "total : float")):
            draw.text((x + 30, y + 120 + 60 * k), member, fill=ink, font=member_font)
    draw.line((600, 280, 760, 280), fill=ink, width=6)
    draw.line((360, 440, 360, 560), fill=ink, width=6)
    return board, words


def _to_photo() -> np.ndarray:
    """The homography taking a point of the board to the photo's pixel showing it."""
    rect = np.array([(0, 0), (WIDTH, 0), (WIDTH, HEIGHT), (0, HEIGHT)], np.float64)
    return homography(rect, np.array(CORNERS, np.float64))


def in_photo(rect: Rect) -> Rect:
    """The bounding rectangle, in the photo, of ``rect`` on the board."""
    x0, y0, x1, y1 = rect
    corners = _to_photo() @ np.array([[x0, x1, x1, x0], [y0, y0, y1, y1], [1, 1, 1, 1]])
    xs, ys = corners[:2] / corners[2]
    return float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())


def class_box_in_photo(name: str) -> Rect:
    """Where the class box of ``name`` is in the photo (its bounding rectangle)."""
    x, y = CLASSES[name]
    return in_photo((x, y, x + 480, y + 320))


def side_on_photo() -> tuple[bytes, dict[str, Rect]]:
    """(the photo as a phone's JPEG, each class name's bounding rectangle in it)."""
    board, words = _board()
    back = np.linalg.inv(_to_photo())
    back /= back[2, 2]
    photo = board.transform((WIDTH, HEIGHT), Image.Transform.PERSPECTIVE,
                            tuple(back.ravel()[:8]), Image.Resampling.BICUBIC,
                            fillcolor=(120, 118, 110))
    grain = np.random.default_rng(5).normal(0, 3.0, (HEIGHT, WIDTH, 1))
    pixels = np.clip(np.asarray(photo) + grain, 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="JPEG", quality=90)
    return out.getvalue(), {name: in_photo(word) for name, word in words.items()}
