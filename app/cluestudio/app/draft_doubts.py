"""The offline draft's doubts, read back from a PlantUML text (issue 29, item 4).

The draft writes a comment line ``' ? 0.58 name read at 0.58`` above each element it is not
sure of (:func:`cluestudio.core.draft.convert.doubt_comment`). Reading them from the text
rather than from the draft's result means a stored revision, a restarted workbench and a
text under edit all show the same doubts, with no schema of their own: once the reviewer
deletes or edits the comment line, the doubt is gone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.draft.convert import DOUBT_MARK

_COMMENT = re.compile(rf"^\s*{re.escape(DOUBT_MARK)}\s+(\d(?:\.\d+)?)\s*(.*?)\s*$")


@dataclass(frozen=True)
class TextDoubt:
    """A doubtful element of a draft's text."""

    comment_line: int  # 1-based line of the ``' ?`` comment
    line: int  # 1-based line of the element it marks (the next non-blank line)
    confidence: float
    reason: str

    def tooltip(self) -> str:
        return f"The draft is not sure of this ({self.confidence:.2f}): {self.reason}"


def doubts_in(text: str) -> list[TextDoubt]:
    """Each intact doubt comment of ``text`` with the element line below it; a comment
    with nothing after it (the element deleted) marks nothing."""
    lines = text.splitlines()
    found: list[TextDoubt] = []
    for index, line in enumerate(lines):
        match = _COMMENT.match(line)
        if match is None:
            continue
        below = next((j for j in range(index + 1, len(lines)) if lines[j].strip()), None)
        if below is None or lines[below].strip().startswith(("'", "@enduml")):
            continue
        reason = match.group(2) or "read with doubt"
        found.append(TextDoubt(index + 1, below + 1, float(match.group(1)), reason))
    return found


def next_doubt(doubts: list[TextDoubt], after_line: int) -> TextDoubt | None:
    """The first doubt whose element lies below ``after_line`` (1-based), else the first
    one (the jump wraps round); None when there are none."""
    if not doubts:
        return None
    return next((d for d in doubts if d.line > after_line), doubts[0])


def doubts_note(count: int, key: str) -> str:
    """What the review pane says about the draft's doubts ("" when there are none)."""
    if not count:
        return ""
    noun = "element" if count == 1 else "elements"
    return f"{count} doubtful {noun} in the draft — {key} jumps to the next"


def doubts_summary(text: str, where: str | None = None) -> str:
    """What ``convert --backend offline`` says of a draft saved at ``where`` (None: the
    window, whose review pane names the jump key): how many of its elements it doubts, in
    the review pane's words, so a TA knows to look."""
    count = len(doubts_in(text))
    if not count:
        return "the draft doubts none of its elements"
    noun = "element" if count == 1 else "elements"
    if where is None:
        return f"{count} doubtful {noun} in the draft, marked {DOUBT_MARK}"
    return (f"{count} doubtful {noun} in the draft, marked {DOUBT_MARK} in {where} "
            "(review mode: F9 jumps to the next)")
