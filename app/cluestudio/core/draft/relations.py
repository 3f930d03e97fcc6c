"""Relations traced between class boxes: the strokes left once boxes and text are removed.

Each connected run of those strokes that reaches two class boxes is a relation between
them. Its decoration is read at the ends, by shape: a hollow triangle makes
a generalization towards that box, a diamond (hollow or filled) an aggregation or a
composition whose whole is that box, an arrowhead (filled or open) points the association
at that box. The shape is read first as a solid on the strokes as drawn, along the line's
own slant (:func:`.solid_heads.solid_head`, :func:`_blob_kind`), then, where that leaves it
open, row by row on the thickened ink (:func:`_head`). A run whose pieces are like-sized
dashes in a chain (:func:`is_dashed`) is dashed (a dependency, or a realization with a
triangle). Text read beside the run becomes its label; multiplicities near an end belong
to that end."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cluestudio.core.draft.components import pieces
from cluestudio.core.draft.line_follow import followed_lines
from cluestudio.core.draft.solid_heads import SolidHead, solid_head
from cluestudio.core.draft.stroke_ink import (
    dash_cores,
    frame_outlines,
    page_level,
    polarities,
)
from cluestudio.core.model import RelationType
from cluestudio.core.ocr.layout import cross_dilated
from cluestudio.core.ocr.result import OcrResult, Rect

if TYPE_CHECKING:
    import numpy as np

_CLEAR = 6  # px around a compartment's inside that are its outline (thick in a photo)
_RING = 4  # px beyond that where a line must end to touch the box
_NEAR_END = 45  # px: a multiplicity this close to where a line meets a box is that end's
_NEAR_LINE = 30  # px: a label this close to a line is its label
_DASHES_SHARE = 0.5  # of a run's darkest ink that its dashes, found on it, hold at least
_THIN = 4  # px: strokes this thick in the ink mask (drawn 1-2 px) are a render's
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
    from cluestudio.core.ocr.layout import upright_gray

    # light lines on a dark or mid-grey page are traced on the negative; where it is not
    # clear which the lines are, both ways, and the way that ties more boxes is kept
    traced = [_traced(gray, raw, ocr, boxes)
              for gray, raw in polarities(upright_gray(pixels, ocr.layout.angle), boxes)]
    return max(traced, key=len)


def _traced(gray: np.ndarray, raw: np.ndarray, ocr: OcrResult, boxes: list[Rect]
            ) -> list[DraftRelation]:
    """:func:`trace_relations` on a grey image with dark strokes, ``raw`` its ink."""
    import numpy as np

    lines = raw.copy()
    shape = lines.shape
    # a box's outline is as thick as the drawing's strokes (a big export draws them 5 px)
    stroke = stroke_width(raw)
    clear = max(_CLEAR, stroke + 3)
    for rect in boxes:
        x0, y0, x1, y1 = _grow(rect, clear, shape)
        lines[y0:y1, x0:x1] = False
    # packages' outlines would tie the lines that cross them into one, and close paper in
    # round a head on them: taken out of the strokes and the grey image alike
    frames = frame_outlines(lines, boxes, stroke)
    if frames.any():
        lines &= ~frames
        raw = raw & ~frames
        gray = np.where(frames, np.float32(page_level(gray, boxes)), gray)
    texts = [_Text(ln.text.strip(), ocr.layout.upright(ln.box.center), ln.box.height,
                   ln.box.rect[2] - ln.box.rect[0]) for ln in ocr.lines]
    outside = [t for t in texts if not any(
        b[0] <= t.center[0] <= b[2] and b[1] <= t.center[1] <= b[3] for b in boxes)]
    # Strokes without the text beside them: what dashes are judged on; decorations are
    # judged on ``marks``, the same with the box outlines kept (a head touches its box).
    bare = lines.copy()
    marks = raw.copy()
    kept = raw.copy()  # ``marks`` with the strokes that run on out of a text's box kept
    for text in outside:
        cx, cy = text.center
        x0, y0, x1, y1 = _grow((cx - text.width / 2, cy - text.height / 2,
                                cx + text.width / 2, cy + text.height / 2), 0, shape)
        bare[y0:y1, x0:x1] = False
        # OCR's box round a multiplicity often covers the head beside it: only strokes
        # that stay within a few pixels of the box are its letters (a head or a line runs
        # on well out of it)
        gx0, gy0, gx1, gy1 = _grow((x0, y0, x1 - 1, y1 - 1), 3, shape)
        out = _running_out(raw[gy0:gy1, gx0:gx1])
        marks[y0:y1, x0:x1] = False
        kept[y0:y1, x0:x1] &= out[y0 - gy0:y1 - gy0, x0 - gx0:x1 - gx0]
    joined = cross_dilated(lines, 3)  # bridges small gaps
    rings = [(_grow(rect, clear + _RING, shape), _grow(rect, clear, shape))
             for rect in boxes]
    relations: list[DraftRelation] = []
    used_labels: set[int] = set()
    loose = np.zeros(shape, dtype=bool)  # pieces that reach fewer than two boxes
    for found, component in pieces(joined):
        found_relations = _relation(component, found, rings, (bare, marks, kept), outside,
                                    used_labels, False, (boxes, stroke, gray))
        if found_relations:
            relations.extend(found_relations)
        elif len(_touches(component, found, rings)) < 2:
            loose[found] |= component & lines[found]
    # Dashed lines (dependencies, realizations) fall apart into dashes: join what is left
    # over with a wider reach, and those runs are dashed.
    for found, component in pieces(cross_dilated(loose, 6)):
        relations.extend(_relation(component, found, rings, (bare, marks, kept), outside,
                                   used_labels, True, (boxes, stroke, gray)))
    return _followed_once(relations)


_FOLLOWED = "followed across other lines: are these its ends?"


def _followed_once(relations: list[DraftRelation]) -> list[DraftRelation]:
    """``relations`` less a followed line's (see :func:`.line_follow.followed_lines`)
    between two boxes that another relation already ties: a line followed past a box's
    corner into it is another line's end, not a second relation."""
    plain = {frozenset((r.begin, r.end)) for r in relations if _FOLLOWED not in r.doubt}
    return [r for r in relations
            if _FOLLOWED not in r.doubt or frozenset((r.begin, r.end)) not in plain]


Ring = tuple[tuple[int, int, int, int], tuple[int, int, int, int]]


def _text_rect(text: _Text) -> Rect:
    cx, cy = text.center
    return (cx - text.width / 2, cy - text.height / 2, cx + text.width / 2,
            cy + text.height / 2)


def _running_out(window: np.ndarray) -> np.ndarray:
    """The strokes of ``window`` that reach its edge (they go on beyond it)."""
    import numpy as np
    from scipy import ndimage

    if window.size == 0:
        return window
    labels, _count = ndimage.label(window, structure=np.ones((3, 3), dtype=bool))
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    return np.isin(labels, edge[edge > 0])


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


def _touches(component: np.ndarray, found: tuple[slice, slice], rings: list[Ring],
             bare: np.ndarray | None = None) -> list[tuple[int, tuple[float, float]]]:
    """(box index, where the run meets it) for every box the run reaches; where it meets
    it is placed on the strokes of ``bare`` (text taken out) when there are any there, so
    a multiplicity written against the line does not pull it aside."""
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
            if bare is not None and (keep & bare[ys, xs]).any():
                keep &= bare[ys, xs]
            touches.append((b, (float(xs[keep].mean()), float(ys[keep].mean()))))
    return touches


def _relation(component: np.ndarray, found: tuple[slice, slice], rings: list[Ring],
              ink: tuple[np.ndarray, np.ndarray, np.ndarray], texts: list[_Text], used: set[int],
              pieced: bool, drawing: tuple[list[Rect], int, np.ndarray], split: bool = True
              ) -> list[DraftRelation]:
    """The relation(s) a run of strokes makes; ``drawing``: the class boxes, the
    drawing's stroke width, against which heads are measured, and its grey image;
    ``split``: whether a run that reaches more than two boxes may be split where text
    ties it."""
    import numpy as np

    bare, marks, kept = ink
    touches = _touches(component, found, rings)
    if len(touches) < 2:
        return []
    # where the line itself meets each box, a multiplicity written against it left out
    on_line = dict(_touches(component, found, rings, bare))
    rects, stroke, gray = drawing
    words = [_text_rect(t) for t in texts]

    read: dict[tuple[int, tuple[float, float]], Head] = {}

    def head_at(box: int, point: tuple[float, float]) -> Head:
        # a line's two ends are read once, though a tree of lines asks for them again
        if (box, point) not in read:
            read[box, point] = _head_at(box, point)
        return read[box, point]

    def _head_at(box: int, point: tuple[float, float]) -> Head:
        # a render's small head may lie within the margin taken for the box's outline:
        # read again with the outline as thin as drawn
        outlines = (None, stroke - 1) if stroke <= _THIN else (None,)
        blob, seen = None, None
        for blob in solid_head(gray, on_line.get(box, point), rects[box], stroke, words,
                               outlines):
            seen = _blob_kind(blob) if blob is not None else None
            if seen:
                break
        if seen:
            return seen
        old = _head((kept, marks), point, rects[box], stroke)
        # in thin strokes (a render) the strokes as drawn close every hollow head: a
        # triangle they do not show is a letter or a crossing the thickened mask closed
        if blob is None and old.shape == TRIANGLE and stroke <= _THIN:
            return Head("")
        return old

    doubts: list[str] = ["a line pieced together across gaps"] if pieced else []
    if not split:
        doubts.append(_FOLLOWED)
    # pieced together or not, a run is dashed by the rhythm of its pieces: a solid line
    # cut by crossing lines, labels or a line jump falls into pieces too
    strokes = bare[found] & component
    # (the ink mask's thickening joins dashes a few px apart: then judged on its darkest)
    dashed = is_dashed(strokes, stroke) or is_dashed(dash_cores(strokes, gray[found]), stroke,
                                                     _DASHES_SHARE)
    if pieced and not dashed:
        # a run the first pass could not join has gaps wider than a line's breaks: three
        # or more short pieces, like-sized but for the biggest (a head), are dashes too
        # few to show a rhythm (a solid line cut by labels is cut into lengths of any size)
        dashed = few_dashes(bare[found] & component, stroke)
    sides = [_side(point, rings[b][1]) for b, point in touches]
    if len(touches) > 2 and any(sides.count(_OPPOSITE[side]) == len(sides) - 1
                                for side in sides):
        # One triangle and several boxes on one tree of lines: the generalizations of a
        # shared trunk (UML's tree style), each child to the one parent. (Its heads are
        # read only where the sides make such a pattern: one box met on a side, every
        # other on the side facing it.)
        heads = [head_at(b, point).shape for b, point in touches]
        if heads.count(TRIANGLE) == 1:
            parent, where = touches[heads.index(TRIANGLE)]
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
    if len(touches) > 2 and split:
        # Lines that cross, or leave a box side by side with multiplicities written
        # between them, are one run: followed line by line, each is a relation.
        followed = followed_lines(component, found, rings, max(4.0, 2.0 * stroke))
        if followed:
            return _one_per_pair([relation for piece, where in followed
                                  for relation in _relation(piece, where, rings, ink, texts,
                                                            used, pieced, drawing,
                                                            split=False)])
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
    head_a, head_b = head_at(a, pa), head_at(b, pb)
    shapes = (head_a.shape, head_b.shape)
    doubts += [h.doubt for h in (head_a, head_b) if h.doubt]
    rtype, begin, end = RelationType.ASSOCIATION, a, b
    if TRIANGLE in shapes:
        parent, child = (a, b) if shapes[0] == TRIANGLE else (b, a)
        rtype = RelationType.REALIZATION if dashed else RelationType.GENERALIZATION
        begin, end = child, parent
    elif DIAMOND in shapes or FILLED_DIAMOND in shapes:
        # the diamond sits at the whole, the model's first end (``Whole o-- Part``)
        at_a = shapes[0] in (DIAMOND, FILLED_DIAMOND)
        begin, end = (a, b) if at_a else (b, a)
        filled = shapes[0 if at_a else 1] == FILLED_DIAMOND
        rtype = RelationType.COMPOSITION if filled else RelationType.AGGREGATION
    else:
        # an arrowhead points the association (or the dependency) at its box
        if ARROW in shapes:
            begin, end = (b, a) if shapes[0] == ARROW and shapes[1] != ARROW else (a, b)
        if dashed:
            rtype = RelationType.DEPENDENCY
    at = {a: pa, b: pb}
    ys, xs = np.nonzero(component)
    line_points = np.stack([xs + found[1].start, ys + found[0].start], axis=1)[::7]
    from_, to, name = _texts(texts, at[begin], at[end], line_points, used)
    confidence = 0.9 * 0.75 ** len(doubts)
    return [DraftRelation(rtype, begin, end, from_, to, name, round(confidence, 2),
                          "; ".join(doubts))]


def is_dashed(strokes: np.ndarray, stroke: int, share: float = 0.0) -> bool:
    """Whether a run's strokes (the ink of one run, text and boxes taken out) are a dashed
    line: four or more pieces of one size (the dashes; a head or a bend may be bigger) that
    follow each other in a chain at a period a few strokes long. A solid line cut where other lines
    cross it, where a label sits on it or by an editor's line jump falls into a few pieces
    of any length at irregular places; it is not dashed. ``share``: the least share of the
    strokes' ink the dashes must hold (a solid line that meets a dashed one at a shared
    head holds most of their ink)."""
    import numpy as np
    from scipy import ndimage

    labels, count = ndimage.label(strokes, structure=np.ones((3, 3), dtype=bool))
    if count < 4:
        return False
    sizes = np.bincount(labels.ravel())[1:]
    centres = piece_centres(labels, count)
    keep = sizes >= 6  # specks of a thickened edge are no dashes
    sizes, centres = sizes[keep], centres[keep]
    if len(sizes) < 4:
        return False
    usual = float(np.median(sizes))
    dash = (sizes >= 0.6 * usual) & (sizes <= 1.6 * usual)
    if int(dash.sum()) < 4 or dash.sum() < 0.5 * len(sizes):
        return False
    if share and sizes[dash].sum() < share * np.count_nonzero(strokes):
        return False
    points = centres[dash]
    gaps = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(gaps, np.inf)
    period = gaps.min(axis=1)  # each dash to the next: the line's on/off period
    usual_period = float(np.median(period))
    if usual_period > 8 * max(1, stroke):
        return False  # pieces far apart: a line broken in places, not a rhythm
    # each dash has the next one at about the period (a curve or a slant changes it a
    # little): dashes in a chain, not like-sized pieces scattered along a solid line
    return float((period <= 2 * usual_period).mean()) >= 0.7


def _one_per_pair(relations: list[DraftRelation]) -> list[DraftRelation]:
    """One relation for each pair of boxes among those one run was followed into (two
    ways along one line, from two contacts a multiplicity split, are one line): the one
    with a kind read from its ends rather than a plain association, then the surest."""
    best: dict[frozenset[int], DraftRelation] = {}
    for relation in relations:
        pair = frozenset((relation.begin, relation.end))
        if pair not in best or (
                (relation.type != RelationType.ASSOCIATION, relation.confidence)
                > (best[pair].type != RelationType.ASSOCIATION, best[pair].confidence)):
            best[pair] = relation
    return list(best.values())


def few_dashes(strokes: np.ndarray, stroke: int) -> bool:
    """Whether ``strokes`` (a pieced run's, text taken out) are three or more pieces of
    more than a few pixels most of which, the biggest left out (a head), are of one size
    within a factor of 2 (bits of text may be left), and short (their usual area within
    25 strokes squared)."""
    import numpy as np
    from scipy import ndimage

    labels, count = ndimage.label(strokes, structure=np.ones((3, 3), dtype=bool))
    if count < 3:
        return False
    sizes = np.sort(np.bincount(labels.ravel())[1:])
    rest = sizes[sizes >= 6][:-1]
    if len(rest) < 2:
        return False
    usual = float(np.median(rest))
    like = (rest >= usual / 2) & (rest <= usual * 2)
    return bool(usual <= 25 * max(1, stroke) ** 2 and like.sum() >= 2 and like.mean() >= 0.6)


def piece_centres(labels: np.ndarray, count: int) -> np.ndarray:
    """Each labelled piece's centre of mass, (row, column), in label order: what
    ``ndimage.center_of_mass(labels > 0, labels, range(1, count + 1))`` gives, to the
    bit (the same sums in the same order), without its full-size float images."""
    import numpy as np

    ys, xs = np.nonzero(labels)
    of = labels[ys, xs]
    size = np.bincount(of, weights=np.ones(len(of)), minlength=count + 1)[1:]
    rows = np.bincount(of, weights=ys.astype(float), minlength=count + 1)[1:]
    cols = np.bincount(of, weights=xs.astype(float), minlength=count + 1)[1:]
    return np.stack([rows / size, cols / size], axis=1)


_OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}


def _side(point: tuple[float, float], rect: Rect | tuple[int, int, int, int]) -> str:
    """The side of ``rect`` that ``point`` (just outside it) is nearest to."""
    x, y = point
    gaps = {"left": abs(x - rect[0]), "top": abs(y - rect[1]), "right": abs(x - rect[2]),
            "bottom": abs(y - rect[3])}
    return min(gaps, key=lambda k: gaps[k])


# What a line's end is decorated with, read from the shape where it meets a box.
TRIANGLE = "triangle"  # hollow: a generalization's (or a realization's) head
DIAMOND = "diamond"  # hollow: an aggregation's whole
FILLED_DIAMOND = "filled diamond"  # a composition's whole
ARROW = "arrow"  # a filled or an open arrowhead: a navigable association's target


@dataclass(frozen=True)
class Head:
    shape: str  # one of the four above, or "" for a plain end
    doubt: str = ""  # why the shape is not sure ("" when it is)


def _head(ink: tuple[np.ndarray, np.ndarray], point: tuple[float, float], box: Rect,
          stroke: int) -> Head:
    """The decoration where a line meets ``box`` near ``point``, by its shape: the ink
    beyond the box's side is turned so that the line runs away from the box, and its width
    is measured row by row. A head is where it is much wider than a stroke; a triangle
    (its tip on the box) is widest at its far end and stops there, a diamond narrows again
    as it widened; a closed outline with paper inside is hollow, a solid one filled, and a
    wide head that is neither (two strokes in a V) an open arrowhead. Sizes are measured
    against the drawing's stroke, so thick marker strokes and big exports read alike.
    ``ink``: the strokes with the text beside lines taken out, but for strokes that run on
    out of a text's box (the rows are read on these), and with all of it taken out."""

    stroke = max(1, stroke)
    length = max(48, 10 * stroke)  # how far from the box a head may reach
    half = max(24, 6 * stroke)  # how wide it may be, each side of the line
    patch = _beyond(ink[0], _side(point, box), box, point, length, half)
    shape = _head_shape(patch, stroke, length, half) if patch.any() else Head("")
    # A line that leaves near a corner or slants does not run along the rows: then look
    # for what any head has, whatever its direction — paper enclosed near the end (a
    # hollow head, taken for a triangle) or a solid blob (an arrowhead).
    if shape.shape in ("", ARROW):
        seen = _any_head(ink[1], point, stroke)
        # paper enclosed near the end that the rows missed (a marker's head, coloured in
        # but for a gap) outweighs a solid look
        if not shape.shape or seen.shape == TRIANGLE:
            return seen
    return shape


def _head_shape(patch: np.ndarray, stroke: int, length: int, half: int) -> Head:
    """:func:`_head` on the ink beyond the box, turned (see :func:`_beyond`)."""
    import numpy as np
    from scipy import ndimage

    # the box's own outline: the first rows, inked nearly across the whole patch
    across = patch.mean(axis=1) >= 0.6
    found = np.flatnonzero(across[:stroke + 3])
    cut = int(found[0]) if len(found) else 0
    while cut < min(len(across), 3 * stroke + 4) and across[cut]:
        cut += 1
    filled = ndimage.binary_fill_holes(patch)  # paper the outline (and box) closes in
    filled[:cut] = False
    labels, count = ndimage.label(filled)
    if count == 0:
        return Head("")
    # the piece that leaves the box where the line does (the middle of the patch)
    near = labels[cut:cut + max(4, length // 3), half - half // 2:half + half // 2 + 1]
    counts = np.bincount(near.ravel(), minlength=count + 1)
    counts[0] = 0
    if counts.max() == 0:
        return Head("")
    piece = labels == int(counts.argmax())
    # The outline is measured as drawn: the ink mask's one-pixel thickening taken back
    # (it would fill a small arrowhead's notch and round a triangle's base into a diamond).
    outline = ndimage.binary_erosion(piece)
    drawn = max(1, stroke - 2)
    spans = np.zeros(len(piece), dtype=int)
    middles = np.full(len(piece), np.nan)
    for r in np.flatnonzero(outline.any(axis=1)):
        cols = np.flatnonzero(outline[r])
        spans[r] = cols[-1] - cols[0] + 1
        middles[r] = (cols[-1] + cols[0]) / 2
    wide = spans >= max(2 * drawn + 1, drawn + 4)
    if not wide[cut:cut + length // 2].any():
        return Head("")
    first = cut + int(np.flatnonzero(wide[cut:])[0])
    if int(((spans[cut:first] > 0) & (spans[cut:first] <= drawn + 1)).sum()) > 2 * drawn + 3:
        return Head("")  # a line runs on from the box before anything wide: not its head
    last = first
    while last + 1 < len(wide) and (wide[last + 1] or (last + 2 < len(wide) and wide[last + 2])):
        last += 1
    head = slice(first, last + 1)
    widest = spans[head].max()
    edges = outline[head][:, [0, -1]].any()
    if edges or last - first + 1 < 0.3 * widest:
        return Head("")  # a line that bends or crosses another near the box: no head
    # a head sits across its line, as much on one side as on the other (a letter or a
    # crossing line touching the line sits on one side)
    thin = (spans > 0) & (spans <= drawn + 2)
    line = float(np.nanmedian(middles[thin])) if thin.any() else float(half)
    inked = [np.flatnonzero(row) for row in outline[head]]
    left = float(sum(line - c[0] for c in inked if c.size))
    right = float(sum(c[-1] - line for c in inked if c.size))
    if min(left, right) < 0.45 * max(left, right, 1.0):
        return Head("")
    at = np.flatnonzero(spans[head] >= 0.9 * widest)
    peak = first + float(at.mean())
    rise, fall = peak - first, last - peak
    narrowing = fall / max(1.0, rise + fall)  # ~0 for a triangle's base, ~0.5 for a diamond
    shape_area = int(piece[head].sum())
    # Paper inside the head: holes in the ink mask, or in the strokes as drawn (the mask's
    # one-pixel thickening taken back: thick strokes round a small head leave little
    # paper, and thin ones might break)
    paper = 0
    for strokes in (patch & piece, ndimage.binary_erosion(patch & piece)):
        paper = max(paper, int((ndimage.binary_fill_holes(strokes) & ~strokes)[head].sum()))
    hollow = paper >= max(3, 0.03 * shape_area)
    solid = int(outline[head].sum()) >= 0.7 * int(spans[head].sum())
    # An arrowhead's barbs reach back beside the line with paper between (its notch, or
    # the V of an open one): rows past the widest with a gap. A diamond's back half is
    # one closed piece.
    barbs = sum(1 for row in piece[int(np.ceil(peak)):last + 1]
                if np.count_nonzero(np.diff(np.flatnonzero(row)) > 1))
    # a head narrows to its tip on the box (a block of ink or writing does not); a
    # diamond narrows at its far end too
    if spans[first] > 0.7 * widest:
        return Head("")
    diamond = narrowing >= 0.28 and barbs == 0 and spans[last] <= 0.7 * widest
    doubt = "a diamond or a triangle?" if 0.18 <= narrowing <= 0.38 else ""
    if hollow:
        return Head(DIAMOND if diamond else TRIANGLE, doubt)
    if solid and diamond:
        return Head(FILLED_DIAMOND, doubt and "a filled diamond or an arrowhead?")
    return Head(ARROW)


def _any_head(ink: np.ndarray, point: tuple[float, float], stroke: int) -> Head:
    """A hollow head (a triangle) or a solid one (an arrowhead) near ``point``, whatever its
    direction: paper enclosed by strokes in a window round it, or a window mostly ink."""
    import numpy as np
    from scipy import ndimage

    scale = min(2.0, max(1.0, stroke / 3))  # heads grow with the strokes, a little
    x, y = int(point[0]), int(point[1])
    h, w = ink.shape
    reach = int(16 * scale)
    window = ink[max(0, y - reach):min(h, y + reach + 1), max(0, x - reach):min(w, x + reach + 1)]
    if window.size == 0:
        return Head("")
    holes, count = ndimage.label(~window)
    sizes = np.bincount(holes.ravel())
    border = set(np.unique(np.concatenate([holes[0], holes[-1], holes[:, 0], holes[:, -1]])))
    area = scale * scale
    if any(i not in border and 12 * area <= sizes[i] <= 400 * area
           for i in range(1, count + 1)):
        return Head(TRIANGLE, "a hollow head seen askew: a triangle or a diamond?")
    near = int(7 * scale)
    core = ink[max(0, y - near):min(h, y + near + 1), max(0, x - near):min(w, x + near + 1)]
    if core.size and core.mean() > 0.6:
        return Head(ARROW, "a filled head seen askew: an arrow or a composition's diamond?")
    return Head("")


def _beyond(ink: np.ndarray, side: str, box: Rect, point: tuple[float, float], length: int,
            half: int) -> np.ndarray:
    """The ink just outside ``box``'s ``side``, turned so that row 0 is the side itself and
    rows run away from the box; columns are centred on ``point`` (2·half+1 wide)."""
    import numpy as np

    h, w = ink.shape
    # (``box`` is the paper inside the outline: the outline starts just outside it)
    if side in ("top", "bottom"):
        edge = int(box[1]) - 1 if side == "top" else int(box[3])
        y0, y1 = (edge - length, edge + 1) if side == "top" else (edge, edge + length + 1)
        x0, x1 = int(point[0]) - half, int(point[0]) + half + 1
    else:
        edge = int(box[0]) - 1 if side == "left" else int(box[2])
        x0, x1 = (edge - length, edge + 1) if side == "left" else (edge, edge + length + 1)
        y0, y1 = int(point[1]) - half, int(point[1]) + half + 1
    window = ink[max(0, y0):max(0, min(h, y1)), max(0, x0):max(0, min(w, x1))]
    window = np.pad(window, ((max(0, -y0), max(0, y1 - h)), (max(0, -x0), max(0, x1 - w))))
    if side == "top":
        return window[::-1]
    if side == "bottom":
        return window
    return window[:, ::-1].T if side == "left" else window.T


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



def _blob_kind(blob: SolidHead) -> Head | None:
    """The head a solid shape is, or None where its measures leave it open: paper inside
    makes it hollow (a triangle widest at its far end, else a diamond); a solid one is a
    composition's diamond when it fills its hull and is widest before its far end, an
    arrowhead (notched, or a V) when it does not. A round shape (a letter's bowl, a
    nesting circle) is no diamond, and a hollow head fills its hull."""
    if blob.balance < 0.3:
        return None  # beside the line, not across it: a letter or another line
    if blob.peak < 0.12:
        return None  # widest on the box: no head narrows to its tip there (a crow's foot)
    if blob.paper >= 0.35:
        if blob.solidity < 0.68:
            return None
        if blob.peak >= 0.65:
            return Head(TRIANGLE)
        return Head(DIAMOND) if blob.fill <= 0.8 else None
    if blob.paper > 0.2:
        return None
    # (a notched arrowhead fills at most three quarters of its hull; a long, narrow
    # diamond's widest rows are hard to place, but it fills its hull)
    if (blob.solidity >= 0.75 and blob.peak < 0.6) or (blob.solidity >= 0.85
                                                         and blob.peak < 0.75):
        return Head(FILLED_DIAMOND) if blob.fill <= 0.9 else None
    return Head(ARROW)
