"""A TA reviews a whiteboard photo from a 108 MP phone (issue 29): image A shows (Qt's
decoder would refuse its 432 MB of pixels), at the size OCR read it, so the boxes the
check marks on it sit where the words are."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from cluestudio.core.ocr.image import load_image_bytes


def _photo(width: int, height: int) -> bytes:
    image = Image.new("L", (width, height), 230)
    ImageDraw.Draw(image).rectangle((width // 4, height // 4, width // 2, height // 2),
                                    outline=10, width=40)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=80)
    return out.getvalue()


@pytest.mark.parametrize("size", [(12_000, 9_000), (8_000, 6_000), (1_200, 900)],
                         ids=["108 MP", "48 MP", "1 MP"])
def test_a_ta_reviewing_a_big_whiteboard_photo_sees_it_in_the_frame_the_check_read(
        qapp: object, size: tuple[int, int]) -> None:
    from cluestudio.gui.widgets.image_decode import image_from_bytes

    data = _photo(*size)
    shown = image_from_bytes(data)
    assert not shown.isNull()
    read = load_image_bytes(data, "board.jpg").pixels
    assert (shown.height(), shown.width()) == read.shape[:2]
