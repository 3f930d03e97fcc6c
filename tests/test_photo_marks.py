"""A whiteboard photographed from the side (issue 29): OCR and the layout read it squared
(``ocr.photo.prepared_photo``), but the window shows the photo as taken, so the check's box
around what the conversion dropped is mapped back into the photo's own pixels
(``LoadedImage.in_photo``, ``CheckReport.with_boxes``): it sits on the drawn name, a read
from the OCR cache no less. Real OCR."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cluestudio.core.check import check_image_and_text
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine, get_engine
from cluestudio.core.ocr.image import load_image_bytes
from cluestudio.core.ocr.result import TextLine
from side_on_board import WITHOUT_INVOICE, side_on_photo

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = pytest.mark.xdist_group("ocr")


class _Counting:
    """The real engine, counting the images it reads."""

    def __init__(self, engine: OcrEngine) -> None:
        self.engine, self.reads = engine, 0

    @property
    def engine_id(self) -> str:
        return self.engine.engine_id

    def read(self, pixels: np.ndarray) -> list[TextLine]:
        self.reads += 1
        return self.engine.read(pixels)


def _centre(rect: tuple[float, float, float, float]) -> tuple[float, float]:
    return (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2


def test_the_mark_of_a_dropped_class_sits_on_its_name_in_a_photo_taken_from_the_side(
        tmp_path: Path) -> None:
    photo, words = side_on_photo()
    loaded = load_image_bytes(photo)
    assert loaded.back is not None  # read squared: its pixels are not the photo's
    assert loaded.photo_size == (1400, 1000)
    cache = OcrCache(tmp_path / "ocr.sqlite")
    engine = _Counting(get_engine())
    reports = [check_image_and_text(photo, WITHOUT_INVOICE, engine=engine, cache=cache)
               for _ in range(2)]
    assert engine.reads == 1  # the second check took OCR's answer from the cache
    for report in reports:
        assert (report.width, report.height) == (1400, 1000)  # the photo's frame
        invoice = [m for m in report.missing if m.kind == "class"]
        assert [m.text for m in invoice] == ["Invoice"], report.missing
        assert invoice[0].box is not None
        mark = invoice[0].box.rect
        word = words["Invoice"]
        # the mark's middle on the word's, within a few pixels, and the mark round the word
        # (OCR's line box pads the letters a little), not the size of a compartment
        (mx, my), (wx, wy) = _centre(mark), _centre(word)
        assert abs(mx - wx) <= 6 and abs(my - wy) <= 6, (mark, word)
        assert mark[0] <= word[0] + 4 and mark[1] <= word[1] + 4, (mark, word)
        assert mark[2] >= word[2] - 4 and mark[3] >= word[3] - 4, (mark, word)
        assert mark[2] - mark[0] <= 1.5 * (word[2] - word[0]), (mark, word)
        assert mark[3] - mark[1] <= 3 * (word[3] - word[1]), (mark, word)
    assert reports[0].missing == reports[1].missing  # cached reads map back alike
