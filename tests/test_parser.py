"""The PlantUML class-diagram parser: hand-written inputs with the models they must give."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.errors import ClueStudioError, PlantUMLSyntaxError
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
from cluestudio.core.plantuml import ParseWarning, parse_file, parse_plantuml

AS, AG, CO, DE, GE, RE = (RelationType.ASSOCIATION, RelationType.AGGREGATION,
                          RelationType.COMPOSITION, RelationType.DEPENDENCY,
                          RelationType.GENERALIZATION, RelationType.REALIZATION)
CORPUS = Path(__file__).parent / "corpus"


def parse(text: str) -> ClassDiagram:
    result = parse_plantuml(text)
    assert result.warnings == (), result.warnings
    return result.diagram


def only_relation(text: str) -> Relation:
    relations = parse(f"@startuml\nclass A\n{text}\n@enduml").relations
    assert len(relations) == 1, relations
    return relations[0]


def test_a_small_diagram_gives_exactly_this_model() -> None:
    text = """@startuml
title Library
abstract class Item <<entity>> {
  - id : int
  + {static} count : int
  + {abstract} loanDays() : int
  + String describe(int verbose)
}
class Book extends Item
class Member
Member "1" -- "0..*" Book : borrows >
note left of Book : hardcover only
@enduml
"""
    expected = ClassDiagram(
        classes=(
            Class("Item",
                  attributes=(Attribute("id", "int", "-"), Attribute("count", "int", "+", True)),
                  methods=(Method("loanDays", "int", (), "+", is_abstract=True),
                           Method("describe", "String", (Param("verbose", "int"),), "+")),
                  kind=ClassKind.ABSTRACT, stereotype="entity"),
            Class("Book"),
            Class("Member"),
        ),
        relations=(
            Relation(GE, "Book", "Item"),
            Relation(AS, "Member", "Book", Multiplicity("1", "0..*"), "borrows"),
        ),
        notes=(Note("hardcover only", "Book"),),
    )
    diagram = parse(text)
    assert diagram == expected
    # Lines are kept (1-based) even though equality ignores them.
    assert [c.line for c in diagram.classes] == [3, 9, 10]
    assert [a.line for a in diagram.classes[0].attributes] == [4, 5]
    assert [r.line for r in diagram.relations] == [9, 11]
    assert diagram.notes[0].line == 12


@pytest.mark.parametrize(
    ("arrow", "expected_type", "begin", "end"),
    [
        ("A --|> B", GE, "A", "B"),
        ("A -|> B", GE, "A", "B"),
        ("A <|-- B", GE, "B", "A"),
        ("A <|--- B", GE, "B", "A"),
        ("A ^-- B", GE, "B", "A"),
        ("A ..|> B", RE, "A", "B"),
        ("A .|> B", RE, "A", "B"),
        ("A <|.. B", RE, "B", "A"),
        ("A -[dashed]-|> B", RE, "A", "B"),
        ("A *-- B", CO, "A", "B"),
        ("A --* B", CO, "B", "A"),
        ("A o-- B", AG, "A", "B"),
        ("A --o B", AG, "B", "A"),
        ("A ..> B", DE, "A", "B"),
        ("A .> B", DE, "A", "B"),
        ("A <.. B", DE, "B", "A"),
        ("A .. B", DE, "A", "B"),
        ("A --> B", AS, "A", "B"),
        ("A -> B", AS, "A", "B"),
        ("A <-- B", AS, "A", "B"),
        ("A <--> B", AS, "A", "B"),
        ("A -- B", AS, "A", "B"),
        ("A --- B", AS, "A", "B"),
        ("A +-- B", AS, "A", "B"),
        ("A x-- B", AS, "A", "B"),
        ("A #-- B", AS, "A", "B"),
        ("A ||--o{ B", AS, "A", "B"),
        ("A -up-> B", AS, "A", "B"),
        ("A -left-|> B", GE, "A", "B"),
        ("A -[#red]-> B", AS, "A", "B"),
        ("A -[#red,bold]up-> B", AS, "A", "B"),
        ("A =[bold]=> B", AS, "A", "B"),
        ("A --> B #red", AS, "A", "B"),  # the link's inline style after its right end
        ("A ..> B #D55E00;line.bold", DE, "A", "B"),
        ("A ..> B #line:red;line.dashed;text:red", DE, "A", "B"),
        ("A -[dashed]-> B", DE, "A", "B"),
        ("A<|--B", GE, "B", "A"),
        ("A *--o B", CO, "A", "B"),
        # A link to a member is a link to its class, known or not (PlantUML 1.2026; 1.2022.6
        # made an unknown `B::other` a class of that name).
        ("A::field --> B::other", AS, "A", "B"),
        # PlantUML 1.2026's arrow forms (1.2022.6 rejects them): open heads `>>`/`<<`, and
        # `0`, `0)`, `(0` heads, each a decoration of an association.
        ("A -->> B", AS, "A", "B"),
        ("A <<-- B", AS, "A", "B"),
        ("A ..>> B", DE, "A", "B"),
        ("A <<.. B", DE, "B", "A"),
        ("A 0-- B", AS, "A", "B"),
        ("A --0 B", AS, "A", "B"),
        ("A 0--0 B", AS, "A", "B"),
        ("A 0)-- B", AS, "A", "B"),
        ("A --(0 B", AS, "A", "B"),
        # A multiplicity glued to a letter head (found in real course material).
        ('A "1"o--"*" B', AG, "A", "B"),
        ('A "1"*-->"*" B', CO, "A", "B"),
        ('A "1"o-down-"*" B', AG, "A", "B"),
        ('A "1"-o"*" B', AG, "B", "A"),
        ('A "1"x--"*" B', AS, "A", "B"),
        ('A "1"0--"2" B', AS, "A", "B"),
    ],
)
def test_arrow_maps_to_canonical_relation(arrow: str, expected_type: RelationType,
                                          begin: str, end: str) -> None:
    relation = only_relation(arrow)
    assert (relation.type, relation.begin, relation.end) == (expected_type, begin, end)


def test_a_multiplicity_glued_to_its_arrow_is_read_as_plantuml_1_2026_reads_it() -> None:
    # `A "0..1"o--"0..*" B` is real course material; PlantUML 1.2022.6 rejected it.
    relation = only_relation('A "0..1"o--"0..*" B : has')
    assert relation == Relation(AG, "A", "B", Multiplicity("0..1", "0..*"), name="has")
    assert only_relation('A "1"--o"*" B').label == Multiplicity("*", "1")
    # Without a space or a quote before it a letter or `0` is part of the name.
    assert [c.name for c in parse("A0-- B\nAo-- C").classes] == ["A0", "B", "Ao", "C"]


def test_scale_is_the_scale_command_not_a_link_with_a_0_head() -> None:
    assert [c.name for c in parse("scale 0.9\nscale 2/3\nscale 200 width\nclass A").classes] \
        == ["A"]
    assert [c.name for c in parse("foo 0.9").classes] == ["foo", "9"]


def test_multiplicities_follow_their_class_when_ends_swap() -> None:
    assert only_relation('A "1" <|-- "*" B').label == Multiplicity("*", "1")
    assert only_relation('A "parent" --* "part" B').label == Multiplicity("part", "parent")
    assert only_relation('A "1" *-- "0..*" B').label == Multiplicity("1", "0..*")
    assert only_relation('A "2" <.. "3" B') == Relation(DE, "B", "A", Multiplicity("3", "2"))


@pytest.mark.parametrize(
    ("label", "name", "multiplicity"),
    [
        (": owns", "owns", Multiplicity()),
        (": owns >", "owns", Multiplicity()),
        (": < owned by", "owned by", Multiplicity()),
        (": >", "", Multiplicity()),
        (': "1" owns "many"', "owns", Multiplicity("1", "many")),
        (": a -> b : c", "a -> b : c", Multiplicity()),
        (': "quoted"', "quoted", Multiplicity()),
    ],
)
def test_relation_labels(label: str, name: str, multiplicity: Multiplicity) -> None:
    relation = only_relation(f"A -- B {label}")
    assert (relation.name, relation.label) == (name, multiplicity)


def test_hidden_link_makes_classes_but_no_relation() -> None:
    diagram = parse("A -[hidden]- B\nA <|-- C")
    assert diagram.class_names == ("A", "B", "C")
    assert diagram.relations == (Relation(GE, "C", "A"),)


def test_implicit_classes_come_in_first_appearance_order() -> None:
    diagram = parse("class Z\nB <|-- C\nZ *-- B\nD --> Z\nnote top of D : x")
    assert diagram.class_names == ("Z", "B", "C", "D")
    assert all(c.kind is ClassKind.CLASS for c in diagram.classes)


@pytest.mark.parametrize(("text", "line"), [
    ("class Z\nnote top of D : x", 2),
    ("class Z\nnote left of D\n  x\nend note\nclass D", 4),  # its last line, as PlantUML
    ("class Z\nnote right of Z::x : x", 2),
])
def test_a_note_of_an_unknown_class_is_warned_about_where_plantuml_1_2026_fails(
        text: str, line: int) -> None:
    # PlantUML 1.2026: "Not known: D" on that line; 1.2022.6 made a class D, as we still do
    # (the diagram can be graded), with a warning on PlantUML's line.
    result = parse_plantuml(text)
    assert [(w.line, "declare it first" in w.message) for w in result.warnings] == [
        (line, True)]
    assert len(result.diagram.notes) == 1


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("name : String", Attribute("name", "String")),
        ("-name : String", Attribute("name", "String", "-")),
        ("- name: String", Attribute("name", "String", "-")),
        ("#String name", Attribute("name", "String", "#")),
        ("~List<Map<K, V>> index", Attribute("index", "List<Map<K, V>>", "~")),
        ("-name", Attribute("name", "", "-")),
        ("count", Attribute("count")),
        ("{static} +total : int", Attribute("total", "int", "+", True)),
        ("-{static} total : int = 0", Attribute("total", "int", "-", True)),
        ("{classifier} MAX : int", Attribute("MAX", "int", "", True)),
        ("private static final int LIMIT = 10;", Attribute("LIMIT", "int", "-", True)),
        ("first name : String", Attribute("first name", "String")),
        ("{field} run()", Attribute("run()", "")),
        ("+items : Map<String, List<Item>>", Attribute("items", "Map<String, List<Item>>", "+")),
        ("+callback : Function(int)", Attribute("callback", "Function(int)", "+")),
        ("+name()", Method("name", "", (), "+")),
        ("+pay(amount: double, card : Card): boolean",
         Method("pay", "boolean", (Param("amount", "double"), Param("card", "Card")), "+")),
        ("+boolean pay(double amount, Card card)",
         Method("pay", "boolean", (Param("amount", "double"), Param("card", "Card")), "+")),
        ("void main(String[] args)", Method("main", "void", (Param("args", "String[]"),))),
        ("{abstract} #area() : double", Method("area", "double", (), "#", is_abstract=True)),
        ("+{static} getInstance() : Singleton",
         Method("getInstance", "Singleton", (), "+", is_static=True)),
        ("public static void log(final String msg)",
         Method("log", "void", (Param("msg", "String"),), "+", is_static=True)),
        ("add(item)", Method("add", "", (Param("item", ""),))),
        ("add(int)", Method("add", "", (Param("", "int"),))),
        ("add(Item)", Method("add", "", (Param("", "Item"),))),
        ("put(m: Map<K, V>, n: int = 3) : List<V>",
         Method("put", "List<V>", (Param("m", "Map<K, V>"), Param("n", "int")))),
        ("{method} label", Method("label")),
    ],
)
def test_member_forms(line: str, expected: Attribute | Method) -> None:
    cls = parse(f"class A {{\n{line}\n}}").classes[0]
    assert cls.attributes + cls.methods == (expected,)  # type: ignore[operator]


def test_body_separators_are_not_members() -> None:
    cls = parse("class A {\n--\n==\n..\n__\n.. title ..\n-- x --\n== y ==\n+f : int\n}").classes[0]
    assert cls.attributes == (Attribute("f", "int", "+"),)


def test_enum_values() -> None:
    cls = parse('enum Color {\n RED\n GREEN, BLUE\n DARK("d");\n - code : int\n'
                " + label() : String\n}").classes[0]
    assert cls.kind is ClassKind.ENUM
    assert cls.attributes == (Attribute("RED"), Attribute("GREEN"), Attribute("BLUE"),
                              Attribute("DARK"), Attribute("code", "int", "-"))
    assert cls.methods == (Method("label", "String", (), "+"),)


@pytest.mark.parametrize(
    ("header", "name", "kind", "stereotype"),
    [
        ("class A", "A", ClassKind.CLASS, ""),
        ("abstract class A", "A", ClassKind.ABSTRACT, ""),
        ("abstract A", "A", ClassKind.ABSTRACT, ""),
        ("interface A", "A", ClassKind.INTERFACE, ""),
        ("enum A", "A", ClassKind.ENUM, ""),
        ("Class A", "A", ClassKind.CLASS, ""),
        ("class List<T>", "List", ClassKind.CLASS, ""),
        ("class Map<K, List<V>> <<collection>>", "Map", ClassKind.CLASS, "collection"),
        ("class A <<entity>> <<audited>>", "A", ClassKind.CLASS, "entity, audited"),
        ("class A << (S,#FF7700) Singleton >>", "A", ClassKind.CLASS, "Singleton"),
        ('class "Long Name" as LN', "Long Name", ClassKind.CLASS, ""),
        ('class LN as "Long Name" <<x>>', "Long Name", ClassKind.CLASS, "x"),
        ("class A [[http://example.org]] #red ##[dashed]blue", "A", ClassKind.CLASS, ""),
        ("class A<T> <<x>> $tag [[http://example.org]] #red ##blue", "A", ClassKind.CLASS,
         "x"),
        ("circle C", "C", ClassKind.INTERFACE, "circle"),
        ("diamond D", "D", ClassKind.CLASS, "diamond"),
        ("annotation Id", "Id", ClassKind.CLASS, "annotation"),
        ("object o", "o", ClassKind.CLASS, "object"),
        ('object "Long o" as o <<x>> #red', "Long o", ClassKind.CLASS, "x"),
        ("map m", "m", ClassKind.CLASS, "map"),
        ("() I", "I", ClassKind.INTERFACE, ""),
        ('() "Long I" as LI', "Long I", ClassKind.INTERFACE, ""),
        ("<> d", "d", ClassKind.CLASS, "diamond"),
        ("entity Customer", "Customer", ClassKind.CLASS, "entity"),
        ("protocol Greeter", "Greeter", ClassKind.INTERFACE, "protocol"),
        ("struct Point", "Point", ClassKind.CLASS, "struct"),
    ],
)
def test_class_headers(header: str, name: str, kind: ClassKind, stereotype: str) -> None:
    (cls,) = parse(f"{header}\nclass Other").classes[:1]
    assert (cls.name, cls.kind, cls.stereotype) == (name, kind, stereotype)


def test_aliases_resolve_to_the_display_name() -> None:
    diagram = parse('class "Shopping Cart" as Cart\nclass Id as "Order Id"\nCart --> Id\n'
                    "Id <|-- Cart")
    assert diagram.class_names == ("Shopping Cart", "Order Id")
    assert diagram.relations == (Relation(AS, "Shopping Cart", "Order Id"),
                                 Relation(GE, "Shopping Cart", "Order Id"))


def test_a_quoted_display_name_in_a_link_is_a_new_class_as_in_plantuml() -> None:
    # PlantUML links by code: `"Shopping Cart"` is a class of that code, not the one whose
    # alias is Cart (PlantUML counts 4 entities here). The model keeps both, renamed, and
    # says so.
    result = parse_plantuml('class "Shopping Cart" as Cart\nclass Id as "Order Id"\n'
                            'Cart --> Id\n"Shopping Cart" *-- "Order Id"')
    diagram = result.diagram
    assert diagram.class_names == ("Shopping Cart", "Order Id", "Shopping Cart (2)",
                                   "Order Id (2)")
    assert diagram.relations == (Relation(AS, "Shopping Cart", "Order Id"),
                                 Relation(CO, "Shopping Cart (2)", "Order Id (2)"))
    assert [w.line for w in result.warnings] == [4, 4]
    assert "'Shopping Cart' is also the name of another class (line 1)" in \
        result.warnings[0].message


def test_extends_and_implements_in_the_header() -> None:
    diagram = parse("interface I\nclass A extends B implements I, J {\n}\n"
                    "interface K extends I")
    assert diagram.class_names == ("I", "A", "B", "J", "K")
    assert diagram.class_named("J").kind is ClassKind.INTERFACE  # type: ignore[union-attr]
    assert diagram.relations == (Relation(GE, "A", "B"), Relation(RE, "A", "I"),
                                 Relation(RE, "A", "J"), Relation(GE, "K", "I"))


def test_packages_namespaces_and_dotted_names() -> None:
    text = """package shop {
  class Cart
  namespace model {
    class Item
    Item --> Price
  }
}
package "Back Office" <<Folder>> {
  class Report
}
folder util {
  class Strings
}
class com.acme.Tool
com.acme.Tool ..> shop.Cart
"""
    diagram = parse(text)
    assert [(c.name, c.package) for c in diagram.classes] == [
        ("Cart", "shop"), ("Item", "shop.model"), ("Price", "shop.model"),
        ("Report", "Back Office"), ("Strings", "util"), ("Tool", "com.acme")]
    assert diagram.relations[-1] == Relation(DE, "Tool", "Cart")


def test_together_blocks_and_brace_on_next_line() -> None:
    diagram = parse("together {\n class A\n class B\n}\nclass C\n{\n +x : int\n}")
    assert diagram.class_names == ("A", "B", "C")
    assert diagram.classes[2].attributes == (Attribute("x", "int", "+"),)
    assert all(c.package == "" for c in diagram.classes)


def test_members_added_outside_the_body() -> None:
    diagram = parse("class A\nA : +x : int\nA : +run() : void\nB : y")
    assert diagram.classes[0].attributes == (Attribute("x", "int", "+"),)
    assert diagram.classes[0].methods == (Method("run", "void", (), "+"),)
    assert diagram.classes[1] == Class("B", attributes=(Attribute("y"),))


def test_notes_in_every_form() -> None:
    text = """class A {
}
note right : after A
class B
note "floating" as N1
note as N2
  two
  lines
end note
note left of B #yellow : beside B
note top of A
  on top
endnote
N1 .. B
A --> B
note on link : not modelled
"""
    diagram = parse(text)
    assert diagram.notes == (
        Note("after A", "A"), Note("floating", "B"), Note("two\nlines", ""),
        Note("beside B", "B"), Note("on top", "A"))
    assert diagram.relations == (Relation(AS, "A", "B"),)


def test_layout_and_style_lines_are_read_past_silently() -> None:
    text = """@startuml
skinparam classAttributeIconSize 0
skinparam class {
  BackgroundColor<<x>> red
}
<style>
classDiagram { class { BackgroundColor white } }
</style>
!theme plain
hide empty members
show A methods
remove B
left to right direction
title Shop
title
  two lines
end title
legend right
  text
endlegend
header h
caption c
scale 2
set namespaceSeparator ::
class a::b::A
' a comment
/' a block
   comment '/
@enduml
"""
    diagram = parse(text)
    assert [(c.name, c.package) for c in diagram.classes] == [("A", "a.b")]


def test_unknown_lines_become_warnings_with_their_line() -> None:
    text = ("```plantuml\n@startuml\nclass A\nthe system stores orders\n!include x.puml\n"
            "class B {\n  +ok : int\n  !!!\n}\n@enduml\n```")
    result = parse_plantuml(text)
    assert result.diagram.class_names == ("A", "B")
    assert [(w.line, w.text) for w in result.warnings] == [
        (1, "```plantuml"), (4, "the system stores orders"), (5, "!include x.puml"),
        (8, "  !!!"), (11, "```")]
    assert all(isinstance(w, ParseWarning) and w.message for w in result.warnings)


@pytest.mark.parametrize("text", ["", "\n\n", "@startuml\n@enduml", "@startuml\n' only\n@enduml",
                                  "\ufeff@startuml\r\n@enduml\r\n"])
def test_empty_text_gives_an_empty_diagram(text: str) -> None:
    assert parse_plantuml(text) == parse_plantuml("")
    assert parse_plantuml(text).diagram == ClassDiagram()


def test_crlf_and_cr_line_endings_keep_line_numbers() -> None:
    diagram = parse("@startuml\r\nclass A\r\n\r\nclass B\rA --> B\r\n@enduml\r\n")
    assert [c.line for c in diagram.classes] == [2, 4]
    assert diagram.relations[0].line == 5


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("@startuml\nclass A {\n  +x : int\n@enduml", 2, "never closed"),
        # A stray `}`: PlantUML 1.2026 fails on the next element line (1.2022.6 on the `}`).
        ("class A {\n}\n}\nclass B", 4, "'}'"),
        ("class A\nA -->\n", 2, "right-hand side"),
        ("class A\n--> A : x", 2, "left-hand side"),
        # `-->>` is an open arrow head to PlantUML 1.2026 (an error to 1.2022.6); `-->>>`
        # is an error to both.
        ("class A\nA -->>> B", 2, "arrow"),
        ("class A\nA --|>> B", 2, "arrow"),
        ("class A\nA <-|-> B", 2, "arrow"),
        ("class A\nA --> B :", 2, "label"),
        ("class A\nA --> List<T>", 2, "after the relation"),
        ("class A { x : int }", 1, "line after"),
        ("class A\n\n{\n}", 3, "'{'"),
        ("class A ' comment", 1, "class declaration"),
        # PlantUML 1.2022.6's order: name, generics, stereotype, link, colour, line colour.
        ("class A #red ##[dashed]blue [[http://example.org]]", 1, "class declaration"),
        ("class A #red <<x>>", 1, "order"),
        ("class A implements I extends B", 1, "order"),
        ("class A as B", 1, "'as'"),
        ('class "A" as "B"', 1, "'as'"),
        ("class Base\nclass D extends Base <<entity>>", 2, "extends"),
        ("class A\nnote left of A\n text", 2, "end note"),
        ("@startuml\nAlice -> Bob : hi\n@enduml", 2, "not a class diagram"),
        ("participant Alice\nAlice ->> Bob : hi\nactivate Bob", 1, "not a class diagram"),
        ("@startmindmap\n* root\n@endmindmap", 1, "@startmindmap"),
        ("actor User\nusecase (Order)\nUser --> (Order)", 1, "not a class diagram"),
    ],
)
def test_errors_name_the_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml(text, source="sample.puml")
    assert caught.value.line == line
    assert fragment in str(caught.value)
    assert str(caught.value).startswith(f"sample.puml:{line}: ")
    assert caught.value.text.strip() == text.splitlines()[line - 1].strip()


def test_an_unclosed_package_is_only_a_warning_as_in_plantuml() -> None:
    result = parse_plantuml("package p {\nclass A")
    assert result.diagram.classes == (Class("A", package="p"),)
    assert [w.line for w in result.warnings] == [1]


@pytest.mark.parametrize(
    "line",
    [
        "A" * 200_000,
        "A " + "-" * 200_000 + " B",
        "A " + "-" * 200_000,
        "A " + '"' * 200_000 + " --> B",
        "A " + " " * 200_000 + "-->" + " " * 200_000 + "x junk",
        "A -[" + "#" * 200_000 + " B",
        "class A" + "<" * 100_000,
        "class " + "A<" * 100_000,
        "A : " + "(" * 200_000,
        "A : " + "x " * 100_000 + ":",
        "note left of " + "A" * 200_000 + " : x",
        "/' " * 70_000,
        "A " + "<|" * 100_000 + " B",
        "A" + "::b" * 70_000 + " --> B",
    ],
)
def test_pathological_lines_finish_fast(line: str) -> None:
    started = time.perf_counter()
    with contextlib.suppress(PlantUMLSyntaxError):  # an error is fine, a hang is not
        parse_plantuml(f"@startuml\nclass Z {{\n{line[:190_000]}\n}}\n{line}\n@enduml")
    assert time.perf_counter() - started < 2.0


def test_parse_file_names_the_file(tmp_path: Path) -> None:
    good = tmp_path / "ok.puml"
    good.write_text("class A\nfoo bar\n", encoding="utf-8")
    result = parse_file(good)
    assert result.diagram.class_names == ("A",)
    assert result.warnings[0].line == 2

    latin1 = tmp_path / "latin1.puml"
    latin1.write_bytes("class A\nclass Straße\n".encode("latin-1"))
    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_file(latin1)
    assert str(latin1) in str(caught.value) and "UTF-8" in str(caught.value)
    assert caught.value.line == 2

    with pytest.raises(ClueStudioError, match=r"missing\.puml"):
        parse_file(tmp_path / "missing.puml")

    broken = tmp_path / "broken.puml"
    broken.write_text("class A {\n", encoding="utf-8")
    with pytest.raises(PlantUMLSyntaxError, match=r"broken\.puml:1:"):
        parse_file(broken)


def test_cli_parse_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(CORPUS / "basic_01_library.puml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["classes"]] == ["Library", "Book", "Member", "Loan"]
    assert data["relations"][0] == {"type": "AG", "begin": "Library", "end": "Book",
                                    "label": {"from": "1", "to": "*"}, "name": "contains",
                                    "line": 32}
    assert data["warnings"] == []


def test_cli_parse_text_output_and_errors(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "d.puml"
    source.write_text("class A {\n +x : int\n}\nA <|-- B\nwhat is this\n", encoding="utf-8")
    assert main(["parse", str(source)]) == 0
    captured = capsys.readouterr()
    assert "class A  (line 1)" in captured.out
    assert "GE B -> A  (line 4)" in captured.out
    assert f"{source}:5:" in captured.err

    source.write_text("class A\nA -->\n", encoding="utf-8")
    assert main(["parse", str(source)]) == 2
    assert f"{source}:2:" in capsys.readouterr().err


def test_classes_named_like_keywords() -> None:
    # PlantUML reads these lines as links and members, so must we.
    diagram = parse("class Title\nclass Node\nclass Note\nTitle --> Node\nNode : +x : int\n"
                    "Note <|-- Entity\nnote left of Note : about Note")
    assert diagram.class_names == ("Title", "Node", "Note", "Entity")
    assert diagram.relations == (Relation(AS, "Title", "Node"), Relation(GE, "Entity", "Note"))
    assert diagram.classes[1].attributes == (Attribute("x", "int", "+"),)
    assert diagram.notes == (Note("about Note", "Note"),)
