"""Words of image A that are a name of the PlantUML misread beyond near spelling.

The invented side already weighs how much a PlantUML name it did not find resembles the
text read (``Student`` beside a header read ``Studem`` was misread, not invented). The
other side did not: that ``Studem`` was reported "in image A, not in the PlantUML" at full
weight, and the faithful conversion of a drawing without anti-aliasing was flagged
(issue 29: 15–35 % of such drawings). Here each word left over after pairing is set
against the names left over of its kind, one to one, most alike first, and carries a
finding only as far as it does not look like one of them (the same
:func:`~cluestudio.core.check.check.invented_confidence` scale the invented side uses).

A box's leftover header words run together are also a reading of one name: a long class
name a narrow box wraps over three lines (``Appo`` / ``intment`` / ``Entry``).

The same holds for the words other tools write above a class's name for its kind
(``«enumeration»`` read ``menumeration`` or ``numeiation`` once OCR lost its guillemets):
no name of the model, and never one to one (several classes say it).

A dropped class leaves no name over (the conversion lacks it), so its header is weighed
against the names OCR misread elsewhere, which resemble it little, and is still found.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from cluestudio.core.check.doubtful import KIND_WORDS
from cluestudio.core.check.names import ModelName
from cluestudio.core.check.tokens import ImageToken

# Kinds of word and name set against each other: a class's header with class names (never
# with a type: a dropped class that another class's member still names is found), a member
# with members (a member misread as another member).
_MEMBERS = frozenset({"attribute", "method", "parameter", "type"})


def _family(kind: str) -> str:
    return "member" if kind in _MEMBERS else kind
# Kind words long enough for a misreading of them to be told from another word.
_LONG_KIND_WORDS = frozenset(w for words in KIND_WORDS.values() for w in words if len(w) >= 6)
# Not the name of a model, a kind word is weighed as misread only from this alike up
# (``menumeration`` 0.96, ``winterfac`` 0.89; ``reservation`` is 0.73 from ``enumeration``).
KIND_WORD_LIKENESS = 0.8


def _similarity(a: str, b: str) -> float:
    from rapidfuzz import fuzz

    return float(fuzz.ratio(a, b)) / 100.0


def misread_likeness(tokens: Sequence[ImageToken], names: Sequence[ModelName],
                     free_tokens: Collection[int], free_names: Collection[int]
                     ) -> dict[int, float]:
    """Token index → how alike (0..1) the leftover name it is most likely a reading of is,
    for the leftover class and member words (``free_tokens``) against the leftover names
    (``free_names``): a header against class names, a member against members; each name
    explains one reading, the most alike first. A header word also counts as alike as a
    kind word it resembles from :data:`KIND_WORD_LIKENESS` up."""
    readings: list[tuple[tuple[int, ...], str, str]] = []
    headers: dict[int, list[int]] = {}
    likeness: dict[int, float] = {}
    for t in sorted(free_tokens, key=lambda u: (tokens[u].line, tokens[u].position)):
        token = tokens[t]
        family = _family(token.kind)
        if family not in ("class", "member") or len(token.key) < 2:
            continue
        readings.append(((t,), family, token.key))
        if token.kind == "class" and token.class_box is not None:
            headers.setdefault(token.class_box, []).append(t)
            kind_word = max(_similarity(token.key, w) for w in _LONG_KIND_WORDS)
            if len(token.key) >= 6 and kind_word >= KIND_WORD_LIKENESS:
                likeness[t] = kind_word
    for header in headers.values():
        if len(header) > 1:
            readings.append((tuple(header), "class", "".join(tokens[t].key for t in header)))
    candidates = []
    for n in free_names:
        name = names[n]
        family = _family(name.kind)
        if family not in ("class", "member") or len(name.key) < 2:
            continue
        for r, (_run, kind, key) in enumerate(readings):
            if kind == family:
                candidates.append((-_similarity(key, name.key), r, n))
    used_names: set[int] = set()
    taken: set[int] = set()
    for negative, r, n in sorted(candidates):
        run = readings[r][0]
        if n in used_names or any(t in taken for t in run):
            continue
        used_names.add(n)
        for t in run:
            taken.add(t)
            likeness[t] = max(likeness.get(t, 0.0), -negative)
    return likeness
