"""Photographed diagrams made per seed (issue 29's photo proxy): deterministic, their truth
is PlantUML our parser reads, and the features they name are drawn."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from PIL import Image

from cluestudio.core.plantuml import parse_plantuml
from cluestudio.core.synth_photos import BOARDS, font_files, random_photo

SIDE = 480  # small pictures: the tests stay fast


@pytest.fixture(scope="module")
def photos() -> list:
    return [random_photo(random.Random(f"t:{i}"), out_side=SIDE) for i in range(10)]


def test_same_seed_same_photo_and_the_truth_is_the_parsed_text() -> None:
    first = random_photo(random.Random("t:0"), out_side=SIDE)
    assert first == random_photo(random.Random("t:0"), out_side=SIDE)
    assert first.truth == parse_plantuml(first.text).diagram
    assert 2 <= len(first.truth.classes) <= 7
    assert first != random_photo(random.Random("t:1"), out_side=SIDE)


def test_photos_are_phone_jpegs_of_about_the_size_asked(photos: list) -> None:
    for photo in photos:
        with Image.open(io.BytesIO(photo.jpeg)) as image:
            assert image.format == "JPEG" and image.mode == "RGB"
            assert SIDE <= max(image.size) <= 2.5 * SIDE + 1, photo.features
            pixels = np.asarray(image, np.float32)
        # a photo, not a render: grain (sensor noise) and more than a few colours
        assert float(np.abs(np.diff(pixels[:, :, 1], axis=1)).mean()) > 0.5
        assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 500


def test_photos_vary_and_say_what_they_draw(photos: list) -> None:
    features = {f for p in photos for f in p.features}
    assert {"marker", "pen on paper", "glare", "light gradient", "board frame"} <= features
    assert features & {"perspective 5–15°", "perspective 15–25°"}
    assert features & {"ruled paper", "squared paper", "print-through"}
    for photo in photos:
        named = set(photo.features)
        # every photo is taken from the side, on a board or on paper, in one ink
        assert len(named & {"perspective 5–15°", "perspective 15–25°"}) == 1
        if "marker" in named:
            assert len(named & set(BOARDS)) == 1
            assert any(f.endswith("marker") and f != "faded marker" for f in named)
        if "pen on paper" in named:
            assert named & {"blue pen", "black pen"} and not named & set(BOARDS)
        if "name-only boxes" not in named:
            assert any(c.attributes for c in photo.truth.classes)


def test_the_middle_of_the_picture_is_the_board_or_the_paper(photos: list) -> None:
    # the picture is of the drawing, the wall or the desk round it at most
    for photo in photos:
        with Image.open(io.BytesIO(photo.jpeg)) as image:
            gray = np.asarray(image.convert("L"), np.float32)
        h, w = gray.shape
        assert np.percentile(gray[h // 3:2 * h // 3, w // 3:2 * w // 3], 90) > 140, \
            photo.features


def test_fonts_are_found_with_a_fallback() -> None:
    fonts = font_files()
    assert fonts and all(f.is_file() for f in fonts)
