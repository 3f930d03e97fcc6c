"""Class boxes + the text OCR read inside them → classes with attributes and methods.

The header compartment gives the class name (its last line: a stereotype line «…» comes
first) and its kind (PlantUML's circled letter: C, A, I, E); members come one per OCR line
from the other compartments, a line with parentheses being a method. PlantUML draws
visibility as icons, which OCR reads as stray characters: a round one (``•``, ``o``) is
``+``, a square one (``□``, ``口``, ``α``) is ``-``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cluestudio.core.ocr.result import ClassBox, OcrResult, Rect, TextLine

if TYPE_CHECKING:
    import numpy as np

_PUBLIC_MARKS = "•●○◦oe0"
_PRIVATE_MARKS = "□口αa¤回▫▪◻"
_KIND_LETTERS = {"A": "abstract class", "I": "interface", "E": "enum", "C": "class"}
_CIRCLE_ALONE = re.compile(r"\W*\(?\s*([CAIE])\s*\)?\W*")
_CIRCLE = re.compile(r"^\W*\(?\s*([CAIE])\s*\)?\s*(?=\W|[A-Z])")
_IDENT = re.compile(r"[^\W\d]\w*")
# a name as a header shows it: a nested class keeps its outer class (``Outer.Inner``)
_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
# a generic class's type parameters, as PlantUML draws them in a small box over the class
# box's top-right corner: ``T``, ``K, V``, ``T extends Comparable<T>``
_TYPE_PARAM = r"[A-Z]\w*(?:\s+(?:extends|super)\s+[\w.]+(?:<[^<>]*(?:<[^<>]*>)?[^<>]*>)?)?"
_TYPE_PARAMS = re.compile(rf"\s*{_TYPE_PARAM}(?:\s*,?\s*{_TYPE_PARAM})*\s*")
# OCR drops the narrow space of a small parameter box: ``Textends Comparable<T>``
_GLUED_BOUND = re.compile(r"\b([A-Z]\w*?)(extends|super)(?=\s)")
# … and reads the comma between two type variables as a dot or a semicolon, or loses it:
# ``K.V``, ``K;V``, ``K V`` are ``K, V`` (one capital letter each side, so a bound's
# dotted name, ``extends Map.Entry``, is left alone)
_MISREAD_COMMA = re.compile(r"\b([A-Z])\s*(?:[.;]\s*|\s+)(?=[A-Z]\b)")
_BRACKETED = re.compile(r"«[^»]*»?|\{[^}]*\}?")
# how OCR reads guillemets: doubled angle brackets, full-width or mathematical ones
_GUILLEMETS = (("<<", "«"), (">>", "»"), ("《", "«"), ("》", "»"), ("≪", "«"), ("≫", "»"))
# a multiplicity read as a line of its own (``1``, ``*``, ``0..*``, ``1..``)
_MULTIPLICITY_LINE = re.compile(r"\s*(?:[0-9]+|\*)(?:\s*\.+\s*(?:[0-9]+|[*nN])?)?\s*")
# a method's empty parentheses as OCR reads them in a small font: ``)``, ``0``, ``O``,
# ``0)``, glued to the name's last (lower-case) letter, at the line's end or before the
# return type's colon (``cancel)``, ``confirm0 : boolean``, ``void summaryO``); the name
# is the line's first, second or third word (a return type, an icon OCR read as a letter
# before it), so the end of a signature wrapped onto a line of its own is left alone
_LOST_PARENS = re.compile(
    r"^((?:[^\W\d][\w<>]*\s+){0,2}[^\W\d]\w*?[a-z])(?:[0O]\)?|\))(?=\s*(?::|$))")
# … and its opening parenthesis read as a bracket, round parameters (a colon or a
# ``Type name`` pair inside: ``addItem[item: String) : void``, ``book[seat : Seat]``; an
# attribute's multiplicity, ``tags[0..*]``, has neither)
_BRACKET_CALL = re.compile(
    r"^((?:[^\W\d][\w<>,]*\s+)?[^\W\d]\w*)\s*\[([^\[\]]*(?::|\w\s+\w)[^\[\]]*)[\])]")
# a space OCR put inside a word of a member (``endD ate``, ``am ount``): a piece in lower
# case first and a lower-case rest, one of them short or the first cut inside a camel-case
# name, neither a type or modifier keyword (``int count``, ``name varchar``, ``static
# total``, OCR's ``doubie amount`` and a type variable's ``K key`` are two words)
_SPLIT_HEAD = re.compile(r"(?:^|\W)([a-z]\w*)$")
_NAME_THEN_TYPE = re.compile(r"([a-z]\w*) ([A-Z][\w\[\]]*(?:<[\w, ]*>)?)")
_NAME_CUT_AT_CAPITAL = re.compile(r"([a-z]\w*) (?=[A-Z]\w* : )")
_SPLIT_REST = re.compile(r"[a-z]\w*")
_TYPE_WORDS = frozenset({
    "int", "integer", "long", "short", "byte", "char", "float", "double", "decimal",
    "boolean", "bool", "void", "string", "str", "date", "var", "varchar", "text", "number",
    "any", "list", "set", "map", "dict", "object", "static", "final", "abstract", "const",
    "unsigned", "public", "private", "protected", "in", "out", "lnt"})
# a member line: a visibility mark first, or a type after a colon, or parentheses
_MEMBER_LINE = re.compile(r"^\s*[-+#~—–]|:|\(")
# stereotypes and properties that say what kind of classifier a box is
_KEYWORD_STEREOTYPES = {"abstract": "abstract class", "interface": "interface",
                        "enumeration": "enum", "enum": "enum"}
# what a tool's palette or a frame calls its shapes: never a class of a model
_PLACEHOLDERS = frozenset({"class", "abstract", "abstractclass", "interface", "enumeration",
                           "enum", "package", "object", "note", "datatype"})
# the placeholders that name a kind of class: a palette's sample class shows them over
# sample members, so such a box is no class even with members under it
_KIND_WORDS = _PLACEHOLDERS - {"package", "object", "note"}
# characters a member line never has (past its visibility icon): OCR misread something
_GARBLED = re.compile(r"[^\w\s:(),<>\[\]*.+\-#~={}\"'/|;&]")
# letters whose two cases differ only in size: OCR often gets their case wrong, most of all
# in italics (an abstract class's name) and in photographed diagrams
_SIZE_ONLY_CASE = set("cosuvwxz")


@dataclass(frozen=True)
class DraftClass:
    name: str
    keyword: str  # "class", "abstract class", "interface", "enum"
    stereotype: str
    members: tuple[str, ...]  # PlantUML member lines
    box: ClassBox
    confidence: float = 1.0  # how sure the name is (0..1)
    doubt: str = ""  # why it is not sure, for a reviewer ("" when it is)
    # members the draft is not sure of: (member line, confidence, why)
    doubtful_members: tuple[tuple[str, float, str], ...] = ()
    generics: str = ""  # a generic class's type parameters (``T``, ``K, V``)


# OCR confidence below which a name or member is worth a reviewer's look
SURE_READ = 0.9


def _lines_in(ocr: OcrResult, rect: tuple[float, float, float, float]) -> list[TextLine]:
    """The OCR lines inside ``rect`` (mostly: a line a box only cuts through, such as the
    loop of a letter a thick marker closed, belongs to no box)."""
    x0, y0, x1, y1 = rect
    inside = []
    for ln, (cx, cy), slack, (lx0, top, lx1, _bottom) in _placed(ocr):
        if not (x0 - 2 <= cx <= x1 + 2 and y0 - slack <= cy <= y1 + slack):
            continue
        width = max(1.0, lx1 - lx0)
        if (min(lx1, x1 + 4) - max(lx0, x0 - 4)) / width >= 0.7:
            inside.append((top, lx0, ln))
    return [ln for _top, _left, ln in sorted(inside, key=lambda t: (t[0], t[1]))]


_Placed = tuple[TextLine, tuple[float, float], float, tuple[float, float, float, float]]
# the last OCR result's lines as placed (its lines are an immutable tuple, held here so
# that it is the same one): a draft asks for the lines in each box and compartment
_last_placed: tuple[tuple[TextLine, ...], float, tuple[float, float], list[_Placed]] | None = None


def _placed(ocr: OcrResult) -> list[_Placed]:
    """Each OCR line with its upright centre, the slack round a rule (a line centred on
    the rule below) and its bounds."""
    global _last_placed
    last = _last_placed
    layout = ocr.layout
    if (last is not None and last[0] is ocr.lines and last[1] == layout.angle
            and last[2] == layout.center):
        return last[3]
    placed = [(ln, layout.upright(ln.box.center), max(2.0, 0.1 * ln.box.height), ln.box.rect)
              for ln in ocr.lines]
    _last_placed = (ocr.lines, layout.angle, layout.center, placed)
    return placed


def _header_read(lines: list[TextLine], *, glued_letter_is_kind: bool = True
                 ) -> tuple[str, str, str, float, str]:
    """:func:`_header` with how sure the name is and why not."""
    name, keyword, stereotype = _header(lines, glued_letter_is_kind=glued_letter_is_kind)
    if not name:
        return name, keyword, stereotype, 0.0, ""
    used = [ln for ln in lines if any(w in ln.text for w in _IDENT.findall(name))] or lines
    confidence = min(ln.confidence for ln in used)
    doubts = []
    if confidence < SURE_READ:
        doubts.append(f"name read at {confidence:.2f}")
    if sum(1 for ln in lines if _IDENT.search(ln.text) and ln.text.strip() in name) >= 2:
        confidence *= 0.8
        doubts.append("name joined from two lines")
    elif not any(name in ln.text for ln in lines):
        confidence *= 0.9
        doubts.append("a space read inside the name left out")
    if not name[0].isupper():
        confidence *= 0.8
        doubts.append("a class name in lower case")
    return name, keyword, stereotype, confidence, "; ".join(doubts)


def _header(lines: list[TextLine], *, glued_letter_is_kind: bool = True
            ) -> tuple[str, str, str]:
    """(name, keyword, stereotype) from the header's lines: a stereotype («…», <<…>>) or a
    property ({abstract}) is taken out wherever it stands; a name the box was too narrow
    for runs over several lines (``Administrative`` / ``Employee``) and is joined.
    ``glued_letter_is_kind``: a kind letter glued to the name (``IPriceService``) is
    PlantUML's circled letter (else it is the name's own first letter)."""
    keyword, stereotype = "class", ""
    name_lines: list[list[str]] = []
    for line in lines:
        text = line.text.strip()
        alone = _CIRCLE_ALONE.fullmatch(text)
        if alone:  # the circled letter read as a line of its own
            keyword = _KIND_LETTERS[alone.group(1)]
            continue
        circle = _CIRCLE.match(text)
        if circle and _acronym(text, circle.end()):
            circle = None  # ``ATM``: an all-capital name, not a circled A before ``TM``
        if circle and not glued_letter_is_kind and _glued(text, circle.end()):
            circle = None
        if circle:
            keyword = _KIND_LETTERS[circle.group(1)]
            text = text[circle.end():]
        for read, meant in _GUILLEMETS:
            text = text.replace(read, meant)
        if "»" in text and "«" not in text:
            text = "«" + text  # the opening guillemet OCR lost or misread (``menumeration»``)
        if _MEMBER_LINE.search(_BRACKETED.sub(" ", text)):
            continue  # a member where a header was expected (a box without a rule)
        for found in _BRACKETED.finditer(text):
            words = _IDENT.findall(found.group())
            word = words[0].casefold() if words else ""
            if kind := _kind_keyword(word):
                keyword = kind
            elif words and not stereotype:
                stereotype = words[0]
        text = _BRACKETED.sub(" ", text)
        words = [w for w in _NAME.findall(_drop_icon(text)) if len(w) > 1]
        # guillemets OCR lost: the word alone, in lower case where OCR misread a letter
        kind = _kind_keyword(words[0]) if len(words) == 1 else ""
        if kind and (words[0][0].islower() or words[0].casefold() in _KEYWORD_STEREOTYPES):
            keyword = kind
            continue
        if words:
            name_lines.append(words)
    if not name_lines:
        return "", keyword, stereotype
    # a name over two lines (``Appointment`` / ``Entry``), one of them with a space OCR
    # put inside it (``Appo intment``: a short capitalised piece and the word's end; two
    # such lines are a box's ``Type name`` members)
    whole = [["".join(ws)] if _cut_inside(ws) else ws for ws in name_lines]
    if len(name_lines) == 2 and sum(map(_cut_inside, name_lines)) <= 1 and all(
            len(ws) == 1 and ws[0][0].isupper() for ws in whole):
        return "".join(w for ws in whole for w in ws), keyword, stereotype
    capitalised = [ws for ws in name_lines if all(w[0].isupper() for w in ws)]
    if capitalised:  # the name comes first; more lines are members of a box without rules
        return "".join(capitalised[0]), keyword, stereotype
    if len(name_lines) == 1 and _split_word(name_lines[0]):
        # ``Shipm entPlanner``: OCR put a space inside one name (a class name has none;
        # a display name with a space keeps its letters, which is what names compare on)
        return "".join(name_lines[0]), keyword, stereotype
    if len(name_lines) >= 2 and all(len(ws) >= 2 for ws in name_lines):
        # every line a ``Type name`` pair and none a name: members of a box whose header
        # the layout did not find, not a class of their own
        return "", keyword, stereotype
    words = max(name_lines, key=lambda ws: sum(map(len, ws)))
    return max(words, key=len), keyword, stereotype


def _kind_keyword(word: str) -> str:
    """The kind of classifier a stereotype's word names (``interface``, ``enumeration``),
    read by OCR with a slip or two (``numeiation``), or ""."""
    from difflib import SequenceMatcher

    folded = word.casefold()
    if folded in _KEYWORD_STEREOTYPES:
        return _KEYWORD_STEREOTYPES[folded]
    near = [kind for known, kind in _KEYWORD_STEREOTYPES.items() if len(known) >= 8
            and SequenceMatcher(None, folded, known).ratio() >= 0.8]
    return near[0] if len(folded) >= 6 and near else ""


def _cut_inside(words: list[str]) -> bool:
    """Whether a header line's two words are one name OCR cut after a few letters
    (``Appo intment``, ``Bo oking``)."""
    return (len(words) == 2 and len(words[0]) <= 6 and words[1].isalpha()
            and _split_word(words))


def _split_word(words: list[str]) -> bool:
    """Whether a header line's words are one name OCR split: a capitalised first part and
    the rest going on in lower case (``Shipm`` ``entPlanner``)."""
    return len(words) >= 2 and words[0][0].isupper() and all(
        w[0].islower() for w in words[1:])


def _glued(text: str, after: int) -> bool:
    """Whether the letter a circle match took (``text[:after]``) is glued to the name
    after it, with no space or bracket between (``IPriceService``)."""
    return text[:after].strip()[-1:].isalpha() and text[after:after + 1].isalpha()


def _acronym(text: str, after: int) -> bool:
    """Whether the letter a circle match took (``text[:after]``) begins an all-capital
    name: glued to the rest with no space or bracket, and the rest all capitals too."""
    rest = _IDENT.match(text[after:])
    glued = text[:after].strip()[-1:].isalpha()
    return bool(glued and rest and rest.group().isupper() and rest.group().isalpha())


def _drop_icon(text: str) -> str:
    """Non-Latin marks glued in front of a name (``©Prescription``, ``ècancel``)."""
    return re.sub(r"^[^\x00-\x7f]+(?=[A-Za-z_])", "", text.strip())


def _member(text: str) -> str | None:
    """A PlantUML member line from an OCR line, or None when nothing usable is left."""
    text = text.strip()
    if len(text) == 1 and text in _PUBLIC_MARKS + _PRIVATE_MARKS:
        return None  # a visibility icon read as a line of its own
    visibility = ""
    # the icon comes first; OCR reads it as a mark, often glued to the name
    if text[:1] in _PUBLIC_MARKS and len(text) > 1 and (text[1] == " " or not text[:1].isalpha()):
        visibility, text = "+", text[1:]
    elif text[:1] in _PRIVATE_MARKS and len(text) > 1 and (
            text[1] == " " or not text[:1].isascii()):
        visibility, text = "-", text[1:]
    text = _drop_icon(re.sub(r"^[^\w(]+", "", text))
    if "(" not in text:
        text = _BRACKET_CALL.sub(r"\1(\2)", text, count=1)
    if "(" not in text:
        text = _LOST_PARENS.sub(r"\1()", text, count=1)
    text = re.sub(r"[^\w\s:(),<>\[\]*.]", "", text)
    text = _rejoined(text)
    text = _colon_restored(re.sub(r"\s*:\s*", " : ", text))
    text = re.sub(r"\s*,\s*", ", ", text).rstrip(" .:,")
    if not _IDENT.match(text):
        return None
    if "(" in text and ")" not in text:
        text += ")"
    return f"{visibility}{text}"


def _rejoined(text: str) -> str:
    """``text`` with the spaces OCR put inside its words taken out (:data:`_SPLIT_HEAD`)."""
    words = text.split(" ")
    out = [words[0]]
    for word in words[1:]:
        head, rest = _SPLIT_HEAD.search(out[-1]), _SPLIT_REST.match(word)
        if head and rest and _split(head.group(1), rest.group()):
            out[-1] += word
        else:
            out.append(word)
    return " ".join(out)


def _colon_restored(text: str) -> str:
    """An attribute written ``name : Type`` whose colon OCR lost (``street String``, the
    name first in lower case, the type capitalised: Java's order is the other way round),
    or whose name OCR cut before a capital (``created On : Date``)."""
    lost = _NAME_THEN_TYPE.fullmatch(text)
    if lost and lost.group(1).casefold() not in _TYPE_WORDS:
        return f"{lost.group(1)} : {lost.group(2)}"
    cut = _NAME_CUT_AT_CAPITAL.match(text)
    if cut and cut.group(1).casefold() not in _TYPE_WORDS:
        return cut.group(1) + text[cut.end(1) + 1:]
    return text


def _split(first: str, rest: str) -> bool:
    """Whether ``first`` and ``rest`` (two words of a member line) are one word OCR split."""
    from difflib import SequenceMatcher

    if rest.casefold() in _TYPE_WORDS or first.casefold() in _TYPE_WORDS:
        return False
    if len(first) >= 4 and any(SequenceMatcher(None, first.casefold(), word).ratio() >= 0.8
                               for word in _TYPE_WORDS):
        return False  # a type OCR misread (``doubie``, ``oint``)
    return len(first) <= 3 or len(rest) <= 3 or any(c.isupper() for c in first[1:])


def member_confidence(line: TextLine, member: str,
                      upright: Callable[[tuple[float, float]], tuple[float, float]],
                      compartment: tuple[float, float, float, float]) -> tuple[float, str]:
    """How sure the draft is of ``member``, read from ``line`` inside ``compartment``, and
    why not ("" when it is): OCR's own confidence, lowered where the layout or the reading
    itself is suspect — the line runs over the compartment's sides (it may belong to a
    neighbour or be cut), characters OCR read had to be dropped, or a method's closing
    parenthesis was never read."""
    confidence = line.confidence
    doubts = []
    if confidence < SURE_READ:
        doubts.append(f"read at {confidence:.2f}")
    x0, y0, x1, y1 = line.box.rect
    cx, cy = upright(line.box.center)
    half_w, half_h = (x1 - x0) / 2, (y1 - y0) / 2
    left, top, right, bottom = compartment
    # a line that sticks out of its compartment by more than a third of its height
    spill = max(left - (cx - half_w), (cx + half_w) - right, top - (cy - half_h),
                (cy + half_h) - bottom)
    if spill > max(3.0, half_h * 2 / 3):
        confidence *= 0.75
        doubts.append("the line runs over its compartment's side")
    # past the first character (a visibility icon OCR reads as anything), characters no
    # member line has are misreadings: the draft dropped them
    if _GARBLED.search(line.text.strip()[1:]):
        confidence *= 0.75
        doubts.append("unreadable characters left out")
    if "(" in line.text and ")" not in line.text:
        confidence *= 0.8
        doubts.append("a method whose ')' was not read")
    return round(confidence, 2), "; ".join(doubts) if confidence < SURE_READ else ""


def _type_params(lines: list[TextLine]) -> str | None:
    """The type parameter list ``lines`` read (``K, V``), or None when they read otherwise."""
    text = _GLUED_BOUND.sub(r"\1 \2", " ".join(ln.text.strip() for ln in lines))
    text = _MISREAD_COMMA.sub(r"\1, ", text)
    return text.strip() if lines and _TYPE_PARAMS.fullmatch(text) else None


def _straddles_corner(small: Rect, box: Rect) -> bool:
    """Whether ``small`` sits over the top edge of ``box`` at its right end, where PlantUML
    draws a generic class's type parameters."""
    return (small[1] <= box[1] <= small[3] and box[0] < small[0] < box[2] <= small[2] + 4
            and small[3] - small[1] < box[3] - box[1])


def _generic_boxes(ocr: OcrResult) -> dict[int, tuple[int, str]]:
    """Boxes that are a generic class's type parameters, not classes: index → (index of
    the class box whose corner they sit on, the parameters)."""
    boxes = ocr.layout.boxes
    out: dict[int, tuple[int, str]] = {}
    for i, small in enumerate(boxes):
        if len(small.compartments) != 1:
            continue
        params = _type_params(_lines_in(ocr, small.rect))
        owner = next((j for j, box in enumerate(boxes)
                      if j != i and _straddles_corner(small.rect, box.rect)), None)
        if params and owner is not None:
            out[i] = (owner, params)
    return out


def _corner_params(lines: list[TextLine], header: Rect) -> tuple[list[TextLine], str]:
    """A header's lines less the type parameters read over its top-right corner (their own
    small box, found as part of the header), and those parameters ("" when none)."""
    if len(lines) < 2:
        return lines, ""
    first = lines[0]
    x0, top, x1, _bottom = first.box.rect
    params = _type_params([first])
    above = top < header[1] - 0.2 * (first.box.rect[3] - top)
    if params and above and (x0 + x1) / 2 > (header[0] + header[2]) / 2:
        return lines[1:], params
    return lines, ""


# a type variable where a member uses one: ``T item``, ``data : T``, ``Node<K, V>``
_TYPE_VARIABLE = re.compile(
    r"^([A-Z])\s+[^\W\d]\w*|:\s*([A-Z])\s*(?:\[\])?\s*(?=$|[,)])|[<,]\s*([A-Z])\s*(?=[,>])")


def _type_variables(members: list[str]) -> list[str]:
    """The single-letter types the members use (``T`` of ``T item`` and ``Cell<T> below``),
    in order of first use."""
    out: list[str] = []
    for member in members:
        for found in _TYPE_VARIABLE.finditer(member.lstrip("+-#~ ")):
            letter = next(g for g in found.groups() if g)
            if letter not in out:
                out.append(letter)
    return out


def _corner_box_drawn(pixels: np.ndarray, box: ClassBox, text: list[Rect]) -> bool:
    """Whether a small box is drawn over the top-right corner of ``box`` (PlantUML's type
    parameter box), even one too small for OCR to read: a side of its own inside the
    header near the right end (not where OCR read the name), and its top over the class
    box's top edge there. A relation line that meets the top edge stops at it."""
    x0, y0, x1, _y1 = (int(v) for v in box.rect)
    header = box.compartments[0]
    depth = min(14, int(header[3] - header[1]) - 2)
    left = max(x0 + 1, x1 - 30)
    if depth < 6 or y0 < 14:
        return False
    # dark strokes round the corner only (``y0`` is the first row inside the box)
    ink = pixels[y0 - 14:y0 + 2 + depth, left:x1 + 4].astype("float32").mean(axis=2) < 160
    below = ink[16:, :x1 - 2 - left]
    sides = [left + i for i in range(below.shape[1]) if below[:, i].mean() >= 0.5
             and not any(r[0] <= left + i <= r[2] and r[1] <= y0 + depth and r[3] >= y0
                         for r in text)]
    if not sides:
        return False
    # the small box's top: a row above the class box's top edge, inked from that side on
    # past the class box's right side
    above = ink[:11, min(sides) - left:]
    return bool(above.size) and float(above.mean(axis=1).max()) >= 0.5


def classes_from(ocr: OcrResult, pixels: np.ndarray | None = None) -> list[DraftClass]:
    """The classes of an image read by OCR; with ``pixels`` (the image as read), a type
    parameter box too small for OCR to read is seen by its outline."""
    generic_boxes = _generic_boxes(ocr)
    params_of = {owner: params for owner, params in generic_boxes.values()}
    headers = []  # (box, header lines, generics, (name, keyword, stereotype, confidence, doubt))
    for index, box in enumerate(ocr.layout.boxes):
        if index in generic_boxes:
            continue  # a generic class's type parameters, drawn over its corner
        header, *parts = box.compartments
        lines, generics = _corner_params(_lines_in(ocr, header), header)
        generics = params_of.get(index, generics)
        read = _header_read(lines)
        name = read[0]
        if not name or (not parts and not name[0].isupper()):
            continue  # a closed loop of lines with a label in it, not a class
        if not parts and any(_MULTIPLICITY_LINE.fullmatch(ln.text) for ln in lines):
            continue  # the same with a multiplicity in it: drawn at a line's end, no class's
        if name.casefold() in _PLACEHOLDERS and (
                name.casefold() in _KIND_WORDS or not any(_lines_in(ocr, p) for p in parts)):
            # a palette's sample shape (an editor's screenshot), not the model's; but a box
            # with members under a name that is no class kind is the model's (a class named
            # Package or Note: the held-out random skins have them)
            continue
        headers.append((box, lines, generics, read))
    image = pixels if pixels is not None and not ocr.layout.angle else None
    out: list[DraftClass] = []
    taken: set[str] = set()
    for box, _lines, generics, read in _apart(headers):
        name, keyword, stereotype, confidence, doubt = read
        if name in taken:
            confidence *= 0.5
            doubt = "; ".join(filter(None, [doubt, "another box has this name"]))
        while name in taken:
            name += "_"
        taken.add(name)
        header, *parts = box.compartments
        members, doubtful = [], []
        values = _enum_values(_lines_in(ocr, header), read[0]) if (
            not parts and keyword == "enum") else set()
        for part in parts or [header]:
            for line in _lines_in(ocr, part):
                if not parts and not _MEMBER_LINE.search(_BRACKETED.sub(" ", line.text)) and (
                        id(line) not in values):
                    continue  # a box without rules: its name, stereotype, no member
                member = _member(line.text)
                if member:
                    members.append(member)
                    sure, why = member_confidence(line, member, ocr.layout.upright, part)
                    if why:
                        doubtful.append((member, sure, why))
        if not generics and keyword != "enum" and image is not None:
            variables = _type_variables(members)
            if variables and _corner_box_drawn(image, box, [
                    ln.box.rect for ln in _lines_in(ocr, header)]):
                # OCR read nothing in the parameter box: its parameters are the
                # single-letter types the members use
                generics = ", ".join(variables)
        out.append(DraftClass(name, keyword, stereotype, tuple(members), box,
                              round(confidence, 2), doubt, tuple(doubtful), generics))
    return in_diagram_case(out)


def _enum_values(lines: list[TextLine], name: str) -> set[int]:
    """The lines (by ``id``) of an enumeration drawn without rules that are its values:
    one word each, under the lines its name was read from."""
    named = [i for i, ln in enumerate(lines) if _IDENT.search(ln.text) and (
        ln.text.strip() in name or name in ln.text)]
    if not named:
        return set()
    return {id(ln) for ln in lines[named[-1] + 1:] if _IDENT.fullmatch(ln.text.strip())}


_Header = tuple[ClassBox, list[TextLine], str, tuple[str, str, str, float, str]]


def _apart(headers: list[_Header]) -> list[_Header]:
    """Two boxes that read the same name: one diagram names a class once, so a header
    whose first letter was taken for PlantUML's circled kind letter (``IPriceService``
    read as an interface ``PriceService``) keeps that letter when that tells the two apart."""
    count: dict[str, int] = {}
    for *_rest, read in headers:
        count[read[0]] = count.get(read[0], 0) + 1
    out = []
    for box, lines, generics, read in headers:
        if count[read[0]] > 1:
            alone = _header_read(lines, glued_letter_is_kind=False)
            if alone[0] != read[0] and alone[0] not in count:
                count[read[0]] -= 1
                count[alone[0]] = 1
                read = alone
        out.append((box, lines, generics, read))
    return out


def in_diagram_case(classes: list[DraftClass]) -> list[DraftClass]:
    """Names whose first letter's case OCR cannot tell (``vehicle``) follow the diagram's own
    convention: capitalised when most of the other names are."""
    def unsure(name: str) -> bool:
        return name[:1].lower() in _SIZE_ONLY_CASE

    sure = [c.name for c in classes if not unsure(c.name)]
    if not sure or 2 * sum(n[0].isupper() for n in sure) <= len(sure):
        return classes
    taken = {c.name for c in classes}
    out = []
    for cls in classes:
        name = cls.name[:1].upper() + cls.name[1:] if unsure(cls.name) else cls.name
        if name != cls.name and name in taken:
            name = cls.name  # two names that differ only in case stay apart
        taken.add(name)
        out.append(replace(cls, name=name))
    return out
