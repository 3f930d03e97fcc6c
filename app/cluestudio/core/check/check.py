"""Check one conversion: image A's words (OCR) against the PlantUML's names."""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence

from cluestudio.core.check.abstain import not_judged
from cluestudio.core.check.doubtful import (
    kind_words,
    set_aside,
    template_boxes,
    type_parameter_tokens,
)
from cluestudio.core.check.match import match
from cluestudio.core.check.misread import misread_likeness
from cluestudio.core.check.names import ModelName, diagram_names
from cluestudio.core.check.report import (
    FLAG_CONFIDENCE,
    FLAG_KINDS,
    CheckReport,
    InventedName,
    MissingName,
)
from cluestudio.core.check.tokens import ImageToken, image_tokens
from cluestudio.core.model import ClassDiagram
from cluestudio.core.ocr.result import Box, OcrResult

# Bump when the matching or the flags change, so stored checks are redone.
CHECK_VERSION = "8"  # 8: a word that is a leftover name misread carries no flag
# OCR often overlooks a lone ``1`` or ``*`` beside a line: its absence is weak evidence.
LONE_GLYPH_FACTOR = 0.45
# … and reads other multiplicities less reliably than names.
SMALL_TEXT_FACTOR = 0.6
# Fewer words than this read from an image that should show at least as many names: the
# image is unreadable (blank, a photo of something else), and that is what gets reported.
MIN_READABLE_TOKENS = 3
# OCR's own confidence in a word: at or above SURE_READ a missing name is as sure as the
# kind allows; the flag fades to nothing at UNSURE_READ (a garbled word is no finding).
SURE_READ = 0.95
UNSURE_READ = 0.75
# A PlantUML name whose best counterpart in the image is at least this similar was most
# likely misread, not invented; at most ``INVENTED_SURE_BELOW`` it was surely not written.
MISREAD_SIMILARITY = 0.8
INVENTED_SURE_BELOW = 0.5
# A one-letter name (``x``, an enum value ``A``) is too small for OCR to vouch for.
ONE_LETTER_FACTOR = 0.3
# Too little in common to judge name by name: fewer than this share of the PlantUML's names
# read in the image, or of the image's words found in the PlantUML. Only then does the
# check ask whether the names are in another language or OCR read the image poorly.
LOW_OVERLAP = 0.5
# OCR reading the image poorly: the median line confidence below this, or more than
# POOR_SHARE of its lines read at less than UNSURE_READ.
POOR_MEDIAN = 0.9
POOR_SHARE = 0.25


# A class whose box OCR read less than this share of (its class name read, most members
# not) is a patch OCR did not see well (small or low-contrast text): its unread members are
# weak evidence of invention, since a conversion seldom invents most of a class's members.
BLIND_SHARE = 0.5
BLIND_FACTOR = 0.4


def _blind_owners(names: Sequence[ModelName], paired: set[int]) -> set[str]:
    """Classes whose name OCR read but fewer than :data:`BLIND_SHARE` of their members."""
    read_classes = {names[n].text for n in paired if names[n].kind == "class"}
    members: dict[str, list[bool]] = {}
    for n, name in enumerate(names):
        if name.kind in ("attribute", "method", "parameter", "type") and name.owner:
            members.setdefault(name.owner, []).append(n in paired)
    return {owner for owner, read in members.items()
            if owner in read_classes and len(read) >= 3
            and sum(read) < BLIND_SHARE * len(read)}


def read_trust(confidence: float) -> float:
    """How far a word OCR read with ``confidence`` can carry a flag (0..1)."""
    return min(1.0, max(0.0, (confidence - UNSURE_READ) / (SURE_READ - UNSURE_READ)))


def invented_confidence(similarity: float) -> float:
    """How sure a PlantUML name is invented, from its best similarity to text read."""
    span = MISREAD_SIMILARITY - INVENTED_SURE_BELOW
    return min(1.0, max(0.0, (MISREAD_SIMILARITY - similarity) / span))


def ocr_doubt(ocr: OcrResult) -> str:
    """Why OCR's reading of this image cannot be trusted name by name ("" when it can)."""
    import statistics

    worded = [line.confidence for line in ocr.lines
              if sum(c.isalpha() for c in line.text) >= 3]
    if not worded:
        return ""
    poor = sum(c < UNSURE_READ for c in worded) / len(worded)
    median = statistics.median(worded)
    if median < POOR_MEDIAN or poor > POOR_SHARE:
        return (f"OCR reads this image poorly (median confidence {median:.2f}, "
                f"{poor:.0%} of its lines garbled): small or blurred text")
    return ""


# A text line whose box ends this close to the image's border (a share of its side, at
# least EDGE_PIXELS) runs off the image; CUT_LINES such lines on one side: image A is cut.
EDGE_SHARE = 0.002
EDGE_PIXELS = 2.0
CUT_LINES = 2


def _edge_margins(ocr: OcrResult) -> tuple[float, float]:
    return (max(EDGE_PIXELS, EDGE_SHARE * ocr.width),
            max(EDGE_PIXELS, EDGE_SHARE * ocr.height))


def _touches(ocr: OcrResult, box: Box, side: str) -> bool:
    dx, dy = _edge_margins(ocr)
    x0, y0, x1, y1 = box.rect
    return {"right": x1 >= ocr.width - dx, "left": x0 <= dx,
            "bottom": y1 >= ocr.height - dy, "top": y0 <= dy}[side]


def cut_edge(ocr: OcrResult) -> str:
    """The side ("right", "left", "bottom", "top") where text runs off image A, or ""
    (a render over PlantUML's size limit, a screenshot cropped through the diagram)."""
    if not ocr.width or not ocr.height:
        return ""
    counts = {side: sum(_touches(ocr, line.box, side) for line in ocr.lines)
              for side in ("right", "left", "bottom", "top")}
    side = max(counts, key=lambda k: counts[k])
    return side if counts[side] >= CUT_LINES else ""


def _similarity(a: str, b: str) -> float:
    from rapidfuzz import fuzz

    return float(fuzz.ratio(a, b)) / 100.0


def _flags(findings: Sequence[MissingName] | Sequence[InventedName]) -> bool:
    return any(f.kind in FLAG_KINDS and f.confidence >= FLAG_CONFIDENCE for f in findings)


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


def _unexplained_text(ocr: OcrResult, tokens: Sequence[ImageToken], paired: set[int]) -> str:
    """Image A's text run together (no spaces, no underscores, folded case), less the
    words paired with a name: a name found in it is written there, glued to something
    else; one found only inside a longer word another name explains (``schedule`` inside
    ``reschedule``) is not."""
    texts = [line.text for line in ocr.lines]
    for t in sorted(paired, key=lambda u: (tokens[u].line, tokens[u].position)):
        word = tokens[t].text
        texts[tokens[t].line] = texts[tokens[t].line].replace(word, "\0" * len(word), 1)
    return " ".join(texts).replace(" ", "").replace("_", "").casefold()


def check_conversion(ocr: OcrResult, diagram: ClassDiagram, *, language: str = "auto",
                     also_drawn: Collection[str] = ()) -> CheckReport:
    """Compare what OCR read in image A with what ``diagram`` (the PlantUML) says.
    ``language``: what image A's names are written in (settings ``[ocr] language``);
    "auto" guesses it from their spelling. ``also_drawn``: keys of words the PlantUML's
    text draws outside its model (:func:`~cluestudio.core.check.doubtful.drawn_outside_model`):
    image A may show them."""
    started = time.perf_counter()
    tokens = image_tokens(ocr, ocr.layout if ocr.layout.boxes else None)
    names = diagram_names(diagram)
    pairs = match(tokens, names)
    paired_t = {t: p.names[0] for p in pairs for t in p.tokens}
    paired_n = {n for p in pairs for n in p.names}
    counted = [t for t, token in enumerate(tokens) if not token.weak]
    owners = _owners(tokens, names, paired_t)

    templates = template_boxes(tokens, {t for t, n in paired_t.items()
                                        if names[n].kind == "class"})
    edge = cut_edge(ocr)
    type_parameters = type_parameter_tokens(tokens, ocr.layout)
    # a leftover word that resembles a leftover name of its kind is that name misread
    likeness = misread_likeness(tokens, names, set(range(len(tokens))) - set(paired_t),
                                set(range(len(names))) - {n for p in pairs for n in p.names})
    missing = []
    unjudged = 0
    for t in counted:
        if t in paired_t:
            continue
        if tokens[t].class_box in templates or t in type_parameters \
                or (edge and _touches(ocr, tokens[t].box, edge)):
            # a sample shape's word, a generic's type parameter, a word the image's edge cuts
            unjudged += 1
            continue
        token = tokens[t]
        owner, owner_line = owners.get(token.class_box, ("", None)) \
            if token.class_box is not None else ("", None)
        confidence = read_trust(token.confidence) * (0.6 if len(token.text) < 3 else 1.0)
        if likeness.get(t, 0.0) >= INVENTED_SURE_BELOW:
            confidence *= invented_confidence(likeness[t])
        missing.append(MissingName(token.text, token.kind, token.box, confidence, owner,
                                   owner_line))

    blind = _blind_owners(names, paired_n)
    compact = _unexplained_text(ocr, tokens, set(paired_t))
    # spellings image A shows, each paired with a name: as read, and as the name is written
    paired_keys = {tokens[t].key for t in paired_t} | {names[n].key for n in paired_n}
    keys = [token.key for token in tokens]
    invented = []
    for n, name in enumerate(names):
        if n in paired_n:
            continue
        best, nearest, nearest_read = 0.0, "", 1.0
        for t, (key, token) in enumerate(zip(keys, tokens, strict=True)):
            if t in paired_t:
                continue  # read, and explained by another name
            similarity = _similarity(name.key, key)
            if similarity > best:
                best, nearest, nearest_read = similarity, token.text, token.confidence
        if len(name.key) >= 4 and (name.key in compact or name.key in paired_keys):
            # written in the image, glued to something else, or as a word another name of
            # its spelling was paired with (a type drawn more often than OCR read it, a
            # member two classes have, read once)
            best = max(best, 0.8)
        confidence = invented_confidence(best)
        if best >= INVENTED_SURE_BELOW:
            # a word OCR was unsure of that half resembles the name: the name, misread
            confidence *= read_trust(nearest_read)
        if len(name.key) == 1 and name.kind != "multiplicity":
            confidence *= ONE_LETTER_FACTOR
        if name.kind not in ("class", "multiplicity") and name.owner in blind:
            confidence *= BLIND_FACTOR
        if name.kind == "multiplicity":
            confidence *= LONE_GLYPH_FACTOR if len(name.key) == 1 else SMALL_TEXT_FACTOR
        invented.append(InventedName(name.text, name.kind, name.line, name.owner,
                                     round(confidence, 4), nearest))

    kept_missing, kept_invented, left_out = set_aside(missing, invented, names, also_drawn,
                                                      kinds=kind_words(diagram))
    left_out += unjudged
    readable = len(counted) >= min(MIN_READABLE_TOKENS, len(names))
    said = language  # the user's setting; ``language`` becomes the verdict's
    doubt, language, written = "", "", ""
    # Overlap of the names that carry meaning (types, multiplicities and keywords are
    # shared by any two diagrams of one language family: ``String``, ``int``, ``1..*``).
    words = [n for n, name in enumerate(names) if name.kind in FLAG_KINDS]
    read_words = [t for t in counted if tokens[t].kind in FLAG_KINDS]
    overlap_low = len(words) >= 3 and (
        sum(n in paired_n for n in words) < LOW_OVERLAP * len(words)
        or sum(t in paired_t for t in read_words) < LOW_OVERLAP * max(1, len(read_words)))
    if readable and overlap_low:
        from cluestudio.core.check.language import guess_language

        read = said if said != "auto" else guess_language(
            tokens[t].text for t in read_words if t not in paired_t)
        written = guess_language(names[n].text for n in words if n not in paired_n)
        # names that lean to no language are English's as often as not: only a drawing
        # clearly in another language says "translation" against them
        if read and read != written and (written or read != "en"):
            language = read
        else:
            doubt = ocr_doubt(ocr)
    # only names the image does not show raise the flag: on a cut image they may lie
    # beyond its edge, so the check cannot tell
    if edge and not doubt and not language and not _flags(kept_missing) \
            and _flags(kept_invented):
        doubt = (f"image A is cut off at its {edge} edge (text runs off it): the "
                     "names it does not show may lie beyond it")
    return CheckReport(
        ocr.image_sha256, ocr.engine, ocr.width, ocr.height,
        image_tokens=len(counted), image_found=sum(1 for t in counted if t in paired_t),
        names=len(names), names_found=len(paired_n),
        missing=kept_missing, invented=kept_invented, readable=readable,
        version=CHECK_VERSION, seconds=ocr.seconds + time.perf_counter() - started,
        doubt=doubt, language=language,
        written_language=written if language else "", set_aside=left_out,
        not_judged=not_judged(ocr, tokens, kept_missing))
