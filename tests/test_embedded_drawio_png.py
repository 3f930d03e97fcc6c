"""A draw.io "editable PNG" as image A (issue 29): the model it carries (``mxfile``) is what
the draft drafts and what the check compares a conversion with, where its pixels show as
many boxes as it has classes; a model the converter refuses leaves the pixels to be read."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw
from PIL.PngImagePlugin import PngInfo

from cluestudio.core.check.files import check_image_and_text
from cluestudio.core.check.report import EMBEDDED
from cluestudio.core.draft.convert import draft_from_image
from cluestudio.core.embedded.trust import trusted_embedded
from cluestudio.core.model import RelationType
from test_embedded_drawio import cell, model, mxfile, png_chunk, swimlane

EDGE = "endArrow=block;endFill=0;html=1;"  # a generalization, as draw.io's palette draws it


def drawio_png(chunk: str, boxes: int = 2) -> bytes:
    """An editable PNG as draw.io exports it: the pixels (``boxes`` class boxes) and the
    model in an ``mxfile`` text chunk."""
    info = PngInfo()
    info.add_text("mxfile", chunk)
    image = Image.new("RGB", (420, 200), "white")
    draw = ImageDraw.Draw(image)
    for i in range(boxes):
        x = 20 + i * 200
        draw.rectangle((x, 40, x + 160, 130), outline="black", width=1)
        draw.line((x, 66, x + 160, 66), fill="black")
    out = io.BytesIO()
    image.save(out, "PNG", pnginfo=info)
    return out.getvalue()


def vehicles() -> str:
    return png_chunk(mxfile(model([
        *swimlane("v", "Vehicle", ["+ wheels: int", None, "+ drive(): void"]),
        *swimlane("c", "Car", ["+ doors: int"], at=(200, 0)),
        cell("e", "", EDGE, edge=True, source="c", target="v"),
    ]), compressed=True))


def test_a_drawio_png_gives_its_model_to_the_draft() -> None:
    draft = draft_from_image(drawio_png(vehicles()), "cars.png")
    names = {c.name for c in draft.diagram.classes}
    assert names == {"Vehicle", "Car"}
    assert [(r.type, r.begin, r.end) for r in draft.diagram.relations] == [
        (RelationType.GENERALIZATION, "Car", "Vehicle")]
    assert "draw.io" in draft.warnings[0]
    assert draft.evidence == "embedded" and not draft.doubts


def test_the_check_compares_a_conversion_with_the_drawio_model_and_finds_what_it_dropped() -> None:
    conversion = "@startuml\nclass Vehicle {\n  +wheels : int\n  +drive() : void\n}\n@enduml\n"
    report = check_image_and_text(drawio_png(vehicles()), conversion,
                                  image_source="cars.png", puml_source="cars.puml")
    assert report.evidence == EMBEDDED
    assert "draw.io" in report.evidence_note
    assert "Car" in {m.text for m in report.missing}


def test_a_drawio_model_the_converter_refuses_leaves_the_pixels_and_names_the_file() -> None:
    hostile = png_chunk('<!DOCTYPE x [<!ENTITY a "aaaa">]><mxfile><diagram/></mxfile>')
    read = trusted_embedded(drawio_png(hostile), "bomb.png")
    assert read.diagram is None
    assert read.reason.startswith("bomb.png") and "pixels are read" in read.reason


def test_a_drawio_png_whose_pixels_show_fewer_boxes_than_its_model_is_not_trusted() -> None:
    read = trusted_embedded(drawio_png(vehicles(), boxes=0), "edited.png")
    assert read.diagram is None
    assert "box" in read.reason
