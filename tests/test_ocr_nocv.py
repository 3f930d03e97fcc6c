"""The default OCR engine runs rapidocr's PP-OCR models without OpenCV (issue 28: OpenCV is
~150 MB of the installer): it reads what rapidocr's own pipeline reads, and works where cv2
cannot be imported at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from cluestudio.core.ocr import ocr_available

needs_ocr = pytest.mark.skipif(not ocr_available(), reason="the ocr extra is not installed")
WORDS = ["Library", "Loan", "Copy", "barcode", "String", "dueOn", "Date", "lend",
         "Member", "Account", "Reservation", "Catalogue", "records", "Invoice"]


def _font(size: int) -> ImageFont.FreeTypeFont:
    import matplotlib  # ships DejaVu Sans, so the test needs no system fonts

    path = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    return ImageFont.truetype(str(path), size)


def _diagram(seed: int, size: tuple[int, int], text_px: int, tilt: float = 0.0) -> np.ndarray:
    """Class-diagram-like boxes of words in DejaVu Sans on white (RGB), optionally tilted;
    the words drawn are in :data:`DRAWN`."""
    rng = np.random.default_rng(seed)
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = _font(text_px)
    columns = max(1, size[0] // (text_px * 14))
    for index in range(min(len(WORDS) // 2, columns * 2)):
        x = 20 + (index % columns) * (size[0] - 40) // columns
        y = 20 + (index // columns) * text_px * 6
        first, second = WORDS[(2 * index + seed) % len(WORDS)], WORDS[(2 * index + 1) % len(WORDS)]
        DRAWN.setdefault(seed, set()).update((first, second))
        draw.rectangle((x, y, x + text_px * 11, y + text_px * 4), outline=(40, 40, 40), width=2)
        draw.text((x + 8, y + 6), first, fill=(0, 0, 0), font=font)
        draw.line((x, y + text_px * 2, x + text_px * 11, y + text_px * 2), fill=(40, 40, 40))
        draw.text((x + 8, y + text_px * 2 + 6), f"- {second} : Date", font=font,
                  fill=tuple(int(v) for v in rng.integers(0, 90, 3)))
    if tilt:
        image = image.rotate(tilt, resample=Image.Resampling.BICUBIC, expand=True,
                             fillcolor="white")
    return np.asarray(image)


DRAWN: dict[int, set[str]] = {}
IMAGES = {  # what exercises each step: a plain render, small text shrunk by the size limit,
    # a photo-like tilt, a flat strip that gets padded, small text the detector enlarges
    "render": _diagram(1, (900, 520), 16),
    "shrunk": _diagram(2, (3600, 700), 26),
    "tilted": _diagram(3, (820, 480), 18, tilt=4.0),
    "strip": _diagram(4, (700, 60), 14),
    "small": _diagram(5, (420, 300), 13),
}


def _words(lines) -> list[str]:
    return sorted(word for line in lines for word in line.text.split())


@needs_ocr
@pytest.mark.xdist_group("ocr")
def test_the_opencv_free_pipeline_reads_what_rapidocrs_own_pipeline_reads() -> None:
    """The port in rapidocr's own flow (``plain``: no letter-size detection, every script)
    against rapidocr as it comes, step for step."""
    pytest.importorskip("cv2", reason="rapidocr's own pipeline needs OpenCV")
    from cluestudio.core.ocr.engine import MAX_SIDE, RapidOcrEngine, _rapidocr_folder
    from cluestudio.core.ocr.onnx_pipeline import OnnxOcrEngine

    folder = _rapidocr_folder()
    assert folder is not None
    theirs, ours = RapidOcrEngine(), OnnxOcrEngine("test", MAX_SIDE, folder, plain=True)
    if theirs.lite:
        pytest.skip("rapidocrlite has its own runtime and models")
    for name, pixels in IMAGES.items():
        expected, got = theirs.read(pixels), ours.read(pixels)
        assert _words(got) == _words(expected), name
        assert len(set(_words(got)) & set(WORDS)) >= 2, f"{name}: the words drawn are read"
        # the same lines in the same order, boxes within a pixel or two (OpenCV's
        # rectangles carry float32 noise that pyclipper truncates)
        assert [line.text for line in got] == [line.text for line in expected], name
        for mine, rapid in zip(got, expected, strict=True):
            assert np.abs(np.array(mine.box.points) - np.array(rapid.box.points)).max() <= 3
            assert abs(mine.confidence - rapid.confidence) < 0.02


@needs_ocr
@pytest.mark.xdist_group("ocr")
def test_the_default_engine_reads_with_opencv_unimportable(tmp_path: Path) -> None:
    path = tmp_path / "render.png"
    Image.fromarray(IMAGES["render"]).save(path)
    code = (
        "import sys, os; sys.modules['cv2'] = None\n"
        "from cluestudio.core.ocr import get_engine, installed_engine_id, read_image_file\n"
        "from cluestudio.core.ocr.engine import OcrUnavailable, RapidOcrEngine\n"
        f"result = read_image_file({str(path)!r})\n"
        "print(result.engine == installed_engine_id(), result.engine)\n"
        "print(' '.join(sorted(w.text for w in result.words())))\n"
        "try:\n    RapidOcrEngine()\nexcept OcrUnavailable as e:\n    print('own:', e)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "CLUESTUDIO_OCR_PIPELINE": ""})
    assert run.returncode == 0, run.stderr
    same_id, words, refusal = run.stdout.splitlines()
    assert same_id.startswith("True") and "/ppocr-nocv/" in same_id
    assert DRAWN[1] <= set(words.split())
    # rapidocr's own pipeline, asked for without OpenCV, says so in one line
    assert refusal.startswith("own: the OCR engine failed to start")


def test_rapidocrs_pipeline_is_used_only_when_asked_for(monkeypatch) -> None:
    from cluestudio.core.ocr import engine

    folder = engine._rapidocr_folder()
    if folder is None or engine._is_lite(folder):
        pytest.skip("needs the rapidocr wheel")
    monkeypatch.delenv(engine.PIPELINE_ENV, raising=False)
    assert "/ppocr-nocv/" in (engine.installed_engine_id() or "")
    monkeypatch.setenv(engine.PIPELINE_ENV, "rapidocr")
    assert "/ppocr/" in (engine.installed_engine_id() or "")


# --- the ported steps against the OpenCV functions they replace ---------------------------

def test_the_ported_geometry_matches_opencv() -> None:
    cv2 = pytest.importorskip("cv2")
    from cluestudio.core.ocr import onnx_pipeline as port
    from cluestudio.core.ocr.resample import resize_area

    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, (123, 457, 3), dtype=np.uint8)
    for width, height in ((320, 48), (1000, 300), (228, 61), (914, 246)):
        ours = port.resize_linear(image, width, height).astype(int)
        assert np.abs(ours - cv2.resize(image, (width, height))).max() <= 1
    for _ in range(100):
        points = np.round(rng.normal(0, 1, (30, 2)) * rng.uniform(1, 40, 2) + 100)
        (_, size, _) = cv2.minAreaRect(points.astype(np.float32))
        corners, short = port.min_area_rect(points)
        assert abs(short - min(size)) < 1e-3
        assert np.isclose(np.linalg.norm(corners[0] - corners[1])
                          * np.linalg.norm(corners[1] - corners[2]), size[0] * size[1], rtol=1e-4)
    quad = np.array([[30, 20], [300, 25], [298, 80], [28, 75]], np.float32)
    target = np.array([[0, 0], [270, 0], [270, 55], [0, 55]], np.float32)  # its sides
    expected = cv2.warpPerspective(image, cv2.getPerspectiveTransform(quad, target), (270, 55),
                                   borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
    assert np.abs(port.crop_quad(image, quad).astype(int) - expected).max() <= 1
    for width, height in ((200, 50), (100, 41), (457, 61), (61, 17)):  # detection's shrink
        expected = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
        assert np.abs(resize_area(image, width, height).astype(int) - expected).max() <= 1


def test_the_letter_size_is_measured_as_with_opencv() -> None:
    cv2 = pytest.importorskip("cv2")
    from cluestudio.core.ocr.tuning import MAX_LETTER_HEIGHT, MIN_LETTERS, letter_height

    for name, pixels in IMAGES.items():  # main's OpenCV measure (issue 29), step for step
        gray = cv2.cvtColor(np.ascontiguousarray(pixels), cv2.COLOR_RGB2GRAY)
        _, ink = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
        _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
        width, height, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
        letters = ((height >= 4) & (height <= MAX_LETTER_HEIGHT) & (width <= 1.5 * height)
                   & (width >= 0.15 * height) & (area >= 0.15 * width * height))
        expected = (float(np.percentile(height[letters], 25)) if letters.sum() >= MIN_LETTERS
                    else None)
        assert letter_height(pixels) == expected, name


def test_ctc_decoding_merges_repeats_and_drops_blanks() -> None:
    from cluestudio.core.ocr.onnx_pipeline import ctc_decode

    characters = ["blank", "a", "b", " "]
    steps = [1, 1, 0, 1, 2, 2, 3, 0]  # a a _ a b b ' ' _  ->  "aab "
    probs = np.full((1, len(steps), 4), 0.1, np.float32)
    probs[0, np.arange(len(steps)), steps] = 0.9
    assert ctc_decode(probs, characters) == [("aab ", 0.9)]
    assert ctc_decode(np.eye(4, dtype=np.float32)[None, [0, 0]], characters) == [("", 0.0)]


@needs_ocr
def test_a_missing_piece_of_the_pipeline_is_named_in_one_line() -> None:
    code = ("import sys; sys.modules['pyclipper'] = None\n"
            "from cluestudio.core.ocr import get_engine\n"
            "try:\n    get_engine()\nexcept Exception as e:\n    print(type(e).__name__, e)")
    env = {**os.environ, "CLUESTUDIO_OCR_PIPELINE": ""}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120, env=env).stdout
    assert out.startswith("OcrUnavailable") and "pyclipper" in out and "cluestudio[ocr]" in out
    assert out.count("\n") == 1


@needs_ocr
@pytest.mark.xdist_group("ocr")
def test_the_released_memory_arena_reads_what_no_arena_reads() -> None:
    """Our sessions keep ONNX Runtime's memory arena for the length of a run (issues 28, 29:
    without it a big render's detection spent more CPU in page faults than in arithmetic);
    the arena only changes where tensors live, so every line, box and confidence is the
    one rapidocr's arena-less sessions give, on images of several sizes in turn."""
    import onnxruntime as ort

    from cluestudio.core.ocr.engine import MAX_SIDE, _rapidocr_folder
    from cluestudio.core.ocr.onnx_pipeline import OnnxOcrEngine, model_files

    folder = _rapidocr_folder()
    if folder is None or (folder / "models" / "lite").is_dir():
        pytest.skip("needs the rapidocr wheel's PP-OCR models")

    def arena_less(model: Path) -> ort.InferenceSession:
        options = ort.SessionOptions()
        options.enable_cpu_mem_arena = False
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    ours, theirs = (OnnxOcrEngine("test", MAX_SIDE, folder) for _ in range(2))
    det, rec = model_files(folder)
    theirs._det, theirs._rec = arena_less(det), arena_less(rec)
    theirs._run_options = None  # nothing to shrink
    for name in ("render", "shrunk", "small", "render"):
        got, expected = ours.read(IMAGES[name]), theirs.read(IMAGES[name])
        assert got == expected, name
        assert len(set(_words(got)) & set(WORDS)) >= 2, name


@pytest.mark.parametrize("size", [(457, 123), (130, 300), (64, 65)])
def test_resizing_a_few_rows_at_a_time_equals_resizing_at_once(monkeypatch, size) -> None:
    """Resizes go by bands of rows to keep their temporaries small (issues 28, 29); every
    output pixel is the one the whole-image computation gives, to the bit."""
    from cluestudio.core.ocr import resample

    image = np.random.default_rng(5).integers(0, 256, (*size[::-1], 3), dtype=np.uint8)
    shapes = [(size[0] * 7 // 10, size[1] * 7 // 10), (size[0] // 3 + 1, size[1] // 2 + 1)]
    banded = [(resample.resize_linear(image, w, h), resample.resize_area(image, w, h))
              for w, h in shapes] + [resample.resize_linear(image, 2 * size[0], size[1] + 3)]
    monkeypatch.setattr(resample, "ROWS_AT_ONCE", 10_000)
    whole = [(resample.resize_linear(image, w, h), resample.resize_area(image, w, h))
             for w, h in shapes] + [resample.resize_linear(image, 2 * size[0], size[1] + 3)]
    for got, expected in zip(banded, whole, strict=True):
        assert np.array_equal(np.asarray(got), np.asarray(expected))
