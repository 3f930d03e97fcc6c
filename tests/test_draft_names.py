"""Classes the offline draft gets from what OCR read in their boxes (issue 29): OCR slips
on real renders that the draft can tell from the drawing itself. Boxes are drawn here in
PlantUML's thin strokes, and the text OCR would read is given by hand, so no OCR engine
runs: a space OCR reads inside one name, a box whose lines are all members (its header not
found), two boxes that read the same name once a glued letter is taken for PlantUML's
circled kind letter, a package tab over a frame narrower than twice the tab, a type
parameter box too small to read, a closed region round a label and a multiplicity; and a
class whose compartments the layout found apart (a photo's rules that do not meet its
sides, a header whose outline never closed, a box with no rules at all).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image, ImageDraw

from cluestudio.core.draft import draft_from_ocr
from cluestudio.core.draft.convert import DraftResult
from cluestudio.core.ocr import Box, OcrResult, TextLine
from cluestudio.core.ocr.layout import find_layout

WIDTH, HEIGHT = 800, 500
INK = (40, 40, 40)
Text = tuple[str, tuple[int, int, int, int], float]


def _class_box(draw: ImageDraw.ImageDraw, x0: int, y0: int, x1: int, y1: int,
               rules: tuple[int, ...] = ()) -> None:
    draw.rectangle((x0, y0, x1, y1), outline=INK, width=1)
    for y in rules:
        draw.line((x0, y, x1, y), fill=INK, width=1)


def _write(draw: ImageDraw.ImageDraw, texts: list[Text]) -> None:
    for _text, (x0, y0, x1, y1), _conf in texts:
        # a stand-in for letters: short strokes across the middle of the line's box (only
        # where OCR says text is matters to the draft)
        for x in range(x0 + 2, x1 - 2, 4):
            draw.line((x, y0 + 4, x, y1 - 4), fill=INK, width=1)


def _drafted(texts: list[Text], drawing: Callable[[ImageDraw.ImageDraw], None]
             ) -> DraftResult:
    image = Image.new("RGB", (WIDTH, HEIGHT), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    drawing(draw)
    _write(draw, texts)
    pixels = np.asarray(image)
    lines = tuple(TextLine(text, Box.from_rect(*rect), conf) for text, rect, conf in texts)
    layout = find_layout(pixels, text=[line.box for line in lines])
    ocr = OcrResult("0" * 64, "hand", WIDTH, HEIGHT, lines, layout=layout)
    return draft_from_ocr(pixels, ocr)


def _draft(texts: list[Text], drawing: Callable[[ImageDraw.ImageDraw], None]) -> list[str]:
    return sorted(_drafted(texts, drawing).diagram.class_names)


def test_a_space_ocr_read_inside_a_name_is_left_out() -> None:
    texts: list[Text] = [("Shipm entPlanner", (70, 64, 200, 82), 0.97),
                         ("- runs : int", (62, 100, 160, 116), 0.98)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _class_box(draw, 50, 50, 260, 150, rules=(90, 125))

    assert _draft(texts, drawing) == ["ShipmentPlanner"]


def test_a_box_whose_lines_are_all_members_is_no_class() -> None:
    # the header of the left box was not found (its text bridged its rules); what is left
    # is a compartment of ``Type name`` lines, not a class named after its longest word
    texts: list[Text] = [("Clock clock", (62, 62, 150, 78), 0.81),
                         ("Barometer barometer", (62, 82, 210, 98), 0.87),
                         ("Reading", (380, 64, 460, 82), 0.99),
                         ("- value : float", (362, 100, 480, 116), 0.98)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _class_box(draw, 50, 50, 260, 110)
        _class_box(draw, 350, 50, 560, 150, rules=(90, 125))

    assert _draft(texts, drawing) == ["Reading"]


def test_two_boxes_are_told_apart_by_a_letter_glued_to_the_name() -> None:
    # ``IPriceService``: OCR did not read the circle; its I is the name's own letter, since
    # taking it for the circled kind letter gives the other box's name
    texts: list[Text] = [("IPriceService", (80, 64, 210, 82), 0.99),
                         ("PriceService", (390, 64, 510, 82), 0.99)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _class_box(draw, 50, 50, 260, 150, rules=(90, 125))
        _class_box(draw, 350, 50, 560, 150, rules=(90, 125))

    assert _draft(texts, drawing) == ["IPriceService", "PriceService"]


def test_a_package_tab_over_a_narrow_frame_is_no_class() -> None:
    # PlantUML's package: a name tab whose bottom is the top of the frame below it; the
    # frame here is less than twice as wide as its tab, so its top runs on past the tab
    # for less than the tab's width before it turns down at the frame's corner
    texts: list[Text] = [("Dispatcher", (104, 103, 186, 118), 1.0),
                         ("Dispatcher", (130, 194, 220, 212), 1.0)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        draw.rectangle((100, 100, 190, 120), outline=INK, width=2)  # the tab
        draw.rectangle((100, 120, 250, 330), outline=INK, width=2)  # the frame
        _class_box(draw, 115, 180, 235, 290, rules=(220, 255))

    assert _draft(texts, drawing) == ["Dispatcher"]


def _dashed_box(draw: ImageDraw.ImageDraw, x0: int, y0: int, x1: int, y1: int) -> None:
    """PlantUML's type-parameter box: paper inside, a dashed outline (3 px on, 1 off)."""
    draw.rectangle((x0, y0, x1, y1), fill=(255, 255, 255))
    for x in range(x0, x1 + 1):
        if (x - x0) % 4 != 3:
            draw.point([(x, y0), (x, y1)], fill=INK)
    for y in range(y0, y1 + 1):
        if (y - y0) % 4 != 3:
            draw.point([(x0, y), (x1, y)], fill=INK)


def test_a_type_parameter_box_too_small_to_read_gives_the_members_type_variables() -> None:
    # a nested generic class: OCR reads nothing in the 9-px box over its corner, but the
    # box is drawn, and the members use T: the class is ``Stack.Cell<T>``, as its PlantUML
    # names it. The same members in a box without that corner box make no generic class.
    texts: list[Text] = [("Stack.Cell", (90, 64, 190, 82), 0.99),
                         ("~T item", (62, 96, 140, 112), 0.99),
                         ("~Cell<T> below", (62, 114, 190, 130), 0.99),
                         ("Shelf", (420, 64, 480, 82), 0.99),
                         ("~T item", (362, 96, 440, 112), 0.99)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _class_box(draw, 50, 50, 250, 160, rules=(88, 140))
        _dashed_box(draw, 243, 46, 252, 64)
        _class_box(draw, 350, 50, 560, 160, rules=(88, 140))

    draft = _drafted(texts, drawing)
    assert sorted(draft.diagram.class_names) == ["Shelf", "Stack.Cell<T>"]
    assert 'class "Stack.Cell<T>" as Stack_Cell {' in draft.puml
    assert "class Shelf {" in draft.puml


def test_a_type_parameter_comma_read_as_a_dot_is_no_part_of_the_name() -> None:
    # OCR reads the small ``K, V`` over the corner as ``K.V`` (or ``K;V``, ``K V``): still
    # the class's type parameters, not glued to its name as ``K.VLedger``
    for read in ("K.V", "K;V", "K V"):
        texts: list[Text] = [(read, (236, 38, 262, 54), 0.75),
                             ("Ledger", (110, 56, 180, 74), 0.99),
                             ("- total : int", (62, 96, 180, 112), 0.98)]

        def drawing(draw: ImageDraw.ImageDraw) -> None:
            _class_box(draw, 50, 46, 250, 150, rules=(80, 130))
            _dashed_box(draw, 232, 36, 266, 56)

        draft = _drafted(texts, drawing)
        assert list(draft.diagram.class_names) == ["Ledger"], read
        assert "class Ledger<K, V> {" in draft.puml, read


def _marker(draw: ImageDraw.ImageDraw, x0: int, y0: int, x1: int, y1: int) -> None:
    """A box in 4-px marker strokes."""
    draw.line((x0, y0, x1, y0), fill=INK, width=4)
    draw.line((x1, y0, x1, y1), fill=INK, width=4)
    draw.line((x0, y1, x1, y1), fill=INK, width=4)
    draw.line((x0, y0, x0, y1), fill=INK, width=4)


def _members(draft: DraftResult) -> dict[str, list[str]]:
    return {c.name: [m.name for m in (*c.attributes, *c.methods)]
            for c in draft.diagram.classes}


def test_a_box_of_members_right_under_a_header_box_is_that_class_s_rest() -> None:
    # a photo: the rule under the header does not meet the right side, so the header and
    # the members are two boxes of their own, one under the other
    texts: list[Text] = [("Kettle", (100, 62, 180, 92), 0.99),
                         ("+boil()", (70, 120, 150, 150), 0.95)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _marker(draw, 50, 50, 260, 102)
        _marker(draw, 52, 106, 244, 190)

    assert _members(_drafted(texts, drawing)) == {"Kettle": ["boil"]}


def test_a_name_on_the_open_top_of_a_box_of_members_is_its_header() -> None:
    # the header's outline is not there (a board wiped at the top): the name sits on the
    # top edge of the box of members below it
    texts: list[Text] = [("Courier", (90, 48, 200, 84), 1.0),
                         ("-wage: Int", (70, 100, 220, 130), 0.95),
                         ("+deliver()", (70, 150, 170, 180), 0.95)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _marker(draw, 50, 76, 260, 140)
        _marker(draw, 50, 140, 260, 200)

    draft = _drafted(texts, drawing)
    assert _members(draft) == {"Courier": ["wage", "deliver"]}


def test_a_box_without_rules_keeps_the_members_under_its_name() -> None:
    texts: list[Text] = [("<<abstract» Appliance", (80, 62, 240, 92), 0.9),
                         ("-mass : float", (70, 110, 220, 140), 0.96)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _marker(draw, 50, 50, 270, 170)

    assert _members(_drafted(texts, drawing)) == {"Appliance": ["mass"]}


def test_a_closed_region_round_a_label_and_a_multiplicity_is_no_class() -> None:
    # two relation lines between the same boxes close a region round their label and an
    # end's multiplicity; a multiplicity is drawn at a line's end, never in a class box
    texts: list[Text] = [("Parcel", (90, 64, 200, 84), 0.99),
                         ("CoveredBy", (390, 64, 500, 84), 1.0),
                         ("1", (520, 110, 530, 126), 1.0)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _class_box(draw, 50, 50, 260, 100)
        _class_box(draw, 350, 50, 560, 140)

    assert _draft(texts, drawing) == ["Parcel"]


def test_a_class_named_like_a_palette_shape_keeps_its_members() -> None:
    # "Package" or "Note" over members is a class of the model (an editor's palette shows
    # such words over an empty sample shape); "Class" over members is still a sample class
    texts: list[Text] = [("Package", (90, 64, 180, 82), 0.99),
                         ("- weight : float", (62, 100, 200, 116), 0.98),
                         ("Class", (410, 64, 470, 82), 0.99),
                         ("+ attribute : type", (362, 100, 520, 116), 0.98),
                         ("Note", (110, 214, 160, 232), 0.99)]

    def drawing(draw: ImageDraw.ImageDraw) -> None:
        _class_box(draw, 50, 50, 260, 150, rules=(90, 125))
        _class_box(draw, 350, 50, 560, 150, rules=(90, 125))
        _class_box(draw, 50, 200, 260, 300, rules=(240, 275))  # a sample shape, empty

    assert _draft(texts, drawing) == ["Package"]
