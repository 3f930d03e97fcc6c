"""Relations traced between class boxes: the strokes left once boxes and text are removed.

Each connected run of those strokes that reaches two class boxes is a relation between
them. Its decoration is read at the ends: a small closed outline next to a box (a hollow
triangle) makes a generalization towards that box; a dense blob (an arrowhead; a filled
diamond looks the same at this size, so compositions come out as associations) points the
association at that box; a run that is made of many short pieces is dashed (a dependency,
or a realization with a triangle). Text read beside the run becomes its label;
multiplicities near an end belong to that end.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cluestudio.core.model import RelationType
from cluestudio.core.ocr.result import OcrResult, Rect

if TYPE_CHECKING:
    import numpy as np

_CLEAR = 6  # px around a compartment's inside that are its outline (thick in a photo)
_RING = 4  # px beyond that where a line must end to touch the box
_NEAR_END = 45  # px: a multiplicity this close to where a line meets a box is that end's
_NEAR_LINE = 30  # px: a label this close to a line is its label
# A multiplicity as OCR reads it: the ``*`` after the dots is often lost (``0..``).
_READ_MULTIPLICITY = re.compile(r"[0-9*nN]+(?:\s*\.+\s*[0-9*nN]*)?")


@dataclass(frozen=True)
class _Text:
    """An OCR line outside the boxes, placed in the upright frame."""

    text: str
    center: tuple[float, float]
    height: float
    width: float


@dataclass(frozen=True)
class DraftRelation:
    type: RelationType
    begin: int  # class box indices, in the model's canonical direction
    end: int
    from_: str = ""  # multiplicity at begin
    to: str = ""  # multiplicity at end
    name: str = ""
    confidence: float = 0.9  # how sure the relation and its kind are (0..1)
    doubt: str = ""  # why it is not sure, for a reviewer


def _grow(rect: Rect, by: float, shape: tuple[int, int]) -> tuple[int, int, int, int]:
    h, w = shape
    return (max(0, int(rect[0] - by)), max(0, int(rect[1] - by)),
            min(w, int(rect[2] + by) + 1), min(h, int(rect[3] + by) + 1))


def trace_relations(pixels: np.ndarray, ocr: OcrResult, boxes: list[Rect]
                    ) -> list[DraftRelation]:
    """Relations between ``boxes`` (in the layout's upright frame, like the work here)."""
    import numpy as np
    from scipy import ndimage

    from cluestudio.core.ocr.layout import ink_mask, upright_gray

    raw = ink_mask(upright_gray(pixels, ocr.layout.angle))
    lines = raw.copy()
    shape = lines.shape
    # a box's outline is as thick as the drawing's strokes (a big export draws them 5 px)
    stroke = stroke_width(raw)
    clear = max(_CLEAR, stroke + 3)
    scale = min(2.0, max(1.0, stroke / 3))  # arrowheads grow with the strokes, a little
    for rect in boxes:
        x0, y0, x1, y1 = _grow(rect, clear, shape)
        lines[y0:y1, x0:x1] = False
    texts = [_Text(ln.text.strip(), ocr.layout.upright(ln.box.center), ln.box.height,
                   ln.box.rect[2] - ln.box.rect[0]) for ln in ocr.lines]
    outside = [t for t in texts if not any(
        b[0] <= t.center[0] <= b[2] and b[1] <= t.center[1] <= b[3] for b in boxes)]
    # Strokes without the text beside them: what dashes are judged on; decorations are
    # judged on ``marks``, the same with the box outlines kept (a head touches its box).
    bare = lines.copy()
    marks = raw.copy()
    for text in outside:
        cx, cy = text.center
        x0, y0, x1, y1 = _grow((cx - text.width / 2, cy - text.height / 2,
                                cx + text.width / 2, cy + text.height / 2), 0, shape)
        bare[y0:y1, x0:x1] = False
        marks[y0:y1, x0:x1] = False
    joined = ndimage.binary_dilation(lines, iterations=3)  # bridges small gaps
    labels, _count = ndimage.label(joined)
    rings = [(_grow(rect, clear + _RING, shape), _grow(rect, clear, shape))
             for rect in boxes]
    relations: list[DraftRelation] = []
    used_labels: set[int] = set()
    loose = np.zeros(shape, dtype=bool)  # pieces that reach fewer than two boxes
    for found, component in _components(labels):
        found_relations = _relation(component, found, rings, (bare, marks), outside,
                                    used_labels, False, scale)
        if found_relations:
            relations.extend(found_relations)
        elif len(_touches(component, found, rings)) < 2:
            loose[found] |= component & lines[found]
    # Dashed lines (dependencies, realizations) fall apart into dashes: join what is left
    # over with a wider reach, and those runs are dashed.
    labels, _count = ndimage.label(ndimage.binary_dilation(loose, iterations=6))
    for found, component in _components(labels):
        relations.extend(_relation(component, found, rings, (bare, marks), outside,
                                   used_labels, True, scale))
    return relations


Ring = tuple[tuple[int, int, int, int], tuple[int, int, int, int]]


def stroke_width(ink: np.ndarray) -> int:
    """The usual thickness of the drawing's strokes (px): the median length of the short
    runs of ink down a sample of columns (long runs are vertical lines, not thickness)."""
    import numpy as np

    sample = ink[:, :: max(1, ink.shape[1] // 200)].astype(np.int8)
    edges = np.diff(np.pad(sample, ((1, 1), (0, 0))), axis=0)
    starts = np.argwhere(edges.T == 1)
    ends = np.argwhere(edges.T == -1)
    if len(starts) == 0 or len(starts) != len(ends):
        return 1
    runs = ends[:, 1] - starts[:, 1]
    runs = runs[runs <= 30]
    return int(np.median(runs)) if len(runs) else 1


def _components(labels: np.ndarray) -> Iterator[tuple[tuple[slice, slice], np.ndarray]]:
    """(bounding slices, mask inside them) of each connected piece of a label image."""
    from scipy import ndimage

    for index, found in enumerate(ndimage.find_objects(labels), start=1):
        if found is not None:
            yield found, labels[found] == index


def _touches(component: np.ndarray, found: tuple[slice, slice], rings: list[Ring]
             ) -> list[tuple[int, tuple[float, float]]]:
    """(box index, where the run meets it) for every box the run reaches."""
    import numpy as np

    touches: list[tuple[int, tuple[float, float]]] = []
    for b, (outer, inner) in enumerate(rings):
        oy0, oy1 = max(outer[1], found[0].start), min(outer[3], found[0].stop)
        ox0, ox1 = max(outer[0], found[1].start), min(outer[2], found[1].stop)
        if oy0 >= oy1 or ox0 >= ox1:
            continue
        window = component[oy0 - found[0].start:oy1 - found[0].start,
                           ox0 - found[1].start:ox1 - found[1].start]
        ys, xs = np.nonzero(window)
        if len(ys) == 0:
            continue
        ys, xs = ys + oy0, xs + ox0
        keep = ~((xs >= inner[0]) & (xs < inner[2]) & (ys >= inner[1]) & (ys < inner[3]))
        if keep.any():
            touches.append((b, (float(xs[keep].mean()), float(ys[keep].mean()))))
    return touches


def _relation(component: np.ndarray, found: tuple[slice, slice], rings: list[Ring],
              ink: tuple[np.ndarray, np.ndarray], texts: list[_Text], used: set[int],
              dashed: bool, scale: float = 1.0) -> list[DraftRelation]:
    import numpy as np
    from scipy import ndimage

    touches = _touches(component, found, rings)
    if len(touches) < 2:
        return []
    bare, marks = ink
    doubts: list[str] = ["a dashed line pieced together"] if dashed else []
    if len(touches) > 2:
        # One triangle and several boxes on one tree of lines: the generalizations of a
        # shared trunk (UML's tree style), each child to the one parent.
        heads = [_head(marks, point, scale) for _b, point in touches]
        if heads.count("triangle") == 1:
            parent, where = touches[heads.index("triangle")]
            facing = _OPPOSITE[_side(where, rings[parent][1])]
            children = [child for child, point in touches if child != parent]
            # a tree: every child meets the trunk on the side that faces the triangle
            # (crossing lines that merely touch make no such pattern)
            if all(_side(point, rings[child][1]) == facing
                   for child, point in touches if child != parent):
                kind = RelationType.REALIZATION if dashed else RelationType.GENERALIZATION
                return [DraftRelation(kind, child, parent, confidence=0.8,
                                      doubt="one trunk shared by several children")
                        for child in children]
    if len(touches) > 2:
        # A line that passes close by a third box still ends at two: the two contacts
        # farthest apart.
        pairs = [(np.hypot(p[0] - q[0], p[1] - q[1]), i, j)
                 for i, (_a, p) in enumerate(touches) for j, (_b, q) in enumerate(touches)
                 if i < j]
        _d, i, j = max(pairs)
        touches = [touches[i], touches[j]]
        doubts.append("the line passes other boxes: are these its ends?")
    (a, pa), (b, pb) = touches
    if not dashed:
        strokes = bare[found] & component
        sizes = np.bincount(ndimage.label(strokes)[0].ravel())[1:]
        dashed = int((sizes >= 6).sum()) >= 4  # several short dashes, not one stroke
    head_a, head_b = _head(marks, pa, scale), _head(marks, pb, scale)
    rtype, begin, end = RelationType.ASSOCIATION, a, b
    if "triangle" in (head_a, head_b):
        parent, child = (a, b) if head_a == "triangle" else (b, a)
        rtype = RelationType.REALIZATION if dashed else RelationType.GENERALIZATION
        begin, end = child, parent
    elif "blob" in (head_a, head_b):
        # A filled arrowhead and a filled diamond look alike at this size: take it for an
        # arrow (the commoner), pointing at that box.
        begin, end = (b, a) if head_a == "blob" else (a, b)
        doubts.append("a filled head: an arrow, or a composition's diamond?")
    elif dashed:
        rtype = RelationType.DEPENDENCY
    at = {a: pa, b: pb}
    ys, xs = np.nonzero(component)
    line_points = np.stack([xs + found[1].start, ys + found[0].start], axis=1)[::7]
    from_, to, name = _texts(texts, at[begin], at[end], line_points, used)
    confidence = 0.9 * 0.75 ** len(doubts)
    return [DraftRelation(rtype, begin, end, from_, to, name, round(confidence, 2),
                          "; ".join(doubts))]


_OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}


def _side(point: tuple[float, float], rect: tuple[int, int, int, int]) -> str:
    """The side of ``rect`` that ``point`` (just outside it) is nearest to."""
    x, y = point
    gaps = {"left": abs(x - rect[0]), "top": abs(y - rect[1]), "right": abs(x - rect[2]),
            "bottom": abs(y - rect[3])}
    return min(gaps, key=lambda k: gaps[k])


def _head(ink: np.ndarray, point: tuple[float, float], scale: float = 1.0) -> str:
    """'triangle', 'blob' or '' for the decoration where a line meets a box (``scale``:
    the drawing's stroke thickness over PlantUML's)."""
    import numpy as np
    from scipy import ndimage

    x, y = int(point[0]), int(point[1])
    h, w = ink.shape
    reach = int(16 * scale)
    y0, y1, x0, x1 = max(0, y - reach), min(h, y + reach + 1), max(0, x - reach), min(
        w, x + reach + 1)
    window = ink[y0:y1, x0:x1]
    if window.size == 0:
        return ""
    holes, count = ndimage.label(~window)
    sizes = np.bincount(holes.ravel())
    border = set(np.unique(np.concatenate([holes[0], holes[-1], holes[:, 0], holes[:, -1]])))
    area = scale * scale
    enclosed = [i for i in range(1, count + 1)
                if i not in border and 12 * area <= sizes[i] <= 400 * area]
    if enclosed:
        return "triangle"
    near = int(7 * scale)
    core = ink[max(0, y - near):min(h, y + near + 1), max(0, x - near):min(w, x + near + 1)]
    if core.size and core.mean() > 0.6:
        return "blob"
    return ""


def _texts(lines: list[_Text], at_begin: tuple[float, float], at_end: tuple[float, float],
           points: np.ndarray, used: set[int]) -> tuple[str, str, str]:
    import numpy as np

    from_, to, name = "", "", ""
    best_begin = best_end = float(_NEAR_END)
    for i, line in enumerate(lines):
        if i in used:
            continue
        cx, cy = line.center
        text = line.text
        if _READ_MULTIPLICITY.fullmatch(text):
            d_begin = float(np.hypot(cx - at_begin[0], cy - at_begin[1]))
            d_end = float(np.hypot(cx - at_end[0], cy - at_end[1]))
            if d_begin <= min(best_begin, d_end):
                from_, best_begin = text, d_begin
            elif d_end <= min(best_end, d_begin):
                to, best_end = text, d_end
            continue
        if len(points) and not name and re.search(r"[^\W\d_]{2,}", text):
            d = float(np.min(np.hypot(points[:, 0] - cx, points[:, 1] - cy)))
            if d <= _NEAR_LINE + line.height:
                name = text
                used.add(i)
    return from_, to, name
