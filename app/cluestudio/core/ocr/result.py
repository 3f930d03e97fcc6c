"""What OCR read in one image: lines of text, each with a box in image pixels and a confidence.

Boxes are quadrilaterals (top-left, top-right, bottom-right, bottom-left) in the pixel
coordinates of the image as decoded for OCR: the image as stored, except a photo over
40 MP, which is decoded reduced (``width``/``height`` are then smaller than the stored
image's, and a viewer scales by their ratio), and a photo taken from the side, read
squared (:class:`cluestudio.core.ocr.image.LoadedImage`: its ``in_photo`` maps a box back
onto the photo as taken, as the check's report does before anyone draws it);
:attr:`Box.rect` gives the axis-aligned bounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Point = tuple[float, float]


@dataclass(frozen=True)
class Box:
    """Four corners, clockwise from the top-left, in image pixels."""

    points: tuple[Point, Point, Point, Point]

    @classmethod
    def from_rect(cls, x0: float, y0: float, x1: float, y1: float) -> Box:
        return cls(((x0, y0), (x1, y0), (x1, y1), (x0, y1)))

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom): the axis-aligned bounds."""
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        return min(xs), min(ys), max(xs), max(ys)

    @property
    def center(self) -> Point:
        x0, y0, x1, y1 = self.rect
        return (x0 + x1) / 2, (y0 + y1) / 2

    @property
    def height(self) -> float:
        (x0, y0), _, _, (x3, y3) = self.points
        return float(((x3 - x0) ** 2 + (y3 - y0) ** 2) ** 0.5)

    def part(self, start: float, end: float) -> Box:
        """The slice of this box from fraction ``start`` to ``end`` of its width (0..1),
        following its slant: where a word sits inside a line of text."""
        tl, tr, br, bl = self.points

        def along(a: Point, b: Point, t: float) -> Point:
            return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t

        return Box((along(tl, tr, start), along(tl, tr, end), along(bl, br, end),
                    along(bl, br, start)))

    def to_list(self) -> list[list[float]]:
        return [[round(x, 1), round(y, 1)] for x, y in self.points]

    @classmethod
    def from_list(cls, data: Any) -> Box:
        points = tuple((float(p[0]), float(p[1])) for p in data)
        if len(points) != 4:
            raise ValueError(f"a box has 4 corners, not {len(points)}")
        return cls(points)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Word:
    """A run of non-space characters of one line, with its share of the line's box."""

    text: str
    box: Box
    confidence: float
    line: int  # index of its TextLine in OcrResult.lines
    start: int  # character offsets in the line's text
    end: int


@dataclass(frozen=True)
class TextLine:
    text: str
    box: Box
    confidence: float

    def char_box(self, start: int, end: int) -> Box:
        """The box of characters ``start:end``, by their share of the line's width (OCR
        engines give line boxes; proportional slicing is close enough to point at a word)."""
        n = max(1, len(self.text))
        return self.box.part(start / n, end / n)

    def words(self, index: int = 0) -> list[Word]:
        return [Word(m.group(), self.char_box(m.start(), m.end()), self.confidence, index,
                     m.start(), m.end()) for m in re.finditer(r"\S+", self.text)]


Rect = tuple[float, float, float, float]  # left, top, right, bottom


def _turn(point: Point, center: Point, degrees: float) -> Point:
    """``point`` after the image is rotated by ``degrees`` counter-clockwise about
    ``center`` (as scipy.ndimage.rotate and PIL.Image.rotate turn an image; y points down)."""
    if not degrees:
        return point
    import math

    a = math.radians(degrees)
    dx, dy = point[0] - center[0], point[1] - center[1]
    return (center[0] + dx * math.cos(a) + dy * math.sin(a),
            center[1] - dx * math.sin(a) + dy * math.cos(a))


@dataclass(frozen=True)
class ClassBox:
    """A closed box of the diagram (a class) and its compartments, header first."""

    rect: Rect
    compartments: tuple[Rect, ...]

    def compartment_of(self, point: Point) -> int | None:
        x, y = point
        for i, (x0, y0, x1, y1) in enumerate(self.compartments):
            if x0 - 2 <= x <= x1 + 2 and y0 - 2 <= y <= y1 + 2:
                return i
        return None

    def to_list(self) -> list[list[float]]:
        return [[round(v, 1) for v in r] for r in self.compartments]

    @classmethod
    def from_list(cls, data: Any) -> ClassBox:
        parts = tuple((float(r[0]), float(r[1]), float(r[2]), float(r[3])) for r in data)
        if not parts:
            raise ValueError("a class box has at least one compartment")
        rect = (min(r[0] for r in parts), parts[0][1], max(r[2] for r in parts), parts[-1][3])
        return cls(rect, parts)


@dataclass(frozen=True)
class Layout:
    """Class boxes as found in the image turned upright by ``angle`` degrees (counter-
    clockwise, about ``center``): a photo's tilt is taken out before boxes are looked for.
    :meth:`upright` maps an image point into that frame, :meth:`in_image` back."""

    boxes: tuple[ClassBox, ...] = ()
    angle: float = 0.0
    center: Point = (0.0, 0.0)

    def upright(self, point: Point) -> Point:
        return _turn(point, self.center, self.angle)

    def in_image(self, point: Point) -> Point:
        return _turn(point, self.center, -self.angle)

    def locate(self, box: Box) -> tuple[int, int] | None:
        """(class box index, compartment index) holding the centre of ``box``, or None."""
        center = self.upright(box.center)
        for i, cls in enumerate(self.boxes):
            part = cls.compartment_of(center)
            if part is not None:
                return i, part
        return None


@dataclass(frozen=True)
class OcrResult:
    """Everything read from one image by one engine."""

    image_sha256: str
    engine: str  # engine id: package, version and models (the cache key with the hash)
    width: int
    height: int
    lines: tuple[TextLine, ...] = ()
    seconds: float = 0.0  # time the engine took (0 when it came from the cache)
    cached: bool = False
    layout: Layout = Layout()  # the class boxes found in the same image

    def words(self) -> list[Word]:
        return [w for i, line in enumerate(self.lines) for w in line.words(i)]

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {"image_sha256": self.image_sha256, "engine": self.engine, "width": self.width,
                "height": self.height, "seconds": round(self.seconds, 3),
                "lines": [{"text": ln.text, "box": ln.box.to_list(),
                           "confidence": round(ln.confidence, 4)} for ln in self.lines],
                "class_boxes": [b.to_list() for b in self.layout.boxes],
                "layout_angle": self.layout.angle,
                "layout_center": list(self.layout.center)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, cached: bool = False) -> OcrResult:
        return cls(str(data["image_sha256"]), str(data["engine"]), int(data["width"]),
                   int(data["height"]),
                   tuple(TextLine(str(ln["text"]), Box.from_list(ln["box"]),
                                  float(ln["confidence"])) for ln in data.get("lines", [])),
                   float(data.get("seconds", 0.0)), cached,
                   Layout(tuple(ClassBox.from_list(b) for b in data.get("class_boxes", [])),
                          float(data.get("layout_angle", 0.0)),
                          tuple(data.get("layout_center", (0.0, 0.0)))))  # type: ignore[arg-type]
