"""Image A from untrusted bytes, checked the way imports check it, then decoded for OCR.

The size, decompression-bomb and truncation checks are the importer's
(:func:`cluestudio.core.workspace.images.check_image`), so a file refused on import is
refused here with the same one-line message naming it; SVG or other text passed where an
image belongs gets a message that says so instead of Pillow's "cannot identify".
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from cluestudio.core.ocr.result import Box
    from cluestudio.core.workspace.images import CheckedImage


@dataclass(frozen=True)
class LoadedImage:
    checked: CheckedImage
    # H×W×3 uint8 RGB, transparency flattened onto white; a JPEG photo over 40 MP reduced
    # to at most 16 MP by its decoder (workspace.images.reduction), a photo taken from the
    # side seen square-on (ocr.photo.prepared): W×H may differ from checked's
    pixels: np.ndarray
    # How a point of ``pixels`` maps back to the photo as decoded, the image A a window
    # shows (ocr.photo.PreparedPhoto.back), and that photo's (width, height); None: the
    # pixels are the photo's own
    back: np.ndarray | None = None
    photo_size: tuple[int, int] | None = None

    @property
    def sha256(self) -> str:
        return self.checked.hash

    def in_photo(self, box: Box) -> Box:
        """``box`` (in :attr:`pixels`, as OCR and the layout give boxes) in the photo's own
        pixels: what a box drawn over image A must use."""
        return photo_box(box, self.back)


def photo_box(box: Box, back: np.ndarray | None) -> Box:
    """``box`` with each corner taken through the homography ``back`` (None: unchanged);
    its :attr:`~Box.rect` is then the corners' bounding rectangle in the photo."""
    if back is None:
        return box
    from cluestudio.core.ocr.result import Box

    def point(x: float, y: float) -> tuple[float, float]:
        u, v, w = back @ (x, y, 1.0)
        return float(u / w), float(v / w)

    tl, tr, br, bl = (point(x, y) for x, y in box.points)
    return Box((tl, tr, br, bl))


def _to_eight_bit(image: Image.Image) -> Image.Image:
    """A 16-bit greyscale PNG (Pillow's mode I;16 or I) as 8-bit greyscale. Pillow's own
    convert clips every value above 255 to white, so a 16-bit scan would read as blank;
    PNG stores 16-bit samples over 0–65535, so dividing by 257 maps them onto 0–255."""
    import numpy as np
    from PIL import Image

    if not image.mode.startswith(("I", "F")):
        return image
    values = np.asarray(image, dtype=np.float64) / 257.0
    return Image.fromarray(np.clip(np.rint(values), 0, 255).astype(np.uint8), mode="L")


def load_image_bytes(data: bytes, source: str = "<image>") -> LoadedImage:
    """Check and decode ``data``; raise :class:`~cluestudio.core.workspace.images.ImageError`
    (a :class:`SourceError` naming ``source``) for anything that is not a usable image."""
    from cluestudio.core.workspace.images import check_image

    return _decoded(check_image(data, source))  # names empty files, text and SVG as such


def load_image_file(path: str | os.PathLike[str]) -> LoadedImage:
    """The image in the file at ``path``, read the way every path reads one
    (:func:`~cluestudio.core.workspace.images.read_image_file`: a pipe is refused before
    it is opened, the size is checked before reading)."""
    from cluestudio.core.workspace.images import read_image_file

    return _decoded(read_image_file(Path(path)))


def _decoded(checked: CheckedImage) -> LoadedImage:
    import numpy as np
    from PIL import Image

    from cluestudio.core.ocr.photo import prepared_photo
    from cluestudio.core.workspace.images import draft_reduced

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # checked already
        with Image.open(io.BytesIO(checked.data)) as opened:
            opened.seek(0)  # the first frame of an animated GIF/WebP
            draft_reduced(opened)  # a large JPEG photo: decoded at 1/2, 1/4 or 1/8
            image = _to_eight_bit(opened).convert("RGBA")
    canvas = Image.new("RGBA", image.size, (255, 255, 255, 255))
    canvas.alpha_composite(image)
    # a photo taken from the side is seen square-on before OCR and the layout, the rules of
    # ruled or squared paper wiped (issue 29); boxes drawn over image A map back (in_photo)
    seen = prepared_photo(np.asarray(canvas.convert("RGB")))
    return LoadedImage(checked, seen.pixels, seen.back,
                       None if seen.back is None else canvas.size)
