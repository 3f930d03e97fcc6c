"""Synthetic submissions: seeded, deterministic mutations with recorded ground truth."""

from __future__ import annotations

import io
import random
from dataclasses import replace

import pytest
from PIL import Image

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    Method,
    Multiplicity,
    Relation,
    RelationType,
)
from cluestudio.core.plantuml import parse_plantuml, write_plantuml
from cluestudio.core.synth import (
    CONVERSION_ERRORS,
    LOOKS,
    MUTATIONS,
    STYLES,
    _apply,
    generate,
    photo_of,
    plant_conversion_error,
    render_look,
    shrink_png,
    styled,
)
from cluestudio.core.synth_reference import random_reference

REFERENCE = ClassDiagram(
    classes=(
        Class("Member", (Attribute("name", "String", "-"), Attribute("email", "String", "-")),
              (Method("borrow", "Loan", (), "+"),)),
        Class("Loan", (Attribute("dueOn", "Date", "-"),), (Method("renew", "void", (), "+"),)),
        Class("Copy", (Attribute("barcode", "String", "-"),)),
        Class("Item", (Attribute("title", "String", "-"),)),
        Class("Book", (Attribute("isbn", "String", "-"),)),
    ),
    relations=(
        Relation(RelationType.ASSOCIATION, "Member", "Loan", Multiplicity("1", "0..5")),
        Relation(RelationType.ASSOCIATION, "Loan", "Copy", Multiplicity("0..*", "1")),
        Relation(RelationType.COMPOSITION, "Item", "Copy", Multiplicity("1", "1..*")),
        Relation(RelationType.GENERALIZATION, "Book", "Item"),
    ),
)


def test_same_seed_same_candidates_and_first_is_unchanged() -> None:
    a = generate(REFERENCE, 12, seed=7)
    b = generate(REFERENCE, 12, seed=7)
    assert a == b
    assert a[0].diagram == REFERENCE and a[0].mutations == ()
    assert all(c.mutations for c in a[1:])
    assert generate(REFERENCE, 12, seed=8) != a
    assert {c.style for c in a} == set(STYLES)


@pytest.mark.parametrize("kind", MUTATIONS)
def test_each_mutation_changes_the_diagram_and_says_how(kind: str) -> None:
    for attempt in range(50):
        result = _apply(kind, REFERENCE, random.Random(attempt))
        if result is not None:
            break
    assert result is not None, f"{kind} never applied"
    diagram, mutation = result
    assert diagram != REFERENCE and mutation.kind == kind and mutation.target
    names = set(diagram.class_names)
    assert all({r.begin, r.end} <= names for r in diagram.relations)  # no dangling ends


def test_reverse_relation_swaps_ends_and_multiplicities() -> None:
    for seed in range(50):
        result = _apply("reverse_relation", REFERENCE, random.Random(seed))
        if result and result[1].target.startswith("Member-AS-Loan"):
            rel = next(r for r in result[0].relations if r.begin == "Loan" and r.end == "Member")
            assert rel.label == Multiplicity("0..5", "1")
            return
    pytest.fail("Member-Loan never reversed")


def test_rename_class_follows_into_relations() -> None:
    for seed in range(50):
        result = _apply("rename_class", REFERENCE, random.Random(seed))
        if result and result[1].before == "Member":
            new = result[1].after
            assert any(r.begin == new for r in result[0].relations)
            assert "Member" not in result[0].class_names
            return
    pytest.fail("Member never renamed")


def test_styles_insert_skinparams_after_startuml() -> None:
    text = styled("@startuml\nclass A\n@enduml\n", "handwritten")
    assert text.splitlines()[:2] == ["@startuml", "skinparam handwritten true"]
    sideways = styled('@startuml\nA "0..1" *-- "1..*" B\nC ..|> I\n@enduml', "left_to_right")
    assert 'A "0..1" *- "1..*" B' in sideways and "C .|> I" in sideways


def test_shrink_png_fits_the_budget() -> None:
    rng = random.Random(1)
    image = Image.new("RGB", (900, 700), "white")
    for _ in range(4000):
        image.putpixel((rng.randrange(900), rng.randrange(700)), (rng.randrange(256), 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    small = shrink_png(buffer.getvalue(), 20_000)
    assert len(small) <= 20_000
    assert Image.open(io.BytesIO(small)).format == "PNG"


def test_shipped_sample_course_is_small_and_marked_synthetic() -> None:
    import csv

    from cluestudio.core.workspace import sample_course_path

    root = sample_course_path()
    pngs = sorted(root.glob("tasks/*/submissions/*.png"))
    if not pngs:
        pytest.skip("sample submissions not generated yet (annotations/sample/build_sample.py)")
    assert len(pngs) >= 60
    assert max(p.stat().st_size for p in pngs) <= 40 * 1024
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) <= 3 * 1024 * 1024
    assert len(list(root.glob("tasks/*/submissions/*.puml"))) == len(pngs)
    with open(root / "ratings.csv", newline="", encoding="utf-8") as handle:
        assert {row["synthetic"] for row in csv.DictReader(handle)} == {"1"}


def test_cli_synth_writes_puml_and_ground_truth(tmp_path, capsys) -> None:
    import json

    pytest.importorskip("cluestudio.core.plantuml.parser")
    from cluestudio.cli import main
    from cluestudio.core.workspace import sample_course_path

    reference = sample_course_path() / "tasks" / "library_loans" / "reference.puml"
    assert main(["synth", str(reference), str(tmp_path), "--count", "4", "--seed", "3",
                 "--no-images", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["candidates"]
    assert [c["id"] for c in out] == ["s001", "s002", "s003", "s004"]
    assert json.loads((tmp_path / "s002.json").read_text())["mutations"] == out[1]["mutations"]
    assert (tmp_path / "s004.puml").read_text().startswith("@startuml")


# --- planted conversion errors and the looks of image A (issue 18) -------------------------

def _names(diagram: ClassDiagram) -> list[tuple[str, str]]:
    from cluestudio.core.check import diagram_names

    return sorted((n.text, n.kind) for n in diagram_names(diagram))


EXPECTED_DIFF = {  # planted kind → (kind of name that disappears, kind that appears)
    "drop_class": ("class", None), "drop_attribute": ("attribute", None),
    "drop_method": ("method", None), "drop_label": ("label", None),
    "drop_multiplicity": ("multiplicity", None), "rename_class": ("class", "class"),
    "rename_attribute": ("attribute", "attribute"), "invent_class": (None, "class"),
    "invent_attribute": (None, "attribute"), "invent_method": (None, "method"),
}


@pytest.mark.parametrize("kind", CONVERSION_ERRORS)
def test_each_planted_conversion_error_changes_exactly_what_it_says(kind: str) -> None:
    from collections import Counter

    labelled = replace(REFERENCE, relations=tuple(
        replace(r, name="holds") if i == 0 else r for i, r in enumerate(REFERENCE.relations)))
    for seed in range(5):
        planted = plant_conversion_error(labelled, kind, random.Random(seed))
        if planted is not None:
            break
    assert planted is not None
    diagram, mutation = planted
    assert mutation.kind == kind
    before, after = Counter(_names(labelled)), Counter(_names(diagram))
    gone, added = before - after, after - before
    lost_kind, new_kind = EXPECTED_DIFF[kind]
    if lost_kind:
        assert (mutation.before, lost_kind) in gone or (kind == "drop_label" and (
            mutation.before, "label") in gone)
    if new_kind:
        name = mutation.after if kind.startswith("rename") else mutation.target.split(".")[-1]
        assert (name.removesuffix("()"), new_kind) in added
    if kind.startswith("drop"):
        assert not added
    assert parse_plantuml(write_plantuml(diagram)).diagram == diagram


def test_random_references_are_deterministic_connected_and_written_back() -> None:
    first = random_reference(random.Random("1:0"))
    assert first == random_reference(random.Random("1:0"))
    assert first != random_reference(random.Random("2:0"))
    assert 5 <= len(first.classes) <= 8 and len(first.relations) == len(first.classes) - 1
    linked = {first.classes[0].name}
    for relation in first.relations:  # each class is tied to one made before it
        linked |= {relation.begin, relation.end}
    assert linked == set(first.class_names)
    assert parse_plantuml(write_plantuml(first)).diagram == first


def test_the_photo_is_a_tilted_unevenly_lit_jpeg() -> None:
    import numpy as np

    drawing = Image.new("RGB", (400, 300), "white")
    for x in range(100, 300):
        drawing.putpixel((x, 150), (0, 0, 0))
    buffer = io.BytesIO()
    drawing.save(buffer, format="PNG")
    photo = photo_of(buffer.getvalue(), random.Random(3))
    assert photo == photo_of(buffer.getvalue(), random.Random(3))
    with Image.open(io.BytesIO(photo)) as image:
        assert image.format == "JPEG"
        assert image.width > 400 * 1.2 and image.height > 300 * 1.2
        gray = np.asarray(image.convert("L"), dtype=float)
    corners = [gray[:20, :20].mean(), gray[:20, -20:].mean(), gray[-20:, :20].mean(),
               gray[-20:, -20:].mean()]
    assert max(corners) - min(corners) > 15  # the light is uneven


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_four_looks_render() -> None:
    from cluestudio.core.plantuml import write_plantuml as write

    text = write(REFERENCE)
    shapes = {}
    for look in LOOKS:
        data = render_look(text, look, random.Random(0))
        with Image.open(io.BytesIO(data)) as image:
            shapes[look] = (image.format, image.size)
    assert shapes["photo"][0] == "JPEG"
    assert {shapes[look][0] for look in ("default", "handwritten", "mono_serif")} == {"PNG"}
    assert len({shapes[look][1] for look in LOOKS}) >= 3  # fonts and styles change the size
