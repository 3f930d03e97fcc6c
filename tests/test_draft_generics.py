"""The offline draft on PlantUML's own renders of generic and nested classes (issue 29):
PlantUML draws a generic class's type parameters in a small dashed box over the top-right
corner of the class box, which is no class of its own; a nested class's dotted display name
(``Outer.Inner``) keeps its dot. The images are rendered here by our PlantUML renderer and
read by the real OCR engine."""

from __future__ import annotations

import random

import pytest

from cluestudio.core.plantuml import parse_plantuml

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.java, pytest.mark.xdist_group("ocr")]

GENERICS = """@startuml
class RankedQueue<T extends Comparable<T>> {
  - size : int
  + insert(item : T) : void
}
class Dictionary<Key, Value> {
  - count : int
}
class Registry {
  - items : int
}
Registry --> RankedQueue
Registry --> Dictionary
@enduml
"""

NESTED = """@startuml
set namespaceSeparator none
class Outer.Inner {
  - size : int
}
class Shelf {
  - count : int
}
Shelf --> Outer.Inner
@enduml
"""


def _draft(truth: str):
    from cluestudio.core.draft.convert import draft_from_image
    from cluestudio.core.synth import render_look

    return draft_from_image(render_look(truth, "default", random.Random(7)))


def test_a_generic_class_s_parameters_are_its_own_not_a_class() -> None:
    draft = _draft(GENERICS)
    names = sorted(c.name for c in draft.diagram.classes)
    assert names == ["Dictionary", "RankedQueue", "Registry"]
    # drafted as PlantUML writes a generic class, so the draft renders the same corner box
    assert "class Dictionary<Key, Value> {" in draft.puml
    assert "class RankedQueue<T extends Comparable<T>> {" in draft.puml
    dictionary = next(c for c in draft.diagram.classes if c.name == "Dictionary")
    assert [a.name for a in dictionary.attributes] == ["count"]
    ends = {(r.begin, r.end) for r in draft.diagram.relations}
    assert ends == {("Registry", "RankedQueue"), ("Registry", "Dictionary")}


def test_a_nested_class_keeps_the_dot_of_its_name() -> None:
    draft = _draft(NESTED)
    truth = parse_plantuml(NESTED).diagram
    assert sorted(c.name for c in draft.diagram.classes) == sorted(
        c.name for c in truth.classes) == ["Outer.Inner", "Shelf"]
    assert {(r.begin, r.end) for r in draft.diagram.relations} == {("Shelf", "Outer.Inner")}
