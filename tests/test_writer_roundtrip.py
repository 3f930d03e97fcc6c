"""The writer: parse(write(d)) == d on the corpus and on generated diagrams."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    ClassKind,
    Method,
    Multiplicity,
    Note,
    Param,
    Relation,
    RelationType,
)
from cluestudio.core.plantuml import parse_file, parse_plantuml, write_plantuml
from strategies import class_diagrams

CORPUS_FILES = sorted((Path(__file__).parent / "corpus").glob("*.puml"))
# The differential corpus too, where our parser reads the file (some are meant to fail).
DIFFERENTIAL_FILES = sorted((Path(__file__).parent / "corpus_differential").glob("*.puml"))


def test_the_corpus_is_big_enough() -> None:
    assert len(CORPUS_FILES) >= 40


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_round_trip(path: Path) -> None:
    diagram = parse_file(path).diagram
    assert diagram.classes, "every corpus file declares classes"
    text = write_plantuml(diagram)
    again = parse_plantuml(text)
    assert again.warnings == ()
    assert again.diagram == diagram
    assert write_plantuml(again.diagram) == text  # the writer's output is a fixed point


@pytest.mark.parametrize("path", DIFFERENTIAL_FILES, ids=lambda p: p.stem)
def test_differential_corpus_round_trip(path: Path) -> None:
    try:
        # Without PlantUML's preprocessor: a directive is a warning, the rest a model.
        diagram = parse_plantuml(path.read_bytes().decode("utf-8"), preprocessor=None).diagram
    except PlantUMLSyntaxError:
        pytest.skip("a file PlantUML rejects too")
    again = parse_plantuml(write_plantuml(diagram))
    assert again.warnings == ()
    assert again.diagram == diagram


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(class_diagrams())
def test_generated_round_trip(diagram: ClassDiagram) -> None:
    result = parse_plantuml(write_plantuml(diagram))
    assert result.warnings == ()
    assert result.diagram == diagram


def test_written_text_for_a_known_model() -> None:
    diagram = ClassDiagram(
        classes=(
            Class("Shape", methods=(Method("area", "double", (), "+", is_abstract=True),),
                  kind=ClassKind.ABSTRACT, package="geo"),
            Class("Circle", attributes=(Attribute("r", "double", "-"),), package="geo"),
            Class("Long Name", stereotype="entity"),
            Class("Color", attributes=(Attribute("RED"), Attribute("GREEN")),
                  kind=ClassKind.ENUM),
        ),
        relations=(
            Relation(RelationType.GENERALIZATION, "Circle", "Shape"),
            Relation(RelationType.COMPOSITION, "Long Name", "Circle",
                     Multiplicity("1", "*"), "holds"),
        ),
        notes=(Note("round", "Circle"), Note("free\ntext")),
    )
    assert write_plantuml(diagram) == """@startuml
package geo {
  abstract class Shape {
    {abstract} +area() : double
  }
  class Circle {
    -r : double
  }
}
class "Long Name" as C1 <<entity>>
enum Color {
  RED
  GREEN
}
Circle --|> Shape
C1 "1" *-- "*" Circle : holds
note right of Circle : round
note as N1
free
text
end note
@enduml
"""
    assert parse_plantuml(write_plantuml(diagram)).diagram == diagram


def test_every_relation_type_is_written_canonically() -> None:
    relations = tuple(Relation(t, "A", "B", Multiplicity("1", "2"), "n") for t in RelationType)
    diagram = ClassDiagram((Class("A"), Class("B")), relations)
    lines = write_plantuml(diagram).splitlines()[3:-1]
    assert lines == ['A "1" --> "2" B : n', 'A "1" o-- "2" B : n', 'A "1" *-- "2" B : n',
                     'A "1" ..> "2" B : n', 'A "1" --|> "2" B : n', 'A "1" ..|> "2" B : n']
    assert parse_plantuml("\n".join(lines)).diagram.relations == relations


def test_awkward_names_get_quotes_aliases_or_explicit_colons() -> None:
    diagram = ClassDiagram(
        classes=(Class("note"), Class("C1"), Class("a.b"), Class("Title"),
                 Class("X", attributes=(Attribute("first name"), Attribute("static")),
                       methods=(Method("m", "", (Param("Order"), Param("", "size"))),))),
        relations=(Relation(RelationType.ASSOCIATION, "note", "a.b"),
                   Relation(RelationType.GENERALIZATION, "Title", "note")),
        notes=(Note("x", "Title"),),
    )
    text = write_plantuml(diagram)
    # Keywords stay plain (PlantUML reads `note --> C2` as a link); "C1" is taken, so "a.b"
    # gets the next free alias.
    assert "class note\n" in text and 'class "a.b" as C2' in text
    assert "note --> C2" in text
    assert "first name :" in text and "m(Order:, : size)" in text
    assert parse_plantuml(text).diagram == diagram


def test_empty_diagram() -> None:
    assert write_plantuml(ClassDiagram()) == "@startuml\n@enduml\n"
    assert parse_plantuml(write_plantuml(ClassDiagram())).diagram == ClassDiagram()
