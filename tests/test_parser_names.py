"""Which class a name means, the declaration kinds and the links the model leaves out.

Every expectation here was checked against PlantUML 1.2026.2, the jar the app renders with
(entity counts from ``-syntax``, names and links from ``-txmi``; its XMI no longer gives
namespaces); the differential test checks the same rules on the whole corpus. Where
1.2022.6 read a name differently, the comment says how.
"""

from __future__ import annotations

import pytest

from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.model import Attribute, ClassDiagram, ClassKind, Relation, RelationType
from cluestudio.core.plantuml.parser import DiagramError, OmittedLink, parse_plantuml

AS, AG, CO, DE, GE, RE = (RelationType.ASSOCIATION, RelationType.AGGREGATION,
                          RelationType.COMPOSITION, RelationType.DEPENDENCY,
                          RelationType.GENERALIZATION, RelationType.REALIZATION)


def parse(text: str) -> ClassDiagram:
    result = parse_plantuml(text, preprocessor=None)
    assert result.warnings == (), result.warnings
    return result.diagram


def places(text: str) -> list[tuple[str, str]]:
    return [(c.name, c.package) for c in parse(text).classes]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A link's plain name means the one class of that name, wherever it sits.
        ("package factory_method {\nclass Coupon\n}\nCoupon --> factory_method.Coupon",
         [("Coupon", "factory_method")]),
        # A declaration means its own package's class (1.2022.6: one Node for both).
        ("package a {\nclass Node\n}\npackage b {\nclass Node\n}",
         [("Node", "a"), ("b.Node", "b")]),
        # Two Cs by then: `C` is the top level's, a new one (1.2022.6: p.q's C).
        ("package p {\npackage q {\nclass C\n}\n}\np.q.C --> C\nq.C --> C",
         [("C", "p.q"), ("q.C", "q"), ("C (2)", "")]),
        # The one D is p's (1.2022.6: a second, top-level D).
        ("package p {\nclass C\n}\np.D --> D", [("C", "p"), ("D", "p")]),
        # Namespaces scope names as packages do; several of a name: the group's own.
        ("namespace a {\nclass Node\n}\nnamespace b {\nclass Node\n}\nNode --> a.Node",
         [("Node", "a"), ("b.Node", "b"), ("Node (2)", "")]),
        ("class B\nnamespace a {\nclass A\nA --> B\n}", [("B", ""), ("A", "a")]),
        ("namespace n {\nnamespace m {\nclass C\nC --> D\n}\n}\nn.m.D --> D",
         [("C", "n.m"), ("D", "n.m")]),
        # A dotted name is a key of its own; declared in a package it sits below it, and
        # a plain C or Z is that one class (1.2022.6: a second, top-level one).
        ("class a.b.C\nC --> a.b.C", [("C", "a.b")]),
        ("package p {\nclass x.y.Z\n}\nZ --> x.y.Z", [("Z", "p.x.y"), ("x.y.Z", "x.y")]),
        # Leading dots mean the top level.
        (".Area <|-- .TheatreController\nArea --> TheatreController",
         [("Area", ""), ("TheatreController", "")]),
        # `class .C` in a namespace is the top level's C (1.2022.6 placed it in n).
        ("namespace n {\nclass .C\n}\nC --> .C", [("C", "")]),
        # `.X` is the top level's X, a new one where the only X sits in a package
        # (1.2022.6: that one).
        ("package t {\nclass .Area\nclass C\n}\n.Area <|-- .C\nC --> Area",
         [("Area", ""), ("C", "t"), ("C (2)", "")]),
        ("package web {\nclass User\n}\npackage db {\nclass User\n}\n"
         "web.User ..> db.User\nUser --> .User",
         [("User", "web"), ("db.User", "db"), ("User (2)", "")]),
        # The separator can be `::` or nothing at all.
        ("set namespaceSeparator ::\nclass a::b::C\nC --> a::b::C\na.b --> C",
         [("C", "a.b"), ("a.b", "")]),
        ("set namespaceSeparator none\nclass a.b.C\nC --> a.b.C", [("a.b.C", ""), ("C", "")]),
        # Quoted names are codes like any other, split at the separator too.
        ('class "a.b.C"\nC --> "a.b.C"', [("C", "a.b")]),
        ('package "P" as q {\nclass A\n}\nq.A --> B', [("A", "P"), ("B", "")]),
        # A dotted name above the package block (issue 24): the block's classes are
        # found by their plain names like any other (1.2022.6 had made `client` a
        # namespace: a later top-level `Message` was another class).
        ("client.Game --> server.Lobby\npackage client {\nclass Game\nGame --> Board\n}\n"
         "package server {\nclass Lobby\n}",
         [("Game", "client"), ("Lobby", "server"), ("Board", "client")]),
        ("client.X --> Y\npackage client {\nclass Message\n}\nMessage --> Z",
         [("X", "client"), ("Y", ""), ("Message", "client"), ("Z", "")]),
        ("shop.A --> B\npackage shop {\npackage payment {\nclass Invoice\n}\n}\n"
         "Invoice --> C", [("A", "shop"), ("B", ""), ("Invoice", "shop.payment"), ("C", "")]),
        # One pair of (), [] or :: around a declared name is dropped, as quotes are.
        ("Interface (IObserver){\n}\nClass [Display]\nclass :Clock:\nclass (Half\n"
         "Display ..|> IObserver\nClock --> Half",
         [("IObserver", ""), ("Display", ""), ("Clock", ""), ("(Half", ""), ("Half", "")]),
        # `A::member` names A, known or not (1.2022.6: only a known plain A).
        ("class A\nA::f --> B::g", [("A", ""), ("B", "")]),
        ("class a.A\na.A::f --> B", [("A", "a"), ("B", "")]),
    ],
)
def test_names_resolve_as_in_plantuml(text: str, expected: list[tuple[str, str]]) -> None:
    result = parse_plantuml(text, preprocessor=None)
    assert [(c.name, c.package) for c in result.diagram.classes] == expected
    # Two classes showing one name: the later one is renamed, and a warning says so.
    renamed = [name for name, _ in expected
               if name.endswith(")") or name in ("b.Node", "q.C", "x.y.Z", "db.User")]
    assert len([w for w in result.warnings if "keeps them apart" in w.message]) == \
        len(renamed)
    assert all("keeps them apart" in w.message for w in result.warnings)


def test_notes_and_hidden_links_on_packages_make_no_class() -> None:
    result = parse_plantuml(
        "package model {\nclass Account\n}\npackage service {\nclass Transfer\n}\n"
        "note top of model : persisted\nnote \"stateless\" as N1\nN1 .. service\n"
        "model -[hidden]- service\nmodel .. N1\nTransfer --> Account", preprocessor=None)
    diagram = result.diagram
    assert [c.name for c in diagram.classes] == ["Account", "Transfer"]
    assert [(n.text, n.target) for n in diagram.notes] == [("persisted", ""), ("stateless", "")]
    # `model -[hidden]- service` is a layout helper first: its reason is "hidden".
    assert [(o.line, o.reason) for o in result.omitted_links] == [
        (7, "note"), (9, "note"), (10, "hidden"), (11, "note")]
    assert [(r.begin, r.end) for r in diagram.relations] == [("Transfer", "Account")]


def test_a_class_of_the_same_name_turns_into_the_package() -> None:
    result = parse_plantuml("class p\nA --> p\npackage p {\nclass B\n}", preprocessor=None)
    assert result.diagram.class_names == ("A", "B")
    assert result.diagram.relations == ()
    assert [(o.line, o.reason) for o in result.omitted_links] == [(2, "package")]


@pytest.mark.parametrize(
    ("header", "kind", "stereotype"),
    [
        ("object o", ClassKind.CLASS, "object"),
        ("map m {\n k => v\n}", ClassKind.CLASS, "map"),
        ('json j {\n "a": {\n  "b": 1\n }\n}', ClassKind.CLASS, "json"),
        ("() I", ClassKind.INTERFACE, ""),
        ("<> d", ClassKind.CLASS, "diamond"),
        ("diamond d", ClassKind.CLASS, "diamond"),
        ("circle c", ClassKind.INTERFACE, "circle"),
        ("entity e <<table>>", ClassKind.CLASS, "table"),
        ("allowmixing\nactor a", ClassKind.CLASS, "actor"),
        ("allowmixing\nusecase (Order)", ClassKind.CLASS, "usecase"),
    ],
)
def test_other_declarations_are_classes_with_their_keyword(header: str, kind: ClassKind,
                                                           stereotype: str) -> None:
    (cls,) = parse(f"{header}\nclass Z").classes[:1]
    assert (cls.kind, cls.stereotype) == (kind, stereotype)


def test_object_and_map_bodies_are_members() -> None:
    diagram = parse('object o {\n name = "x"\n age = 3\n}\nmap m {\n k => v\n row *--> o\n}')
    assert diagram.classes[0].attributes == (Attribute("name"), Attribute("age"))
    assert diagram.classes[1].attributes == (Attribute("k"), Attribute("row"))
    assert diagram.relations == (Relation(CO, "m", "o"),)


def test_a_bad_map_entry_fails_where_plantuml_does_at_the_closing_brace() -> None:
    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml("class A\nmap M {\n a => b\n oops\n}\n")
    assert caught.value.line == 5 and "line 4" in caught.value.message


def test_newer_keywords_are_classes() -> None:
    # PlantUML 1.2026 reads each as one class (1.2022.6 refused them: we used to warn).
    result = parse_plantuml("record Point {\n x : int\n}\nexception Oops\nstatic class U\n"
                            "dataclass D\nmetaclass M\nstereotype S")
    assert result.diagram.class_names == ("Point", "Oops", "U", "D", "M", "S")
    assert result.warnings == ()


def test_mixing_elements_need_allowmixing() -> None:
    result = parse_plantuml("class Order\nactor Customer\nCustomer --> Order")
    assert result.diagram.class_names == ("Order", "Customer")  # the link still names it
    assert [w.line for w in result.warnings] == [2] and "allowmixing" in \
        result.warnings[0].message


def test_association_classes_and_lollipops() -> None:
    result = parse_plantuml("class A\nclass B\nclass C\nA -- B\n(A, B) .. C\n"
                            "A -() Printable\nScanner ()- B")
    diagram = result.diagram
    assert diagram.class_names == ("A", "B", "C", "Printable", "Scanner")
    assert diagram.classes[3].kind is ClassKind.INTERFACE
    assert diagram.relations == (Relation(AS, "A", "B"), Relation(AS, "C", "A"),
                                 Relation(AS, "C", "B"), Relation(RE, "A", "Printable"),
                                 Relation(RE, "B", "Scanner"))
    assert result.association_points == 1
    with pytest.raises(PlantUMLSyntaxError, match="no class X"):
        parse_plantuml("class A\n(A, X) .. C")


def test_a_lollipop_is_a_class_of_its_own() -> None:
    # PlantUML never finds the lollipop by its name again: `Y --> X` makes a second Y.
    diagram = parse_plantuml("class Z\nclass X\nX -() Y\nY --> X", preprocessor=None).diagram
    assert diagram.class_names == ("Z", "X", "Y", "Y (2)")
    # The class carrying it must exist (PlantUML 1.2026: "No class X"; 1.2022.6 made it).
    with pytest.raises(PlantUMLSyntaxError, match="lollipop") as caught:
        parse_plantuml("class Z\nX -() Y\nY --> X", preprocessor=None)
    assert caught.value.line == 2


def test_links_the_model_leaves_out() -> None:
    result = parse_plantuml(
        "package p {\nclass A\n}\npackage q {\n}\nclass B\n"
        'B -[hidden]- A\np --> q\nB --> p\nnote "n" as N\nN .. B\nnote left of A : x\n'
        'p -[hidden]- q\nN -[hidden]- A',
        preprocessor=None)
    assert result.diagram.relations == ()
    # A hidden link is a layout helper whatever its ends (PlantUML 1.2026.2 leaves every one
    # out of its XMI export; the differential test relies on the reason).
    assert result.omitted_links == (
        OmittedLink(7, "B", "A", "hidden"), OmittedLink(8, "p", "q", "package"),
        OmittedLink(9, "B", "p", "package"), OmittedLink(11, "N", "B", "note"),
        OmittedLink(12, "note 2", "A", "note"), OmittedLink(13, "p", "q", "hidden"),
        OmittedLink(14, "N", "A", "hidden"))
    assert result.warnings == ()


def test_arrow_forms_of_plantuml_1_2022_6() -> None:
    diagram = parse("class A\nA --up|> B\nA *-down- C\nA -[hidden]> D\nA -[#red,dashed]-> E\n"
                    "A <|--|> F\nA .[#blue]right.> G\nA -[thickness=2]- H\nA <||-- I\n"
                    "A --:|> J\n@2 A --> K\nA - L : x\nA --> M #red\nA --> N [[http://x]]")
    assert [(r.type, r.begin, r.end) for r in diagram.relations] == [
        (GE, "A", "B"), (CO, "A", "C"), (DE, "A", "E"), (GE, "A", "F"), (DE, "A", "G"),
        (AS, "A", "H"), (AS, "A", "I"), (AS, "A", "J"), (AS, "A", "K"), (AS, "A", "L"),
        (AS, "A", "M"), (AS, "A", "N")]


def test_arrows_plantuml_1_2026_reads_and_1_2022_6_refused() -> None:
    # Qualifiers, a `0` head and a multiplicity glued to its head: 1.2022.6 refused them (we
    # warned or raised), PlantUML 1.2026.2, which the app renders with, reads them.
    result = parse_plantuml('class A\nA [key] --> B\nA --0 C\nA "1"o--"*" D')
    assert result.warnings == ()
    assert [(r.type, r.begin, r.end) for r in result.diagram.relations] == [
        (AS, "A", "B"), (AS, "A", "C"), (AG, "A", "D")]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("class A\nA -[#red;#blue]-> B", 2),
        ("class A\nA --0> B", 2),
    ],
)
def test_arrows_plantuml_refuses_are_refused_or_warned(text: str, line: int) -> None:
    try:
        result = parse_plantuml(text)
    except PlantUMLSyntaxError as error:
        assert error.line == line
    else:
        assert line in [w.line for w in result.warnings]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("class A\n/' block '/ class B", ("A", "B")),
        ("class A\n/' multi\nline '/ class C", ("A",)),  # no line ends with '/
        ("/' x '/ class B /' y '/\nclass A", ("A",)),  # starts and ends: all comment
        ("class A /' x ' y '/", ("A",)),
        ("class A\n  ' indented\nclass B", ("A", "B")),
    ],
)
def test_comments_as_plantuml_reads_them(text: str, names: tuple[str, ...]) -> None:
    assert parse_plantuml(text).diagram.class_names == names


def test_two_inline_block_comments_are_an_error_as_in_plantuml() -> None:
    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml("class A\nclass B /' a '/ /' b '/")
    assert caught.value.line == 2


def test_an_error_carries_the_warnings_before_it() -> None:
    # A stray `}` fails on the next element line, as PlantUML 1.2026 does (1.2022.6 failed
    # on the `}` itself).
    with pytest.raises(DiagramError) as caught:
        parse_plantuml("class A {\n x\n}\n}\n  -y : int\n}\n")
    assert caught.value.line == 5 and caught.value.warnings == ()
    with pytest.raises(DiagramError) as caught:
        parse_plantuml("class A {\n x\n}\n  -y : int\n}\nclass B\n")
    assert caught.value.line == 6
    assert [w.line for w in caught.value.warnings] == [4]


def test_a_package_right_inside_a_namespace_closes_only_itself() -> None:
    # PlantUML 1.2026 reads this with 2 entities; 1.2022.6 had closed the namespace with the
    # package, so that the last `}` was an error.
    result = parse_plantuml("namespace a {\npackage p {\nclass C\n}\n}\nclass B",
                            preprocessor=None)
    assert [(c.name, c.package) for c in result.diagram.classes] == [("C", "a.p"), ("B", "")]
    assert result.warnings == ()


def test_a_stray_brace_fails_on_the_next_element_line_as_plantuml_1_2026_does() -> None:
    text = "class A\n}\nskinparam classFontSize 12\ntitle T\nleft to right direction\n"
    result = parse_plantuml(text, preprocessor=None)
    assert [w.line for w in result.warnings] == [2]
    for after in ("class B", "A --> B", "hide empty members", 'note "x" as N', "A : +x : int",
                  "}", "package p {\n}"):
        with pytest.raises(DiagramError, match="line 2 closed no package") as caught:
            parse_plantuml(text + after, preprocessor=None)
        assert caught.value.line == 6


def test_note_on_link_needs_a_link() -> None:
    with pytest.raises(PlantUMLSyntaxError, match="needs a link"):
        parse_plantuml("class A\nnote on link : x\nA --> B")
