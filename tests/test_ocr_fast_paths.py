"""The OCR pipeline's own arithmetic made cheaper (issue 29: on a 16 Mpx render ~2 CPU-s
went to our numpy code around the models) gives the numbers the plain computations give,
to the bit: the reads of every real image stayed the same, and so must every step here, on
drawn and random inputs. Each ``_plain_*`` below is the computation as it was written
before (whole-image temporaries, two-index gathers, a zeroed sum, the full BGR copy)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from cluestudio.core.ocr import resample, tuning
from cluestudio.core.ocr.onnx_pipeline import ctc_decode

RNG = np.random.default_rng(29)


def _noise(height: int, width: int) -> np.ndarray:
    return RNG.integers(0, 256, (height, width, 3), dtype=np.uint8)


def _drawing(width: int, height: int, letter: int) -> np.ndarray:
    """Boxed words and a few coloured strokes on white, as a diagram has."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=letter)
    for row, y in enumerate(range(10, height - 2 * letter, 3 * letter)):
        for column, x in enumerate(range(10, width - 10 * letter, 12 * letter)):
            word = ("Customer", "Order", "id: Integer", "Payment")[(row + column) % 4]
            draw.text((x, y), word, fill=(20 * column % 256, 0, 90), font=font)
            draw.rectangle((x - 4, y - 4, x + 9 * letter, y + 2 * letter), outline=(40, 40, 40))
    return np.asarray(image)


def _plain_resize_linear(image: np.ndarray, width: int, height: int) -> np.ndarray:
    h, w = image.shape[:2]
    if (h, w) == (height, width):
        return image.copy()
    y0, y1, fy = resample._linear_taps(height, h)
    x0, x1, fx = resample._linear_taps(width, w)
    top, bottom = image[y0].astype(np.float32), image[y1].astype(np.float32)
    rows = top + (bottom - top) * fy[:, None, None]
    out = rows[:, x0] + (rows[:, x1] - rows[:, x0]) * fx[None, :, None]
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _plain_resize_area(image: np.ndarray, width: int, height: int) -> np.ndarray:
    down = np.zeros((height, image.shape[1], image.shape[2]), np.float32)
    for rows, share in resample._area_taps(height, image.shape[0]):
        down += share[:, None, None] * image[rows]
    out = np.zeros((height, width, image.shape[2]), np.float32)
    for cols, share in resample._area_taps(width, image.shape[1]):
        out += share[None, :, None] * down[:, cols]
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _plain_crop_quad(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    width = int(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])))
    height = int(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    to_source = resample.homography(target, quad)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    den = to_source[2, 0] * xs + to_source[2, 1] * ys + to_source[2, 2]
    den = np.where(den == 0, 1.0, den)
    sx = (to_source[0, 0] * xs + to_source[0, 1] * ys + to_source[0, 2]) / den
    sy = (to_source[1, 0] * xs + to_source[1, 1] * ys + to_source[1, 2]) / den
    x0, y0 = np.floor(sx).astype(np.intp), np.floor(sy).astype(np.intp)
    wx = resample._cubic_weights((sx - x0).astype(np.float32))
    wy = resample._cubic_weights((sy - y0).astype(np.float32))
    h, w = image.shape[:2]
    out = np.zeros((height, width, image.shape[2]), np.float32)
    for i in range(4):
        rows = np.clip(y0 + i - 1, 0, h - 1)
        for j in range(4):
            cols = np.clip(x0 + j - 1, 0, w - 1)
            out += (wy[i] * wx[j])[..., None] * image[rows, cols]
    crop = np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return np.rot90(crop) if height >= 1.5 * width else crop


def _plain_letter_height(pixels: np.ndarray) -> float | None:
    from scipy import ndimage

    channels = pixels.astype(np.uint32)
    gray = ((channels[..., 0] * 4899 + channels[..., 1] * 9617 + channels[..., 2] * 1868
             + 8192) // 16384).astype(np.uint8)
    labels, count = ndimage.label(gray <= tuning._otsu(np.bincount(gray.ravel(), minlength=256)),
                                  structure=np.ones((3, 3), bool))
    if count < tuning.MIN_LETTERS:
        return None
    windows = ndimage.find_objects(labels)
    height = np.array([w[0].stop - w[0].start for w in windows])
    width = np.array([w[1].stop - w[1].start for w in windows])
    area = np.bincount(labels.ravel(), minlength=count + 1)[1:]
    letters = ((height >= 4) & (height <= tuning.MAX_LETTER_HEIGHT) & (width <= 1.5 * height)
               & (width >= 0.15 * height) & (area >= 0.15 * width * height))
    if int(letters.sum()) < tuning.MIN_LETTERS:
        return None
    return float(np.percentile(height[letters], 25))


IMAGES = {"drawn": _drawing(530, 310, 11), "noise": _noise(97, 143)}


@pytest.mark.parametrize("name", IMAGES)
def test_resizes_give_the_plain_computations_pixels(name: str) -> None:
    image = IMAGES[name]
    h, w = image.shape[:2]
    linear = [(320, 48), (w + 7, h), (w, h + 9), (w * 2 + 3, h // 3 + 1), (w // 2, h * 3)]
    for width, height in linear:  # one side kept too: the detector's multiple of 32
        got = resample.resize_linear(image, width, height)
        assert np.array_equal(got, _plain_resize_linear(image, width, height)), (width, height)
    for width, height in [(w // 2, h // 2), (w * 2 // 3, h * 7 // 10), (w // 5 + 1, h - 1)]:
        got = resample.resize_area(image, width, height)
        assert np.array_equal(got, _plain_resize_area(image, width, height)), (width, height)


@pytest.mark.parametrize("name", IMAGES)
def test_crops_give_the_plain_computations_pixels_in_either_channel_order(name: str) -> None:
    """The engine crops the RGB image and turns each crop to BGR (no BGR copy of the whole
    image): the same pixels as cropping a BGR copy; a view that is not contiguous works."""
    image = IMAGES[name]
    h, w = image.shape[:2]
    bgr = np.ascontiguousarray(image[:, :, ::-1])
    quads = [[[5, 4], [w - 9, 4], [w - 9, 30], [5, 30]],           # a line, upright
             [[10, 8], [w // 2, 14], [w // 2 - 3, 40], [8, 33]],     # tilted, skewed
             [[20, 2], [34, 2], [34, h - 3], [20, h - 3]],           # tall: turned
             [[-6, -5], [w + 4, -2], [w + 6, h + 3], [-4, h + 8]],   # past the border
             [[7, 9], [11.6, 9], [11.6, 12.3], [7, 12.3]]]            # a few pixels
    for corners in quads:
        quad = np.array(corners, np.float32)
        expected = _plain_crop_quad(bgr, quad)
        assert np.array_equal(resample.crop_quad(bgr, quad), expected), corners
        assert np.array_equal(resample.crop_quad(image, quad)[:, :, ::-1], expected), corners
        assert np.array_equal(resample.crop_quad(image[:, :, ::-1], quad), expected), corners


def test_the_shrink_for_detection_commutes_with_the_channel_order() -> None:
    image = IMAGES["drawn"]
    bgr = np.ascontiguousarray(image[:, :, ::-1])
    assert np.array_equal(resample.resize_area(image, 301, 177)[:, :, ::-1],
                          _plain_resize_area(bgr, 301, 177))


@pytest.mark.parametrize("band_pixels", [tuning.BAND_PIXELS, 1000, 1])
def test_the_letter_size_by_bands_is_the_whole_images(monkeypatch, band_pixels: int) -> None:
    """The grey histogram and the blobs' areas are counted band by band (no 8-byte copy of
    every pixel); with bands of a row or less the figure is the whole image's."""
    monkeypatch.setattr(tuning, "BAND_PIXELS", band_pixels)
    speckled = _drawing(640, 400, 9).copy()
    speckled[RNG.random(speckled.shape[:2]) < 0.02] = 0  # many one-pixel blobs
    for pixels in (_drawing(640, 400, 9), _drawing(900, 260, 16), speckled, _noise(60, 80)):
        expected = _plain_letter_height(pixels)
        assert tuning.letter_height(pixels) == expected
    assert _plain_letter_height(_drawing(640, 400, 9)) is not None  # a size was told


def test_ctc_decoding_among_allowed_classes_is_the_plain_choice() -> None:
    characters = ["blank", *"abcdefgh", "字", "文", " "]
    banned = np.array([c in "字文" for c in characters])
    probs = RNG.random((5, 40, len(characters))).astype(np.float32)
    probs[:, ::3, 9] = 2.0  # a banned class is often the best
    probs[0, 5, [2, 4]] = 3.0  # a tie: the first allowed class wins
    allowed = np.flatnonzero(~banned)
    kept = probs[:, :, allowed]
    bests, maxima = allowed[kept.argmax(axis=2)], kept.max(axis=2)
    expected = []
    for best, prob in zip(bests, maxima, strict=True):
        keep = np.ones(len(best), bool)
        keep[1:] = best[1:] != best[:-1]
        keep &= best != 0
        confidences = [round(c, 5) for c in prob[keep].tolist()] or [0]
        expected.append(("".join(characters[i] for i in best[keep]),
                         float(np.mean(confidences).round(5))))
    got = ctc_decode(probs, characters, banned)
    assert got == expected
    assert all("字" not in text and "文" not in text for text, _ in got)


def test_the_recognisers_input_is_the_plain_normalisation() -> None:
    """Each 8-bit value is looked up as the models take it, (v / 255 - 0.5) / 0.5."""
    from cluestudio.core.ocr.onnx_pipeline import REC_HEIGHT, _rec_input

    for crop in (IMAGES["drawn"][40:71, 10:300], IMAGES["noise"][:20, :90],
                 IMAGES["noise"][:30, :40:-1]):
        for max_ratio in (320 / REC_HEIGHT, 12.5):
            width = int(REC_HEIGHT * max_ratio)
            resized_w = min(width, -(-REC_HEIGHT * crop.shape[1] // crop.shape[0]))
            resized = _plain_resize_linear(crop, resized_w, REC_HEIGHT).astype(np.float32)
            expected = np.zeros((3, REC_HEIGHT, width), np.float32)
            expected[:, :, :resized_w] = (resized.transpose(2, 0, 1) / 255 - 0.5) / 0.5
            got = _rec_input(crop, max_ratio)
            assert got.dtype == np.float32 and np.array_equal(got, expected)


def test_the_detectors_input_is_the_plain_normalisation() -> None:
    from cluestudio.core.ocr.onnx_pipeline import _det_input

    for image in (IMAGES["drawn"], IMAGES["noise"], IMAGES["noise"][:, ::-1]):
        expected = ((image.astype(np.float32) / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)[None]
        got = _det_input(image)
        assert got.dtype == np.float32 and np.array_equal(got, expected)
