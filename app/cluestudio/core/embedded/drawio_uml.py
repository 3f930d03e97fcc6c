"""What draw.io cells mean in a UML class diagram, written as PlantUML text.

A class is a ``swimlane`` cell (its label the name, its children the member rows, ``line``
cells between compartments), draw.io's one-cell "Class" shape (an HTML label whose ``<hr>``
rules split name, attributes and operations), or a plain rectangle with a short label.
A class name in italics (``fontStyle`` bit 2, ``<i>``) is abstract; ``«interface»`` and
``«enumeration»`` lines set the kind, other guillemet lines the stereotype. A cell with
classes inside is a package or frame, not a class.

Edges read as draw.io's UML palette draws them::

    hollow block end (endArrow=block;endFill=0)      GE, or RE when dashed; the head is the parent
    diamond at either end (diamondThin/diamond)      CO when filled, AG when hollow; the whole
    arrow head (open, classic, filled block …)       DE when dashed, else a navigable AS
    no head                                          DE when dashed, else AS
    crow's feet (ERone, ERmany, ERzeroToMany …)      AS with the multiplicities they draw

An edge's ends may name a member row (mapped to its class) or nothing (draw.io keeps the
loose end's point: the class whose box holds it is meant). Edge labels near an end
(``x`` < -0.3 or > 0.3 along the edge) that read as multiplicities are that end's; in the
middle, the relation's name; role names are dropped (the model has none). A box that is the
source of an edge labelled "instance of" is an object of an object diagram, not a class.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field

from cluestudio.core.embedded.drawio_cells import Cell, Point, safe_text
from cluestudio.core.embedded.drawio_edges import (
    STEREOTYPE,
    EdgeRelation,
    read_labels,
    relation_line,
    relation_of,
)

_INSTANCE_OF = re.compile(r"[^a-z]")
_NAME_TYPE = re.compile(r"([^\W\d][\w ]*?)\s*\(\s*([^\W\d][\w.<>\[\]]*)\s*\)")
_KIND_WORDS = {"interface": "interface", "enumeration": "enum", "enum": "enum",
               "abstract": "abstract class"}
_PLAIN_SHAPES = {"", "rect", "rectangle", "label"}
_NOT_CLASSES = {"text", "edgeLabel", "line", "ellipse", "rhombus", "triangle", "image",
                "group", "note", "umlFrame", "folder", "umlActor", "cloud", "cylinder"}
_TOLERANCE = 12.0  # drawing units around a box within which a loose edge end still meets it
MAX_DEPTH = 64  # parent links followed before a chain is taken for a cycle
MAX_BOX_TESTS = 2_000_000  # loose edge end × class box tests on one page


@dataclass
class _Class:
    name: str
    keyword: str = "class"
    stereotype: str = ""
    members: dict[str, None] = field(default_factory=dict)  # rows in order, each once


class Page:
    """One page's cells, read as a class diagram."""

    def __init__(self, cells: list[Cell]) -> None:
        self.cells = {cell.id: cell for cell in cells}
        self.children: dict[str, list[Cell]] = {}
        for cell in cells:
            self.children.setdefault(cell.parent, []).append(cell)
        candidates = {c.id for c in cells if self._looks_like_class(c)}
        # A box holding classes is a package or frame; a box inside a class is a member row.
        containers = {c.id for c in cells
                      if c.id in candidates and self._holds_classes(c, candidates)}
        boxes = candidates - containers
        self.class_ids = [c.id for c in cells
                          if c.id in boxes and self._owner(c.parent, boxes) is None]
        self.classes: dict[str, _Class] = {}  # cell id → class (merged by name)
        self.by_name: dict[str, _Class] = {}
        self.edges = [cell for cell in cells if cell.edge]
        self._box_cache: list[tuple[float, float, float, float, str]] | None = None
        self._box_tests = 0

    # -- classes ------------------------------------------------------------------------
    def _looks_like_class(self, cell: Cell) -> bool:
        if not cell.vertex or not cell.value.strip():
            return False
        style = cell.style
        if style.has("swimlane"):
            return True
        if style.words & _NOT_CLASSES or style.get("shape") not in _PLAIN_SHAPES:
            return False
        if style.get("strokeColor") == "none":
            return False  # a rectangle without a border is a text, not a box
        compartments = cell.compartments()
        return len(compartments) > 1 or 0 < len(compartments[0]) <= 3

    def _holds_classes(self, cell: Cell, candidates: set[str]) -> bool:
        inside = [k for k in self.children.get(cell.id, []) if k.id in candidates]
        if cell.style.has("swimlane"):
            return any(k.style.has("swimlane") for k in inside)
        return bool(inside)

    def _owner(self, cell_id: str, classes: Container[str]) -> str | None:
        """The class cell ``cell_id`` is or sits in (bounded walk up the parent chain)."""
        for _ in range(MAX_DEPTH):
            if cell_id in classes:
                return cell_id
            cell = self.cells.get(cell_id)
            if cell is None or not cell.parent or cell.parent == cell_id:
                return None
            cell_id = cell.parent
        return None

    def read_classes(self) -> None:
        for cell_id in self.class_ids:
            cell = self.cells[cell_id]
            parsed = self._read_class(cell)
            if parsed is None:
                continue
            known = self.by_name.get(parsed.name)
            if known is None:
                self.by_name[parsed.name] = known = parsed
            else:  # the same class drawn twice: one class, its rows once
                known.members.update(parsed.members)
                if known.keyword == "class":
                    known.keyword = parsed.keyword
            self.classes[cell_id] = known
        self._drop_objects()

    def _read_class(self, cell: Cell) -> _Class | None:
        compartments = cell.compartments()
        header, rows = compartments[0], compartments[1:]
        # A one-cell class box: name | attributes | operations, when it has both rules.
        separated = len(rows) > 1
        if cell.style.has("swimlane"):
            rows, separated = self._member_rows(cell)
        keyword, stereotype, words = "class", "", []
        for line in header:
            found = STEREOTYPE.findall(line)
            for word in found:
                kind = _KIND_WORDS.get(word.strip().lower())
                if kind:
                    keyword = kind
                elif word.strip() and not stereotype:
                    stereotype = safe_text(word).replace("<", "").replace(">", "")
            rest = STEREOTYPE.sub(" ", line).strip()
            if rest:
                words.append(rest)
        name = safe_text(" ".join(words).replace("{abstract}", " ")).strip()
        name = " ".join(name.split())
        if not name:
            return None
        if keyword == "class" and cell.italic():
            keyword = "abstract class"
        found_class = _Class(name, keyword, stereotype)
        for index, compartment in enumerate(rows):
            for line in compartment:
                row = _member_line(line, index if separated else None, keyword == "enum")
                if row:
                    found_class.members[row] = None
        return found_class

    def _member_rows(self, cell: Cell) -> tuple[list[list[str]], bool]:
        """A swimlane's rows top to bottom, in compartments split by ``line`` cells and by
        ``<hr>`` rules inside a row, and whether any rule split them (then the first
        compartment holds attributes, the others operations)."""
        rows: list[list[str]] = [[]]
        children = sorted(self.children.get(cell.id, []),
                          key=lambda c: (c.geometry.y, c.order))
        for child in children:
            if child.edge or not child.vertex:
                continue
            if child.style.has("line"):
                rows.append([])
                continue
            for index, part in enumerate(child.compartments()):
                if index:
                    rows.append([])
                rows[-1].extend(part)
        return rows, len(rows) > 1

    def _drop_objects(self) -> None:
        objects: set[str] = set()
        for edge in self.edges:
            labels = [edge.value, *(c.value for c in self.children.get(edge.id, []))]
            if any(_INSTANCE_OF.sub("", text.lower()) == "instanceof" for text in labels):
                owner = self._owner(edge.source, self.classes)
                if owner:
                    objects.add(self.classes[owner].name)
        for cell_id, found in list(self.classes.items()):
            if found.name in objects:
                del self.classes[cell_id]
                self.by_name.pop(found.name, None)

    # -- edges --------------------------------------------------------------------------
    def _origin(self, cell: Cell) -> Point:
        """Where ``cell``'s coordinates start: the sum of its vertex ancestors' offsets."""
        x = y = 0.0
        parent = self.cells.get(cell.parent)
        for _ in range(MAX_DEPTH):
            if parent is None or not parent.vertex or parent.geometry.relative:
                break
            x += parent.geometry.x
            y += parent.geometry.y
            parent = self.cells.get(parent.parent)
        return Point(x, y)

    def _boxes(self) -> list[tuple[float, float, float, float, str]]:
        """(left, top, right, bottom, cell id) of every class box, in page coordinates."""
        if self._box_cache is None:
            self._box_cache = []
            for cell_id in self.classes:
                cell = self.cells[cell_id]
                start = self._origin(cell)
                left, top = start.x + cell.geometry.x, start.y + cell.geometry.y
                self._box_cache.append((left, top, left + cell.geometry.width,
                                        top + cell.geometry.height, cell_id))
        return self._box_cache

    def _class_at(self, edge: Cell, point: Point | None) -> str | None:
        """The class whose box a loose edge end touches. Each box tried counts against
        :data:`MAX_BOX_TESTS`, so a page of thousands of loose ends costs a bounded time
        (past it, loose ends stay loose and their edges are left out)."""
        boxes = self._boxes()
        if point is None or self._box_tests + len(boxes) > MAX_BOX_TESTS:
            return None
        self._box_tests += len(boxes)
        origin = self._origin(edge)
        px, py = point.x + origin.x, point.y + origin.y
        best: tuple[float, str] | None = None
        for left, top, right, bottom, cell_id in boxes:
            distance = max(left - px, px - right, top - py, py - bottom, 0.0)
            if distance <= _TOLERANCE and (best is None or distance < best[0]):
                best = (distance, cell_id)
        return best[1] if best else None

    def _end(self, edge: Cell, cell_id: str, point: Point | None) -> str | None:
        owner = self._owner(cell_id, self.classes) if cell_id else None
        return owner if owner else self._class_at(edge, point)

    def read_relations(self) -> list[EdgeRelation]:
        relations: list[EdgeRelation] = []
        for edge in self.edges:
            source = self._end(edge, edge.source, edge.geometry.source_point)
            target = self._end(edge, edge.target, edge.geometry.target_point)
            if source is None or target is None:
                continue
            relation = relation_of(edge, self.classes[source].name, self.classes[target].name)
            read_labels(relation, edge, self.children.get(edge.id, []))
            relations.append(relation)
        return relations

    # -- notes --------------------------------------------------------------------------
    def read_notes(self) -> list[tuple[str, list[str]]]:
        """(class name or "", lines) for every note shape; a note linked to a class by an
        edge is that class's."""
        notes: list[tuple[str, list[str]]] = []
        linked: dict[str, list[str]] = {}  # cell id → the other ends of its edges
        for edge in self.edges:
            linked.setdefault(edge.source, []).append(edge.target)
            linked.setdefault(edge.target, []).append(edge.source)
        for cell in self.cells.values():
            if not (cell.vertex and cell.style.has("note")):
                continue
            lines = [safe_text(line) for line in cell.lines()]
            lines = [line for line in lines if line and line.lower() != "end note"]
            if not lines:
                continue
            owners = (self._owner(other, self.classes) for other in linked.get(cell.id, []))
            owner = next((found for found in owners if found), None)
            target = self.classes[owner].name if owner else ""
            notes.append((target, lines))
        return notes


def _member_line(line: str, compartment: int | None, in_enum: bool) -> str:
    """One member row as a PlantUML body line. Where compartments are known, a row above
    the first rule is an attribute (``email (string)`` meaning ``email : string``) and one
    below it an operation, whatever its parentheses say."""
    text = safe_text(line).rstrip(";").strip()
    if not text.strip(".-_=… "):
        return ""  # "...", "---": an ellipsis or a drawn rule, not a member
    if compartment is None or in_enum:
        return text
    if compartment == 0:
        match = _NAME_TYPE.fullmatch(text)
        if match:
            return f"{match.group(1)} : {match.group(2)}"
        return "{field} " + text if "(" in text else text
    return text if "(" in text else "{method} " + text


def plantuml_body(page: Page) -> list[str] | None:
    """The page as PlantUML lines between ``@startuml`` and ``@enduml``; None when it holds
    no class."""
    page.read_classes()
    if not page.by_name:
        return None
    lines: list[str] = []
    aliases: dict[str, str] = {}
    for index, found in enumerate(page.by_name.values(), start=1):
        aliases[found.name] = f"C{index}"
        header = f'{found.keyword} "{found.name}" as C{index}'
        if found.stereotype:
            header += f" <<{found.stereotype}>>"
        if found.members:
            lines += [header + " {", *("  " + row for row in found.members), "}"]
        else:
            lines.append(header)
    lines += [relation_line(r, aliases) for r in page.read_relations()]
    for index, (target, note) in enumerate(page.read_notes(), start=1):
        head = f"note right of {aliases[target]}" if target else f"note as N{index}"
        lines += [head, *note, "end note"]
    return lines
