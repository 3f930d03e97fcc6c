"""Reading one link line (``A "1" *-- "many" B : owns >``) into its parts and CLUE type.

The grammar is PlantUML 1.2026.2's ``CommandLinkClass`` (and ``CommandLinkLollipop`` for
``A -() I``): an optional ``@weight``, an end (a name, a quoted name or an association
couple ``(A, B)``), an optional quoted multiplicity, a head, a body of ``-``, ``=`` or
``.`` with an optional ``[style]``, direction word and ``(0)`` inside, a head, the other
multiplicity and end, then an optional colour, ``[[link]]`` and ``: label``. Every
repetition is possessive, so a hostile 200 KB line is read in linear time. The mapping from
heads to relation types is documented in ``parser.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.model import RelationType


class ArrowError(ValueError):
    """A line that is meant as a relation but cannot be read as one."""


@dataclass(frozen=True)
class LinkEnd:
    token: str  # as written, quotes removed (may hold separators or a ``::member`` part)
    quoted: bool
    couple: tuple[str, str] | None = None  # ``(A, B)``: the point of an association class


@dataclass(frozen=True)
class RelationSyntax:
    left: LinkEnd
    right: LinkEnd
    type: RelationType
    swap: bool  # the canonical begin is the right-hand end
    hidden: bool  # `-[hidden]-`: a layout helper, not a relation
    left_multiplicity: str
    right_multiplicity: str
    label: str
    sequence_like: bool  # would also read as a sequence-diagram message
    lollipop: str = ""  # "left" or "right": that end is a lollipop interface (`()`)
    navigable: str = ""  # an association's arrow heads: "end", "begin", "both" or ""


# PlantUML's separators inside a link end: `.`, `::`, `\` and `\\`.
_SEP = r"(?:\.|::|\\\\?+)"
_ENT = rf'(?:{_SEP})?+[\w$]++(?:{_SEP}[\w$]++)*+|"[^"\n]++"'
_SINGLE = r'[.\\]{0,2}\w++(?:[.\\]{1,2}\w++)*+'
_COUPLE_ITEM = rf'{_SINGLE}|"{_SINGLE}"'
# A letter head (`o`, `x`) or PlantUML 1.2026's `0`, `0)`, `(0` needs a space or the quote
# of a multiplicity glued to it (`A "0..1"o--"*" B`) between it and the name; `<<`/`>>`
# (1.2026) are open arrow heads.
_HEAD1 = (r"<\|[:|]|<\||<_|<<|\[\||\}o|\}\||\|o|\|\||[)#\[<*+^}]"
          r"|(?<=[\s\"])(?:[ox]|0\)?+)")
_HEAD2 = (r"[|:]\|>|:>>?+|_>|>>|\|[>\]]|o\{|\|\{|o\||\|\||[(#\]>*+^{]"
          r"|(?:[ox]|\(?+0)(?=[\s\"])")
_STYLE_ITEM = r"#\w++|dotted|dashed|plain|bold|hidden|norank|single|thickness=\d++"
_STYLE = rf"\[(?:{_STYLE_ITEM})(?:,(?:{_STYLE_ITEM}))*+\]"
_DIRECTION = r"left|right|up|down|le?|ri?|up?|do?"
_INSIDE = r"(?:\(0\)|\(0|0\)|0)(?=[-=.~])"


def _end(name: str) -> str:
    return (rf'(?:(?P<{name}>{_ENT})|\(\s*+(?P<{name}_a>{_COUPLE_ITEM})\s*+,'
            rf'\s*+(?P<{name}_b>{_COUPLE_ITEM})\s*+\))')


_LINK = re.compile(
    r"(?:@[\d.]++\s++)?+"
    + _end("left") + r"\s*+(?:\[(?P<q1>[^\]\n]*+)\]\s*+)?"
    + r'(?:"(?P<m1>[^"\n]++)"\s*+)?'
    + rf"(?P<lh>{_HEAD1})?(?P<b1>[-=.]++)(?P<s1>{_STYLE})?+(?P<dir>{_DIRECTION})?"
    + rf"(?P<inside>{_INSIDE})?+(?P<s2>{_STYLE})?+(?P<b2>[-=.]*+)(?P<rh>{_HEAD2})?"
    + r'\s*+(?:"(?P<m2>[^"\n]++)"\s*+)?(?:\[(?P<q2>[^\]\n]*+)\]\s*+)?'
    + _end("right") + r"\s*+"
    # the link's inline style: `#red`, `#D55E00;line.bold`, `#line:red;line.dashed;text:red`
    + r"(?:#[\w#/\\|-]++(?:[:;.][\w#/\\|-]++)*+\s*+)?+(?:\[\[[^\]\n]*+\]\]\s*+)?+"
    + r"(?::\s*+(?P<label>.+))?",
    re.IGNORECASE,
)
# `A -() I`, `I ()- A`: a lollipop (provided interface) at the `()` side.
_LOLLIPOP_END = r'(?:(?:interface|enum|annotation|abstract\s++class|abstract|class|entity|' \
    r'protocol|struct|object)\s++)?+(?P<{0}>\.?+\w++(?:\.\w++)*+|"[^"\n]++")\s*+(?:<<.*?>>)?+'
_LOLLIPOP = re.compile(
    r"(?:@[\d.]++\s++)?+" + _LOLLIPOP_END.format("left") + r"\s*+"
    r'(?:"(?P<m1>[^"\n]++)"\s*+)?'
    r"(?:(?P<lol_left>[()]\))(?P<b1>[-=.]++)|(?P<b2>[-=.]++)(?P<lol_right>\([()]))"
    r'\s*+(?:"(?P<m2>[^"\n]++)"\s*+)?' + _LOLLIPOP_END.format("right") + r"\s*+"
    r"(?::\s*+(?P<label>.+))?",
    re.IGNORECASE,
)
# Tokens that say "this line is an arrow", so failing to read it is an error, not a warning.
ARROWISH = re.compile(r"--|\.\.|==|->|<-|\.>|<\.|-\||\|-|[*o+#x}]-|-[*o+#x{]|[-.]\[")
_NAME_ONLY = re.compile(rf"(?:{_ENT})\s*+", re.IGNORECASE)
_ARROW_ONLY = re.compile(
    rf"(?:{_HEAD1})?[-=.]++(?:{_STYLE})?+(?:{_DIRECTION})?(?:{_STYLE})?+[-=.]*+(?:{_HEAD2})?",
    re.IGNORECASE)
_QUOTED_LABEL_3 = re.compile(r'"([^"]++)"([^"]++)"([^"]++)"')
_QUOTED_LABEL_FIRST = re.compile(r'"([^"]++)"([^"]++)')
_QUOTED_LABEL_SECOND = re.compile(r'([^"]++)"([^"]++)"')

_EXTENDS = frozenset({"<|", "|>", "^"})


def _category(head: str | None) -> str:
    if not head:
        return ""
    if head in _EXTENDS:
        return "extends"
    if head == "*":
        return "composition"
    if head.lower() == "o":
        return "aggregation"
    if head in ("<", ">", "<<", ">>"):  # `>>`, `<<`: PlantUML 1.2026's open heads
        return "arrow"
    # + # x } { ( ) [ ] _> <_ :> <|: <|| … and the crow's feet: decorations of an
    # association (PlantUML's XMI export lists all of them as plain associations).
    return "other"


def parse_relation(text: str) -> RelationSyntax | None:
    """The link on this line, ``None`` if it is no link at all.

    Raises :class:`ArrowError` for a line that clearly is an arrow but cannot be read (a
    missing end, an unknown head, an empty label).
    """
    match = _LINK.fullmatch(text)
    if match is not None:
        return _link(match)
    lollipop = _LOLLIPOP.fullmatch(text)
    if lollipop is not None:
        return _lollipop(lollipop)
    if ARROWISH.search(text) is None:
        return None
    raise ArrowError(_diagnosis(text))


def _diagnosis(text: str) -> str:
    body = text.split(" : ", 1)[0].rstrip()
    if body.endswith(":"):
        return "empty relation label after ':'"
    name = _NAME_ONLY.match(body)
    if name is not None:
        arrow = _ARROW_ONLY.match(body, name.end())
        rest = body[arrow.end():].strip() if arrow else ""
        if arrow and not rest:
            return "relation without a class on its right-hand side"
        if arrow and re.match(r"[\w\"]", rest):
            return "unexpected text after the relation"
    elif _ARROW_ONLY.match(body.lstrip('"0123456789. ')):
        return "relation without a class on its left-hand side"
    return "cannot read this arrow"


def _link_end(match: re.Match[str], name: str) -> LinkEnd:
    token = match.group(name)
    if token is not None:
        return LinkEnd(token.strip('"'), token.startswith('"'))
    first, second = match.group(f"{name}_a"), match.group(f"{name}_b")
    couple = (first.strip('"'), second.strip('"'))
    return LinkEnd(f"({couple[0]}, {couple[1]})", False, couple)


def _link(match: re.Match[str]) -> RelationSyntax:
    label = match.group("label")
    left_mult = (match.group("m1") or "").strip()
    right_mult = (match.group("m2") or "").strip()
    name, left_mult, right_mult = _label_parts(label or "", left_mult, right_mult)
    lh, rh = match.group("lh"), match.group("rh")
    style = ((match.group("s1") or "") + (match.group("s2") or "")).lower()
    body = match.group("b1") + match.group("b2")
    dotted = body.startswith(".") or "dashed" in style or "dotted" in style
    relation_type, swap = relation_type_for(lh, rh, dotted)
    left, right = _link_end(match, "left"), _link_end(match, "right")
    return RelationSyntax(
        left=left,
        right=right,
        type=relation_type,
        swap=swap,
        hidden="hidden" in style,
        left_multiplicity=left_mult,
        right_multiplicity=right_mult,
        label=name,
        sequence_like=_sequence_like(match, lh, rh, style, left, right),
        navigable=_navigable(relation_type, lh, rh),
    )


def _navigable(relation_type: RelationType, lh: str | None, rh: str | None) -> str:
    """Which end of an association the arrow heads point to (``<``/``>`` only)."""
    if relation_type is not RelationType.ASSOCIATION:
        return ""
    at_begin, at_end = _category(lh) == "arrow", _category(rh) == "arrow"
    return {(False, True): "end", (True, False): "begin", (True, True): "both"}.get(
        (at_begin, at_end), "")


def _lollipop(match: re.Match[str]) -> RelationSyntax:
    left = LinkEnd(match.group("left").strip('"'), match.group("left").startswith('"'))
    right = LinkEnd(match.group("right").strip('"'), match.group("right").startswith('"'))
    name, left_mult, right_mult = _label_parts(match.group("label") or "",
                                               (match.group("m1") or "").strip(),
                                               (match.group("m2") or "").strip())
    at_left = match.group("lol_left") is not None
    # The class provides the lollipop interface: a realization, class → interface.
    return RelationSyntax(left, right, RelationType.REALIZATION, swap=at_left, hidden=False,
                          left_multiplicity=left_mult, right_multiplicity=right_mult,
                          label=name, sequence_like=False,
                          lollipop="left" if at_left else "right")


def relation_type_for(lh: str | None, rh: str | None, dotted: bool) -> tuple[RelationType, bool]:
    """(type, swap) for an arrow's left head, right head and line style; see parser.py's table."""
    left, right = _category(lh), _category(rh)
    if left == right == "extends":
        # `A <|--|> B`: PlantUML's XMI export makes A the child.
        return (RelationType.REALIZATION if dotted else RelationType.GENERALIZATION), False
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


def _sequence_like(match: re.Match[str], lh: str | None, rh: str | None, style: str,
                   left: LinkEnd, right: LinkEnd) -> bool:
    """Whether PlantUML would also take this line as a sequence message (``A -> B``)."""
    body = match.group("b1") + match.group("b2")
    # A colour or style is fine in a sequence message, a direction word is not; nor is a
    # class diagram's `@weight`.
    if set(body) != {"-"} or match.group("dir") or match.group("inside") \
            or match.string.startswith("@"):
        return False
    if match.group("m1") is not None or match.group("m2") is not None:
        return False
    if left.couple or right.couple or "::" in left.token or "::" in right.token:
        return False
    if left.token.startswith(".") or right.token.startswith("."):
        return False
    heads_ok = (lh or "").lower() in ("", "<", "<<", "x") \
        and (rh or "").lower() in ("", ">", ">>", "x")
    return heads_ok and bool(lh or rh)
