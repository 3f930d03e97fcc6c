"""The draft's shortcuts in reading relation heads give what the plain computation gives,
to the bit (issue 29: the draft's CPU per image)."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from cluestudio.core.draft.relations import piece_centres
from cluestudio.core.draft.solid_heads import near_block


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
    from cluestudio.core.draft.solid_heads import cross_dilated

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
