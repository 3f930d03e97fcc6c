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
from typing import TYPE_CHECKING

from cluestudio.core.errors import SourceError

if TYPE_CHECKING:
    from PIL import Image

# A scanned A3 page at 300 dpi is ~17 MP: an image up to this size is decoded as it is.
MAX_IMAGE_PIXELS = 40_000_000
# Phones save photos of 48, 50, 64 and 108 MP, as JPEG. A larger JPEG is decoded reduced by
# its decoder (1/2, 1/4 or 1/8 scale, cheap) to at most REDUCED_PIXELS: a photo's letters
# are tens of pixels high and text detection looks at no more than 3200 px a side
# (core/ocr/tuning.py), so OCR loses nothing. Its limit stays under Pillow's own bomb
# limit (179 MP). Other formats would be decoded whole first (48 MP: ~200 MB as RGBA), so
# for them MAX_IMAGE_PIXELS is the limit.
REDUCED_PIXELS = 16_000_000
MAX_JPEG_PIXELS = 160_000_000
_MAGIC = {b"\xff\xd8\xff": "JPEG", b"\x89PNG": "PNG", b"GIF8": "GIF", b"RIFF": "WebP",
          b"BM": "BMP"}
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


def pixel_limit(fmt: str) -> int:
    """The most pixels an image of Pillow format ``fmt`` may have."""
    return MAX_JPEG_PIXELS if fmt == "JPEG" else MAX_IMAGE_PIXELS


def _too_large(size: str, fmt: str) -> str:
    jpeg = ("" if fmt == "JPEG" else
            f", or save a photo as JPEG (up to {MAX_JPEG_PIXELS / 1e6:.0f} MP)")
    return (f"image is {size}, over the {pixel_limit(fmt) / 1e6:.0f} MP limit for "
            f"{fmt or 'such'} images (a possible decompression bomb); scale it down to at "
            f"most {REDUCED_PIXELS / 1e6:.0f} MP (e.g. 4000×4000 pixels){jpeg}")


def reduction(width: int, height: int) -> int:
    """1 for an image decoded as it is; else 2, 4 or 8: the smallest power of two that
    brings it to :data:`REDUCED_PIXELS`. Fixed by the size alone, so the same bytes always
    decode to the same pixels (the OCR cache is keyed by the bytes)."""
    if width * height <= MAX_IMAGE_PIXELS:
        return 1
    factor = 2
    while width * height > REDUCED_PIXELS * factor * factor and factor < 8:
        factor *= 2
    return factor


def draft_reduced(image: Image.Image) -> None:
    """Have a JPEG's decoder reduce a large ``image`` (just opened) as it decodes."""
    factor = reduction(*image.size)
    if factor > 1 and image.format == "JPEG":
        width, height = image.size
        image.draft(image.mode, (-(-width // factor), -(-height // factor)))


# An iPhone saves photos as HEIC ("High Efficiency"), which Pillow cannot read.
HEIC_SUFFIXES = (".heic", ".heif")
HEIC_HINT = ("a HEIC photo, which cannot be read; export it as JPEG (on an iPhone: Settings "
             "→ Camera → Formats → Most Compatible)")


def _is_heic(head: bytes) -> bool:
    return head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"hevc", b"heim",
                                                   b"heis", b"mif1", b"msf1")


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
    if _is_heic(data):
        raise ImageError(HEIC_HINT, source=source)
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(f"image file is {len(data)} bytes, over the {MAX_IMAGE_BYTES} limit",
                         source=source)
    try:
        with warnings.catch_warnings():
            # Pillow warns from 89 MP; the limits below are ours, checked before decoding
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                fmt = image.format or ""
                if width * height > pixel_limit(fmt):
                    raise ImageError(_too_large(f"{width}×{height} = "
                                                f"{width * height / 1e6:.0f} megapixels",
                                                fmt),
                                     source=source)
                if fmt not in _MIME:
                    raise ImageError(f"unsupported image format {fmt or 'unknown'!r}",
                                     source=source)
                draft_reduced(image)
                image.load()  # the whole stream, at the reduced scale: truncation shows
    except ImageError:
        raise
    except Image.DecompressionBombError as error:  # over Pillow's own limit (179 MP)
        fmt = next((f for magic, f in _MAGIC.items() if data.startswith(magic)), "")
        pillow_limit = 2 * (Image.MAX_IMAGE_PIXELS or 0)
        raise ImageError(_too_large(f"over {pillow_limit / 1e6:.0f} megapixels",
                                    fmt.upper()), source=source) from error
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
