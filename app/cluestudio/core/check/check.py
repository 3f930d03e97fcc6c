"""Check one conversion: image A's words (OCR) against the PlantUML's names."""

from __future__ import annotations

import time
from collections.abc import Sequence

from cluestudio.core.check.match import match
from cluestudio.core.check.names import ModelName, diagram_names
from cluestudio.core.check.report import CheckReport, InventedName, MissingName
from cluestudio.core.check.tokens import ImageToken, image_tokens
from cluestudio.core.model import ClassDiagram
from cluestudio.core.ocr.result import OcrResult

# Bump when the matching or the flags change, so stored checks are redone.
CHECK_VERSION = "1"
# OCR often overlooks a lone ``1`` or ``*`` beside a line: its absence is weak evidence.
LONE_GLYPH_FACTOR = 0.45
# … and reads other multiplicities less reliably than names.
SMALL_TEXT_FACTOR = 0.6
# Fewer words than this read from an image that should show at least as many names: the
# image is unreadable (blank, a photo of something else), and that is what gets reported.
MIN_READABLE_TOKENS = 3


def _similarity(a: str, b: str) -> float:
    from rapidfuzz import fuzz

    return float(fuzz.ratio(a, b)) / 100.0


def _owners(tokens: Sequence[ImageToken], names: Sequence[ModelName],
            paired: dict[int, int]) -> dict[int, tuple[str, int | None]]:
    """Class box index → (its class name as read, that class's PlantUML line if paired)."""
    owners: dict[int, tuple[str, int | None]] = {}
    for t, token in enumerate(tokens):
        if token.kind != "class" or token.class_box is None or token.class_box in owners:
            continue
        n = paired.get(t)
        if n is not None and names[n].kind == "class":
            owners[token.class_box] = (names[n].text, names[n].line)
        elif not token.weak:
            owners[token.class_box] = (token.text, None)
    return owners


def check_conversion(ocr: OcrResult, diagram: ClassDiagram) -> CheckReport:
    """Compare what OCR read in image A with what ``diagram`` (the PlantUML) says."""
    started = time.perf_counter()
    tokens = image_tokens(ocr, ocr.layout if ocr.layout.boxes else None)
    names = diagram_names(diagram)
    pairs = match(tokens, names)
    paired_t = {t: p.names[0] for p in pairs for t in p.tokens}
    paired_n = {n for p in pairs for n in p.names}
    counted = [t for t, token in enumerate(tokens) if not token.weak]
    owners = _owners(tokens, names, paired_t)

    missing = []
    for t in counted:
        if t in paired_t:
            continue
        token = tokens[t]
        owner, owner_line = owners.get(token.class_box, ("", None)) \
            if token.class_box is not None else ("", None)
        confidence = token.confidence * (0.6 if len(token.text) < 3 else 1.0)
        missing.append(MissingName(token.text, token.kind, token.box, confidence, owner,
                                   owner_line))

    line_texts = [line.text for line in ocr.lines]
    compact = " ".join(line_texts).replace(" ", "").replace("_", "").casefold()
    keys = [token.key for token in tokens]
    invented = []
    for n, name in enumerate(names):
        if n in paired_n:
            continue
        best, nearest = 0.0, ""
        for t, (key, token) in enumerate(zip(keys, tokens, strict=True)):
            if t in paired_t:
                continue  # read, and explained by another name
            similarity = _similarity(name.key, key)
            if similarity > best:
                best, nearest = similarity, token.text
        if len(name.key) >= 4 and name.key in compact:
            best = max(best, 0.8)  # written in the image, glued to something else
        confidence = 1.0 - best
        if name.kind == "multiplicity":
            confidence *= LONE_GLYPH_FACTOR if len(name.key) == 1 else SMALL_TEXT_FACTOR
        invented.append(InventedName(name.text, name.kind, name.line, name.owner,
                                     round(confidence, 4), nearest))

    readable = len(counted) >= min(MIN_READABLE_TOKENS, len(names))
    return CheckReport(
        ocr.image_sha256, ocr.engine, ocr.width, ocr.height,
        image_tokens=len(counted), image_found=sum(1 for t in counted if t in paired_t),
        names=len(names), names_found=len(paired_n),
        missing=tuple(missing), invented=tuple(invented), readable=readable,
        version=CHECK_VERSION, seconds=ocr.seconds + time.perf_counter() - started)
