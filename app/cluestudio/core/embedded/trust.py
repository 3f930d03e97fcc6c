"""Whether image A's pixels still look like the diagram it carries: the one cheap look at
the pixels before the source is trusted (docs/adr/0016).

A PNG edited after PlantUML rendered it can keep the source chunk (a program that copies
the chunks, or a forger); then a draft drafted from the chunk and a check against the chunk
would agree with each other and not with what the student drew. The class boxes of the
layout analysis (:func:`~cluestudio.core.ocr.layout.find_layout`, no OCR: 0.01–0.1 CPU-s on
a diagram, ~1.8 s on a 16 MP render) are counted against the classes the source draws. On
PlantUML's own renders the layout finds every class box, and more (notes, packages,
legends): 38 of 38 real renders. Fewer boxes than classes, or far more, and the source is
not used: the pixels are read, the reason said. This sees a different or cropped diagram,
not a renamed word: that is what the pixel check is one click for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluestudio.core.check.names import nary_diamond
from cluestudio.core.embedded.source import EmbeddedDiagram, EmbeddedRead, read_embedded

if TYPE_CHECKING:
    from cluestudio.core.ocr.image import LoadedImage

# The layout may miss a box in an unusual skin; more missing than this share of the classes
# (none of fewer than ten) and the picture is not the source's.
MISSED_BOXES = 0.1
# Notes, packages, legends and frames are boxes too; beyond this the picture holds more
# than the source draws.
EXTRA_FACTOR, EXTRA_BOXES = 2.0, 4


def drawn_classes(embedded: EmbeddedDiagram) -> int:
    """The classes the source draws as boxes (an n-ary association's ``<>`` is a small
    diamond, not a box)."""
    return sum(1 for c in embedded.diagram.classes if not nary_diamond(c))


def pixels_disagree(image: LoadedImage, embedded: EmbeddedDiagram, source: str = "image A"
                    ) -> str:
    """Why image A's pixels do not look like the diagram it carries ("" when they may)."""
    from cluestudio.core.ocr.layout import find_layout

    boxes = len(find_layout(image.pixels).boxes)
    classes = drawn_classes(embedded)
    fewest = classes - int(MISSED_BOXES * classes)
    most = EXTRA_FACTOR * (classes + len(embedded.diagram.notes)) + EXTRA_BOXES
    if boxes < fewest or boxes > most:
        return (f"{source}: its pixels show {boxes} box(es) where {embedded.what} it "
                f"carries draws {classes} class(es): it may have been edited after it "
                "was rendered")
    return ""


def trusted_embedded(data: bytes, source: str = "image A", image: LoadedImage | None = None
                     ) -> EmbeddedRead:
    """:func:`~cluestudio.core.embedded.source.read_embedded`, and the diagram only where
    image A's pixels look like it (:func:`pixels_disagree`); otherwise why not. ``image``:
    ``data`` already decoded, by a caller that reads its pixels if this says no (decoded
    here otherwise)."""
    read = read_embedded(data, source)
    if read.diagram is None:
        return read
    if image is None:
        from cluestudio.core.ocr.image import load_image_bytes

        image = load_image_bytes(data, source)
    why = pixels_disagree(image, read.diagram, source)
    return EmbeddedRead(None, why) if why else read
