"""Issue 29: relations traced whatever the page and the line — light lines on a dark or
mid-grey page (a dark theme), lines that cross a package's frame on their way out of it,
lines that cross each other, a short dashed line with few dashes — drawn here with PIL;
the text OCR would read is given by hand, so no renderer or OCR engine runs."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cluestudio.core.draft import draft_from_ocr
from cluestudio.core.draft.convert import DraftResult
from cluestudio.core.draft.stroke_ink import frame_outlines, polarities
from cluestudio.core.model import RelationType
from cluestudio.core.ocr import Box, OcrResult, TextLine
from cluestudio.core.ocr.layout import find_layout

Colour = tuple[int, int, int]
FONT = ImageFont.load_default(size=15)
LINE = 20  # a line of text's height, as OCR gives it


def _box(draw: ImageDraw.ImageDraw, x0: int, y0: int, name: str, member: str, *,
         fill: Colour, ink: Colour, width: int = 170) -> list[TextLine]:
    """A class box at (x0, y0): its name over one member, a rule between. Returns the
    lines of text as OCR would give them."""
    y1 = y0 + 2 * (LINE + 10)
    draw.rectangle((x0, y0, x0 + width, y1), fill=fill, outline=ink)
    draw.line((x0, y0 + LINE + 10, x0 + width, y0 + LINE + 10), fill=ink)
    read = []
    for i, words in enumerate((name, member)):
        left, y = x0 + 12, y0 + 5 + i * (LINE + 10)
        draw.text((left, y + 2), words, fill=ink, font=FONT)
        read.append(TextLine(words, Box.from_rect(left, y, left + 9 * len(words), y + LINE),
                             0.99))
    return read


def _triangle(draw: ImageDraw.ImageDraw, tip: tuple[int, int], up: bool, ink: Colour,
              paper: Colour) -> None:
    """A hollow generalization head, its tip on a box's side (the box above it: ``up``)."""
    x, y = tip
    base = y + 14 if up else y - 14
    draw.polygon([(x, y), (x - 8, base), (x + 8, base)], fill=paper, outline=ink)


def _draft(image: Image.Image, text: list[TextLine]) -> DraftResult:
    pixels = np.asarray(image)
    ocr = OcrResult("0" * 64, "hand", image.width, image.height, tuple(text),
                    layout=find_layout(pixels, text=[line.box for line in text]))
    return draft_from_ocr(pixels, ocr)


def _drafted(image: Image.Image, text: list[TextLine]) -> set[tuple[RelationType, str, str]]:
    return {(r.type, r.begin, r.end) for r in _draft(image, text).diagram.relations}


def _two_children(page: Colour, fill: Colour, ink: Colour, frame: Colour | None = None
                  ) -> tuple[Image.Image, list[TextLine]]:
    """Vessel over Ferry and Barge, each a generalization of it by its own line; with
    ``frame``, Ferry and Barge sit in a package framed in that colour."""
    image = Image.new("RGB", (620, 420), page)
    draw = ImageDraw.Draw(image)
    if frame is not None:  # the package: a name tab over a frame round the children
        draw.rectangle((30, 215, 110, 235), outline=frame, width=2)
        draw.rectangle((30, 235, 590, 400), outline=frame, width=2)
    text = _box(draw, 220, 40, "Vessel", "tonnage : int", fill=fill, ink=ink)
    text += _box(draw, 60, 300, "Ferry", "decks : int", fill=fill, ink=ink)
    text += _box(draw, 390, 300, "Barge", "holds : int", fill=fill, ink=ink)
    vessel_bottom = 40 + 2 * (LINE + 10)
    for child_x, tip_x in ((145, 270), (475, 340)):
        # down from the parent's bottom, across, and down into the child: ortho lines
        draw.line((tip_x, vessel_bottom + 14, tip_x, 180), fill=ink, width=1)
        draw.line((tip_x, 180, child_x, 180), fill=ink, width=1)
        draw.line((child_x, 180, child_x, 300), fill=ink, width=1)
        _triangle(draw, (tip_x, vessel_bottom), True, ink, fill)
    return image, text


CHILDREN = {(RelationType.GENERALIZATION, "Ferry", "Vessel"),
            (RelationType.GENERALIZATION, "Barge", "Vessel")}


def test_light_lines_on_a_dark_page_are_traced() -> None:
    # a dark theme: light outlines and lines on a near-black page, darker box fills
    image, text = _two_children(page=(34, 36, 40), fill=(20, 20, 24), ink=(225, 225, 225))
    assert _drafted(image, text) == CHILDREN


def test_light_lines_on_a_mid_grey_page_with_black_package_frames() -> None:
    # a mid-grey page where the lines are white and a package frame black: the lines'
    # polarity is the light one
    image, text = _two_children(page=(119, 119, 119), fill=(45, 45, 45),
                                ink=(240, 240, 240), frame=(0, 0, 0))
    assert _drafted(image, text) == CHILDREN


def test_lines_crossing_a_package_frame_stay_apart() -> None:
    # both lines cross the frame's top on their way to the children: its outline would tie
    # them into one run with three boxes, drafted as one relation
    image, text = _two_children(page=(255, 255, 255), fill=(254, 254, 226),
                                ink=(24, 24, 24), frame=(24, 24, 24))
    assert _drafted(image, text) == CHILDREN


def test_a_frame_is_a_rectangle_round_a_box_and_ortho_lines_are_not() -> None:
    image, _text = _two_children(page=(255, 255, 255), fill=(254, 254, 226),
                                 ink=(24, 24, 24), frame=(24, 24, 24))
    gray = np.asarray(image.convert("L"), dtype=np.float32)
    (_gray, ink), = polarities(gray, [(60, 300, 230, 360), (390, 300, 560, 360)])
    lines = ink.copy()
    for x0, y0, x1, y1 in ((214, 34, 396, 106), (54, 294, 236, 366), (384, 294, 566, 366)):
        lines[y0:y1, x0:x1] = False  # the boxes, as the tracer clears them
    frames = frame_outlines(lines, [(220, 40, 390, 100), (60, 300, 230, 360),
                                    (390, 300, 560, 360)], 2)
    ys, xs = np.nonzero(frames)
    # the frame's four sides (the left one on up its name tab's), not the lines that
    # cross it nor the ortho lines above
    assert ys.min() >= 212 and ys.max() <= 403 and xs.min() >= 27 and xs.max() <= 593
    assert frames[236, 300] and frames[399, 300] and frames[300, 31] and frames[300, 589]
    assert not frames[236, 145] and not frames[236, 475]  # where the lines cross it


INK, FILL = (24, 24, 24), (254, 254, 226)  # a render's dark lines, light yellow boxes


def _boxes(size: tuple[int, int], boxes: list[tuple[int, int, str, str]]
           ) -> tuple[Image.Image, ImageDraw.ImageDraw, list[TextLine]]:
    """A white page of ``size`` with class boxes (x0, y0, name, member) on it."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    text = [line for x0, y0, name, member in boxes
            for line in _box(draw, x0, y0, name, member, fill=FILL, ink=INK)]
    return image, draw, text


def test_two_lines_that_cross_are_two_relations() -> None:
    # Pier's line to Quay crosses Dock's to Jetty: one run of strokes reaching four boxes,
    # followed line by line straight on over the crossing
    image, draw, text = _boxes((640, 460), [(40, 40, "Pier", "berths : int"),
                                            (430, 40, "Dock", "depth : int"),
                                            (40, 340, "Jetty", "length : int"),
                                            (430, 340, "Quay", "cranes : int")])
    ink, fill = INK, FILL
    # (the last stretch straight down into the head, which sits upright on Quay)
    draw.line([(125, 100), (515, 290), (515, 326)], fill=ink, width=1)
    _triangle(draw, (515, 340), False, ink, fill)  # Pier is a kind of Quay
    draw.line((515, 100, 125, 340), fill=ink, width=1)  # Dock — Jetty
    draft = _draft(image, text)
    assert {(r.type, r.begin, r.end) for r in draft.diagram.relations} == {
        (RelationType.GENERALIZATION, "Pier", "Quay"), (RelationType.ASSOCIATION, "Dock", "Jetty")}
    # a line followed over a crossing is less sure: the reviewer is asked to look
    assert sorted(d.element.split()[0] for d in draft.doubts if "followed" in d.reason) == [
        "Dock", "Pier"]


def _arrowhead(draw: ImageDraw.ImageDraw, tip: tuple[int, int], ink: Colour) -> None:
    """A filled, notched arrowhead pointing down at a box's top side (PlantUML's)."""
    x, y = tip
    draw.polygon([(x, y), (x - 7, y - 14), (x, y - 10), (x + 7, y - 14)], fill=ink)


def test_a_short_dashed_line_with_few_dashes_is_a_dependency() -> None:
    # dashes 10 px long with 10 px gaps (a render at scale 2): too far apart for the first
    # pass to join, too few between the boxes to show a rhythm
    image, draw, text = _boxes((420, 300), [(120, 30, "Ledger", "pages : int"),
                                            (120, 160, "Entry", "amount : int")])
    ink = INK
    for y in range(96, 156, 20):  # three dashes, then the arrowhead
        draw.line((205, y, 205, min(y + 10, 159)), fill=ink, width=2)
    _arrowhead(draw, (205, 159), ink)
    assert _drafted(image, text) == {(RelationType.DEPENDENCY, "Ledger", "Entry")}
