"""Compartments of one class box that the layout found apart, put back together.

On a photo a marker's compartment rule rarely meets both sides of its box, and a header's
top may stay open; on a small render dense text bridges a header's rules. The layout then
gives a class's compartments as boxes of their own: a header box with a name, and under it
a box of member lines with none. Such a box of members is no class; it is the rest of the
class box right above it (touching it, across the same width), or, where no box is above
it, of the name written right over its top edge (a header whose outline did not close).
"""

from __future__ import annotations

from cluestudio.core.draft.classes import _header, _lines_in, _member
from cluestudio.core.ocr.result import ClassBox, OcrResult, Rect, TextLine

# how far a box of members may start below the box above it (a marker's rule between the
# two regions, thickened) or run into it (regions of thickened strokes overlap)
_GAP = 16
_OVERLAP = 8


def rejoined_boxes(ocr: OcrResult) -> tuple[ClassBox, ...]:
    """``ocr.layout.boxes`` with each box of member lines alone joined to its class box."""
    boxes = dict(enumerate(ocr.layout.boxes))
    named = {i: bool(_header(_lines_in(ocr, box.compartments[0]))[0])
             for i, box in boxes.items()}
    for i in sorted(boxes, key=lambda k: boxes[k].rect[1]):
        box = boxes[i]
        if named[i] or not _members_only(ocr, box):
            continue
        above = next((j for j, other in boxes.items() if j != i and named[j]
                      and _right_under(box.rect, other.rect)), None)
        if above is not None:
            del boxes[i]
            other = boxes[above]
            boxes[above] = ClassBox(_union(other.rect, box.rect),
                                    other.compartments + box.compartments)
            continue
        header = _name_over(ocr, box.rect)
        if header is not None:
            x0, top, x1, bottom = box.rect
            boxes[i] = ClassBox((x0, header.box.rect[1], x1, bottom),
                                ((x0, header.box.rect[1], x1, top), *box.compartments))
            named[i] = True
    return tuple(boxes[i] for i in sorted(boxes))


def _members_only(ocr: OcrResult, box: ClassBox) -> bool:
    """Whether ``box`` holds member lines (and, having no name, nothing else to be)."""
    return any(_member(line.text) for part in box.compartments
               for line in _lines_in(ocr, part))


def _right_under(lower: Rect, upper: Rect) -> bool:
    """Whether ``lower`` starts where ``upper`` ends, across most of the narrower width."""
    across = min(lower[2], upper[2]) - max(lower[0], upper[0])
    narrower = min(lower[2] - lower[0], upper[2] - upper[0])
    return (-_OVERLAP <= lower[1] - upper[3] <= _GAP and narrower > 0
            and across >= 0.7 * narrower)


def _name_over(ocr: OcrResult, rect: Rect) -> TextLine | None:
    """An OCR line in no box that reads as a class name and sits on the top edge of
    ``rect`` (its middle above it, its bottom no more than a line's height above it),
    within its sides: the name of a header whose outline did not close."""
    x0, top, x1, _bottom = rect
    for line in ocr.lines:
        lx0, ly0, lx1, ly1 = line.box.rect
        cx, cy = ocr.layout.upright(line.box.center)
        if not (x0 <= cx <= x1 and cy < top and ly1 >= top - (ly1 - ly0)):
            continue
        if ocr.layout.locate(line.box) is not None or lx0 < x0 - 8 or lx1 > x1 + 8:
            continue
        name = _header([line])[0]
        if name and name[0].isupper():
            return line
    return None


def _union(a: Rect, b: Rect) -> Rect:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])
