"""Class diagrams drawn in the looks of other tools: a held-out proxy for "drawn with other tools".

Real images the draft converter must read come from Visio/PowerPoint-style course figures,
StarUML, draw.io, web editors and UML reference sites; none of them is PlantUML. These
diagrams (3–12 classes from ``synth_reference``, some made interfaces, enumerations or
given two-word names) are drawn with PIL in such looks, each feature named so a benchmark
can say which look the draft fails on: the system's fonts at 9–16 px; sharp or rounded
boxes, plain, yellow, light, gradient or blue-header fills, with or without compartment
rules, name-only boxes, bold or italic names, «interface»/«enumeration» above names, two-
line names, a UML frame with a tab; members as ``+ name : Type``, ``+name: Type``,
``name : Type`` or ``- Type name``; orthogonal or straight lines, solid or dashed, hollow
triangles, filled or hollow diamonds, open arrows; multiplicities and role names at the
ends, names mid-line; white or off-white paper, anti-aliased or not, scaled, an editor's
palette or menu bar. The truth is the PlantUML of the model drawn (``core/plantuml``'s
writer, read back by its parser). Deterministic per ``random.Random`` state.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, replace

from cluestudio.core.model import (
    Attribute,
    ClassDiagram,
    ClassKind,
    Method,
    Multiplicity,
    Relation,
    RelationType,
)
from cluestudio.core.synth_drawn_ink import (
    BLUES,
    FONT_FILES,
    BoxSpec,
    Look,
    Pen,
    box_spec,
    draw_box,
    end_label,
    head,
    measure,
    mid_label,
    palette,
    toolbar,
)
from cluestudio.core.synth_reference import random_reference

SECOND_WORDS = ("Account", "Item", "Record", "Type", "Line", "Entry", "Detail", "Plan")
ENUM_VALUES = ("ACTIVE", "PENDING", "CLOSED", "OPEN", "DRAFT", "PAID", "LOW", "HIGH")
ROLES = ("owner", "items", "member", "holder", "parts", "client", "host")
FRAME_NAMES = ("Shop", "Online Shopping", "Library System", "Booking", "School")
LIGHT_FILLS = ("#DAE8FC", "#D5E8D4", "#F5F5F5", "#E1D5E7", "#FFF2CC")
YELLOWS = ("#FFFFCC", "#FFFFE0", "#FEFECE")
HEADS = {RelationType.GENERALIZATION: "triangle", RelationType.REALIZATION: "triangle",
         RelationType.COMPOSITION: "filled diamond", RelationType.AGGREGATION: "diamond",
         RelationType.DEPENDENCY: "arrow"}


@dataclass(frozen=True)
class Drawn:
    """One diagram drawn in one look: the PNG, the PlantUML of the model, its truth."""

    png: bytes
    text: str
    truth: ClassDiagram
    features: tuple[str, ...]


def random_look(rng: random.Random) -> tuple[Look, list[str]]:
    features: list[str] = []

    def pick(p: float, feature: str) -> bool:
        if rng.random() < p:
            features.append(feature)
            return True
        return False

    family = rng.choice([f[0] for f in FONT_FILES])
    size = rng.randint(9, 16)
    features.append("font ≤ 11 px" if size <= 11 else "font 12–16 px")
    radius = rng.choice((4, 8, 12)) if pick(0.35, "rounded boxes") else 0
    fill = rng.choice(("plain", "plain", "yellow", "light", "gradient", "blue header"))
    features.append(f"{fill} fill")
    colour = {"yellow": YELLOWS, "light": LIGHT_FILLS, "gradient": ("#C6D9F1", "#FFE699"),
              "blue header": BLUES}.get(fill, ("white",))
    members = rng.choice(("uml", "uml", "compact", "plain", "java"))
    features.append(f"members {members}")
    orthogonal = rng.random() < 0.6
    features.append("orthogonal lines" if orthogonal else "straight lines")
    paper = "white" if rng.random() < 0.7 else rng.choice(("#FAFAF5", "#F4F4F4", "#FCFCF8"))
    if paper != "white":
        features.append("off-white paper")
    antialiased = rng.random() < 0.7
    features.append("anti-aliased" if antialiased else "aliased")
    scale = 1.0
    if rng.random() < 0.4:
        scale = round(rng.uniform(0.75, 1.5), 2)
        features.append("scale < 1" if scale < 1 else "scale > 1")
    chrome = rng.choice(("palette", "toolbar")) if rng.random() < 0.2 else ""
    if chrome:
        features.append(f"editor {chrome}")
    look = Look(family, size, radius, fill, rng.choice(colour),
                rules=not pick(0.2, "no compartment rules"),
                bold_names=pick(0.5, "bold names"), members=members, orthogonal=orthogonal,
                navigable=pick(0.2, "navigable arrows"), paper=paper,
                antialiased=antialiased, scale=scale, chrome=chrome,
                frame=pick(0.15, "UML frame"), shadow=pick(0.15, "shadows"),
                border=rng.choice((1, 1, 1, 2)))
    return look, features


# --- the model ---------------------------------------------------------------------------

def _renamed(diagram: ClassDiagram, names: dict[str, str]) -> ClassDiagram:
    def new(name: str) -> str:
        return names.get(name, name)

    return ClassDiagram(
        tuple(replace(c, name=new(c.name)) for c in diagram.classes),
        tuple(replace(r, begin=new(r.begin), end=new(r.end)) for r in diagram.relations))


def _with_kinds(diagram: ClassDiagram, rng: random.Random, features: list[str]) -> ClassDiagram:
    """A generalization's parent made an interface (its children realize it), a class in no
    generalization made an enumeration."""
    classes, relations = list(diagram.classes), list(diagram.relations)
    parents = [r.end for r in relations if r.type is RelationType.GENERALIZATION]
    if parents and rng.random() < 0.35:
        parent = rng.choice(parents)
        k = next(i for i, c in enumerate(classes) if c.name == parent)
        methods = classes[k].methods or (Method("summary", "String", (), "+"),)
        classes[k] = replace(classes[k], kind=ClassKind.INTERFACE, attributes=(),
                             methods=methods)
        relations = [replace(r, type=RelationType.REALIZATION) if (
            r.type is RelationType.GENERALIZATION and r.end == parent) else r
            for r in relations]
        features.append("«interface»")
    in_tree = {n for r in relations if r.type in (RelationType.GENERALIZATION,
                                                  RelationType.REALIZATION)
               for n in (r.begin, r.end)}
    free = [i for i, c in enumerate(classes) if c.name not in in_tree
            and c.kind is ClassKind.CLASS]
    if free and rng.random() < 0.3:
        k = rng.choice(free)
        values = rng.sample(ENUM_VALUES, rng.randint(2, 4))
        classes[k] = replace(classes[k], kind=ClassKind.ENUM, methods=(),
                             attributes=tuple(Attribute(v) for v in values))
        features.append("«enumeration»")
    return ClassDiagram(tuple(classes), tuple(relations))


def _with_roles(diagram: ClassDiagram, rng: random.Random) -> ClassDiagram:
    """Role names before one or more association ends' multiplicities (``owner 1``)."""
    ends = [k for k, r in enumerate(diagram.relations)
            if r.type is RelationType.ASSOCIATION and r.label.from_]
    chosen = set(rng.sample(ends, rng.randint(1, len(ends)))) if ends else set()
    return replace(diagram, relations=tuple(
        replace(r, label=Multiplicity(f"{rng.choice(ROLES)} {r.label.from_}", r.label.to))
        if k in chosen else r for k, r in enumerate(diagram.relations)))


def drawn_model(rng: random.Random, features: list[str]) -> tuple[ClassDiagram, set[str]]:
    """The model to draw, and the class names to draw over two lines."""
    diagram = random_reference(rng, classes=(3, 12))
    diagram = _with_kinds(diagram, rng, features)
    two_line: set[str] = set()
    if rng.random() < 0.3:
        taken = set(diagram.class_names)
        picked = rng.sample(diagram.classes, min(2, len(diagram.classes)))
        names = {}
        for cls in picked:
            name = cls.name + rng.choice(SECOND_WORDS)
            if name not in taken:
                names[cls.name] = name
                taken.add(name)
        diagram = _renamed(diagram, names)
        two_line = set(names.values())
        features.append("two-line names")
    if rng.random() < 0.2:
        diagram = replace(diagram, classes=tuple(
            replace(c, attributes=(), methods=()) for c in diagram.classes))
        features.append("name-only boxes")
    if rng.random() < 0.3:
        roled = _with_roles(diagram, rng)
        if roled != diagram:
            diagram = roled
            features.append("role names")
    return diagram, two_line


# --- placing and joining -----------------------------------------------------------------

def _tree(diagram: ClassDiagram) -> dict[str, str]:
    """Each class's parent in ``random_reference``'s spanning tree (the earlier class of
    each relation): child → parent."""
    order = {name: k for k, name in enumerate(diagram.class_names)}
    return {max(r.begin, r.end, key=order.__getitem__): min(r.begin, r.end,
                                                            key=order.__getitem__)
            for r in diagram.relations}


def place(specs: list[BoxSpec], parent: dict[str, str], rng: random.Random
          ) -> tuple[float, float, float]:
    """Boxes in rows by depth in the tree, children ordered as their parents; returns
    (width, height, the gap between rows)."""
    by_name = {s.cls.name: s for s in specs}
    depth: dict[str, int] = {}
    for spec in specs:  # parents come first in the model's order
        name = spec.cls.name
        depth[name] = depth[parent[name]] + 1 if name in parent else 0
    rows: list[list[BoxSpec]] = [[] for _ in range(max(depth.values()) + 1)]
    for spec in specs:
        rows[depth[spec.cls.name]].append(spec)
    gap_x, gap_y = rng.randint(40, 90), rng.randint(80, 120)
    widths = [sum(s.width for s in row) + gap_x * (len(row) - 1) for row in rows]
    y = 0.0
    for k, row in enumerate(rows):
        if k:
            row.sort(key=lambda s: by_name[parent[s.cls.name]].x)
        x = (max(widths) - widths[k]) / 2
        for spec in row:
            spec.x, spec.y = x, y
            x += spec.width + gap_x
        y += max(s.height for s in row) + gap_y
    return max(widths), y - gap_y, gap_y


def routes(specs: list[BoxSpec], parent: dict[str, str], orthogonal: bool, gap: float
           ) -> dict[str, list[tuple[float, float]]]:
    """Each child's line from its parent's bottom side to its own top: ports spread along
    the parent's bottom; orthogonal lines turn at a height of their own in the gap."""
    by_name = {s.cls.name: s for s in specs}
    children: dict[str, list[BoxSpec]] = {}
    for spec in specs:
        if spec.cls.name in parent:
            children.setdefault(parent[spec.cls.name], []).append(spec)
    out: dict[str, list[tuple[float, float]]] = {}
    turns = sorted((by_name[p].x, c.x, c.cls.name) for p, cs in children.items() for c in cs)
    slot = {name: k for k, (_px, _cx, name) in enumerate(turns)}
    for name, kids in children.items():
        top = by_name[name]
        kids.sort(key=lambda s: s.x)
        for k, kid in enumerate(kids):
            a = (top.x + top.width * (k + 1) / (len(kids) + 1), top.y + top.height)
            b = (kid.x + kid.width / 2, kid.y)
            if not orthogonal or abs(a[0] - b[0]) < 3:
                out[kid.cls.name] = [a, (a[0], b[1])] if orthogonal else [a, b]
                continue
            turn = b[1] - gap + gap * (0.35 + 0.3 * slot[kid.cls.name] / max(1, len(turns)))
            out[kid.cls.name] = [a, (a[0], turn), (b[0], turn), b]
    return out


def _room_for_ends(specs: list[BoxSpec], diagram: ClassDiagram, parent: dict[str, str],
                   look: Look, scale: int) -> None:
    """Parents made wide enough that the labels at their lines' ends (multiplicities, roles)
    stand apart: each beside its own line, clear of the next one."""
    labels: dict[str, list[float]] = {}
    for r in diagram.relations:
        child = r.begin if parent.get(r.begin) == r.end else r.end
        text = r.label.to if child == r.begin else r.label.from_
        labels.setdefault(parent[child], []).append(
            measure(look.family, scale, text, max(8, look.size - 1))[0] if text else 0.0)
    for spec in specs:
        widths = labels.get(spec.cls.name, [])
        if widths:
            room = max(widths) * (1 if look.orthogonal else 2) + 16
            spec.width = max(spec.width, room * (len(widths) + 1))


def draw_relation(pen: Pen, relation: Relation, points: list[tuple[float, float]],
                  child_is_begin: bool, look: Look, navigable: bool) -> None:
    """The line of ``relation`` along ``points`` (parent end first), its heads and labels."""
    kind = HEADS.get(relation.type, "arrow" if navigable else "none")
    dashed = relation.type in (RelationType.DEPENDENCY, RelationType.REALIZATION)
    # the head sits at the relation's end (begin for the diamonds), which is the child's
    # end (the last point) or the parent's (the first)
    at_begin = relation.type in (RelationType.COMPOSITION, RelationType.AGGREGATION)
    at_child = at_begin == child_is_begin
    line = list(points)
    size = 8.0 + look.size / 2  # heads grow with the text, as tools scale both by zoom
    if at_child:
        line[-1] = head(pen, line[-1], line[-2], kind, size, look.paper)
    else:
        line[0] = head(pen, line[0], line[1], kind, size, look.paper)
    pen.line(line, look.border, dashed)
    small = max(8, look.size - 1)
    ends = (relation.label.to, relation.label.from_) if child_is_begin else (
        relation.label.from_, relation.label.to)
    for text, port, toward in ((ends[0], points[0], points[1]),
                               (ends[1], points[-1], points[-2])):
        if text:
            side = 1 if look.orthogonal or toward[0] <= port[0] else -1
            end_label(pen, port, toward, text, small, side, look.paper)
    if relation.name:
        mid_label(pen, points, relation.name, small, look.paper)


def draw(diagram: ClassDiagram, two_line: set[str], look: Look, rng: random.Random) -> bytes:
    """The PNG of ``diagram`` in ``look``."""
    from PIL import Image, ImageDraw

    scale = 2 if look.antialiased else 1
    specs = [box_spec(c, look, c.name in two_line, scale) for c in diagram.classes]
    parent = _tree(diagram)
    _room_for_ends(specs, diagram, parent, look, scale)
    width, height, gap = place(specs, parent, rng)
    left, top = 40.0, 40.0
    if look.frame:
        top += look.size * 1.4 + 30
        left += 20
    chrome_w = 120.0 if look.chrome == "palette" else 0.0
    chrome_h = look.size + 14.0 if look.chrome == "toolbar" else 0.0
    for spec in specs:
        spec.x += left + chrome_w
        spec.y += top + chrome_h
    size = (width + 2 * left + chrome_w, height + top + left + chrome_h)
    image = Image.new("RGB", (round(size[0] * scale), round(size[1] * scale)), look.paper)
    pen = Pen(ImageDraw.Draw(image), scale, look.family)
    if not look.antialiased:
        pen.draw.fontmode = "1"
    if look.chrome == "palette":
        palette(pen, rng, size[1], look.size)
    elif look.chrome == "toolbar":
        toolbar(pen, size[0], look.size)
    if look.frame:
        _frame(pen, (chrome_w + 20, chrome_h + 20, size[0] - 20, size[1] - 20), look, rng)
    for spec in specs:
        draw_box(pen, spec, look)
    lines = routes(specs, parent, look.orthogonal, gap)
    order = {name: k for k, name in enumerate(diagram.class_names)}
    for relation in diagram.relations:
        child = max(relation.begin, relation.end, key=order.__getitem__)
        draw_relation(pen, relation, lines[child], child == relation.begin, look,
                      look.navigable and rng.random() < 0.5)
    if scale != 1:
        image = image.resize((round(size[0]), round(size[1])), Image.Resampling.LANCZOS)
    if look.scale != 1:
        image = image.resize((round(size[0] * look.scale), round(size[1] * look.scale)),
                             Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _frame(pen: Pen, rect: tuple[float, float, float, float], look: Look,
           rng: random.Random) -> None:
    """A UML frame round the diagram, its name in a tab at the top left (``class Shop``)."""
    x0, y0 = rect[:2]
    pen.rect(rect, None, pen.ink, look.border)
    name = f"class {rng.choice(FRAME_NAMES)}"
    width, height = pen.measure(name, look.size)
    tab_w, tab_h = width + 20, height + 10
    pen.line([(x0, y0 + tab_h), (x0 + tab_w, y0 + tab_h), (x0 + tab_w + 8, y0 + tab_h - 8),
              (x0 + tab_w + 8, y0)], look.border)
    pen.text((x0 + 8, y0 + 4), name, look.size)


def random_drawn(rng: random.Random) -> Drawn:
    """A random class diagram drawn in a random look of another tool."""
    from cluestudio.core.plantuml import parse_plantuml, write_plantuml

    look, features = random_look(rng)
    diagram, two_line = drawn_model(rng, features)
    png = draw(diagram, two_line, look, rng)
    text = write_plantuml(diagram)
    count = len(diagram.classes)
    features.append("3–6 classes" if count <= 6 else "7–12 classes")
    return Drawn(png, text, parse_plantuml(text).diagram, tuple(features))
