"""draw.io's own model (an editable PNG's ``mxfile`` chunk, a ``.drawio`` file) read as the
PlantUML class diagram it draws (issue 29), and refused, in one line naming the file, when
it is hostile or not a class diagram."""

from __future__ import annotations

import base64
import urllib.parse
import zlib
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

from cluestudio.core.embedded import drawio, drawio_uml
from cluestudio.core.embedded.drawio import DrawioError, plantuml_from_mxfile
from cluestudio.core.model import ClassDiagram, ClassKind, RelationType
from cluestudio.core.plantuml import parse_plantuml

SWIMLANE = ("swimlane;fontStyle={font};align=center;verticalAlign=top;childLayout=stackLayout;"
            "horizontal=1;startSize=26;horizontalStack=0;resizeParent=1;collapsible=1;"
            "marginBottom=0;html=1;")
ROW = ("text;strokeColor=none;fillColor=none;align=left;verticalAlign=top;spacingLeft=4;"
       "spacingRight=4;overflow=hidden;rotatable=0;points=[[0,0.5],[1,0.5]];"
       "portConstraint=eastwest;html=1;")
RULE = "line;strokeWidth=1;fillColor=none;align=left;verticalAlign=middle;html=1;"
CLASS_BOX = "verticalAlign=top;align=left;overflow=fill;fontSize=12;fontFamily=Helvetica;html=1;"
LABEL = "edgeLabel;resizable=0;html=1;align=left;verticalAlign=bottom;"


def cell(cell_id: str, value: str = "", style: str = "", parent: str = "1", *,
         edge: bool = False, source: str = "", target: str = "",
         box: tuple[float, float, float, float] = (0, 0, 160, 26),
         label_at: float | None = None, points: str = "") -> str:
    """One ``<mxCell>`` as draw.io writes it (``value`` given unescaped)."""
    attrs = f"id={quoteattr(cell_id)} value={quoteattr(value)} style={quoteattr(style)}"
    attrs += f" parent={quoteattr(parent)}"
    attrs += ' edge="1"' if edge else ' vertex="1"'
    attrs += f" source={quoteattr(source)}" if source else ""
    attrs += f" target={quoteattr(target)}" if target else ""
    if edge:
        geometry = f'<mxGeometry relative="1" as="geometry">{points}</mxGeometry>'
    elif label_at is not None:
        geometry = f'<mxGeometry x="{label_at}" relative="1" as="geometry"/>'
    else:
        x, y, w, h = box
        geometry = f'<mxGeometry x="{x}" y="{y}" width="{w}" height="{h}" as="geometry"/>'
    return f"<mxCell {attrs}>{geometry}</mxCell>"


def swimlane(cell_id: str, name: str, rows: list[str | None], *, font: int = 1,
             at: tuple[float, float] = (0, 0)) -> list[str]:
    """A draw.io UML class: a swimlane with one text cell per row, ``None`` for a rule."""
    cells = [cell(cell_id, name, SWIMLANE.format(font=font), box=(*at, 160, 26 * (1 + len(rows))))]
    for index, row in enumerate(rows):
        y = 26 * (index + 1)
        cells.append(cell(f"{cell_id}-{index}", "", RULE, cell_id, box=(0, y, 160, 8))
                     if row is None else cell(f"{cell_id}-{index}", row, ROW, cell_id,
                                              box=(0, y, 160, 26)))
    return cells


def model(cells: list[str]) -> str:
    body = "".join(cells)
    return (f'<mxGraphModel dx="1000" dy="800" grid="1"><root><mxCell id="0"/>'
            f'<mxCell id="1" parent="0"/>{body}</root></mxGraphModel>')


def mxfile(*pages: str, compressed: bool = False) -> str:
    """An ``<mxfile>`` with one ``<diagram>`` per page model, plain or as draw.io compresses
    it (base64 of raw deflate of the URL-encoded XML)."""
    diagrams = []
    for number, page in enumerate(pages, start=1):
        content = page
        if compressed:
            packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
            encoded = urllib.parse.quote(page, safe="~()*!.'").encode()
            content = base64.b64encode(packer.compress(encoded) + packer.flush()).decode()
        diagrams.append(f'<diagram id="d{number}" name="Page-{number}">{content}</diagram>')
    return (f'<mxfile host="app.diagrams.net" version="24.3.1" pages="{len(pages)}">'
            f'{"".join(diagrams)}</mxfile>')


def png_chunk(xml: str) -> str:
    """The mxfile as draw.io writes it into an editable PNG's text chunk: URL-encoded."""
    return urllib.parse.quote(xml, safe="~()*!.'")


def read(text: str) -> ClassDiagram:
    result = parse_plantuml(plantuml_from_mxfile(text, source="shapes.png"), "shapes.png",
                            preprocessor=None)
    assert not result.warnings
    return result.diagram


def shapes_model() -> str:
    """A small diagram with each relation kind, an interface, an abstract class, attributes
    and methods, multiplicities and a note, in the shapes draw.io's UML palette makes."""
    cells = [
        *swimlane("shape", "&lt;&lt;interface&gt;&gt;<br><b>Shape</b>",
                  [None, "+ area(): double"], font=0, at=(0, 0)),
        *swimlane("figure", "Figure", ["- name: String", None, "+ draw(): void"], font=3,
                  at=(300, 0)),
        *swimlane("circle", "Circle", ["- radius: double", None], at=(300, 300)),
        cell("canvas", '<p style="margin:0px;text-align:center;"><b>Canvas</b></p>'
             '<hr size="1"/><p style="margin:0px;">- width: int<br>- height: int</p>'
             '<hr size="1"/><p style="margin:0px;">+ paint(): void</p>', CLASS_BOX,
             box=(600, 0, 160, 90)),
        *swimlane("layer", "Layer", ["<div>- depth: int</div><div>- visible: boolean</div>"],
                  at=(600, 300)),
        *swimlane("renderer", "Renderer", [], at=(900, 300)),
        # Circle implements Shape (from a member row), extends Figure.
        cell("e1", "", "endArrow=block;dashed=1;endFill=0;endSize=12;html=1;", edge=True,
             source="circle-0", target="shape"),
        cell("e2", "Extends", "endArrow=block;endSize=16;endFill=0;html=1;", edge=True,
             source="circle", target="figure"),
        # A Canvas holds Figures: the filled diamond at the start, labels at both ends.
        cell("e3", "", "endArrow=open;html=1;endSize=12;startArrow=diamondThin;startSize=14;"
             "startFill=1;edgeStyle=orthogonalEdgeStyle;", edge=True, source="canvas",
             target="figure"),
        cell("e3a", "1", LABEL, "e3", label_at=-1),
        cell("e3b", "0..*", LABEL, "e3", label_at=1),
        cell("e3c", "holds", LABEL, "e3", label_at=0),
        # A Layer gathers Figures: the hollow diamond at the end (the Layer's).
        cell("e4", "", "endArrow=diamondThin;endFill=0;endSize=24;html=1;", edge=True,
             source="figure", target="layer"),
        cell("e4a", "*", LABEL, "e4", label_at=-0.8),
        cell("e4b", "1", LABEL, "e4", label_at=0.8),
        # A Canvas uses a Renderer; a Layer is drawn by Renderers (plain association).
        cell("e5", "Use", "endArrow=open;endSize=12;dashed=1;html=1;", edge=True,
             source="canvas", target="renderer"),
        cell("e6", "", "endArrow=none;html=1;", edge=True, source="layer", target="renderer"),
        cell("e6a", "1", LABEL, "e6", label_at=-0.9),
        cell("e6b", "1..*", LABEL, "e6", label_at=0.9),
        cell("e6c", "painter", LABEL, "e6", label_at=0.7),  # a role name: not a multiplicity
        cell("note", "Shapes are drawn<br>in order", "shape=note;whiteSpace=wrap;html=1;",
             box=(900, 0, 120, 60)),
        cell("e7", "", "endArrow=none;dashed=1;html=1;", edge=True, source="note",
             target="renderer"),
    ]
    return model(cells)


def assert_shapes(diagram: ClassDiagram) -> None:
    kinds = {c.name: c.kind for c in diagram.classes}
    assert kinds == {"Shape": ClassKind.INTERFACE, "Figure": ClassKind.ABSTRACT,
                     "Circle": ClassKind.CLASS, "Canvas": ClassKind.CLASS,
                     "Layer": ClassKind.CLASS, "Renderer": ClassKind.CLASS}

    def members(name: str) -> tuple[list[str], list[str]]:
        found = diagram.class_named(name)
        assert found is not None
        return [a.name for a in found.attributes], [m.name for m in found.methods]

    assert members("Shape") == ([], ["area"])
    assert members("Figure") == (["name"], ["draw"])
    assert members("Circle") == (["radius"], [])
    assert members("Canvas") == (["width", "height"], ["paint"])
    assert members("Layer") == (["depth", "visible"], [])
    figure = diagram.class_named("Figure")
    assert figure is not None and figure.attributes[0].type == "String"
    assert figure.attributes[0].visibility == "-"
    relations = {(r.type, r.begin, r.end): (r.label.from_, r.label.to, r.name)
                 for r in diagram.relations}
    assert relations == {
        (RelationType.REALIZATION, "Circle", "Shape"): ("", "", ""),
        (RelationType.GENERALIZATION, "Circle", "Figure"): ("", "", ""),
        (RelationType.COMPOSITION, "Canvas", "Figure"): ("1", "0..*", "holds"),
        (RelationType.AGGREGATION, "Layer", "Figure"): ("1", "*", ""),
        (RelationType.DEPENDENCY, "Canvas", "Renderer"): ("", "", "Use"),
        (RelationType.ASSOCIATION, "Layer", "Renderer"): ("1", "1..*", ""),
    }
    assert [(n.target, n.text) for n in diagram.notes] == [
        ("Renderer", "Shapes are drawn\nin order")]


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "compressed"])
def test_a_png_chunk_gives_the_class_diagram_it_draws(compressed: bool) -> None:
    assert_shapes(read(png_chunk(mxfile(shapes_model(), compressed=compressed))))


def test_a_drawio_file_and_a_bare_model_read_alike(tmp_path: Path) -> None:
    file = tmp_path / "shapes.drawio"
    file.write_text(mxfile(shapes_model(), compressed=True), encoding="utf-8")
    assert_shapes(read(file.read_text(encoding="utf-8")))
    assert_shapes(read(shapes_model()))


def test_rows_above_the_rule_are_attributes_whatever_their_parentheses() -> None:
    # An ER-minded author writes `email (string)` above the rule: an attribute of type string.
    text = model(swimlane("user", "User", ["email (string)", "size(cm): int", None,
                                           "+ reset", "+ login(pw: String): bool"]))
    user = read(text).class_named("User")
    assert user is not None
    assert [(a.name, a.type) for a in user.attributes] == [("email", "string"),
                                                          ("size(cm)", "int")]
    assert [m.name for m in user.methods] == ["reset", "login"]


def test_crows_feet_are_multiplicities_and_loose_ends_meet_the_box_they_touch() -> None:
    cells = [*swimlane("a", "Author", ["name (string)"], at=(0, 0)),
             *swimlane("b", "Book", ["title (string)"], at=(0, 200)),
             *swimlane("p", "Publisher", [], at=(400, 200)),
             cell("e1", "", "endArrow=ERmany;startArrow=ERmandOne;html=1;", edge=True,
                  source="a", target="b"),
             # No target: its end point lies on Publisher's left side (x = 400).
             cell("e2", "", "endArrow=ERzeroToMany;startArrow=ERone;html=1;", edge=True,
                  source="b", points='<mxPoint x="400" y="220" as="targetPoint"/>'),
             # Loose ends far from any box, and ends naming cells that do not exist.
             cell("e3", "", "endArrow=block;endFill=0;html=1;", edge=True, source="a",
                  points='<mxPoint x="5000" y="5000" as="targetPoint"/>'),
             cell("e4", "", "endArrow=block;endFill=0;html=1;", edge=True, source="ghost",
                  target="b"),
             cell("e5", "", "endArrow=open;html=1;", edge=True, source="a", target="e1")]
    relations = {(r.type, r.begin, r.end, r.label.from_, r.label.to)
                 for r in read(model(cells)).relations}
    assert relations == {(RelationType.ASSOCIATION, "Author", "Book", "1", "*"),
                         (RelationType.ASSOCIATION, "Book", "Publisher", "1", "0..*")}


def test_html_labels_keep_their_text_and_names_plantuml_needs_quoted() -> None:
    cells = [
        *swimlane("o", '<font color="red"><b>Order&amp;Co</b></font>&nbsp;Item',
                  ['<span style="x">+ items:&nbsp;List&lt;Line&gt;</span>', None]),
        # A plain (non-HTML) label keeps its angle brackets as text.
        cell("q", "Bank Account", "rounded=0;whiteSpace=wrap;", box=(300, 0, 120, 40)),
        cell("r", 'Say "hi" {x}', "rounded=0;whiteSpace=wrap;html=1;", box=(300, 100, 120, 40)),
        cell("e", "", "endArrow=open;html=1;", edge=True, source="o", target="q"),
        cell("f", "", "endArrow=open;html=1;", edge=True, source="r", target="q"),
    ]
    text = plantuml_from_mxfile(model(cells), source="names.png")
    diagram = parse_plantuml(text, "names.png", preprocessor=None).diagram
    assert set(diagram.class_names) == {"Order&Co Item", "Bank Account", "Say 'hi' {x}"}
    order = diagram.class_named("Order&Co Item")
    assert order is not None
    assert [(a.name, a.type) for a in order.attributes] == [("items", "List<Line>")]
    assert {(r.begin, r.end) for r in diagram.relations} == {
        ("Order&Co Item", "Bank Account"), ("Say 'hi' {x}", "Bank Account")}


def test_rows_that_would_end_the_body_or_the_diagram_stay_rows() -> None:
    rows = ["}", "@enduml", "/' open comment", "' a quote", "+ ok: int", "...", "{", "!define X"]
    diagram = read(model(swimlane("c", "C", rows, at=(0, 0))
                         + swimlane("d", "D", [], at=(300, 0))))
    assert set(diagram.class_names) == {"C", "D"}
    c = diagram.class_named("C")
    assert c is not None and "ok" in [a.name for a in c.attributes]


def test_duplicate_class_names_make_one_class() -> None:
    cells = [*swimlane("b1", "Book", ["- title: String"], at=(0, 0)),
             *swimlane("b2", "Book", ["- isbn: String", "- title: String"], at=(0, 200)),
             *swimlane("l", "Library", [], at=(300, 0)),
             cell("e1", "", "endArrow=none;", edge=True, source="l", target="b1"),
             cell("e2", "", "endArrow=diamondThin;endFill=1;", edge=True, source="b2",
                  target="l")]
    diagram = read(model(cells))
    assert diagram.class_names == ("Book", "Library")
    book = diagram.class_named("Book")
    assert book is not None and [a.name for a in book.attributes] == ["title", "isbn"]
    assert {(r.type, r.begin, r.end) for r in diagram.relations} == {
        (RelationType.ASSOCIATION, "Library", "Book"),
        (RelationType.COMPOSITION, "Library", "Book")}


def test_cycles_in_parent_links_end() -> None:
    cells = [cell("x", "X", SWIMLANE.format(font=1), parent="y"),
             cell("y", "Y", SWIMLANE.format(font=1), parent="x"),
             cell("r", "row", ROW, parent="r"),
             *swimlane("c", "Client", ["- id: int"], at=(300, 0)),
             cell("e", "", "endArrow=open;", edge=True, source="r", target="c"),
             cell("f", "", "endArrow=open;", edge=True, source="x", target="c")]
    diagram = read(model(cells))
    assert diagram.class_names == ("Client",)
    assert diagram.relations == ()


def test_objects_of_an_object_diagram_are_not_classes() -> None:
    cells = [*swimlane("b", "Book", ["+ title: str"], at=(0, 0)),
             *swimlane("o", "book_obj", ['+ title: "Dune"'], at=(0, 300)),
             cell("e", "", "endArrow=open;dashed=1;html=1;", edge=True, source="o",
                  target="b"),
             cell("el", "instance of", LABEL, "e", label_at=0)]
    diagram = read(model(cells))
    assert diagram.class_names == ("Book",)
    assert diagram.relations == ()


def test_the_first_page_with_a_class_is_read_and_named() -> None:
    flowchart = model([cell("s", "Start", "ellipse;whiteSpace=wrap;html=1;"),
                       cell("d", "Ready?", "rhombus;whiteSpace=wrap;html=1;")])
    classes = model(swimlane("k", "Kettle", ["- litres: float"]))
    text = plantuml_from_mxfile(mxfile(flowchart, classes, compressed=True), source="k.png")
    assert "page 2 ('Page-2') of 2" in text.splitlines()[1]
    assert parse_plantuml(text, preprocessor=None).diagram.class_names == ("Kettle",)


def test_cells_with_data_wrappers_are_read() -> None:
    wrapped = ('<UserObject label="Invoice" id="inv">'
               f'<mxCell style={quoteattr(SWIMLANE.format(font=1))} parent="1" vertex="1">'
               '<mxGeometry width="160" height="60" as="geometry"/></mxCell></UserObject>'
               + cell("t", "- total: float", ROW, "inv"))
    invoice = read(model([wrapped])).class_named("Invoice")
    assert invoice is not None and [a.name for a in invoice.attributes] == ["total"]


def refused(text: str) -> str:
    with pytest.raises(DrawioError) as caught:
        plantuml_from_mxfile(text, source="bad.png")
    message = str(caught.value)
    assert message.startswith("bad.png: ") and "\n" not in message
    return message


def test_not_a_class_diagram_is_refused_naming_the_file() -> None:
    flowchart = model([cell("s", "Start", "ellipse;whiteSpace=wrap;html=1;"),
                       cell("n", "just a label", "text;html=1;")])
    assert "not a class diagram" in refused(mxfile(flowchart))
    assert "not a draw.io model" in refused("hello")
    assert "not a draw.io model" in refused("<svg></svg>")
    assert "not well-formed" in refused("<mxfile><diagram>")
    assert "no page" in refused("<mxfile/>")


def test_a_billion_laughs_is_refused_before_it_expands() -> None:
    entities = '<!ENTITY a0 "ha">' + "".join(
        f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
    text = (f'<?xml version="1.0"?><!DOCTYPE mxfile [{entities}]>'
            '<mxfile><diagram name="&a9;">x</diagram></mxfile>')
    assert "DTD or entities" in refused(text)
    assert "DTD or entities" in refused(png_chunk(text))


def test_an_external_entity_is_refused_and_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-41", encoding="utf-8")
    page = (f'<?xml version="1.0"?><!DOCTYPE m [<!ENTITY x SYSTEM "{secret.as_uri()}">]>'
            + model(swimlane("c", "&x;", [])).replace("&lt;", "<"))
    message = refused(page)
    assert "DTD or entities" in message and "TOPSECRET" not in message
    # Hidden inside a compressed page, too.
    assert "DTD or entities" in refused(mxfile(page, compressed=True))


def test_a_deflate_bomb_stops_at_the_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drawio, "MAX_PAGE_BYTES", 1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    bomb = packer.compress(b"%20" * (4 << 20)) + packer.flush()  # 12 MB from ~12 kB
    text = f"<mxfile><diagram>{base64.b64encode(bomb).decode()}</diagram></mxfile>"
    assert "inflates to over 1 MB" in refused(text)


def test_bad_base64_and_bad_deflate_are_refused() -> None:
    assert "bad base64" in refused("<mxfile><diagram>!!not*base64$$</diagram></mxfile>")
    # A page name over several lines still makes a one-line message.
    assert "bad base64" in refused('<mxfile><diagram name="a&#10;b">!!</diagram></mxfile>')
    junk = base64.b64encode(b"\xff" * 40).decode()
    assert "does not inflate" in refused(f"<mxfile><diagram>{junk}</diagram></mxfile>")


def test_too_many_cells_or_elements_or_input_are_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    many = model([cell(f"c{i}", f"C{i}", SWIMLANE.format(font=1)) for i in range(30)])
    monkeypatch.setattr(drawio, "MAX_CELLS", 25)
    assert "cells (at most 25" in refused(many)
    monkeypatch.setattr(drawio, "MAX_ELEMENTS", 40)
    assert "over 40 XML elements" in refused(many)
    monkeypatch.setattr(drawio, "MAX_INPUT_CHARS", 1000)
    assert "refused" in refused(many)


def test_the_inflating_limit_counts_all_pages_together(monkeypatch: pytest.MonkeyPatch) -> None:
    filler = model([cell(f"s{i}", "step", "ellipse;html=1;") for i in range(20)])
    classes = model(swimlane("k", "Kettle", []))
    # What is inflated is the URL-encoded XML, as draw.io packs it.
    monkeypatch.setattr(drawio, "MAX_PAGE_BYTES", len(png_chunk(filler) + png_chunk(classes)))
    assert "Kettle" in plantuml_from_mxfile(mxfile(filler, classes, compressed=True))
    assert "all pages together" in refused(mxfile(filler, filler, classes, compressed=True))
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    packed = packer.compress(png_chunk(classes).encode()) + packer.flush()
    cut = base64.b64encode(packed[: len(packed) // 2]).decode()
    assert "cut short" in refused(f"<mxfile><diagram>{cut}</diagram></mxfile>")


def test_loose_edge_ends_are_matched_within_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    cells = [*swimlane("a", "A", [], at=(0, 0)), *swimlane("b", "B", [], at=(300, 0)),
             cell("e", "", "endArrow=open;", edge=True, source="a",
                  points='<mxPoint x="300" y="10" as="targetPoint"/>')]
    assert len(read(model(cells)).relations) == 1
    monkeypatch.setattr(drawio_uml, "MAX_BOX_TESTS", 1)
    assert read(model(cells)).relations == ()


def test_only_an_italic_name_makes_a_class_abstract() -> None:
    cells = [
        # draw.io's palette writes the stereotype in italics: an interface, not abstract.
        cell("i", "<p><i>&lt;&lt;Interface&gt;&gt;</i><br><b>Payable</b></p><hr>"
             "<p>+ pay(): void</p>", CLASS_BOX, box=(0, 0, 160, 60)),
        cell("e", "<p><i>&lt;&lt;entity&gt;&gt;</i><br><b>Order</b></p><hr><p>- id: int</p>"
             "<hr><p><i>+ total(): float</i></p>", CLASS_BOX, box=(300, 0, 160, 80)),
        cell("a", "<p><i><b>Account</b></i></p><hr><p>- id: int</p>", CLASS_BOX,
             box=(600, 0, 160, 60)),
    ]
    diagram = read(model(cells))
    kinds = {c.name: (c.kind, c.stereotype) for c in diagram.classes}
    assert kinds == {"Payable": (ClassKind.INTERFACE, ""), "Order": (ClassKind.CLASS, "entity"),
                     "Account": (ClassKind.ABSTRACT, "")}


def test_enumerations_plain_text_stereotypes_and_classes_inside_a_package_box() -> None:
    cells = [*swimlane("e", "&lt;&lt;enumeration&gt;&gt;<br>Color",
                       ["RED", "GREEN", None, "+ hex(): String"]),
             cell("i", "«interface»\nShape", "swimlane;fontStyle=0;", box=(300, 0, 100, 60)),
             # A swimlane holding a swimlane is a package: only what it holds is a class.
             cell("p", "shapes", "swimlane;", box=(600, 0, 400, 400)),
             cell("k", "Square", "swimlane;", "p", box=(10, 30, 100, 60)),
             cell("x", "", "endArrow=block;endFill=0;dashed=1;", edge=True, source="k",
                  target="i")]
    diagram = read(model(cells))
    assert {c.name: c.kind for c in diagram.classes} == {
        "Color": ClassKind.ENUM, "Shape": ClassKind.INTERFACE, "Square": ClassKind.CLASS}
    color = diagram.class_named("Color")
    assert color is not None
    assert [a.name for a in color.attributes] == ["RED", "GREEN"]
    assert [m.name for m in color.methods] == ["hex"]
    assert [(r.type, r.begin, r.end) for r in diagram.relations] == [
        (RelationType.REALIZATION, "Square", "Shape")]
