"""The pen of ``synth_drawn``: fonts, strokes, class boxes in a look, arrowheads, end labels
and an editor's chrome.

Coordinates are in the drawing's own pixels; a :class:`Pen` that supersamples (draws at
twice the size, for an anti-aliased image once scaled down) multiplies them itself.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from cluestudio.core.model import Attribute, Class, ClassKind, Method

if TYPE_CHECKING:
    from PIL import ImageDraw, ImageFont

Point = tuple[float, float]

# (family, regular, bold, italic) file names of fonts the tools' drawings use, where a
# system has them; DejaVu Sans (matplotlib ships it) stands in for any that is absent
FONT_FILES = (
    ("DejaVu Sans", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf"),
    ("Liberation Sans", "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf",
     "LiberationSans-Italic.ttf"),
    ("Liberation Serif", "LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf",
     "LiberationSerif-Italic.ttf"),
    ("Liberation Sans Narrow", "LiberationSansNarrow-Regular.ttf",
     "LiberationSansNarrow-Bold.ttf", "LiberationSansNarrow-Italic.ttf"),
    ("DejaVu Serif", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf"),
    ("DejaVu Sans Condensed", "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf",
     "DejaVuSansCondensed-Oblique.ttf"),
)
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"),
             Path.home() / ".fonts", Path("/Library/Fonts"), Path("C:/Windows/Fonts"))
PALETTE_WORDS = ("Class", "Interface", "Enumeration", "Package", "Note", "Association",
                 "Generalization", "Composition", "Dependency")
MENU_WORDS = ("File", "Edit", "View", "Insert", "Arrange", "Extras", "Help")
BLUES = ("#4472C4", "#5B9BD5", "#2F5597", "#1F4E79")


@dataclass(frozen=True)
class Look:
    """How a tool draws: the font, the boxes, the lines, the paper, the window round it."""

    family: str
    size: int  # font size in px
    radius: int  # 0: sharp corners
    fill: str  # "plain", "yellow", "light", "gradient", "blue header"
    fill_colour: str
    rules: bool  # compartment rules
    bold_names: bool
    members: str  # "uml", "compact", "plain", "java"
    orthogonal: bool
    navigable: bool  # associations drawn with an open arrow at one end
    paper: str
    antialiased: bool
    scale: float
    chrome: str  # "", "palette", "toolbar"
    frame: bool
    shadow: bool
    border: int


@cache
def _font_path(file: str) -> str | None:
    """A font file by name: in the system's font folders, else matplotlib's DejaVu."""
    for folder in FONT_DIRS:
        if folder.is_dir():
            found = next(folder.rglob(file), None)
            if found is not None:
                return str(found)
    try:
        import matplotlib
    except ImportError:
        return None
    shipped = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    style = "-Bold" if "Bold" in file else "-Oblique" if (
        "Italic" in file or "Oblique" in file) else ""
    fallback = shipped / f"DejaVuSans{style}.ttf"
    return str(fallback) if fallback.is_file() else None


@cache
def font(family: str, size: int, style: str = "") -> ImageFont.FreeTypeFont:
    """``family`` (one of :data:`FONT_FILES`) at ``size`` pixels; ``style``: "", "bold",
    "italic"."""
    from PIL import ImageFont

    files = next(f for f in FONT_FILES if f[0] == family)
    path = _font_path(files[{"": 1, "bold": 2, "italic": 3}[style]])
    if path is None:
        return ImageFont.load_default(size)  # type: ignore[return-value]
    return ImageFont.truetype(path, size)


def measure(family: str, scale: int, text: str, size: int, style: str = ""
            ) -> tuple[float, float]:
    """(width, height) of ``text`` in drawing pixels."""
    _left, top, right, bottom = font(family, size * scale, style).getbbox(text)
    return right / scale, (bottom - min(top, 0)) / scale


@dataclass
class Pen:
    """Draws on ``draw`` at ``scale`` device pixels per drawing pixel."""

    draw: ImageDraw.ImageDraw
    scale: int
    family: str
    ink: str = "black"

    def font(self, size: int, style: str = "") -> ImageFont.FreeTypeFont:
        return font(self.family, size * self.scale, style)

    def measure(self, text: str, size: int, style: str = "") -> tuple[float, float]:
        return measure(self.family, self.scale, text, size, style)

    def text(self, at: Point, text: str, size: int, style: str = "",
             fill: str | None = None) -> None:
        s = self.scale
        self.draw.text((at[0] * s, at[1] * s), text, font=self.font(size, style),
                       fill=fill or self.ink)

    def line(self, points: list[Point], width: float = 1, dashed: bool = False) -> None:
        s = self.scale
        if not dashed:
            self.draw.line([(x * s, y * s) for x, y in points], fill=self.ink,
                           width=max(1, round(width * s)))
            return
        for a, b in itertools.pairwise(points):
            length = math.dist(a, b)
            for start in range(0, int(length), 8):
                t0, t1 = start / length, min(1.0, (start + 5) / length)
                self.draw.line([(s * (a[0] + (b[0] - a[0]) * t), s * (a[1] + (b[1] - a[1]) * t))
                                for t in (t0, t1)], fill=self.ink, width=max(1, round(width * s)))

    def polygon(self, points: list[Point], fill: str | None, width: float = 1) -> None:
        s = self.scale
        self.draw.polygon([(x * s, y * s) for x, y in points], fill=fill, outline=self.ink,
                          width=max(1, round(width * s)))

    def rect(self, rect: tuple[float, float, float, float], fill: str | None,
             outline: str | None = None, width: float = 1, radius: float = 0) -> None:
        s = self.scale
        box = tuple(v * s for v in rect)
        if radius:
            self.draw.rounded_rectangle(box, radius * s, fill=fill, outline=outline,
                                        width=max(1, round(width * s)))
        else:
            self.draw.rectangle(box, fill=fill, outline=outline, width=max(1, round(width * s)))


def head(pen: Pen, tip: Point, before: Point, kind: str, size: float, paper: str) -> Point:
    """An arrowhead of ``kind`` ("triangle", "diamond", "filled diamond", "arrow", "none")
    at ``tip`` of a line coming from ``before``; returns where the line should stop."""
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    nx, ny = -uy, ux

    def back(along: float, side: float = 0.0) -> Point:
        return (tip[0] - ux * along + nx * side, tip[1] - uy * along + ny * side)

    if kind == "triangle":
        pen.polygon([tip, back(size, size * 0.6), back(size, -size * 0.6)], paper)
        return back(size)
    if kind in ("diamond", "filled diamond"):
        fill = pen.ink if kind == "filled diamond" else paper
        pen.polygon([tip, back(size * 0.7, size * 0.4), back(size * 1.4),
                     back(size * 0.7, -size * 0.4)], fill)
        return back(size * 1.4)
    if kind == "arrow":
        pen.line([back(size, size * 0.5), tip, back(size, -size * 0.5)])
    return tip


def end_label(pen: Pen, port: Point, toward: Point, text: str, size: int, side: int,
              paper: str) -> None:
    """``text`` (a multiplicity, a role) beside a line's end at ``port``, the line going to
    ``toward``: a few pixels along the line, on ``side`` (1 right, -1 left) of it."""
    width, height = pen.measure(text, size)
    down = 1 if toward[1] > port[1] else -1
    x = port[0] + 8 if side > 0 else port[0] - 8 - width  # clear of a diamond's corner
    y = port[1] + 4 if down > 0 else port[1] - 4 - height
    pen.rect((x - 1, y - 1, x + width + 1, y + height + 1), paper)
    pen.text((x, y), text, size)


def mid_label(pen: Pen, points: list[Point], text: str, size: int, paper: str) -> None:
    """A relation's name at the middle of its middle segment, over a patch of paper."""
    k = (len(points) - 1) // 2
    (x0, y0), (x1, y1) = points[k], points[k + 1]
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    width, height = pen.measure(text, size)
    x, y = (mx + 6, my - height / 2) if abs(x1 - x0) < abs(y1 - y0) else (
        mx - width / 2, my - height - 4)
    pen.rect((x - 1, y - 1, x + width + 1, y + height + 1), paper)
    pen.text((x, y), text, size)


def palette(pen: Pen, rng: random.Random, height: float, size: int) -> float:
    """An editor's shape palette down the left side; returns its width."""
    width = 120.0
    pen.rect((0, 0, width, height), "#ECECEC", "#B0B0B0")
    y = 12.0
    for word in rng.sample(PALETTE_WORDS, rng.randint(4, len(PALETTE_WORDS))):
        pen.rect((10, y, 30, y + 14), "white", "#707070")
        pen.text((36, y), word, size, fill="#303030")
        y += 26
    return width


def toolbar(pen: Pen, width: float, size: int) -> float:
    """An editor's menu bar along the top; returns its height."""
    height = size + 14.0
    pen.rect((0, 0, width, height), "#F0F0F0", "#C0C0C0")
    x = 10.0
    for word in MENU_WORDS:
        pen.text((x, 6), word, size, fill="#202020")
        x += pen.measure(word, size)[0] + 16
    return height


# --- boxes -------------------------------------------------------------------------------

def member_text(member: Attribute | Method, style: str) -> str:
    vis = member.visibility or ""
    if isinstance(member, Attribute):
        if not member.type:
            return member.name  # an enumeration's value
        return {"uml": f"{vis} {member.name} : {member.type}",
                "compact": f"{vis}{member.name}: {member.type}",
                "plain": f"{member.name} : {member.type}",
                "java": f"{vis} {member.type} {member.name}"}[style].strip()
    params = ", ".join(f"{p.type} {p.name}" if style == "java" else f"{p.name}: {p.type}"
                       for p in member.params)
    call = f"{member.name}({params})"
    ret = member.return_type
    return {"uml": f"{vis} {call} : {ret}", "compact": f"{vis}{call}: {ret}",
            "plain": f"{call} : {ret}", "java": f"{vis} {ret} {call}"}[style].strip()


@dataclass
class BoxSpec:
    cls: Class
    header: list[tuple[str, str]]  # (text, style) lines, centred
    parts: list[list[str]]  # compartments' member lines
    width: float
    height: float
    x: float = 0.0
    y: float = 0.0


def box_spec(cls: Class, look: Look, two_line: bool, scale: int) -> BoxSpec:
    style = "italic" if cls.kind is ClassKind.ABSTRACT else "bold" if look.bold_names else ""
    header: list[tuple[str, str]] = []
    if cls.kind in (ClassKind.INTERFACE, ClassKind.ENUM):
        word = "interface" if cls.kind is ClassKind.INTERFACE else "enumeration"
        header.append((f"«{word}»", ""))
    if two_line:
        cut = next(i for i in range(len(cls.name) - 1, 0, -1) if cls.name[i].isupper())
        header += [(cls.name[:cut], style), (cls.name[cut:], style)]
    else:
        header.append((cls.name, style))
    parts = [[member_text(a, look.members) for a in cls.attributes],
             [member_text(m, look.members) for m in cls.methods]]
    if not cls.attributes and not cls.methods:
        parts = []
    elif not look.rules:
        parts = [[line for part in parts for line in part]]
    size = look.size
    texts = [(t, s) for t, s in header] + [(t, "") for part in parts for t in part]
    width = max(measure(look.family, scale, t, size, s)[0] for t, s in texts) + 16
    width = max(width, 80.0 if parts else 90.0)
    line = size * 1.4
    height = len(header) * line + (22 if not parts else 10)
    height += sum(max(1, len(part)) * line + 8 for part in parts)
    return BoxSpec(cls, header, parts, width, height)


def draw_box(pen: Pen, spec: BoxSpec, look: Look) -> None:
    x0, y0 = spec.x, spec.y
    x1, y1 = x0 + spec.width, y0 + spec.height
    line = look.size * 1.4
    head_h = len(spec.header) * line + (22 if not spec.parts else 10)
    if look.shadow:
        pen.rect((x0 + 4, y0 + 4, x1 + 4, y1 + 4), "#A0A0A0", radius=look.radius)
    body = look.fill_colour if look.fill in ("yellow", "light") else "white"
    if look.fill == "blue header":
        body = "white" if look.fill_colour in BLUES[2:] else "#DEEBF7"
    pen.rect((x0, y0, x1, y1), body, radius=look.radius)
    if look.fill == "gradient":
        _gradient(pen, (x0, y0, x1, y1), look.fill_colour, look.radius)
    text_colour = "black"
    if look.fill == "blue header":
        s = pen.scale
        pen.draw.rounded_rectangle(
            (x0 * s, y0 * s, x1 * s, (y0 + head_h) * s), max(look.radius * s, 0),
            fill=look.fill_colour, corners=(True, True, not spec.parts, not spec.parts))
        text_colour = "white"
    pen.rect((x0, y0, x1, y1), None, pen.ink, look.border, look.radius)
    y = y0 + (head_h - len(spec.header) * line) / 2
    for text, style in spec.header:
        size = look.size - 1 if text.startswith("«") else look.size
        width = pen.measure(text, size, style)[0]
        pen.text((x0 + (spec.width - width) / 2, y), text, size, style, text_colour)
        y += line
    y = y0 + head_h
    for part in spec.parts:
        if look.rules:
            pen.line([(x0, y), (x1, y)], look.border)
        y += 4
        for text in part:
            pen.text((x0 + 8, y), text, look.size)
            y += line
        y += 4 + (0 if part else line)


def _gradient(pen: Pen, rect: tuple[float, float, float, float], colour: str,
              radius: int) -> None:
    """A vertical gradient from white to ``colour``, inside rounded corners."""
    from PIL import ImageColor

    s = pen.scale
    r, g, b = ImageColor.getrgb(colour)[:3]
    x0, y0, x1, y1 = (round(v * s) for v in rect)
    rad = radius * s
    for y in range(y0 + 1, y1):
        t = (y - y0) / max(1, y1 - y0)
        edge = min(y - y0, y1 - y)
        inset = rad - (rad * rad - (rad - edge) ** 2) ** 0.5 if rad and edge < rad else 0
        fill = tuple(round(255 + (c - 255) * t) for c in (r, g, b))
        pen.draw.line([(x0 + 1 + inset, y), (x1 - 1 - inset, y)], fill=fill)
