"""PlantUML's preprocessor in front of the parser: which texts go through it, how its lines
map back to the user's, and (with Java) the real thing."""

from __future__ import annotations

import pytest

from cluestudio.core.errors import PlantUMLSyntaxError, RenderError, RendererUnavailable
from cluestudio.core.plantuml._preprocess import needs_preprocessor
from cluestudio.core.plantuml.parser import parse_plantuml
from support.plantuml_differential import java_available


@pytest.mark.parametrize(
    ("text", "needed"),
    [
        ("class A", False),
        ("!pragma layout smetana\n!theme plain\nclass A", False),
        ("!include common.puml\nclass A", False),  # never followed, so nothing to expand
        ("class A {\n  !!! not a directive\n}", False),
        ("!define ENTITY class\nENTITY A", True),
        ("  !$x = 1\nclass A", True),
        ("!procedure $p()\n!endprocedure", True),
        ("!if 1\nclass A\n!endif", True),
    ],
)
def test_which_texts_need_the_preprocessor(text: str, needed: bool) -> None:
    assert needs_preprocessor(text) is needed


def test_expanded_lines_carry_the_users_line_numbers() -> None:
    text = "@startuml\n!define E(x) class x\n!include lib.puml\nE(A)\nE(B)\nA --> B\n@enduml\n"
    seen = []

    def expand(marked: str) -> tuple[list[str], list[int]]:
        seen.append(marked)
        return ["@startuml", "class A", "class B", "A --> B", "@enduml"], [1, 4, 5, 6, 7]

    result = parse_plantuml(text, source="d.puml", preprocessor=expand)
    assert [(c.name, c.line) for c in result.diagram.classes] == [("A", 4), ("B", 5)]
    assert result.diagram.relations[0].line == 6
    # The inclusion never reaches PlantUML; the user hears about it on its own line.
    assert "!include" not in seen[0] and "!define" in seen[0]
    assert [(w.line, w.text) for w in result.warnings] == [(3, "!include lib.puml")]


def test_an_error_in_expanded_text_names_the_users_line() -> None:
    def expand(_text: str) -> tuple[list[str], list[int]]:
        return ["@startuml", "class A {", "@enduml"], [1, 3, 4]

    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml("@startuml\n!$x = 1\nclass A {\n@enduml", preprocessor=expand)
    assert caught.value.line == 3


def test_a_preprocessor_failure_is_a_syntax_error_on_its_line() -> None:
    def expand(_text: str) -> tuple[list[str], list[int]]:
        raise RenderError("No if related to this endif", line=3)

    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml("class A\n!if 1\n!endif\n!endif", source="x.puml", preprocessor=expand)
    assert (caught.value.line, caught.value.text) == (3, "!endif")
    assert str(caught.value).startswith("x.puml:3: PlantUML's preprocessor: No if related")


def test_without_a_preprocessor_directives_stay_warnings() -> None:
    result = parse_plantuml("!define E class\nclass A\n!if 1\n", preprocessor=None)
    assert result.diagram.class_names == ("A",)
    assert [w.line for w in result.warnings] == [1, 3]


# -- PlantUML itself ------------------------------------------------------------------------


needs_java = pytest.mark.skipif(not java_available(), reason="no Java runtime or PlantUML jar")


@needs_java
@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_plantuml_expands_defines_procedures_functions_and_ifs() -> None:
    text = """@startuml classes
' a comment
!define ENTITY(name) class name <<entity>>
!$colour = "#E0F0FF"
!procedure $service($name)
  class $name <<service>> $colour
!endprocedure
!function $repo($entity)
  !return $entity + "Repository"
!endfunction
ENTITY(Customer)
$service(Billing)
class $repo("Order")
!if 1 == 2
class Never
!else
class Always
!endif
Billing --> Customer
@enduml
"""
    result = parse_plantuml(text, source="p.puml")
    diagram = result.diagram
    # A line a procedure writes comes from the procedure's body (line 6), as PlantUML
    # reports errors in it; a macro's from the line that uses it.
    assert [(c.name, c.stereotype, c.line) for c in diagram.classes] == [
        ("Customer", "entity", 11), ("Billing", "service", 6), ("OrderRepository", "", 13),
        ("Always", "", 17)]
    assert diagram.relations[0].line == 19
    assert result.warnings == ()


@needs_java
@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_plantuml_preprocessor_errors_name_the_users_line() -> None:
    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml("@startuml\nclass A\n!if 1\n!endif\n!endif\nclass B\n@enduml\n",
                       source="e.puml")
    assert caught.value.line == 5
    assert str(caught.value).startswith("e.puml:5: PlantUML's preprocessor: No if related")
    # Inclusions never reach PlantUML, so a file that also has one still expands.
    result = parse_plantuml("!include secrets.puml\n!define K class\nK A\n")
    assert result.diagram.class_names == ("A",)
    assert [w.line for w in result.warnings] == [1]


def test_without_plantuml_directives_stay_as_written_with_a_warning() -> None:
    def unavailable(_text: str) -> tuple[list[str], list[int]]:
        raise RendererUnavailable("no Java runtime")

    result = parse_plantuml("class A\n!$x = 1\nclass B\n", preprocessor=unavailable)
    assert result.diagram.class_names == ("A", "B")
    assert [(w.line, "not expanded (no Java runtime)" in w.message)
            for w in result.warnings][:1] == [(2, True)]
