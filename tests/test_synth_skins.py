"""Random PlantUML skins: deterministic, varied, and every one accepted by our renderer."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from cluestudio.core.plantuml import parse_plantuml
from cluestudio.core.synth_skins import random_skinned


def test_same_seed_same_diagram_and_the_truth_is_the_parsed_text() -> None:
    first = random_skinned(random.Random("s:1"))
    assert first == random_skinned(random.Random("s:1"))
    assert first.truth == parse_plantuml(first.text).diagram
    assert 3 <= len(first.truth.classes) <= 30


def test_skins_vary_and_say_what_they_draw() -> None:
    drawn = [random_skinned(random.Random(f"s:{i}")) for i in range(40)]
    features = {f for d in drawn for f in d.features}
    assert {"light theme", "monochrome", "ortho lines", "packages", "hide circle",
            "left to right", "generics", "notes", "nested class"} <= features
    sizes = [len(d.truth.classes) for d in drawn]
    assert min(sizes) <= 8 and max(sizes) >= 17
    for d in drawn:  # each feature named is in the text
        if "monochrome" in d.features:
            assert "skinparam monochrome true" in d.text
        if "ortho lines" in d.features:
            assert "skinparam linetype ortho" in d.text
        if "packages" in d.features:
            assert any(c.package for c in d.truth.classes)


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_random_skins_render() -> None:
    from cluestudio.core.synth import render_png_batch

    # the first seeds whose skins include a theme, sideways layout, packages and generics
    wanted = {"light theme", "dark theme", "left to right", "packages", "generics",
              "nested class"}
    chosen, seen = [], set[str]()
    for i in range(200):
        skinned = random_skinned(random.Random(f"r:{i}"))
        if set(skinned.features) & (wanted - seen):
            chosen.append(skinned)
            seen |= set(skinned.features)
        if wanted <= seen:
            break
    assert wanted <= seen
    for skinned, png in zip(chosen, render_png_batch([s.text for s in chosen]), strict=True):
        with Image.open(io.BytesIO(png)) as image:
            assert image.format == "PNG"
            assert image.width > 100 and image.height > 100, skinned.features
