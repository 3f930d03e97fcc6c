"""The offline draft on drawings not in PlantUML's look (issue 29): boxes drawn here with PIL
the way a marker or another tool draws them (thick strokes, a corner that does not meet,
rounded corners, no compartment rules, a tree of generalizations), with the text OCR would
read given by hand, so no OCR engine runs. The draft says how sure it is, element by element.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from cluestudio.core.draft import draft_from_ocr
from cluestudio.core.draft.convert import DOUBT_MARK
from cluestudio.core.model import Class, ClassKind, RelationType
from cluestudio.core.ocr import Box, OcrResult, TextLine
from cluestudio.core.ocr.layout import find_layout

WIDTH, HEIGHT = 900, 700
Text = tuple[str, tuple[int, int, int, int], float]


def _canvas() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (WIDTH, HEIGHT), (235, 237, 233))  # a light board, not white
    return image, ImageDraw.Draw(image)


def _marker_box(draw: ImageDraw.ImageDraw, x0: int, y0: int, x1: int, y1: int,
                rule: int | None = None, gap: int = 0, radius: int = 0) -> None:
    """A box in 6 px marker strokes; ``gap``: the top side stops that short of the right
    side; ``radius``: rounded corners; ``rule``: a compartment line at that height."""
    ink = (40, 40, 45)
    if radius:
        draw.rounded_rectangle((x0, y0, x1, y1), radius=radius, outline=ink, width=6)
    else:
        draw.line((x0, y0, x1 - gap, y0), fill=ink, width=6)
        draw.line((x1, y0 - 3, x1, y1), fill=ink, width=6)
        draw.line((x0, y1, x1, y1), fill=ink, width=6)
        draw.line((x0, y0 - 3, x0, y1 + 3), fill=ink, width=6)
    if rule is not None:
        draw.line((x0 + 8, rule, x1 - gap - 2, rule), fill=ink, width=5)


def _write(draw: ImageDraw.ImageDraw, texts: list[Text]) -> None:
    for _text, (x0, y0, x1, y1), _conf in texts:
        # a stand-in for handwriting: a thick scribble filling the line's box, the way a
        # marker's letters do (only where OCR says text is matters here)
        draw.rectangle((x0 + 4, y0 + 10, x1 - 4, y1 - 10), fill=(40, 40, 45))


def _ocr(image: Image.Image, texts: list[Text]) -> tuple[np.ndarray, OcrResult]:
    pixels = np.asarray(image)
    lines = tuple(TextLine(text, Box.from_rect(*rect), conf) for text, rect, conf in texts)
    layout = find_layout(pixels, text=[line.box for line in lines])
    return pixels, OcrResult("0" * 64, "hand", WIDTH, HEIGHT, lines, layout=layout)


def test_marker_boxes_with_open_corners_and_round_corners_are_found() -> None:
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 320, 300, rule=150, gap=9)  # top side stops short
    _marker_box(draw, 520, 80, 820, 260, rule=150, radius=28)  # rounded
    texts: list[Text] = [("Library", (120, 95, 260, 140), 0.99),
                         ("name: str", (80, 170, 250, 210), 0.97),
                         ("Author", (590, 95, 740, 140), 0.99),
                         ("email: str", (540, 170, 720, 210), 0.96)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    draft = draft_from_ocr(pixels, ocr)
    assert set(draft.diagram.class_names) == {"Library", "Author"}
    members = {c.name: [a.name for a in c.attributes] for c in draft.diagram.classes}
    assert members == {"Library": ["name"], "Author": ["email"]}


def test_header_stereotype_on_the_name_line_and_a_name_over_two_lines() -> None:
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 420, 200)
    _marker_box(draw, 500, 80, 760, 260)
    texts: list[Text] = [("<<abstract》 Animal", (80, 110, 400, 160), 0.95),
                         ("Administrative", (520, 100, 740, 150), 0.98),
                         ("Employee", (550, 160, 710, 210), 0.98)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    draft = draft_from_ocr(pixels, ocr)
    kinds = {c.name: c.kind for c in draft.diagram.classes}
    assert kinds == {"Animal": ClassKind.ABSTRACT, "AdministrativeEmployee": ClassKind.CLASS}
    joined = [d for d in draft.doubts if d.element == "AdministrativeEmployee"]
    assert joined and "two lines" in joined[0].reason


def test_a_tree_of_generalizations_gives_each_child_its_parent() -> None:
    image, draw = _canvas()
    ink = (40, 40, 45)
    _marker_box(draw, 330, 60, 570, 160)  # parent
    for x0 in (60, 340, 620):
        _marker_box(draw, x0, 420, x0 + 220, 520)  # children
    # hollow triangle under the parent, one trunk, one branch to each child
    draw.polygon([(450, 166), (434, 192), (466, 192)], outline=ink, width=4)
    draw.line((450, 192, 450, 330), fill=ink, width=5)
    draw.line((170, 330, 730, 330), fill=ink, width=5)
    for x in (170, 450, 730):
        draw.line((x, 330, x, 414), fill=ink, width=5)
    texts: list[Text] = [("Animal", (390, 85, 510, 135), 0.99),
                         ("Duck", (120, 445, 230, 495), 0.99),
                         ("Fish", (400, 445, 500, 495), 0.99),
                         ("Horse", (680, 445, 790, 495), 0.99)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    draft = draft_from_ocr(pixels, ocr)
    found = {(r.type, r.begin, r.end) for r in draft.diagram.relations}
    assert found == {(RelationType.GENERALIZATION, child, "Animal")
                     for child in ("Duck", "Fish", "Horse")}


def test_the_draft_marks_what_it_read_with_doubt() -> None:
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 320, 300, rule=150)
    _marker_box(draw, 520, 80, 820, 300, rule=150)
    texts: list[Text] = [("Library", (120, 95, 260, 140), 0.99),
                         ("name: str", (80, 170, 250, 210), 0.62),
                         ("Autor", (590, 95, 740, 140), 0.58),
                         ("email: str", (540, 170, 720, 210), 0.97)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    draft = draft_from_ocr(pixels, ocr)
    doubts = {d.element: d for d in draft.doubts}
    assert set(doubts) == {"Autor", "Library.name : str"}
    assert doubts["Autor"].confidence == pytest.approx(0.58)
    lines = draft.puml.splitlines()
    # each doubt points at its element's line; a class is marked by a comment above it
    assert lines[doubts["Autor"].line - 1].startswith("class Autor")
    assert lines[doubts["Autor"].line - 2].startswith(DOUBT_MARK)
    assert lines[doubts["Library.name : str"].line - 1].strip() == "name : str"
    assert "Library" not in {d.element for d in draft.doubts}  # read surely: no mark


class _CountingEngine:
    """An OCR engine that reads the same two lines from any image and counts its reads."""

    engine_id = "counting-test-engine"

    def __init__(self) -> None:
        self.reads = 0

    def read(self, pixels: np.ndarray) -> list[TextLine]:
        self.reads += 1
        return [TextLine("Library", Box.from_rect(120, 95, 260, 140), 0.99),
                TextLine("name: str", Box.from_rect(80, 170, 250, 210), 0.97)]


def test_the_draft_reuses_the_reading_the_check_made() -> None:
    import io

    from cluestudio.core.draft.plugin import OfflineDraftConverter
    from cluestudio.core.ocr import OcrCache, read_image
    from cluestudio.core.vlm.backend import ImageInput, VLMRequest

    image, draw = _canvas()
    _marker_box(draw, 60, 80, 320, 300, rule=150)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    engine = _CountingEngine()
    with OcrCache() as cache:  # the user's cache (CLUESTUDIO_CACHE_DIR in tests)
        read_image(buffer.getvalue(), "a.png", engine=engine, cache=cache)
    assert engine.reads == 1
    answer = OfflineDraftConverter(engine=engine).complete(
        VLMRequest("convert", (ImageInput.from_bytes(buffer.getvalue()),)))
    assert "class Library" in answer.text and engine.reads == 1


def test_a_package_frame_s_name_tab_is_no_class() -> None:
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    ink = (30, 30, 30)
    draw.rectangle((40, 40, 160, 70), outline=ink, width=1)  # the tab, "App"
    draw.rectangle((40, 70, 700, 500), outline=ink, width=1)  # the frame below it
    draw.rectangle((120, 150, 360, 260), outline=ink, width=1)  # a class inside
    draw.line((120, 185, 360, 185), fill=ink, width=1)
    texts: list[Text] = [("App", (80, 45, 120, 66), 0.99), ("Clock", (200, 158, 280, 180), 0.99),
                         ("now : Date", (130, 195, 260, 215), 0.98)]
    for _t, (x0, y0, x1, y1), _c in texts:
        draw.rectangle((x0 + 3, y0 + 6, x1 - 3, y1 - 6), fill=ink)
    pixels, ocr = _ocr(image, texts)
    draft = draft_from_ocr(pixels, ocr)
    assert draft.diagram.class_names == ("Clock",)


def test_a_uml_frame_s_name_tab_in_its_corner_is_no_class() -> None:
    """UML 2's frame (StarUML, course figures): the name, ``class Shop``, in a tab with a
    cut corner inside the frame's top-left corner; the classes are the boxes in the frame.
    A name-only class near the frame's corner, but apart from its sides, stays a class."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    ink = (30, 30, 30)
    draw.rectangle((40, 40, 700, 500), outline=ink, width=1)  # the frame
    draw.line([(40, 72), (170, 72), (180, 62), (180, 40)], fill=ink, width=1)  # its tab
    draw.rectangle((60, 90, 200, 130), outline=ink, width=1)  # a name-only class
    draw.rectangle((300, 150, 540, 260), outline=ink, width=1)  # a class with members
    draw.line((300, 185, 540, 185), fill=ink, width=1)
    texts: list[Text] = [("class Shop", (50, 46, 160, 66), 0.99),
                         ("Timer", (95, 100, 165, 120), 0.99),
                         ("Clock", (380, 158, 460, 180), 0.99),
                         ("now : Date", (310, 195, 440, 215), 0.98)]
    for _t, (x0, y0, x1, y1), _c in texts:
        draw.rectangle((x0 + 3, y0 + 6, x1 - 3, y1 - 6), fill=ink)
    pixels, ocr = _ocr(image, texts)
    assert not any(box.rect[1] < 72 for box in ocr.layout.boxes)
    assert sorted(draft_from_ocr(pixels, ocr).diagram.class_names) == ["Clock", "Timer"]


def test_a_method_whose_empty_parentheses_ocr_misread_stays_a_method() -> None:
    """In a small font OCR reads ``()`` as ``)``, ``0``, ``O`` or ``0)``, glued to the name,
    or ``(`` as ``[``: still a method (before a return type, in Java's order too); a name
    that ends in a digit or a lower-case ``o``, or an attribute's multiplicity in brackets,
    is an attribute as before."""
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 560, 660, rule=150)
    texts: list[Text] = [("Basket", (120, 95, 260, 140), 0.99),
                         ("- photo : Image", (80, 170, 400, 210), 0.97),
                         ("- line1 : int", (80, 220, 400, 260), 0.97),
                         ("+ cancel)", (80, 270, 400, 310), 0.97),
                         ("+ confirm0 : boolean", (80, 320, 480, 360), 0.96),
                         ("+ void summaryO", (80, 370, 400, 410), 0.96),
                         ("isValid0)", (80, 420, 400, 460), 0.96),
                         ("+ addItem[item: String) : void", (80, 470, 540, 510), 0.96),
                         ("- tags[0..*] : String", (80, 520, 400, 560), 0.96)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    (basket,) = draft_from_ocr(pixels, ocr).diagram.classes
    assert [a.name for a in basket.attributes][:2] == ["photo", "line1"]
    assert basket.attributes[2].name.startswith("tags")  # with its multiplicity: no method
    assert [(m.name, m.return_type) for m in basket.methods] == [
        ("cancel", ""), ("confirm", "boolean"), ("summary", "void"), ("isValid", ""),
        ("addItem", "void")]
    assert basket.methods[-1].params[0].name == "item"


def test_a_space_ocr_put_inside_a_member_s_word_is_taken_out() -> None:
    """Letters drawn without smoothing stand apart, and OCR reads a space between them
    (``endD ate``, ``am ount``): one word again, in either order of name and type; a type
    or a modifier and the name after it (``int capacity``, ``name varchar``), a type
    variable and its name (``K key``) stay two. A name cut before a capital (``created
    On : Date``) is one; ``street String`` is a name and a type whose colon OCR lost."""
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 560, 660, rule=150)
    texts: list[Text] = [("Event", (120, 95, 260, 140), 0.99),
                         ("- Date endD ate", (80, 170, 400, 210), 0.97),
                         ("- double am ount", (80, 220, 400, 260), 0.97),
                         ("- nam e : String", (80, 270, 400, 310), 0.97),
                         ("- int capacity", (80, 320, 400, 360), 0.96),
                         ("code varchar", (80, 370, 400, 410), 0.96),
                         ("- K key", (80, 420, 400, 460), 0.96),
                         ("-created On: Date", (80, 470, 400, 510), 0.96),
                         ("-street String", (80, 520, 400, 560), 0.96)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    (event,) = draft_from_ocr(pixels, ocr).diagram.classes
    assert [(a.name, a.type) for a in event.attributes] == [
        ("endDate", "Date"), ("amount", "double"), ("name", "String"), ("capacity", "int"),
        ("varchar", "code"), ("key", "K"), ("createdOn", "Date"), ("street", "String")]


def test_an_enumeration_whose_stereotype_ocr_misread_and_one_without_rules() -> None:
    """``«enumeration»`` read with a guillemet lost and a letter or two wrong is still the
    enumeration's keyword; drawn without compartment rules, the words under its name are
    its values (a plain class's lines without a colon or parentheses are not members)."""
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 320, 380)  # no rules
    _marker_box(draw, 520, 80, 820, 380, rule=200)
    _marker_box(draw, 300, 450, 620, 620)  # a plain class without rules
    texts: list[Text] = [("menumeration»", (90, 95, 290, 135), 0.95),
                         ("Priority", (120, 145, 260, 185), 0.99),
                         ("LOW", (90, 220, 200, 260), 0.99),
                         ("HIGH", (90, 280, 200, 320), 0.99),
                         ("numeiation", (560, 95, 780, 135), 0.87),
                         ("Colour", (600, 145, 740, 185), 0.99),
                         ("RED", (560, 230, 700, 270), 0.99),
                         ("Shelf", (400, 470, 520, 510), 0.99),
                         ("sorted", (330, 540, 460, 580), 0.99)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    classes = {c.name: c for c in draft_from_ocr(pixels, ocr).diagram.classes}
    assert set(classes) == {"Priority", "Colour", "Shelf"}
    assert classes["Priority"].kind == classes["Colour"].kind == ClassKind.ENUM
    assert [a.name for a in classes["Priority"].attributes] == ["LOW", "HIGH"]
    assert [a.name for a in classes["Colour"].attributes] == ["RED"]
    assert classes["Shelf"].kind == ClassKind.CLASS and not classes["Shelf"].attributes


def test_a_stereotype_as_wide_as_its_box_is_not_taken_for_a_rule() -> None:
    """A name-only enumeration (StarUML's, draw.io's look: rounded, filled, anti-aliased)
    whose ``«enumeration»`` nearly fills the box's width: the thickened remains of that line
    reach both sides, but a rule never runs through a line of text, so the box stays one
    compartment and its name is read under the stereotype."""
    from cluestudio.core.synth_drawn_ink import Look, Pen, box_spec, draw_box, measure

    look = Look("DejaVu Sans Condensed", 15, 12, "light", "#E1D5E7", rules=True,
                bold_names=False, members="uml", orthogonal=True, navigable=False,
                paper="white", antialiased=True, scale=1.0, chrome="", frame=False,
                shadow=False, border=1)
    spec = box_spec(Class("Basket", kind=ClassKind.ENUM), look, False, 2)
    spec.x, spec.y = 40, 40
    big = Image.new("RGB", (2 * WIDTH, 2 * HEIGHT), "white")
    draw_box(Pen(ImageDraw.Draw(big), 2, look.family), spec, look)
    image = big.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)
    texts: list[Text] = []
    top = spec.y + (spec.height - 2 * look.size * 1.4) / 2
    for k, (text, size) in enumerate((("«enumeration»", look.size - 1), ("Basket", look.size))):
        width, height = measure(look.family, 2, text, size)
        x0, y0 = spec.x + (spec.width - width) / 2, top + k * look.size * 1.4
        texts.append((text, (int(x0) - 2, int(y0), int(x0 + width) + 2, int(y0 + height) + 2),
                      0.99))
    pixels, ocr = _ocr(image, texts)
    assert [len(box.compartments) for box in ocr.layout.boxes] == [1]
    (basket,) = draft_from_ocr(pixels, ocr).diagram.classes
    assert (basket.name, basket.kind) == ("Basket", ClassKind.ENUM)


def test_a_name_over_two_lines_with_a_space_ocr_put_inside_its_first_line() -> None:
    """``Appointment`` / ``Entry`` in a narrow name-only box, OCR reading the first line as
    ``Appo intment``: one class ``AppointmentEntry``, not ``Entry``."""
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 360, 260)
    texts: list[Text] = [("Appo intment", (90, 100, 330, 150), 0.99),
                         ("Entry", (150, 170, 270, 220), 0.99)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    assert draft_from_ocr(pixels, ocr).diagram.class_names == ("AppointmentEntry",)


def test_members_are_marked_where_ocr_or_the_layout_leaves_doubt() -> None:
    """Item 4 for members: OCR's confidence, a line that runs over its compartment's side
    and characters no member has each make a member doubtful, with the reason written in a
    ``' ?`` comment inside the class block, right above the member."""
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 320, 400, rule=150)
    texts: list[Text] = [("Library", (120, 95, 260, 140), 0.99),
                         ("name: str", (80, 170, 250, 210), 0.97),  # sure: no mark
                         ("city: str", (80, 220, 250, 260), 0.55),  # OCR unsure
                         ("address: str", (80, 270, 420, 310), 0.97),  # runs out of the box
                         ("count§: int", (80, 320, 250, 360), 0.96)]  # a misread character
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    draft = draft_from_ocr(pixels, ocr)
    doubts = {d.element: d for d in draft.doubts if d.kind == "member"}
    assert set(doubts) == {"Library.city : str", "Library.address : str",
                           "Library.count : int"}
    assert doubts["Library.city : str"].confidence == pytest.approx(0.55)
    assert "compartment" in doubts["Library.address : str"].reason
    assert "unreadable" in doubts["Library.count : int"].reason
    lines = draft.puml.splitlines()
    for element, doubt in doubts.items():
        assert lines[doubt.line - 1].strip() == element.split(".", 1)[1]
        assert lines[doubt.line - 2].strip().startswith(DOUBT_MARK)
        assert doubt.reason in lines[doubt.line - 2]
    # the comments sit inside the block and the draft still parses with every member
    assert [a.name for a in draft.diagram.classes[0].attributes] == [
        "name", "city", "address", "count"]


def test_an_all_capital_name_keeps_its_first_letter() -> None:
    """``ATM`` is not PlantUML's circled ``A`` (abstract) before a name ``TM``; a circled
    letter read apart from the name still gives the kind."""
    image, draw = _canvas()
    _marker_box(draw, 60, 80, 320, 300, rule=150)
    _marker_box(draw, 520, 80, 820, 300, rule=150)
    texts: list[Text] = [("ATM", (120, 95, 220, 140), 0.99),
                         ("A Account", (570, 95, 760, 140), 0.97)]
    _write(draw, texts)
    pixels, ocr = _ocr(image, texts)
    kinds = {c.name: c.kind for c in draft_from_ocr(pixels, ocr).diagram.classes}
    assert kinds == {"ATM": ClassKind.CLASS, "Account": ClassKind.ABSTRACT}


def test_a_frame_round_class_boxes_is_no_class_and_the_boxes_in_it_are() -> None:
    """A package's body or a UML frame drawn as a plain rectangle (no name tab the layout
    knows) round several classes: the classes inside are the diagram's, not the frame."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    ink = (30, 30, 30)
    draw.rectangle((30, 30, 720, 520), outline=ink, width=1)  # the frame
    draw.rectangle((80, 120, 320, 260), outline=ink, width=1)  # a class with members
    draw.line((80, 155, 320, 155), fill=ink, width=1)
    draw.rectangle((420, 300, 640, 350), outline=ink, width=1)  # a name-only class
    texts: list[Text] = [("shop", (50, 40, 120, 62), 0.99),
                         ("Clock", (160, 128, 240, 150), 0.99),
                         ("now : Date", (90, 165, 220, 185), 0.98),
                         ("Timer", (490, 313, 570, 337), 0.99)]
    for _t, (x0, y0, x1, y1), _c in texts:
        draw.rectangle((x0 + 3, y0 + 6, x1 - 3, y1 - 6), fill=ink)
    pixels, ocr = _ocr(image, texts)
    assert sorted(draft_from_ocr(pixels, ocr).diagram.class_names) == ["Clock", "Timer"]
