"""What OCR costs and what it reads (issues 28 and 29): a big image is detected on a shrunk
copy yet read as its small twin is, the models are loaded once per process, one reading
of an image serves both the check and the draft, and the recogniser writes Latin script
with German, French and Spanish letters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from cluestudio.core.ocr import OcrCache, ocr_available

needs_ocr = pytest.mark.skipif(not ocr_available(), reason="the ocr extra is not installed")
pytestmark = [needs_ocr, pytest.mark.xdist_group("ocr")]

WORDS = ("Customer", "Order", "Invoice", "Payment", "Address", "Product")


def _font(size: int) -> ImageFont.FreeTypeFont:
    try:  # a font with umlauts and accents where the system has one
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default(size=size)  # Pillow's own: ASCII only


def _page(words: tuple[str, ...], width: int, letter: int) -> np.ndarray:
    """``words`` in three columns on a white page ``width`` pixels wide, letters about
    ``letter`` pixels high; boxes around each, as a diagram has."""
    scale = width / 4000
    image = Image.new("RGB", (width, round(1500 * scale)), "white")
    draw = ImageDraw.Draw(image)
    font = _font(round(letter * 1.5))
    for i, word in enumerate(words):
        x, y = (150 + (i % 3) * 1300) * scale, (200 + (i // 3) * 500) * scale
        draw.text((x, y), word, fill="black", font=font)
        left, top, right, bottom = draw.textbbox((x, y), word, font=font)
        pad = 20 * scale
        draw.rectangle((left - pad, top - pad, right + pad, bottom + pad), outline="black",
                       width=max(1, round(3 * scale)))
    return np.asarray(image)


def _engine():
    from cluestudio.core.ocr import get_engine

    return get_engine()


def test_a_4000_px_image_is_read_as_its_downscaled_twin_and_in_its_own_pixels() -> None:
    from cluestudio.core.ocr.engine import detection_scale

    big, small = _page(WORDS, 4000, 80), _page(WORDS, 1000, 20)
    assert detection_scale(big) < 0.6, "big letters: detection looks at a shrunk copy"
    assert detection_scale(small) == 1.0
    engine = _engine()
    read_big, read_small = engine.read(big), engine.read(small)
    assert sorted(line.text for line in read_big) == sorted(WORDS)
    assert sorted(line.text for line in read_big) == sorted(line.text for line in read_small)
    # boxes are in the big image's own pixels: four times its twin's, within a letter
    by_text = {line.text: line.box.rect for line in read_small}
    for line in read_big:
        for edge_big, edge_small in zip(line.box.rect, by_text[line.text], strict=True):
            assert abs(edge_big - 4 * edge_small) <= 40


def test_small_letters_are_not_shrunk_away() -> None:
    from cluestudio.core.ocr.engine import MAX_SIDE, detection_scale, letter_height

    page = _page(WORDS, 4000, 9)  # a huge diagram in a small font
    height = letter_height(page)
    assert height is not None and 5 <= height <= 12
    assert detection_scale(page) >= 0.8
    blank = np.full((5000, 2000, 3), 255, np.uint8)
    assert letter_height(blank) is None
    assert detection_scale(blank) == MAX_SIDE / 5000  # only the size cap


def test_umlauts_and_accents_are_read_and_other_scripts_never_written() -> None:
    try:
        ImageFont.truetype("DejaVuSans.ttf", 20)
    except OSError:
        pytest.skip("no font with umlauts on this machine (DejaVu Sans)")
    words = ("Größe", "Überweisung", "Kundenänderung", "Café", "Niño", "Élève")
    engine = _engine()
    assert sorted(line.text for line in engine.read(_page(words, 1600, 30))) == sorted(words)
    assert set(engine.languages()) == {"en", "de", "fr", "es"}
    alphabet = engine.alphabet
    assert {"ä", "ß", "é", "ñ", "©", "«", "»", "*", "0"} <= alphabet
    assert not {"壬", "小", "个", "花", "ア", "Ж"} & alphabet


def test_two_images_share_one_engine_and_one_pair_of_model_sessions(tmp_path: Path) -> None:
    for name, width in (("a.png", 1200), ("b.png", 2400)):
        Image.fromarray(_page(WORDS, width, width // 50)).save(tmp_path / name)
    code = ("import gc, sys\n"
            "from cluestudio.core.ocr import read_image_file\n"
            "from cluestudio.core.ocr.onnx_pipeline import OnnxOcrEngine\n"
            "import onnxruntime\n"
            "texts = [sorted(l.text for l in read_image_file(p).lines) for p in sys.argv[1:]]\n"
            "assert texts[0] == texts[1], texts\n"
            "objects = gc.get_objects()\n"
            "print(sum(isinstance(o, OnnxOcrEngine) for o in objects),\n"
            "      sum(isinstance(o, onnxruntime.InferenceSession) for o in objects))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.png"),
                          str(tmp_path / "b.png")], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "2"]  # one engine: a detector and a recogniser


class CountingEngine:
    """The real engine, counting the images it is asked to read."""

    def __init__(self) -> None:
        self.inner = _engine()
        self.reads = 0

    @property
    def engine_id(self) -> str:
        return self.inner.engine_id

    def read(self, pixels: np.ndarray):  # type: ignore[no-untyped-def]
        self.reads += 1
        return self.inner.read(pixels)


def test_the_check_and_the_draft_of_one_image_share_one_reading(tmp_path: Path) -> None:
    from cluestudio.core.check import check_image_and_text
    from cluestudio.core.draft.convert import draft_from_image

    out = tmp_path / "diagram.png"
    Image.fromarray(_page(WORDS[:3], 1200, 24)).save(out)
    data = out.read_bytes()
    puml = "@startuml\nclass Customer\nclass Order\nclass Invoice\n@enduml\n"
    engine = CountingEngine()
    with OcrCache(tmp_path / "ocr.sqlite") as cache:
        report = check_image_and_text(data, puml, engine=engine, cache=cache)
        draft = draft_from_image(data, engine=engine, cache=cache)
        assert cache.count() == 1
    assert engine.reads == 1
    assert report.text_recall is not None and report.text_recall > 0.5
    assert {"Customer", "Order", "Invoice"} <= set(draft.puml.replace("{", " ").split())


def test_the_help_and_the_settings_name_the_languages_the_recogniser_reads() -> None:
    from cluestudio.core.ocr.engine import LANGUAGE_LETTERS
    from cluestudio.core.settings import settings_from_dict

    for code in LANGUAGE_LETTERS:  # each language the recogniser reads can be set
        settings, warnings = settings_from_dict({"ocr": {"language": code}})
        assert settings.ocr.language == code and not warnings
    settings, warnings = settings_from_dict({"ocr": {"language": "ru"}})
    assert settings.ocr.language == "auto" and warnings
    out = subprocess.run([sys.executable, "-m", "cluestudio", "check", "--help"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    said = " ".join(out.split())
    assert "OCR reads Latin script" in said and "German (ä ö ü ß)" in said
    assert "Cyrillic, Greek, CJK) are not read" in said
