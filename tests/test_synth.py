"""Synthetic submissions: seeded, deterministic mutations with recorded ground truth."""

from __future__ import annotations

import io
import random

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
from cluestudio.core.synth import MUTATIONS, STYLES, _apply, generate, shrink_png, styled

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
