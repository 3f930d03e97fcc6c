"""The connected pieces of a mask, each with its bounding slices: what the relation tracer
(:mod:`.relations`) and the frame finder (:mod:`.stroke_ink`) walk over. Its own module so
that neither imports the other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def components(labels: np.ndarray) -> Iterator[tuple[tuple[slice, slice], np.ndarray]]:
    """(bounding slices, mask inside them) of each connected piece of a label image."""
    from scipy import ndimage

    for index, found in enumerate(ndimage.find_objects(labels), start=1):
        if found is not None:
            yield found, labels[found] == index


def pieces(mask: np.ndarray) -> Iterator[tuple[tuple[slice, slice], np.ndarray]]:
    """:func:`components` of ``ndimage.label(mask)``, in the same order, labelled on the
    part of the image that has any of ``mask`` (a dashed line's leftovers are a few
    pieces on a big image)."""
    import numpy as np
    from scipy import ndimage

    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        return
    top, left = int(rows[0]), int(cols[0])
    labels, _count = ndimage.label(mask[top:int(rows[-1]) + 1, left:int(cols[-1]) + 1])
    for (down, across), component in components(labels):
        yield (slice(down.start + top, down.stop + top),
               slice(across.start + left, across.stop + left)), component
