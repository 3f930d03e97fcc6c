"""Reading one relation line (``A "1" *-- "many" B : owns >``) into its parts and CLUE type.

The arrow grammar follows PlantUML 1.2022.6's ``CommandLinkClass``: a head, a body of ``-``,
``=`` or ``.`` (optionally with ``[style]`` and a direction word inside), a head. All
regular expressions here use possessive quantifiers, so a hostile 200 KB line is read in
linear time. The mapping from heads to relation types is documented in ``parser.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.model import RelationType


class ArrowError(ValueError):
    """A line that is meant as a relation but cannot be read as one."""


@dataclass(frozen=True)
class RelationSyntax:
    left: str  # the name as written, quotes removed (may still hold a ``::member`` part)
    right: str
    left_quoted: bool
    right_quoted: bool
    type: RelationType
    swap: bool  # the canonical begin is the right-hand name
    hidden: bool  # `-[hidden]-`: a layout helper, not a relation
    left_multiplicity: str
    right_multiplicity: str
    label: str
    sequence_like: bool  # would also read as a sequence-diagram message


_NAME = r'"[^"\n]++"|[\w$]++(?:(?:\.|::)[\w$]++)*+'
_HEAD1 = r"<\|\||<\|:|<\||\}o|\}\||\|o|\|\||[)#<*+^}]|(?<=\s)[oOxX]"
_HEAD2 = r"\|\|>|:\|>|\|>|o\{|\|\{|o\||\|\||[(#>*+^{]|[oOxX](?=\s)"
_DIRECTION = r"left|right|down|up|le|ri|do|l|r|u|d"
_STYLE = r"\[[^\]\n]*+\]"
_ARROW = (
    rf"(?P<lh>{_HEAD1})?+(?P<b1>[-=.]++)"
    rf"(?:(?P<mid>(?:{_STYLE})?+(?:{_DIRECTION})?+(?:{_STYLE})?+)(?P<b2>[-=.]++))?+"
    rf"(?P<rh>{_HEAD2})?+"
)
_MULT1 = r'(?:"(?P<m1>[^"\n]*+)"\s*+)?+'
# Only a multiplicity if a class name follows (`A *-- "Long Name"` has none).
_MULT2 = r'(?:"(?P<m2>[^"\n]*+)"\s*+(?=["\w$]))?+'
_RELATION = re.compile(
    rf"(?P<left>{_NAME})\s*+{_MULT1}{_ARROW}\s*+{_MULT2}(?P<right>{_NAME})\s*+(?P<rest>.*+)",
    re.IGNORECASE,
)
_MISSING_RIGHT = re.compile(rf"(?:{_NAME})\s*+{_MULT1}{_ARROW}\s*+{_MULT2}", re.IGNORECASE)
_MISSING_LEFT = re.compile(rf"{_MULT1}{_ARROW}\s*+{_MULT2}(?:{_NAME})", re.IGNORECASE)
# Text PlantUML allows after the right-hand class: a colour and a link.
_TRAILER = re.compile(r"(?:#[\w:;.#-]*+\s*+)?+(?:\[\[[^\]\n]*+\]\]\s*+)?+")
# Tokens that say "this line is an arrow", so failing to read it is an error, not a warning.
ARROWISH = re.compile(r"--|\.\.|==|->|<-|\.>|<\.|-\||\|-|[*o+#x}]-|-[*o+#x{]|[-.]\[")
_QUOTED_LABEL_3 = re.compile(r'"([^"]++)"([^"]++)"([^"]++)"')
_QUOTED_LABEL_FIRST = re.compile(r'"([^"]++)"([^"]++)')
_QUOTED_LABEL_SECOND = re.compile(r'([^"]++)"([^"]++)"')

_EXTENDS = frozenset({"<|", "|>", "<||", "||>", "<|:", ":|>", "^"})


def _category(head: str | None) -> str:
    if not head:
        return ""
    if head in _EXTENDS:
        return "extends"
    if head == "*":
        return "composition"
    if head.lower() == "o":
        return "aggregation"
    if head in ("<", ">"):
        return "arrow"
    return "other"  # + # x } { ( ) and the crow's feet: decorations of an association


def split_label(text: str) -> tuple[str, str | None]:
    """``A --> B : owns`` → (``A --> B``, ``owns``): the first ``:`` outside quotes, not ``::``."""
    in_quotes = False
    index = 0
    length = len(text)
    while index < length:
        ch = text[index]
        if ch == '"':
            in_quotes = not in_quotes
        elif ch == ":" and not in_quotes:
            if index + 1 < length and text[index + 1] == ":":
                index += 2
                continue
            if index > 0 and text[index - 1] == ":":
                index += 1
                continue
            return text[:index].rstrip(), text[index + 1:].strip()
        index += 1
    return text, None


def parse_relation(text: str) -> RelationSyntax | None:
    """The relation on this line, ``None`` if it is no relation at all.

    Raises :class:`ArrowError` for a line that clearly is an arrow but cannot be read (a
    missing end, an unknown head, an empty label).
    """
    body, label = split_label(text)
    match = _RELATION.fullmatch(body)
    if match is None or _TRAILER.fullmatch(match.group("rest")) is None:
        if ARROWISH.search(body) is None:
            return None
        if _MISSING_RIGHT.fullmatch(body):
            raise ArrowError("relation without a class on its right-hand side")
        if _MISSING_LEFT.fullmatch(body):
            raise ArrowError("relation without a class on its left-hand side")
        if match is not None:
            raise ArrowError("unexpected text after the relation")
        raise ArrowError("cannot read this arrow")
    if label is not None and not label:
        raise ArrowError("empty relation label after ':'")
    left_mult = (match.group("m1") or "").strip()
    right_mult = (match.group("m2") or "").strip()
    name, left_mult, right_mult = _label_parts(label or "", left_mult, right_mult)
    lh, rh = match.group("lh"), match.group("rh")
    style = (match.group("mid") or "").lower()
    dotted = "." in match.group("b1") + (match.group("b2") or "") or any(
        word in style for word in ("dashed", "dotted"))
    relation_type, swap = relation_type_for(lh, rh, dotted)
    left, right = match.group("left"), match.group("right")
    return RelationSyntax(
        left=left.strip('"'),
        right=right.strip('"'),
        left_quoted=left.startswith('"'),
        right_quoted=right.startswith('"'),
        type=relation_type,
        swap=swap,
        hidden="hidden" in style,
        left_multiplicity=left_mult,
        right_multiplicity=right_mult,
        label=name,
        sequence_like=_sequence_like(match, lh, rh, style),
    )


def relation_type_for(lh: str | None, rh: str | None, dotted: bool) -> tuple[RelationType, bool]:
    """(type, swap) for an arrow's left head, right head and line style; see parser.py's table."""
    left, right = _category(lh), _category(rh)
    for category, solid, dashed in (
        ("extends", RelationType.GENERALIZATION, RelationType.REALIZATION),
        ("composition", RelationType.COMPOSITION, RelationType.COMPOSITION),
        ("aggregation", RelationType.AGGREGATION, RelationType.AGGREGATION),
    ):
        if category in (left, right):
            kind = dashed if dotted else solid
            if kind in (RelationType.GENERALIZATION, RelationType.REALIZATION):
                # The triangle marks the parent, which is the canonical *end*.
                return kind, left == category
            # The diamond marks the whole, which is the canonical *begin*.
            return kind, left != category
    if dotted:
        # Dependency: the arrow head marks the supplier (end); `<..` is written backwards.
        return RelationType.DEPENDENCY, left == "arrow" and right != "arrow"
    return RelationType.ASSOCIATION, False


def _label_parts(label: str, left_mult: str, right_mult: str) -> tuple[str, str, str]:
    """The relation name with PlantUML's extras removed: quotes, ``<``/``>`` reading marks,
    and multiplicities written inside the label (``: "1" owns "many"``)."""
    label = label.strip()
    if label and not left_mult and not right_mult:
        if m := _QUOTED_LABEL_3.fullmatch(label):
            left_mult, label, right_mult = m.group(1).strip(), m.group(2), m.group(3).strip()
        elif m := _QUOTED_LABEL_FIRST.fullmatch(label):
            left_mult, label = m.group(1).strip(), m.group(2)
        elif m := _QUOTED_LABEL_SECOND.fullmatch(label):
            label, right_mult = m.group(1), m.group(2).strip()
        label = label.strip()
    if len(label) >= 2 and label.startswith('"') and label.endswith('"'):
        label = label[1:-1].strip()
    if label in ("<", ">"):
        label = ""
    elif label.startswith(("< ", "> ")):
        label = label[2:].strip()
    elif label.endswith((" >", " <")):
        label = label[:-2].strip()
    return label, left_mult, right_mult


def _sequence_like(match: re.Match[str], lh: str | None, rh: str | None, style: str) -> bool:
    """Whether PlantUML would also take this line as a sequence message (``A -> B``)."""
    body = match.group("b1") + (match.group("b2") or "")
    # A colour or style is fine in a sequence message, a direction word is not.
    if set(body) != {"-"} or (style and not (style.startswith("[") and style.endswith("]"))):
        return False
    if match.group("m1") is not None or match.group("m2") is not None:
        return False
    if "::" in match.group("left") or "::" in match.group("right"):
        return False
    heads_ok = (lh or "").lower() in ("", "<", "x") and (rh or "").lower() in ("", ">", "x")
    return heads_ok and bool(lh or rh)
