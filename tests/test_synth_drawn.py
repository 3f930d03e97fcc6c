"""Class diagrams drawn in other tools' looks: deterministic, varied, and as their features say."""

from __future__ import annotations

import io
import random

import numpy as np
from PIL import Image

from cluestudio.core.model import ClassKind, RelationType
from cluestudio.core.plantuml import parse_plantuml
from cluestudio.core.synth_drawn import random_drawn


def _pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB")).astype(int)


def test_same_seed_same_drawing_and_the_truth_is_the_parsed_text() -> None:
    first = random_drawn(random.Random("d:1"))
    again = random_drawn(random.Random("d:1"))
    assert first == again
    assert first.truth == parse_plantuml(first.text).diagram
    assert 3 <= len(first.truth.classes) <= 12
    assert first != random_drawn(random.Random("d:2"))


def test_looks_vary_and_the_drawing_and_truth_show_each_feature() -> None:
    drawn = [random_drawn(random.Random(f"d:{i}")) for i in range(24)]
    features = {f for d in drawn for f in d.features}
    assert {"rounded boxes", "blue header fill", "no compartment rules", "«interface»",
            "«enumeration»", "two-line names", "name-only boxes", "role names",
            "orthogonal lines", "straight lines", "aliased", "anti-aliased", "UML frame",
            "editor palette", "editor toolbar", "members java"} <= features
    for d in drawn:
        kinds = {c.kind for c in d.truth.classes}
        if "«interface»" in d.features:
            assert ClassKind.INTERFACE in kinds
            assert RelationType.REALIZATION in {r.type for r in d.truth.relations}
        if "«enumeration»" in d.features:
            assert ClassKind.ENUM in kinds
        if "name-only boxes" in d.features:
            assert not any(c.attributes or c.methods for c in d.truth.classes)
        if "role names" in d.features:
            assert any(" " in r.label.from_ for r in d.truth.relations)
        pixels = _pixels(d.png)
        if "blue header fill" in d.features:  # a saturated blue behind the names
            blue = (pixels[..., 2] - pixels[..., 0] > 60) & (pixels[..., 2] > 100)
            assert blue.sum() > 200
        if "editor palette" in d.features:  # a grey strip down the left side
            strip = pixels[:, 5:100]
            assert abs(strip.mean() - 225) < 20
        if "aliased" in d.features and not {"scale > 1", "scale < 1", "gradient fill"} & set(
                d.features):
            # drawn without smoothing: the grey levels are the few the look's colours use
            assert len(np.unique(pixels.reshape(-1, 3), axis=0)) < 40
