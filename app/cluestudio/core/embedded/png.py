"""The text chunks of a PNG file, read from its bytes without decoding a pixel.

PlantUML writes the diagram's source into every PNG it renders (an ``iTXt`` chunk with the
keyword ``plantuml``, beside a ``tEXt`` ``copyleft``); draw.io's "editable PNG" carries its
model as ``mxfile``. This walks the chunk list (lengths and types: microseconds even for a
4096 px render), checks each wanted chunk's CRC and inflates it with a hard bound, so a
hostile file costs no memory: a zTXt "bomb" stops at :data:`MAX_TEXT_BYTES`. PIL would do
it too, but decompresses every text chunk up to 1 MiB at ``Image.open`` (its
``MAX_TEXT_CHUNK``, 64 MiB over all chunks; a larger one makes it refuse the file, which
the image checks report as corrupt) and parses the whole header; this reads only the
keywords asked for.

What else the chunk list says is kept as well: the chunks PlantUML never writes (``tIME``,
``iCCP``, a ``Software`` text, …), the sign that another program saved the file again after
PlantUML rendered it (docs/adr/0016-embedded-diagram-source.md).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# A diagram's source is a few KiB; the parser refuses more than 1 MiB anyway. More than
# this inflated is no source a person wrote, and is not inflated further.
MAX_TEXT_BYTES = 512 * 1024
# A PNG of a diagram has a handful of chunks (IDAT split in pieces of 8–64 KiB); a file of
# millions of empty chunks is hostile: give up walking it, quickly.
MAX_CHUNKS = 20_000
TEXT_TYPES = (b"tEXt", b"zTXt", b"iTXt")
# What PlantUML's PNG writer emits (Java ImageIO): anything else was added by a program
# that saved the file after it (an image editor, a converter, a screenshot tool).
PLANTUML_CHUNKS = frozenset({b"IHDR", b"PLTE", b"tRNS", b"bKGD", b"pHYs", b"IDAT", b"IEND"})
PLANTUML_KEYS = frozenset({"plantuml", "copyleft"})


class ChunkError(ValueError):
    """A wanted text chunk that cannot be read (its reason in words)."""


@dataclass(frozen=True)
class PngText:
    """What the chunk list of one PNG says: the wanted text chunks (keyword → text, or the
    reason it could not be read), its pixel size and what marks a later save."""

    width: int
    height: int
    texts: dict[str, str] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)  # keyword → why not
    # chunk types and text keywords PlantUML never writes, in file order, once each
    foreign: tuple[str, ...] = ()


def is_png(data: bytes) -> bool:
    return data[:8] == SIGNATURE


def _inflate(compressed: bytes, limit: int) -> bytes:
    """``compressed`` inflated, refused (ChunkError) when it would exceed ``limit``."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(compressed, limit + 1)
    except zlib.error as error:
        raise ChunkError(f"its compressed text is damaged ({error})") from error
    if len(out) > limit or inflater.unconsumed_tail:
        raise ChunkError(f"its text is over {limit // 1024} KiB inflated")
    return out


def _decode(raw: bytes, *, utf8_only: bool) -> str:
    """iTXt is UTF-8 by the standard; tEXt and zTXt are Latin-1, though tools write UTF-8
    there too: UTF-8 when it decodes, else Latin-1."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        if utf8_only:
            raise ChunkError(f"its text is not UTF-8 (byte 0x{raw[error.start]:02x} at "
                             f"offset {error.start})") from error
        return raw.decode("latin-1")


def _text_of(kind: bytes, body: bytes, limit: int) -> str:
    """The text of a tEXt, zTXt or iTXt chunk's ``body`` (after its keyword and NUL)."""
    if kind == b"tEXt":
        if len(body) > limit:
            raise ChunkError(f"its text is over {limit // 1024} KiB")
        return _decode(body, utf8_only=False)
    if kind == b"zTXt":
        if body[:1] != b"\0":
            raise ChunkError("unknown compression method")
        return _decode(_inflate(body[1:], limit), utf8_only=False)
    # iTXt: compressed flag, method, language tag NUL, translated keyword NUL, text
    if len(body) < 2:
        raise ChunkError("truncated iTXt chunk")
    flag, method = body[0], body[1]
    parts = body[2:].split(b"\0", 2)
    if len(parts) != 3:
        raise ChunkError("truncated iTXt chunk")
    text = parts[2]
    if flag:
        if method != 0:
            raise ChunkError("unknown compression method")
        raw = _inflate(text, limit)
    elif len(text) > limit:
        raise ChunkError(f"its text is over {limit // 1024} KiB")
    else:
        raw = text
    return _decode(raw, utf8_only=True)


def read_png_text(data: bytes, keywords: frozenset[str], *, limit: int = MAX_TEXT_BYTES
                  ) -> PngText | None:
    """The text chunks named by ``keywords`` in PNG ``data`` (None: not a PNG). Pixels are
    never decoded; a damaged chunk list ends the walk with what was read before it."""
    if not is_png(data) or len(data) < 33:
        return None
    width, height = struct.unpack(">II", data[16:24])
    texts: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    foreign: list[str] = []
    offset, count, size = 8, 0, len(data)
    while offset + 12 <= size and count < MAX_CHUNKS:
        count += 1
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        end = offset + 8 + length
        if end + 4 > size:
            break  # a chunk runs past the file's end: truncated
        if kind in TEXT_TYPES:
            # a keyword is 1–79 bytes: found without copying a large body it does not want
            nul = data.find(b"\0", offset + 8, min(end, offset + 8 + 80))
            keyword = data[offset + 8:nul].decode("latin-1") if nul >= 0 else ""
            if keyword not in PLANTUML_KEYS and (keyword or "text") not in foreign:
                foreign.append(keyword or "text")
            if keyword in keywords and keyword not in texts:
                (crc,) = struct.unpack(">I", data[end:end + 4])
                try:
                    if length > limit + 1024:  # more than any text it may inflate to
                        raise ChunkError(f"its text is over {limit // 1024} KiB")
                    if zlib.crc32(memoryview(data)[offset + 4:end]) != crc:
                        raise ChunkError("its checksum is wrong (the file is damaged)")
                    texts[keyword] = _text_of(kind, data[nul + 1:end], limit)
                    unreadable.pop(keyword, None)
                except ChunkError as error:
                    unreadable[keyword] = str(error)
        elif kind not in PLANTUML_CHUNKS:
            name = kind.decode("latin-1", "replace")
            if name not in foreign:
                foreign.append(name)
        if kind == b"IEND":
            break
        offset = end + 4
    return PngText(width, height, texts, unreadable, tuple(foreign))
