"""The words of image A as OCR read them, cut the way names are written in a class diagram.

An OCR line such as ``□ book(doctor : Doctor, at : DateTime) : Appointment`` becomes the
tokens book (method), doctor and at (parameters), Doctor, DateTime and Appointment (types),
each with its slice of the line's box. Visibility icons and class-kind circles read as
stray characters (``□``, ``α``, ``©``) are dropped. Where the layout knows the class boxes,
a token's compartment decides its kind (header → class, outside any box → label or
multiplicity); otherwise the line's own shape does.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from cluestudio.core.check.names import fold_diacritics, name_key
from cluestudio.core.ocr.result import Box, Layout, OcrResult

# An identifier, or a multiplicity as OCR reads it (``0..*``, ``0.*``, ``1..n``, ``*``).
_TOKEN = re.compile(r"(?P<mult>(?<![\w.])(?:\d+|\*)(?:\s?\.{1,3}\s?(?:\d+|\*|n)?)?(?![\w]))"
                    r"|(?P<ident>[^\W\d]\w*)")


# Words a diagram writes that are no model name of their own: visibility and other
# modifiers, literals, UML's keywords (an ``«interface»`` whose guillemets OCR lost, a
# frame's ``class``/``package`` tab), and the primitive types of the usual languages. Read
# but not in the PlantUML, they are no finding; a reviewer sees them as "keyword" or
# "type keyword" (never "stereotype": ``double`` is not one).
TYPE_KEYWORDS = frozenset((
    "void", "int", "integer", "bool", "boolean", "string", "str", "float", "double", "long",
    "char", "byte", "short",
))
KEYWORDS = TYPE_KEYWORDS | frozenset((
    "public", "private", "protected", "package", "internal", "static", "final", "abstract",
    "virtual", "override", "const", "readonly", "null", "none", "true", "false", "self",
    "this", "new", "return", "extends", "implements", "interface", "enum", "enumeration",
    "class", "object", "datatype", "primitive", "utility", "namespace", "frame", "pkg", "cd",
))


# OCR reads a small ``s`` at a word's end as ``$`` (``pay$``); no name of a class diagram
# ends in one
_S_READ_AS_DOLLAR = re.compile(r"(?<=[^\W\d_])\$(?![\w$])")


def keyword_kind(word: str) -> str:
    """"type keyword" for a primitive type's name, "keyword" for any other keyword, ""."""
    folded = fold_diacritics(word).casefold()
    if folded in TYPE_KEYWORDS:
        return "type keyword"
    return "keyword" if folded in KEYWORDS else ""


# Text between these is a stereotype, a constraint or a property (``«entity»``,
# ``{ordered, unique}``, ``{abstract}``), a quoted value (``"Admin"``) or what follows an
# ``=`` (an initial value, ``= 0x7F0``): not a name.
_BRACKETED = re.compile(r"«[^»]*»?|<<[^>]*(?:>>)?|\{[^}]*\}?|\[[^\]]*\]?|\"[^\"]*\"?"
                        r"|=[^,;)]*")


@dataclass(frozen=True)
class ImageToken:
    text: str
    kind: str  # guessed: class, attribute, method, parameter, type, label, multiplicity
    box: Box
    confidence: float
    line: int  # index of the OCR line
    position: int  # index of the token within its OCR line
    weak: bool = False  # one letter: compared, never reported on its own
    class_box: int | None = None  # index of the layout box holding it

    @property
    def key(self) -> str:
        return name_key(self.text, multiplicity=self.kind == "multiplicity")

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "kind": self.kind, "box": self.box.to_list(),
                "rect": [round(v, 1) for v in self.box.rect],
                "confidence": round(self.confidence, 3)}


def _clean(word: str) -> tuple[str, int]:
    """Drop icon noise at the front (non-ASCII letters before an ASCII name, but not a
    Latin letter with a diacritic: ``ïnterface`` is the word, misread); returns the
    cleaned word and how many characters were dropped."""
    dropped = 0
    while len(word) > 1 and not fold_diacritics(word[0]).isascii() \
            and any(c.isascii() for c in word[1:]):
        word = word[1:]
        dropped += 1
    return word, dropped


def _weak(word: str) -> bool:
    """One letter, or two non-Latin ones (a visibility icon read as ``ασ``): compared,
    never reported."""
    return (len(word.strip("_")) < 2
            or (len(word) == 2 and not any(c.isascii() for c in word)))


def _member_shaped(text: str) -> bool:
    """A line written as a member (``+swim()``, ``- weight: float``, and behind its
    visibility icon read as a sign, ``□ weight : float``): found in a box's header
    compartment only when the layout missed a compartment line (or the box's top edge)."""
    stripped = text.strip()
    while stripped and not fold_diacritics(stripped[0]).isascii():
        stripped = stripped[1:].lstrip()  # icon noise, as :func:`_clean` drops it
    # ``name :`` alone: OCR read the type after the colon as a line of its own
    return bool(re.match(r"^[+#~-]\s*[^\W\d]", stripped)) or bool(
        re.match(r"^[^\W\d]\w*\s*(?:\(.*\)|:\s*(?:[^\W\d]|$))", stripped))


def _members_from(ocr: OcrResult, layout: Layout | None) -> dict[int, float]:
    """Per class box, the top of the first member-shaped line read in its header
    compartment: the layout missed a rule (or the box's top edge), and what lies from
    there down is members, not the class's name (a header is above its members)."""
    tops: dict[int, float] = {}
    if layout is None:
        return tops
    for line in ocr.lines:
        located = layout.locate(line.box)
        if located is not None and located[1] == 0 and _member_shaped(line.text):
            top = layout.upright(line.box.center)[1] - 0.5 * line.box.height
            tops[located[0]] = min(top, tops.get(located[0], top))
    return tops


def _line_kinds(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """Kinds by the line's shape: ``op(p : T) : R`` and ``name : Type``."""
    paren = text.find("(")
    close = text.rfind(")")
    kinds = []
    for i, (start, _end) in enumerate(spans):
        before = text[:start]
        if paren >= 0 and start < paren:
            kinds.append("method" if i == len([s for s in spans if s[0] < paren]) - 1
                         else "label")
        elif paren >= 0 and (close < 0 or start < close):
            inner = text[paren + 1:start]
            last_sep = max(inner.rfind(","), -1)
            kinds.append("type" if ":" in inner[last_sep + 1:] else "parameter")
        elif paren >= 0 or ":" in before:
            kinds.append("type")
        elif ":" in text[start:]:
            kinds.append("attribute")
        else:
            kinds.append("label")
    return kinds


def image_tokens(ocr: OcrResult, layout: Layout | None = None) -> list[ImageToken]:
    out: list[ImageToken] = []
    members_from = _members_from(ocr, layout)
    for index, line in enumerate(ocr.lines):
        found: list[tuple[str, int, int, bool]] = []
        # full-width letters (ＢＣ) are the same letters; NFKC keeps their count, so
        # character offsets still point into the line's box
        text = unicodedata.normalize("NFKC", line.text)
        text = text if len(text) == len(line.text) else line.text
        text = _S_READ_AS_DOLLAR.sub("s", text)
        bracketed = [m.span() for m in _BRACKETED.finditer(text)]
        for match in _TOKEN.finditer(text):
            if match.group("mult") is not None:
                found.append((match.group(), match.start(), match.end(), True))
                continue
            word, dropped = _clean(match.group())
            found.append((word, match.start() + dropped, match.end(), False))
        if not found:
            continue
        idents = [(s, e) for w, s, e, mult in found if not mult]
        shape = iter(_line_kinds(text, idents))
        located = None if layout is None else layout.locate(line.box)
        # a line from the first member line down (``List<Bay>``, the type OCR read
        # apart from ``berths :``) is a member too
        member = _member_shaped(text) or (
            located is not None and located[0] in members_from and layout is not None
            and layout.upright(line.box.center)[1] + 0.3 * line.box.height
            >= members_from[located[0]])
        for position, (word, start, end, mult) in enumerate(found):
            kind = "multiplicity" if mult else next(shape)
            # a digit before a member's name in a box is its visibility icon misread
            icon = (mult and position == 0 and located is not None and located[1] > 0
                    and len(found) > 1 and not found[1][3])
            if not mult and located is not None and located[1] == 0 and not member:
                kind = "stereotype" if "«" in line.text or "<<" in line.text else "class"
                if kind == "class" and len(idents) >= 3:
                    kind = "label"  # a sentence in a box: a note's or a legend's text
            elif not mult and located is None and layout is not None and layout.boxes:
                kind = "label"
            elif not mult and located is not None and kind == "label":
                # a bare word in a member compartment: an enum value, or a Java-style
                # member (``protected int count``, ``AgentAction act()``) whose last word
                # is the name and whose words before it are modifiers and types
                last = position == max(i for i, f in enumerate(found) if not f[3])
                kind = "attribute" if last else "type"
            if not mult and any(a <= start < b for a, b in bracketed):
                kind = "stereotype"
            elif not mult and keyword_kind(word) and not (
                    kind == "class" and len(idents) == 1 and word[:1].isupper()):
                # a capitalised keyword alone in a header is a class's name (``Frame``)
                kind = keyword_kind(word)
            out.append(ImageToken(word, kind, line.char_box(start, end), line.confidence,
                                  index, position, weak=icon or (not mult and _weak(word)),
                                  class_box=None if located is None else located[0]))
    return out
