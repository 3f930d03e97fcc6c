"""draw.io's cells as plain data: one mxGraphModel page read into :class:`Cell` records, their
styles split into words and settings, and their labels (HTML or plain) into lines of text.

Nothing here knows UML; :mod:`drawio_uml` decides what the cells mean. Every loop is bounded
by the number of cells or the length of a label, which the caller has already capped.
"""

from __future__ import annotations

import html
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

#: A label longer than this is cut: no real class box holds a novel, and every later regular
#: expression then runs on a bounded text.
MAX_LABEL_CHARS = 20_000

_BREAK = re.compile(r"<\s*/?\s*(?:br|div|p|li|ul|ol|tr|h[1-6])\b[^>]*+>", re.IGNORECASE)
_RULE = re.compile(r"<\s*hr\b[^>]*+>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*+>")
_ITALIC = re.compile(r"<\s*i\b|font-style\s*:\s*italic", re.IGNORECASE)
# «interface» in italics, as draw.io's palette writes it: says nothing of the name's italics.
_ITALIC_STEREOTYPE = re.compile(
    r"<\s*i\b[^>]*+>\s*(?:&lt;&lt;|<<|«)[^<]*?(?:&gt;&gt;|>>|»)\s*<\s*/\s*i\s*>", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Geometry:
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0
    relative: bool = False
    source_point: Point | None = None
    target_point: Point | None = None


@dataclass(frozen=True, slots=True)
class Style:
    """``swimlane;fontStyle=1;endArrow=block`` → words {"swimlane"} and settings {…}."""

    words: frozenset[str] = frozenset()
    settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Style:
        words: set[str] = set()
        settings: dict[str, str] = {}
        for part in text.split(";"):
            key, equals, value = part.partition("=")
            key = key.strip()
            if not key:
                continue
            if equals:
                settings.setdefault(key, value.strip())
            else:
                words.add(key)
        return cls(frozenset(words), settings)

    def get(self, key: str, default: str = "") -> str:
        return self.settings.get(key, default)

    def has(self, name: str) -> bool:
        """Whether the style names shape ``name`` (as a word or as ``shape=name``)."""
        return name in self.words or self.settings.get("shape") == name

    def flag(self, key: str) -> bool:
        return self.settings.get(key, "0").strip() == "1"

    def font_bits(self) -> int:
        """draw.io's fontStyle bit field: 1 bold, 2 italic, 4 underline."""
        value = self.settings.get("fontStyle", "0").strip()
        return int(value) if value.isdigit() and len(value) < 4 else 0


@dataclass(frozen=True, slots=True)
class Cell:
    id: str
    parent: str
    value: str
    style: Style
    vertex: bool
    edge: bool
    source: str
    target: str
    geometry: Geometry
    order: int  # position in the file: draw.io's z-order, and a stable tie-breaker

    @property
    def html(self) -> bool:
        return self.style.flag("html")

    def compartments(self) -> list[list[str]]:
        """The label's text, split at horizontal rules (``<hr>``) into compartments of
        non-empty lines: HTML tags dropped, entities decoded, spaces collapsed."""
        return label_compartments(self.value, self.html)

    def lines(self) -> list[str]:
        return [line for part in self.compartments() for line in part]

    def italic(self) -> bool:
        """Whether the label's first compartment (a class's name) is in italics."""
        if self.style.font_bits() & 2:
            return True
        if not self.html:
            return False
        head = _RULE.split(self.value, maxsplit=1)[0]
        return bool(_ITALIC.search(_ITALIC_STEREOTYPE.sub("", head)))


def safe_text(text: str) -> str:
    """One line PlantUML reads as plain text: no quotes, no comment or block markers at its
    start, no ``/'`` comment openers, no braces that would close a body."""
    text = text.replace('"', "'").replace("/'", "/ '").replace("'/", "' /")
    return text.lstrip("'@!}").rstrip("{").strip()


def label_compartments(value: str, is_html: bool) -> list[list[str]]:
    if not is_html:
        return [_clean_lines(value)]
    parts = _RULE.split(value)
    return [_clean_lines(html.unescape(_TAG.sub("", _BREAK.sub("\n", part)))) for part in parts]


def _clean_lines(text: str) -> list[str]:
    lines = (_SPACES.sub(" ", line.replace("\xa0", " ")).strip() for line in text.split("\n"))
    return [line for line in lines if line]


def _number(text: str | None) -> float:
    try:
        value = float(text) if text else 0.0
    except ValueError:
        return 0.0
    return value if math.isfinite(value) else 0.0


def _point(element: ET.Element) -> Point:
    return Point(_number(element.get("x")), _number(element.get("y")))


def _geometry(cell: ET.Element) -> Geometry:
    element = next((child for child in cell if child.tag == "mxGeometry"), None)
    if element is None:
        return Geometry()
    points: dict[str, Point] = {}
    for child in element:
        role = child.get("as", "")
        if child.tag == "mxPoint" and role in ("sourcePoint", "targetPoint"):
            points[role] = _point(child)
    return Geometry(
        _number(element.get("x")), _number(element.get("y")),
        _number(element.get("width")), _number(element.get("height")),
        element.get("relative") == "1",
        points.get("sourcePoint"), points.get("targetPoint"))


def read_cells(root: ET.Element) -> list[Cell]:
    """The cells of one ``<mxGraphModel>`` (or its ``<root>``), in file order. A cell wrapped
    in ``<UserObject>``/``<object>`` (draw.io's cells with data) takes the wrapper's id and
    label. Cells without an id, or repeating one, are left out (draw.io would not load them)."""
    container = root.find("root") if root.tag == "mxGraphModel" else root
    if container is None:
        return []
    cells: list[Cell] = []
    seen: set[str] = set()
    for order, element in enumerate(container):
        wrapper: ET.Element | None = None
        if element.tag in ("UserObject", "object"):
            wrapper = element
            inner = element.find("mxCell")
            if inner is None:
                continue
            element = inner
        elif element.tag != "mxCell":
            continue
        holder = wrapper if wrapper is not None else element
        cell_id = holder.get("id", "")
        if not cell_id or cell_id in seen:
            continue
        seen.add(cell_id)
        value = holder.get("label", "") if wrapper is not None else element.get("value", "")
        cells.append(Cell(
            id=cell_id, parent=element.get("parent", ""),
            value=value[:MAX_LABEL_CHARS],
            style=Style.parse(element.get("style", "")[:MAX_LABEL_CHARS]),
            vertex=element.get("vertex") == "1", edge=element.get("edge") == "1",
            source=element.get("source", ""), target=element.get("target", ""),
            geometry=_geometry(element), order=order))
    return cells
