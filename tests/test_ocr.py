"""OCR of image A for real (rapidocr's bundled PP-OCR models, no network), its cache, and
the clear one-line errors for files that are not usable images."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from cluestudio.core.errors import SourceError
from cluestudio.core.ocr import OcrCache, load_image_bytes, load_image_file, ocr_available
from cluestudio.core.workspace.images import ImageError

PUML = """@startuml
class Library {
  - name : String
  + lend(copy : Copy) : Loan
}
class Loan {
  - dueOn : Date
}
class Copy {
  - barcode : String
}
Library "1" -- "0..*" Loan : records
Loan --> Copy
@enduml
"""


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- bad images: no OCR needed -------------------------------------------------------------

@pytest.mark.parametrize(("data", "says"), [
    (b"", "empty file"),
    (b"<svg xmlns='http://www.w3.org/2000/svg'><rect/></svg>", "SVG"),
    (b"<?xml version='1.0'?>\n<svg></svg>", "SVG"),
    (PUML.encode(), "PlantUML text"),
    (b"just some notes\n", "a text file"),
    (bytes(range(256)) * 4, "corrupt or truncated"),
])
def test_files_that_are_not_images_get_one_line_errors(tmp_path: Path, data: bytes,
                                                       says: str) -> None:
    path = tmp_path / "alice.png"
    path.write_bytes(data)
    with pytest.raises(ImageError, match=says) as raised:
        load_image_file(path)
    assert str(raised.value).startswith(f"{path}: ") and "\n" not in str(raised.value)


def test_a_truncated_png_and_a_bomb_are_refused_naming_the_file() -> None:
    whole = _png(Image.new("RGB", (300, 200), "white"))
    with pytest.raises(ImageError, match=r"^cut\.png: corrupt or truncated"):
        load_image_bytes(whole[: len(whole) // 2], "cut.png")
    bomb = _png(Image.new("1", (8000, 6000)))  # 48 MP of one colour: ~6 KB on disk
    assert len(bomb) < 100_000
    with pytest.raises(ImageError, match=r"^bomb\.png: .*megapixels"):
        load_image_bytes(bomb, "bomb.png")


def test_a_missing_file_is_named() -> None:
    with pytest.raises(SourceError, match=r"^nowhere\.png: cannot read: No such file"):
        load_image_file("nowhere.png")


def test_transparency_is_flattened_onto_white() -> None:
    image = Image.new("RGBA", (20, 10), (0, 0, 0, 0))
    image.putpixel((3, 3), (0, 0, 0, 255))
    loaded = load_image_bytes(_png(image))
    assert tuple(loaded.pixels[0, 0]) == (255, 255, 255)
    assert tuple(loaded.pixels[3, 3]) == (0, 0, 0)


def test_importing_core_check_and_ocr_loads_no_ocr_engine() -> None:
    code = ("import sys, cluestudio.core.check, cluestudio.core.ocr, cluestudio.core.ocr.layout;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('rapidocr', 'onnxruntime', 'cv2', 'rapidfuzz', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out == "[]"


def test_without_the_ocr_extra_the_error_says_what_to_install() -> None:
    code = ("import sys; sys.modules['rapidocr'] = None\n"
            "from cluestudio.core.ocr import get_engine, ocr_available\n"
            "assert not ocr_available()\n"
            "try:\n    get_engine()\nexcept Exception as e:\n    print(type(e).__name__, e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out.startswith("OcrUnavailable") and "cluestudio[ocr]" in out


# --- real OCR on rendered images (a handful: the engine costs ~1 s an image) ---------------



needs_ocr = pytest.mark.skipif(not ocr_available(), reason="the ocr extra is not installed")


@pytest.fixture(scope="module")
def images() -> dict[str, bytes]:
    from cluestudio.core.synth import render_look

    return {look: render_look(PUML, look, random.Random(look))
            for look in ("default", "photo")}


@needs_ocr
@pytest.mark.java
@pytest.mark.xdist_group("ocr")
@pytest.mark.parametrize("look", ["default", "photo"])
def test_reads_the_class_names_with_boxes_inside_the_image(images, look) -> None:
    from cluestudio.core.ocr import read_image

    result = read_image(images[look], f"{look}.png")
    words = {w.text.strip("©□•()") for w in result.words()}
    assert {"Library", "Loan", "Copy"} <= words
    assert result.engine.startswith(("rapidocr-", "rapidocrlite-"))
    for line in result.lines:
        x0, y0, x1, y1 = line.box.rect
        assert -5 <= x0 < x1 <= result.width + 5 and -5 <= y0 < y1 <= result.height + 5
        assert 0 < line.confidence <= 1
    assert result.layout.boxes, "the class boxes are found too"


@needs_ocr
@pytest.mark.java
@pytest.mark.xdist_group("ocr")
def test_a_second_read_comes_from_the_disk_cache(images, tmp_path: Path) -> None:
    from cluestudio.core.ocr import read_image

    with OcrCache(tmp_path / "ocr.sqlite") as cache:
        first = read_image(images["default"], cache=cache)
        second = read_image(images["default"], cache=cache)
        assert cache.count() == 1
    assert not first.cached and second.cached
    assert second.lines == first.lines and second.layout == first.layout
    with OcrCache(tmp_path / "ocr.sqlite") as reopened:  # on disk, across processes
        assert reopened.get(first.engine, first.image_sha256) is not None
        assert reopened.get("another-engine", first.image_sha256) is None


@needs_ocr
@pytest.mark.java
@pytest.mark.xdist_group("ocr")
def test_check_flags_what_the_conversion_dropped_and_invented(images) -> None:
    from cluestudio.core.check import check_image_and_text

    clean = check_image_and_text(images["default"], PUML)
    assert not clean.flagged and clean.name_precision >= 0.9
    converted = PUML.replace("  - dueOn : Date\n", "").replace("class Copy {",
                                                               "class Copy {\n  - isbn : String")
    report = check_image_and_text(images["default"], converted, image_source="a.png")
    assert report.flagged
    assert "dueOn" in {m.text for m in report.missing}
    dropped = next(m for m in report.missing if m.text == "dueOn")
    assert dropped.kind == "attribute" and dropped.owner == "Loan"
    assert [(i.text, i.line) for i in report.invented if i.kind == "attribute"] == [("isbn", 9)]
