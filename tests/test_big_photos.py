"""A TA photographs a whiteboard with a phone (issue 29): today's phones save 48 MP and
more. Such a photo is read (reduced on load: its letters are big, OCR needs no more),
while a decompression bomb is still refused with one line naming the file, the limit and
how to scale it down."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from cluestudio.cli import main
from cluestudio.core.ocr.image import load_image_bytes
from cluestudio.core.workspace.images import ImageError, check_image


def _png_header(width: int, height: int) -> bytes:
    """A valid PNG claiming ``width``×``height`` pixels, with a tiny body."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00" * (width + 1))) + chunk(b"IEND", b""))


def _jpeg_claiming(width: int, height: int) -> bytes:
    """A small JPEG whose frame header claims ``width``×``height`` pixels."""
    out = io.BytesIO()
    Image.new("L", (16, 16), 255).save(out, format="JPEG")
    data = bytearray(out.getvalue())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def _whiteboard_photo(width: int = 8000, height: int = 6000, letters: int = 260) -> bytes:
    """A 48 MP phone photo of two class boxes drawn big (a font of ``letters`` px), as
    JPEG."""
    image = Image.new("L", (width, height), 235)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=letters)
    rule = max(2200, 1700 + letters * 3 // 2)  # the header's rule, below the name
    for x0, name in ((500, "Customer"), (4500, "Order")):
        draw.rectangle((x0, 1500, x0 + 2900, 4000), outline=20, width=30)
        draw.line((x0, rule, x0 + 2900, rule), fill=20, width=30)
        draw.text((x0 + 250, 1700), name, fill=20, font=font)
    draw.line((3400, 3000, 4500, 3000), fill=20, width=30)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=85)
    return out.getvalue()


@pytest.fixture(scope="module")
def photo() -> bytes:
    return _whiteboard_photo()


def test_a_48_mp_phone_photo_is_accepted_and_reduced_the_same_way_every_time(
        photo: bytes) -> None:
    checked = check_image(photo, "board.jpg")
    assert (checked.width, checked.height) == (8000, 6000)  # stored as it came
    first = load_image_bytes(photo, "board.jpg").pixels
    assert first.shape[0] * first.shape[1] <= 16_000_000
    assert first.shape[1] / first.shape[0] == pytest.approx(8000 / 6000, rel=0.01)
    # the OCR cache is keyed by the bytes: the same bytes give the same pixels
    assert np.array_equal(first, load_image_bytes(photo, "board.jpg").pixels)


def test_a_ta_drafts_a_48_mp_whiteboard_photo(tmp_path: Path, photo: bytes,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
    image = tmp_path / "board.jpg"
    image.write_bytes(photo)
    out = tmp_path / "drafts"
    assert main(["convert", "--backend", "offline", str(image), "--out", str(out),
                 "--no-render"]) == 0, capsys.readouterr().err
    draft = (out / "board.puml").read_text(encoding="utf-8")
    assert "class Customer" in draft and "class Order" in draft


@pytest.mark.parametrize("data,name,limit", [
    (_png_header(30_000, 30_000), "bomb.png", "40 MP limit for PNG"),
    (_png_header(9_000, 8_000), "huge scan.png", "40 MP limit for PNG"),
    (_jpeg_claiming(13_000, 13_000), "huge.jpg", "160 MP limit for JPEG"),
    (_jpeg_claiming(30_000, 30_000), "bomb.jpg", "160 MP limit for JPEG"),
], ids=["png bomb", "72 MP png", "169 MP jpeg", "jpeg bomb"])
def test_a_decompression_bomb_is_refused_with_the_limit_and_how_to_scale_it_down(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, name: str,
        limit: str) -> None:
    with pytest.raises(ImageError) as refused:
        check_image(data, name)
    assert limit in refused.value.message and "scale it down" in refused.value.message
    image = tmp_path / name
    image.write_bytes(data)
    assert main(["convert", "--backend", "offline", str(image), "--out",
                 str(tmp_path / "out"), "--no-render"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{image}:" in err and limit in err, err
    assert "Traceback" not in err


def test_a_48_mp_png_is_refused_and_told_to_save_a_photo_as_jpeg() -> None:
    # a PNG is decoded whole (48 MP: ~200 MB as RGBA); a JPEG's decoder reduces it cheaply
    out = io.BytesIO()
    Image.new("1", (8000, 6000)).save(out, format="PNG")
    with pytest.raises(ImageError, match=r"^board\.png: image is 8000×6000 = 48 megapixels, "
                       r"over the 40 MP limit for PNG .*save a photo as JPEG"):
        load_image_bytes(out.getvalue(), "board.png")


def test_what_ocr_reads_in_a_big_photo_is_placed_in_the_pixels_it_read(photo: bytes) -> None:
    pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
    from cluestudio.core.ocr.service import read_loaded

    loaded = load_image_bytes(photo, "board.jpg")
    result = read_loaded(loaded)
    assert (result.height, result.width) == loaded.pixels.shape[:2]
    names = {line.text for line in result.lines}
    assert {"Customer", "Order"} <= names, names
    for line in result.lines:
        x0, y0, x1, y1 = line.box.rect
        assert 0 <= x0 < x1 <= result.width and 0 <= y0 < y1 <= result.height


@pytest.mark.parametrize("letters", [260, 480], ids=["letters 70 px", "letters 130 px"])
def test_a_48_mp_photo_drafts_the_same_classes_as_the_same_photo_at_a_modest_size(
        photo: bytes, letters: int) -> None:
    # its dozen big letters were too few (under 30) or too tall (over 120 px, decoded
    # reduced) to tell their size: it was detected at 3200 px, where the taller ones were
    # missed; now at its letters' size, and what it reads must not change with the size
    pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
    from cluestudio.core.draft.convert import draft_from_image

    photo = photo if letters == 260 else _whiteboard_photo(letters=letters)

    with Image.open(io.BytesIO(photo)) as big:
        modest = big.convert("RGB").resize((2000, 1500), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    modest.save(out, format="JPEG", quality=90)
    big_draft = draft_from_image(photo, "board.jpg")
    modest_draft = draft_from_image(out.getvalue(), "board-small.jpg")
    names = sorted(c.name for c in big_draft.diagram.classes)
    assert names == ["Customer", "Order"]
    assert names == sorted(c.name for c in modest_draft.diagram.classes)
    assert len(big_draft.diagram.relations) == len(modest_draft.diagram.relations) == 1


def test_a_local_vision_model_gets_a_48_mp_photo_decoded_reduced(photo: bytes) -> None:
    from cluestudio.core.vlm.backend import ImageInput

    image = ImageInput.from_bytes(photo, "board.jpg").to_pil()
    assert image.mode == "RGB"
    assert image.size == load_image_bytes(photo, "board.jpg").pixels.shape[1::-1]
    assert image.width * image.height <= 16_000_000
