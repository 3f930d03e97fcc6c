"""The draft's shortcuts in reading relation heads give what the plain computation gives,
to the bit (issue 29: the draft's CPU per image)."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from cluestudio.core.draft.relations import piece_centres
from cluestudio.core.draft.solid_heads import near_block
from cluestudio.core.ocr.result import OcrResult, TextLine


def test_near_block_is_the_plain_cross_dilated_steps_times() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(1, 40, size=2))
        r0, r1 = sorted(int(v) for v in rng.integers(-5, h + 5, size=2))
        c0, c1 = sorted(int(v) for v in rng.integers(-5, w + 5, size=2))
        at = (slice(max(0, r0), max(0, r1)), slice(max(0, c0), max(0, c1)))
        block = np.zeros((h, w), dtype=bool)
        block[at] = True
        steps = int(rng.integers(1, 12))
        plain = ndimage.binary_dilation(block, iterations=steps)
        assert np.array_equal(near_block((h, w), at, steps), plain)


def test_piece_centres_are_the_centres_of_mass_to_the_bit() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        strokes = rng.random((int(rng.integers(5, 80)), int(rng.integers(5, 80)))) < 0.3
        labels, count = ndimage.label(strokes, structure=np.ones((3, 3), dtype=bool))
        if count == 0:
            continue
        plain = np.array(ndimage.center_of_mass(strokes, labels, range(1, count + 1)))
        assert np.array_equal(piece_centres(labels, count), plain)


def test_morphology_round_a_head_is_the_same_on_its_surroundings() -> None:
    from cluestudio.core.draft.solid_heads import _around

    rng = np.random.default_rng(11)
    for _ in range(100):
        image = np.zeros((int(rng.integers(10, 60)), int(rng.integers(10, 60))), dtype=bool)
        r, c = int(rng.integers(0, image.shape[0])), int(rng.integers(0, image.shape[1]))
        image[r:r + int(rng.integers(1, 8)), c:c + int(rng.integers(1, 8))] = True
        image &= rng.random(image.shape) < 0.8
        image[r, c] = True
        steps = int(rng.integers(1, 10))
        near = _around(image, steps)
        grown = np.zeros_like(image)
        grown[near] = ndimage.binary_dilation(image[near], iterations=steps)
        assert np.array_equal(grown, ndimage.binary_dilation(image, iterations=steps))
        near = _around(image, 1)
        core = np.zeros_like(image)
        core[near] = ndimage.binary_erosion(image[near])
        assert np.array_equal(core, ndimage.binary_erosion(image))


def test_cross_dilated_is_the_plain_iterated_dilation() -> None:
    from cluestudio.core.ocr.layout import cross_dilated

    rng = np.random.default_rng(5)
    for _ in range(100):
        mask = rng.random((int(rng.integers(1, 50)), int(rng.integers(1, 50)))) < 0.05
        steps = int(rng.integers(1, 9))
        assert np.array_equal(cross_dilated(mask, steps),
                              ndimage.binary_dilation(mask, iterations=steps))


def test_the_upright_grey_is_the_channels_mean_as_before() -> None:
    from cluestudio.core.ocr.layout import upright_gray

    pixels = np.random.default_rng(2).integers(0, 256, size=(37, 53, 3), dtype=np.uint8)
    plain = pixels.sum(axis=2, dtype=np.uint16).astype(np.float32) / np.float32(3)
    assert np.array_equal(upright_gray(pixels, 0.0), plain)


def test_disk_dilation_and_erosion_are_scipys_with_the_disk() -> None:
    from cluestudio.core.draft.solid_heads import _disk, disk_dilated, disk_eroded

    rng = np.random.default_rng(9)
    for _ in range(150):
        mask = rng.random((int(rng.integers(1, 40)), int(rng.integers(1, 40)))) < rng.random()
        radius = int(rng.integers(1, 12))
        disk = _disk(radius)
        assert np.array_equal(disk_dilated(mask, radius),
                              ndimage.binary_dilation(mask, structure=disk))
        assert np.array_equal(disk_eroded(mask, radius),
                              ndimage.binary_erosion(mask, structure=disk))
        assert np.array_equal(disk_dilated(disk_eroded(mask, radius), radius),
                              ndimage.binary_opening(mask, structure=disk))


def _letters_taken_out_plainly(window: np.ndarray, texts: list[tuple[int, int, int, int]],
                               offset: tuple[int, int]) -> np.ndarray:
    """The pieces inside a text's box found by the labels in and out of it, as before."""
    x0, y0 = offset
    window = window.copy()
    pieces, _count = ndimage.label(window, structure=np.ones((3, 3), dtype=bool))
    for rect in texts:
        tx0, ty0 = max(0, rect[0] - 2 - x0), max(0, rect[1] - 2 - y0)
        tx1, ty1 = rect[2] + 3 - x0, rect[3] + 3 - y0
        if tx1 <= 0 or ty1 <= 0 or tx0 >= window.shape[1] or ty0 >= window.shape[0]:
            continue
        inside = np.unique(pieces[ty0:ty1, tx0:tx1])
        outside = pieces.copy()
        outside[ty0:ty1, tx0:tx1] = 0
        letters = np.setdiff1d(inside, np.unique(outside))
        window &= ~np.isin(pieces, letters[letters > 0])
    return window


def test_letters_are_the_pieces_that_stay_inside_a_texts_box() -> None:
    from cluestudio.core.draft.solid_heads import without_letters

    rng = np.random.default_rng(4)
    for _ in range(150):
        window = rng.random((int(rng.integers(8, 60)), int(rng.integers(8, 60)))) < 0.25
        offset = (int(rng.integers(0, 30)), int(rng.integers(0, 30)))
        texts = []
        for _ in range(int(rng.integers(0, 4))):
            x, y = (int(v) for v in rng.integers(-10, 90, size=2))
            texts.append((x, y, x + int(rng.integers(0, 25)), y + int(rng.integers(0, 15))))
        assert np.array_equal(without_letters(window, texts, offset),
                              _letters_taken_out_plainly(window, texts, offset))


def _lines_in_plainly(ocr: OcrResult, rect: tuple[float, float, float, float]
                      ) -> list[TextLine]:
    """The OCR lines in a box, every line's place worked out again, as before."""
    x0, y0, x1, y1 = rect
    inside = []
    for ln in ocr.lines:
        cx, cy = ocr.layout.upright(ln.box.center)
        slack = max(2.0, 0.1 * ln.box.height)
        if not (x0 - 2 <= cx <= x1 + 2 and y0 - slack <= cy <= y1 + slack):
            continue
        lx0, _top, lx1, _bottom = ln.box.rect
        if (min(lx1, x1 + 4) - max(lx0, x0 - 4)) / max(1.0, lx1 - lx0) >= 0.7:
            inside.append(ln)
    return sorted(inside, key=lambda ln: (ln.box.rect[1], ln.box.rect[0]))


def test_lines_in_a_box_are_those_of_the_plain_search_whichever_result_came_last() -> None:
    from dataclasses import replace

    from cluestudio.core.draft.classes import _lines_in
    from cluestudio.core.ocr.result import Box, Layout

    rng = np.random.default_rng(8)
    lines = []
    for i in range(40):
        x, y = (float(v) for v in rng.integers(0, 300, size=2))
        lines.append(TextLine(f"line{i}", Box.from_rect(x, y, x + float(rng.integers(5, 80)),
                                                        y + float(rng.integers(8, 20))), 0.9))
    level = OcrResult("sha", "engine", 400, 400, tuple(lines))
    tilted = replace(level, layout=Layout(angle=4.0, center=(150.0, 150.0)))
    other = replace(level, lines=tuple(reversed(lines)))
    found = 0
    for _ in range(30):
        x, y = (float(v) for v in rng.integers(0, 250, size=2))
        rect = (x, y, x + float(rng.integers(20, 150)), y + float(rng.integers(20, 150)))
        for ocr in (level, tilted, level, other):  # each after another one
            assert _lines_in(ocr, rect) == _lines_in_plainly(ocr, rect)
            found += len(_lines_in(ocr, rect))
    assert found > 0


def test_holes_filled_are_scipys() -> None:
    from cluestudio.core.draft.solid_heads import holes_filled

    rng = np.random.default_rng(6)
    for _ in range(200):
        mask = rng.random((int(rng.integers(1, 40)), int(rng.integers(1, 40)))) < rng.random()
        assert np.array_equal(holes_filled(mask), ndimage.binary_fill_holes(mask))


def test_pieces_are_the_labelled_components_in_order() -> None:
    from cluestudio.core.draft.components import components, pieces

    rng = np.random.default_rng(12)
    for _ in range(100):
        mask = np.zeros((int(rng.integers(1, 60)), int(rng.integers(1, 60))), dtype=bool)
        r, c = int(rng.integers(0, mask.shape[0])), int(rng.integers(0, mask.shape[1]))
        mask[r:r + int(rng.integers(0, 30)), c:c + int(rng.integers(0, 30))] = True
        mask &= rng.random(mask.shape) < 0.5
        plain = list(components(ndimage.label(mask)[0]))
        fast = list(pieces(mask))
        assert [f for f, _ in fast] == [f for f, _ in plain]
        assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(fast, plain, strict=True))
