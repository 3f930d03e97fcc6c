"""Checking untrusted submission images before they are stored once by content hash.

Pillow only reads the header in ``Image.open``, so the pixel count is checked before any
decoding: a 100-megapixel PNG of one colour is a few hundred KB on disk but gigabytes in
memory (DESIGN §8, decompression bombs).
"""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import re
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path

from cluestudio.core.errors import SourceError

# A scanned A3 page at 300 dpi is ~17 MP; nothing a grader looks at needs more.
MAX_IMAGE_PIXELS = 40_000_000
MAX_IMAGE_BYTES = 50 * 1024 * 1024
_MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp",
         "BMP": "image/bmp"}
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif",
              "image/webp": "webp", "image/bmp": "bmp"}
# The file names every path (course import, check, convert, JSONL) reads as an image.
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp")


class ImageError(SourceError):
    """A file that is not an image we accept (corrupt, truncated, too large, unknown format)."""


@dataclass(frozen=True)
class CheckedImage:
    hash: str
    mime: str
    width: int
    height: int
    data: bytes

    @property
    def extension(self) -> str:
        return EXTENSIONS[self.mime]


# Pillow names the stream it was given, which is ours, not the user's file.
_STREAM_NAME = re.compile(r"\s*<_io\.BytesIO object at 0x[0-9a-fA-F]+>")


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def looks_like_text(head: bytes) -> str | None:
    """'SVG' or 'text' when the bytes are markup or plain text rather than an image."""
    sample = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if sample.startswith((b"<svg", b"<?xml", b"<!doctype svg")) or b"<svg" in sample[:1024]:
        return "an SVG (vector) file"
    if sample.startswith(b"@start"):
        return "PlantUML text"
    try:  # not final: a character cut at the end of the sample is no reason to doubt it
        codecs.getincrementaldecoder("utf-8")().decode(head[:2048], final=False)
    except UnicodeDecodeError:
        return None
    return "a text file" if head and b"\x00" not in head[:2048] else None


def check_image(data: bytes, source: str = "<image>") -> CheckedImage:
    """Decode ``data`` fully (catching truncation) after a size check; raise :class:`ImageError`.

    Empty files and text (SVG, PlantUML) are named as such, not as Pillow's "cannot
    identify image file", whichever path the image came by."""
    from PIL import Image  # lazy: the CLI's --help should not pay for Pillow

    kind = looks_like_text(data[:4096])
    if kind is not None:
        raise ImageError(f"{kind}, not an image; give image A as PNG, JPEG, GIF, WebP "
                         "or BMP", source=source)
    if not data:
        raise ImageError("empty file, not an image", source=source)
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(f"image file is {len(data)} bytes, over the {MAX_IMAGE_BYTES} limit",
                         source=source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                fmt = image.format or ""
                if width * height > MAX_IMAGE_PIXELS:
                    raise ImageError(
                        f"image is {width}×{height} = {width * height / 1e6:.0f} megapixels, "
                        f"over the {MAX_IMAGE_PIXELS / 1e6:.0f} MP limit "
                        "(possible decompression bomb)", source=source)
                if fmt not in _MIME:
                    raise ImageError(f"unsupported image format {fmt or 'unknown'!r}",
                                     source=source)
                image.load()
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise ImageError(f"decompression bomb refused: {error}", source=source) from error
    except (OSError, SyntaxError, ValueError) as error:
        # Pillow reports truncated or corrupt files as OSError (SyntaxError for some headers).
        detail = _STREAM_NAME.sub("", str(error)).strip() or type(error).__name__
        raise ImageError(f"corrupt or truncated image, or not an image: {detail}",
                         source=source) from error
    return CheckedImage(content_hash(data), _MIME[fmt], width, height, data)


def read_image_file(path: Path) -> CheckedImage:
    """The checked image in the file at ``path``; :class:`ImageError` naming it otherwise
    (missing, not a regular file, over the size limit — checked before reading —, not an
    image, a bomb)."""
    source = str(path)
    try:
        # stat before open: opening a named pipe waits for a writer that never comes
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ImageError("not a regular file (a named pipe, device or socket)",
                             source=source)
        if info.st_size > MAX_IMAGE_BYTES:
            raise ImageError(f"image file is {info.st_size} bytes, over the "
                             f"{MAX_IMAGE_BYTES} limit", source=source)
        with open(path, "rb") as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
    except OSError as error:
        raise ImageError(f"cannot read: {error.strerror or error}", source=source) from error
    return check_image(data, source)
