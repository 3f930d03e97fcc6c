"""Photographs of class diagrams, made fresh per seed: a held-out proxy for whiteboard photos.

The draft converter and the check were tuned on three real photos; these are drawn anew for
every seed (issue 29). A diagram of 2–7 classes from ``synth_reference`` is drawn on a board
in marker strokes (wobbly sides, corners that overshoot or stay open, rounded corners, system
fonts with jittered letters), on ruled or squared paper in pen with the back page showing
through (a photographed exam), or rendered by PlantUML in its ``handwritten``/``sketchy`` look
and laid on a board as ink (with ``render``). Then a phone takes the picture: the board seen
from the side (perspective), a tilt, uneven light (a gradient, a vignette), a glare blob, a
reflection, the board's frame and the wall round it, defocus, sensor noise, JPEG. Each
feature is named, so a benchmark can say which ones the draft fails on; the truth is the
model's PlantUML as our parser reads it. Deterministic per ``random.Random`` state (and the
fonts installed: /usr/share/fonts, else matplotlib's DejaVu).
"""

from __future__ import annotations

import io
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from cluestudio.core.model import ClassDiagram, ClassKind, Relation, RelationType
from cluestudio.core.synth_reference import random_reference

if TYPE_CHECKING:
    import numpy as np
    from PIL import ImageFont

Colour = tuple[int, int, int]
Rect = tuple[float, float, float, float]

# Fonts a hand is imitated with, in order of preference where several are installed
FONT_FILES = ("URWGothic-Book.otf", "NimbusSansNarrow-Regular.otf", "LiberationSans-Regular.ttf",
              "DejaVuSans.ttf", "NimbusSans-Regular.otf", "Z003-MediumItalic.otf",
              "DejaVuSansCondensed-Oblique.ttf", "LiberationSansNarrow-Regular.ttf")
MARKERS: dict[str, Colour] = {"black marker": (35, 38, 48), "blue marker": (30, 62, 150),
                              "red marker": (165, 38, 42), "green marker": (28, 108, 62)}
PENS: dict[str, Colour] = {"blue pen": (28, 48, 135), "black pen": (30, 30, 36)}
BOARDS: dict[str, Colour] = {"white board": (234, 236, 235), "off-white board": (226, 223, 210),
                             "grey-green board": (198, 210, 200)}
WALLS: tuple[Colour, ...] = ((205, 196, 178), (120, 118, 112), (168, 172, 178), (62, 60, 58))
DESKS: tuple[Colour, ...] = ((150, 110, 72), (96, 98, 104), (190, 186, 176))


@dataclass(frozen=True)
class Photo:
    """One photographed diagram: JPEG bytes, its truth, its PlantUML and the features drawn."""

    jpeg: bytes
    truth: ClassDiagram
    text: str
    features: tuple[str, ...]


def font_files() -> list[Path]:
    """The fonts found for hand lettering: the system's, else matplotlib's DejaVu Sans."""
    roots = [Path("/usr/share/fonts")]
    found: dict[str, Path] = {}
    for root in roots:
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.name in FONT_FILES and path.name not in found:
                    found[path.name] = path
    paths = [found[name] for name in FONT_FILES if name in found]
    if not paths:
        import matplotlib

        paths = [Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"]
    return paths


def _diagram(rng: random.Random, features: list[str]) -> ClassDiagram:
    """A board-sized diagram: 2–7 classes, a few members each (none in some boxes)."""
    diagram = random_reference(rng, classes=(2, 7))
    bare = rng.random() < 0.25
    classes = []
    for cls in diagram.classes:
        if bare and rng.random() < 0.6:
            cls = replace(cls, attributes=(), methods=())
        else:
            cls = replace(cls, attributes=cls.attributes[:rng.randint(1, 3)],
                          methods=cls.methods[:rng.randint(0, 1)])
        classes.append(cls)
    if bare:
        features.append("name-only boxes")
    size = len(classes)
    features.append("2–4 classes" if size <= 4 else "5–7 classes")
    return replace(diagram, classes=tuple(classes))


def _truth(diagram: ClassDiagram) -> tuple[str, ClassDiagram]:
    from cluestudio.core.plantuml import parse_plantuml, write_plantuml

    text = write_plantuml(diagram)
    return text, parse_plantuml(text).diagram


# --- drawing by hand -----------------------------------------------------------------------

class _Hand:
    """Strokes and letters drawn as a marker or a pen does: into an ink layer (how much ink)
    and a colour layer (which ink)."""

    def __init__(self, size: tuple[int, int], rng: random.Random, width: int,
                 font: Path, letters: int, colour: Colour) -> None:
        from PIL import Image, ImageDraw, ImageFont

        self.ink = Image.new("L", size, 0)
        self.colours = Image.new("RGB", size, colour)
        self._ink, self._col = ImageDraw.Draw(self.ink), ImageDraw.Draw(self.colours)
        self.rng, self.width, self.colour = rng, width, colour
        self.font: ImageFont.FreeTypeFont = ImageFont.truetype(str(font), letters)
        self.letters = letters

    def line(self, a: tuple[float, float], b: tuple[float, float], wobble: float = 1.5,
             dashed: bool = False) -> None:
        """A stroke from ``a`` to ``b`` that wanders a little off the straight line."""
        length = math.dist(a, b)
        steps = max(2, int(length / 18))
        nx, ny = (-(b[1] - a[1]) / max(length, 1), (b[0] - a[0]) / max(length, 1))
        phase, waves = self.rng.uniform(0, 6.3), self.rng.uniform(0.6, 1.8)
        points = []
        for k in range(steps + 1):
            t = k / steps
            off = wobble * math.sin(phase + waves * math.pi * t) * math.sin(math.pi * t)
            points.append((a[0] + (b[0] - a[0]) * t + nx * off,
                           a[1] + (b[1] - a[1]) * t + ny * off))
        if dashed:
            for k in range(0, len(points) - 1, 2):
                self._stroke(points[k:k + 2])
        else:
            self._stroke(points)

    def _stroke(self, points: list[tuple[float, float]]) -> None:
        self._ink.line(points, fill=255, width=self.width, joint="curve")
        self._col.line(points, fill=self.colour, width=self.width, joint="curve")

    def polygon(self, points: list[tuple[float, float]], filled: bool) -> None:
        for k in range(len(points)):
            self.line(points[k], points[(k + 1) % len(points)], wobble=0.6)
        if filled:
            self._ink.polygon(points, fill=255)
            self._col.polygon(points, fill=self.colour)

    def rounded(self, rect: Rect, radius: int) -> None:
        self._ink.rounded_rectangle(rect, radius=radius, outline=255, width=self.width)
        self._col.rounded_rectangle(rect, radius=radius, outline=self.colour, width=self.width)

    def text_size(self, text: str) -> float:
        return self.font.getlength(text) * 1.04

    def write(self, x: float, y: float, text: str) -> None:
        """``text`` from its top left, letter by letter a little off its line and size."""
        slope = math.tan(math.radians(self.rng.uniform(-1.5, 1.5)))
        start = x
        bold = max(0, self.width // 3 - 1)
        for char in text:
            dy = self.rng.uniform(-0.06, 0.06) * self.letters + (x - start) * slope
            for draw, fill in ((self._ink, 255), (self._col, self.colour)):
                draw.text((x, y + dy), char, font=self.font, fill=fill,
                          stroke_width=bold, stroke_fill=fill)
            x += self.font.getlength(char) * self.rng.uniform(1.0, 1.08)


def _layers(diagram: ClassDiagram) -> list[list[str]]:
    """Classes by depth from the first (random_reference ties each to an earlier one)."""
    depth = {diagram.classes[0].name: 0}
    for _ in diagram.classes:
        for r in diagram.relations:
            for a, b in ((r.begin, r.end), (r.end, r.begin)):
                if a in depth and b not in depth:
                    depth[b] = depth[a] + 1
    rows: list[list[str]] = [[] for _ in range(max(depth.values(), default=0) + 1)]
    for cls in diagram.classes:
        rows[depth.get(cls.name, len(rows) - 1)].append(cls.name)
    return rows


def _box_lines(diagram: ClassDiagram, text: str) -> dict[str, list[list[str]]]:
    """Each class's compartments' lines of text, as the PlantUML ``text`` spells them."""
    bodies: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        opened = re.match(r"^(?:abstract class|class) (\w+) \{$", line.strip())
        if opened:
            current = bodies.setdefault(opened.group(1), [])
        elif line.strip() == "}":
            current = None
        elif current is not None:
            current.append(line.strip())
    out = {}
    for cls in diagram.classes:
        header = [f"<<abstract>> {cls.name}" if cls.kind is ClassKind.ABSTRACT else cls.name]
        body = bodies.get(cls.name, [])
        attributes, methods = body[:len(cls.attributes)], body[len(cls.attributes):]
        out[cls.name] = [header, *([attributes] if body else []), *([methods] if methods else [])]
    return out


@dataclass(frozen=True)
class _Pen:
    """What the diagram is drawn with: stroke width, font, letter height, ink colour."""

    width: int
    font: Path
    letters: int
    colour: Colour


def _draw_diagram(diagram: ClassDiagram, text: str, rng: random.Random, pen: _Pen,
                  features: list[str]) -> tuple[_Hand, tuple[int, int]]:
    """The diagram drawn by hand: boxes in rows by depth, relations as straight strokes."""
    letters = pen.letters
    probe = _Hand((8, 8), rng, 1, pen.font, letters, (0, 0, 0))
    pad, line_gap = int(0.5 * letters), int(1.35 * letters)
    sizes: dict[str, tuple[float, float]] = {}
    texts = _box_lines(diagram, text)
    for name, parts in texts.items():
        width = max(probe.text_size(t) for part in parts for t in part) + 2 * pad
        height = sum(len(p) * line_gap + pad for p in parts) + pad * 0.5
        sizes[name] = (max(width, 4 * letters), height)
    gap_x, gap_y = rng.randint(3, 6) * letters, rng.randint(4, 6) * letters
    rows = _layers(diagram)
    row_width = [sum(sizes[n][0] for n in row) + gap_x * (len(row) - 1) for row in rows]
    width = int(max(row_width) + 4 * letters)
    rects: dict[str, Rect] = {}
    y = 2.0 * letters
    for row, span in zip(rows, row_width, strict=True):
        x = (width - span) / 2 + rng.uniform(-1, 1) * letters
        for name in row:
            w, h = sizes[name]
            top = y + rng.uniform(0, 0.8) * letters
            rects[name] = (x, top, x + w, top + h)
            x += w + gap_x
        y += max(sizes[n][1] for n in row) + gap_y
    height = int(y - gap_y + 3 * letters)
    hand = _Hand((width, height), rng, pen.width, pen.font, letters, pen.colour)
    style = rng.random()
    rounded, open_corners = style < 0.3, 0.3 <= style < 0.55
    rules = rng.random() >= 0.1
    features += ["rounded boxes"] * rounded + ["open corners"] * open_corners
    features += [] if rules else ["no compartment rules"]
    for name, rect in rects.items():
        _box(hand, rect, rounded, open_corners)
        x0, y, x1, _y1 = rect
        for k, part in enumerate(texts[name]):
            if k and rules:
                hand.line((x0 + rng.uniform(0, 4), y), (x1 + rng.uniform(-6, 6), y))
            y += pad * 0.6
            for text in part:
                left = (x0 + (x1 - x0 - hand.text_size(text)) / 2 if k == 0
                        else x0 + pad * rng.uniform(0.6, 1.0))
                hand.write(left, y, text)
                y += line_gap
            y += pad * 0.4
    for relation in diagram.relations:
        _relation(hand, relation, rects, letters)
    return hand, (width, height)


def _box(hand: _Hand, rect: Rect, rounded: bool, open_corners: bool) -> None:
    x0, y0, x1, y1 = rect
    if rounded:
        hand.rounded(rect, int(hand.rng.uniform(0.08, 0.2) * min(x1 - x0, y1 - y0)))
        return
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        # a side overshoots its corner or, on an open corner, stops short of it
        over = hand.rng.uniform(-9, -3) if open_corners and hand.rng.random() < 0.5 \
            else hand.rng.uniform(0, 7)
        length = math.dist(a, b)
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        hand.line((a[0] - ux * hand.rng.uniform(0, 5), a[1] - uy * hand.rng.uniform(0, 5)),
                  (b[0] + ux * over, b[1] + uy * over))


def _edge_point(rect: Rect, toward: tuple[float, float]) -> tuple[float, float]:
    """Where the line from ``rect``'s centre to ``toward`` leaves the rectangle."""
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    dx, dy = toward[0] - cx, toward[1] - cy
    scale = min((rect[2] - cx) / abs(dx) if dx else math.inf,
                (rect[3] - cy) / abs(dy) if dy else math.inf)
    return cx + dx * scale, cy + dy * scale


def _relation(hand: _Hand, relation: Relation, rects: dict[str, Rect], letters: int) -> None:
    a_rect, b_rect = rects[relation.begin], rects[relation.end]
    a_mid = ((a_rect[0] + a_rect[2]) / 2, (a_rect[1] + a_rect[3]) / 2)
    b_mid = ((b_rect[0] + b_rect[2]) / 2, (b_rect[1] + b_rect[3]) / 2)
    a, b = _edge_point(a_rect, b_mid), _edge_point(b_rect, a_mid)
    length = max(1.0, math.dist(a, b))
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    nx, ny = -uy, ux
    head = 0.75 * letters
    start, end = a, b
    kind = relation.type
    if kind in (RelationType.COMPOSITION, RelationType.AGGREGATION):  # diamond at begin
        tip, back = a, (a[0] + 2 * head * ux, a[1] + 2 * head * uy)
        mid = (a[0] + head * ux, a[1] + head * uy)
        hand.polygon([tip, (mid[0] + 0.45 * head * nx, mid[1] + 0.45 * head * ny), back,
                      (mid[0] - 0.45 * head * nx, mid[1] - 0.45 * head * ny)],
                     filled=kind is RelationType.COMPOSITION)
        start = back
    elif kind is RelationType.GENERALIZATION:  # hollow triangle at end (the parent)
        base = (b[0] - 1.2 * head * ux, b[1] - 1.2 * head * uy)
        hand.polygon([b, (base[0] + 0.7 * head * nx, base[1] + 0.7 * head * ny),
                      (base[0] - 0.7 * head * nx, base[1] - 0.7 * head * ny)], filled=False)
        end = base
    elif kind is RelationType.DEPENDENCY:  # open arrow at end
        for side in (1, -1):
            hand.line(b, (b[0] - head * ux + side * 0.5 * head * nx,
                          b[1] - head * uy + side * 0.5 * head * ny), wobble=0.3)
    hand.line(start, end, wobble=2.0, dashed=kind is RelationType.DEPENDENCY)
    small = 0.45 * letters
    for text, at, along in ((relation.label.from_, a, 1.0), (relation.label.to, b, -1.0)):
        if text:
            hand.write(at[0] + along * 1.6 * letters * ux + 0.9 * letters * nx - small,
                       at[1] + along * 1.6 * letters * uy + 0.9 * letters * ny - small, text)
    if relation.name:  # beside the line's middle, on the side away from its normal
        mx, my = (a[0] + b[0]) / 2 + 0.8 * letters, (a[1] + b[1]) / 2 - letters / 2
        hand.write(mx, my, relation.name)


# --- the surface and the camera ----------------------------------------------------------

def _noise_field(gen: np.random.Generator, shape: tuple[int, int], blur: float) -> np.ndarray:
    """Smooth random values in 0..1 (uniform noise blurred by ``blur`` pixels), made at a
    quarter of the size where the blur allows and enlarged (the same look, a tenth of the
    work)."""
    import numpy as np
    from PIL import Image
    from scipy import ndimage

    shrink = 4 if blur >= 4 else 2 if blur >= 2 else 1
    small = (max(2, shape[0] // shrink), max(2, shape[1] // shrink))
    field = ndimage.gaussian_filter(gen.random(small, dtype=np.float32), blur / shrink)
    low, high = float(field.min()), float(field.max())
    field = (field - low) / max(high - low, 1e-6)
    if shrink == 1:
        return field
    return np.asarray(Image.fromarray(field).resize(shape[::-1], Image.Resampling.BILINEAR))


def _inked(surface: np.ndarray, ink: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """``surface`` (H×W×3 float) with ink (H×W, 0..1) of ``colours`` laid on it."""
    a = ink[..., None]
    return surface * (1 - a) + colours * a


def _print_through(rng: random.Random, size: tuple[int, int], letters: int,
                   font: Path) -> np.ndarray:
    """The back page's writing, seen through the paper: mirrored, faint, blurred (0..1)."""
    import numpy as np
    from PIL import Image, ImageFilter

    back = _Hand(size, rng, 2, font, letters, (0, 0, 0))
    y = rng.uniform(1, 3) * letters
    while y < size[1] - 2 * letters:
        words = " ".join(rng.choice(("the", "class", "order", "total", "list", "name",
                                     "method", "exam", "points", "draw", "each", "model"))
                         for _ in range(rng.randint(3, 9)))
        back.write(rng.uniform(1, 4) * letters, y, words)
        y += rng.uniform(1.6, 2.4) * letters
    mirrored = back.ink.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    faint = np.asarray(mirrored.filter(ImageFilter.GaussianBlur(2.2)), np.float32) / 255
    return faint * rng.uniform(0.08, 0.18)


def _surface(rng: random.Random, gen: np.random.Generator, paper: bool, size: tuple[int, int],
             letters: int, font: Path, features: list[str]) -> np.ndarray:
    """The board or the sheet of paper under the drawing (H×W×3 float)."""
    import numpy as np

    width, height = size
    if paper:
        surface = np.empty((height, width, 3), np.float32)
        surface[...] = (247, 245, 236)
        ruling = rng.random()
        if ruling < 0.4:
            surface[int(letters * 1.2)::int(letters * 1.5), :] = (172, 192, 222)
            surface[:, int(2.5 * letters):int(2.5 * letters) + 2] = (220, 120, 120)
            features.append("ruled paper")
        elif ruling < 0.75:
            step = int(0.8 * letters)
            surface[::step, :] = (185, 190, 200)
            surface[:, ::step] = (185, 190, 200)
            features.append("squared paper")
        if rng.random() < 0.6:
            back = _print_through(rng, size, letters, font)
            surface *= 1 - back[..., None] * 0.9
            features.append("print-through")
        return surface
    from PIL import ImageFilter

    name = rng.choice(sorted(BOARDS))
    features.append(name)
    surface = np.empty((height, width, 3), np.float32)
    surface[...] = BOARDS[name]
    # old marker wiped off: faint smudges and ghosts of earlier writing
    if rng.random() < 0.5:
        ghost = _Hand(size, rng, 4, font, letters, (0, 0, 0))
        for _ in range(rng.randint(2, 6)):
            ghost.write(rng.uniform(0, width * 0.8), rng.uniform(0, height * 0.9),
                        rng.choice(("todo", "x = 3", "ideas", "meeting", "v2", "draft")))
        smear = np.asarray(ghost.ink.filter(ImageFilter.GaussianBlur(2)), np.float32) / 255
        smear *= rng.uniform(0.04, 0.1)
        surface *= 1 - smear[..., None]
        features.append("erased ghosts")
    return surface


def _perspective(rng: random.Random, size: tuple[int, int], out: tuple[int, int],
                 features: list[str]) -> list[tuple[float, float]]:
    """Where the scene's corners land in the picture: the board turned by 5–25° about a
    vertical (or horizontal) axis, seen by a phone's lens, tilted, framed."""
    yaw = math.radians(rng.uniform(5, 25)) * rng.choice((1, -1))
    pitch = math.radians(rng.uniform(-8, 8))
    roll = math.radians(rng.uniform(-6, 6))
    degrees = abs(math.degrees(yaw))
    features.append("perspective 5–15°" if degrees < 15 else "perspective 15–25°")
    if abs(math.degrees(roll)) >= 3:
        features.append("tilt ≥ 3°")
    w, h = size
    focal = 1.1 * max(w, h)
    projected = []
    for x, y in ((0, 0), (w, 0), (w, h), (0, h)):
        # the corner on the board plane (z = 0), turned by the yaw, then by the pitch
        px, py = x - w / 2, y - h / 2
        px, pz = px * math.cos(yaw), -px * math.sin(yaw)
        py, pz = py * math.cos(pitch) - pz * math.sin(pitch), \
            py * math.sin(pitch) + pz * math.cos(pitch)
        depth = focal * 1.4 + pz
        u, v = focal * px / depth, focal * py / depth
        projected.append((u * math.cos(roll) - v * math.sin(roll),
                          u * math.sin(roll) + v * math.cos(roll)))
    us, vs = [p[0] for p in projected], [p[1] for p in projected]
    fill = rng.uniform(0.88, 1.12)  # over 1: the board's edges are cut off by the picture
    scale = fill * min(out[0] / (max(us) - min(us)), out[1] / (max(vs) - min(vs)))
    cu, cv = (max(us) + min(us)) / 2, (max(vs) + min(vs)) / 2
    return [(out[0] / 2 + (u - cu) * scale + rng.uniform(-0.03, 0.03) * out[0],
             out[1] / 2 + (v - cv) * scale + rng.uniform(-0.03, 0.03) * out[1])
            for u, v in projected]


def _light(rng: random.Random, gen: np.random.Generator, picture: np.ndarray,
           features: list[str]) -> np.ndarray:
    """Uneven light: a gradient, a vignette, a glare blob, a reflection (H×W×3 float)."""
    import numpy as np

    h, w = picture.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = xs / w - 0.5, ys / h - 0.5
    if rng.random() < 0.7:
        angle = rng.uniform(0, 2 * math.pi)
        ramp = xs * math.cos(angle) + ys * math.sin(angle)
        picture *= (1 - rng.uniform(0.15, 0.4) * (ramp + 0.5))[..., None]
        features.append("light gradient")
    if rng.random() < 0.5:
        picture *= (1 - rng.uniform(0.2, 0.45) * (xs ** 2 + ys ** 2) * 2)[..., None]
        features.append("vignette")
    if rng.random() < 0.45:  # a window's reflection: a soft bright patch over the ink
        cx, cy = rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)
        rx, ry = rng.uniform(0.08, 0.2), rng.uniform(0.08, 0.25)
        blob = np.exp(-((xs - cx) / rx) ** 2 - ((ys - cy) / ry) ** 2)
        strength = rng.uniform(0.5, 0.8)
        picture += (255 - picture) * (strength * blob)[..., None]
        features.append("glare")
    if rng.random() < 0.35:  # a person or a window frame mirrored in the board: soft shapes
        from PIL import Image

        field = _noise_field(gen, (max(2, h // 48), max(2, w // 48)), 1.2)
        soft = np.clip((field - 0.55) * 5 + 0.5, 0, 1)
        shade = np.asarray(Image.fromarray(soft).resize((w, h), Image.Resampling.BICUBIC),
                           np.float32)
        picture *= (1 - rng.uniform(0.1, 0.25) * np.clip(shade, 0, 1))[..., None]
        features.append("reflection")
    tint = np.array([rng.uniform(0.94, 1.04), 1.0, rng.uniform(0.92, 1.05)], np.float32)
    return picture * tint


def random_photo(rng: random.Random, out_side: int = 1280,
                 render: Callable[[str], bytes] | None = None) -> Photo:
    """A random diagram, drawn and photographed, ``out_side`` pixels on its long side (up to
    2.5 times that where its letters would come out under 13–28 px).
    ``render`` (PlantUML text → PNG, the project's renderer) adds sketchy renders laid on a
    board; without it every photo is drawn by hand here."""
    import numpy as np
    from PIL import Image, ImageFilter

    features: list[str] = []
    gen = np.random.default_rng(rng.getrandbits(32))
    fonts = font_files()
    font = fonts[rng.randrange(len(fonts))]
    source = rng.random()
    paper = source < 0.3
    rendered = render is not None and source >= 0.8
    diagram = _diagram(rng, features)
    text, truth = _truth(diagram)
    if rendered:
        assert render is not None
        look = rng.choice(("!option handwritten true", "!theme sketchy-outline"))
        features.append("sketchy render" if "theme" in look else "handwritten render")
        text = text.replace("@startuml\n", f"@startuml\n{look}\nscale 2\n", 1)
        with Image.open(io.BytesIO(render(text))) as png:
            sheet = Image.new("RGBA", png.size, (255, 255, 255, 255))  # a theme's may be clear
            sheet.alpha_composite(png.convert("RGBA"))
            gray = np.asarray(sheet.convert("L"), np.float32)
        # the render's page (white, or a theme's tint) is the board; what is darker, ink
        page = float(np.median(gray))
        ink = np.clip((page - 12 - gray) / max(40.0, page - 60), 0, 1)
        size = (gray.shape[1], gray.shape[0])
        colour = MARKERS[rng.choice(sorted(MARKERS))]
        colours = np.broadcast_to(np.array(colour, np.float32), (*gray.shape, 3))
        letters = 26
    else:
        pens = PENS if paper else MARKERS
        pen = rng.choice(sorted(pens))
        features.append("pen on paper" if paper else "marker")
        features.append(pen)
        letters = rng.randint(22, 30) if paper else rng.randint(26, 38)
        width = rng.randint(2, 3) if paper else rng.randint(3, 6)
        hand, size = _draw_diagram(diagram, text, rng, _Pen(width, font, letters, pens[pen]),
                                   features)
        ink = np.asarray(hand.ink, np.float32) / 255
        colours = np.asarray(hand.colours, np.float32)
        if font.name.startswith("Z003"):
            features.append("script font")
    if not paper and rng.random() < 0.3:  # a marker running dry: thin, patchy strokes
        ink *= 0.35 + 0.5 * _noise_field(gen, ink.shape, 2.0)
        features.append("faded marker")
    surface = _surface(rng, gen, paper, size, letters, font, features)
    drawn = _inked(surface, ink, colours)
    # the scene round the drawing: the board's aluminium frame, or the paper's edge, and
    # the wall or the desk behind
    margin = int(rng.uniform(1.5, 5) * letters)
    frame = 0 if paper else int(rng.uniform(0.3, 0.7) * letters)
    around = rng.choice(DESKS if paper else WALLS)
    scene = np.empty((size[1] + 2 * (margin + frame), size[0] + 2 * (margin + frame), 3),
                     np.float32)
    scene[...] = around
    if frame:
        scene[margin:-margin, margin:-margin] = (182, 186, 190)
        features.append("board frame")
    inner = margin + frame
    scene[inner:inner + size[1], inner:inner + size[0]] = drawn
    scene_image = Image.fromarray(np.clip(scene, 0, 255).astype(np.uint8))
    # the phone held the way the drawing is wide, near enough for letters 13–28 px high
    # (a phone's 12 MP photo has letters twice as big and more: reduced, not illegible)
    aspect = rng.choice((4 / 3, 4 / 3, 16 / 9))
    out = ((out_side, int(out_side / aspect)) if scene.shape[1] >= scene.shape[0]
           else (int(out_side / aspect), out_side))
    fit = min(out[0] / scene.shape[1], out[1] / scene.shape[0])
    grow = min(2.5, max(1.0, rng.uniform(13, 28) / (letters * fit)))
    out = (int(out[0] * grow), int(out[1] * grow))
    corners = _perspective(rng, scene_image.size, out, features)
    from cluestudio.core.ocr.resample import homography

    w, h = scene_image.size
    to_scene = homography(np.array(corners, np.float64),
                           np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float64))
    photo = scene_image.transform(out, Image.Transform.PERSPECTIVE,
                                  tuple((to_scene / to_scene[2, 2]).ravel()[:8]),
                                  Image.Resampling.BICUBIC, fillcolor=around)
    picture = _light(rng, gen, np.asarray(photo, np.float32), features)
    picture = np.clip(picture, 0, 255).astype(np.uint8)
    image = Image.fromarray(picture)
    blur = rng.uniform(0.3, 1.6)
    image = image.filter(ImageFilter.GaussianBlur(blur))
    if blur >= 1.0:
        features.append("defocus")
    sigma = rng.uniform(1.5, 7)
    noisy = np.asarray(image, np.float32) + gen.normal(0, sigma, (out[1], out[0], 1))
    if sigma >= 4:
        features.append("sensor noise")
    image = Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))
    quality = rng.randint(45, 92)
    if quality <= 60:
        features.append("strong JPEG")
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return Photo(buffer.getvalue(), truth, text, tuple(features))
