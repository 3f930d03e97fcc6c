"""Paths a user gives where a file belongs (an image, a PlantUML, a workspace, a JSONL).

A named pipe, a device or a socket there would hang the reader: opening a pipe waits for a
writer that never comes, and /dev/zero never ends. The course importer refuses them while
it walks the folder; these are the checks for the paths typed or picked one by one (CLI
arguments, File → Open, File → Import JSONL). Also the note that an image is large enough
for its OCR to take a while, said before the long read starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def refuse_special_files(paths: Iterable[Path]) -> None:
    """A pipe, device or socket given where a file belongs is refused before it is opened:
    opening a pipe waits for a writer, and /dev/zero never ends (the importer refuses them
    the same way). Missing files are left to the reader, whose message names them."""
    import os
    import stat

    from cluestudio.core.errors import SourceError

    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise SourceError("not a regular file (a named pipe, device or socket)",
                              source=str(path))


# An image this large keeps OCR busy for many seconds (a 38 MP page: about 20 s of CPU on
# two cores), with nothing on the progress line meanwhile: say so before reading it.
LARGE_IMAGE_MP = 16


def large_image_note(width: int | None, height: int | None) -> str:
    """" — a large image (38 MP): this takes a while" for an image of that size, else ""."""
    from cluestudio.core.workspace.images import MAX_IMAGE_PIXELS

    if not width or not height or not LARGE_IMAGE_MP * 1e6 <= width * height <= MAX_IMAGE_PIXELS:
        return ""  # small; or a JPEG photo its decoder reduces, or refused when it is read
    return f" — a large image ({width * height / 1e6:.0f} MP): this takes a while"


def image_size(image: Path | bytes) -> tuple[int | None, int | None]:
    """Width and height from the image's header (nothing decoded); (None, None) when it is
    not an image at all (reading it properly names the problem)."""
    import io
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():  # Pillow's bomb warning: the checks come later
            warnings.simplefilter("ignore")
            source = io.BytesIO(image) if isinstance(image, bytes) else image
            with Image.open(source) as opened:
                width, height = opened.size
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None, None
    return width, height
