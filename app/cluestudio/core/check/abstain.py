"""Which kinds of name the check did not judge on an image, and why, in a reviewer's words.

The check abstains rather than cry wolf (issue 29): a word OCR read unsurely carries no
flag, and a line written like a member (``pages : int``) that lies outside every class box
the layout found is kept as a label, which never raises one. Both are right, and both
leave the report's "no flag" silent about those names: a TA shown "no flag" for a
whiteboard photo whose conversion dropped two attributes read it as "the attributes are
fine". Each abstention is said here, one sentence per kind and reason ("attributes not
judged: pages, release, written outside the class boxes found").
"""

from __future__ import annotations

from collections.abc import Sequence

from cluestudio.core.check.report import FLAG_CONFIDENCE, FLAG_KINDS, MissingName
from cluestudio.core.check.tokens import ImageToken, _member_shaped
from cluestudio.core.ocr.result import OcrResult

_PLURAL = {"class": "class names", "attribute": "attributes", "method": "methods"}
_SHOWN = 3  # names quoted in a sentence; the findings list has them all


def _sentence(kinds: str, why: str, names: Sequence[str]) -> str:
    more = len(names) - _SHOWN
    quoted = ", ".join(names[:_SHOWN]) + (f" and {more} more" if more > 0 else "")
    return f"{kinds} not judged: {quoted}, {why}"


def not_judged(ocr: OcrResult, tokens: Sequence[ImageToken],
               missing: Sequence[MissingName]) -> tuple[str, ...]:
    """Sentences for what of image A the check read but did not weigh, from the text it
    reports as dropped (``missing``, read as ``tokens``): a member's name outside every
    class box found (kept as a label), and a class, attribute or method name whose flag
    OCR's doubt took away (its confidence below a flag's: only an unsure read, or a name
    under three letters, lowers a dropped name's)."""
    at = {(token.text, token.box.rect): token for token in tokens}
    outside: dict[str, list[str]] = {}
    doubted: dict[str, list[str]] = {}
    for finding in missing:
        if finding.box is None:  # compared with the diagram A carries: nothing was read
            continue
        token = at.get((finding.text, finding.box.rect))
        if token is None:
            continue
        if finding.kind in FLAG_KINDS:
            if finding.confidence < FLAG_CONFIDENCE and len(finding.text) >= 3:
                doubted.setdefault(finding.kind, []).append(finding.text)
            continue
        if finding.kind != "label" or token.class_box is not None:
            continue
        text = ocr.lines[token.line].text
        first = min((t.position for t in tokens
                     if t.line == token.line and t.kind != "multiplicity"), default=-1)
        if token.position == first and _member_shaped(text):  # the name, not its type
            outside.setdefault("method" if "(" in text else "attribute", []).append(
                finding.text)
    sentences = [_sentence(_PLURAL[kind], "written outside the class boxes found",
                           names)
                 for kind, names in sorted(outside.items())]
    sentences += [_sentence(_PLURAL[kind], "read too unsurely (handwriting, blur or small "
                            "text)", names)
                  for kind, names in sorted(doubted.items())]
    return tuple(sentences)
