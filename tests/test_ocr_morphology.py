"""The layout's running-minimum/maximum morphology (issues 28, 29: a big render's layout
spent most of its CPU in scipy's binary_* with line structures) gives scipy's results."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from cluestudio.core.ocr.layout import _closed, _line_max, _opened, cross_dilated, upright_gray


@pytest.fixture(params=[0.05, 0.5, 0.9], ids=["sparse", "half", "dense"])
def mask(request: pytest.FixtureRequest) -> np.ndarray:
    rng = np.random.default_rng(7)
    found = rng.random((83, 131)) < request.param
    found[10, 5:70] = True  # a long stroke each way, touching the borders too
    found[:, 0] = True
    found[40:, 100] = True
    return found


@pytest.mark.parametrize("length", [3, 9, 25])
@pytest.mark.parametrize("axis", [0, 1])
def test_line_opening_closing_and_dilation_equal_scipys(mask: np.ndarray, length: int,
                                                         axis: int) -> None:
    line = np.ones((length, 1) if axis == 0 else (1, length), bool)
    assert np.array_equal(_opened(mask, length, axis), ndimage.binary_opening(mask, line))
    assert np.array_equal(_closed(mask, length, axis), ndimage.binary_closing(mask, line))
    assert np.array_equal(_line_max(mask, length, axis), ndimage.binary_dilation(mask, line))


@pytest.mark.parametrize("iterations", [1, 3])
def test_cross_dilation_equals_scipys(mask: np.ndarray, iterations: int) -> None:
    assert np.array_equal(cross_dilated(mask, iterations),
                          ndimage.binary_dilation(mask, iterations=iterations))


def test_gray_is_the_float_mean_of_the_channels() -> None:
    pixels = np.random.default_rng(3).integers(0, 256, (29, 31, 3), dtype=np.uint8)
    pixels[0, :3] = [[255, 255, 255], [0, 0, 0], [255, 254, 1]]
    assert np.array_equal(upright_gray(pixels, 0.0), pixels.astype(np.float32).mean(axis=2))
