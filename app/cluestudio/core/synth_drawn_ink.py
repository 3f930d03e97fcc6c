"""The pen of ``synth_drawn``: fonts, strokes, arrowheads, end labels and an editor's chrome.

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
