"""Reading one member line of a class body (``+name : Type``, ``R name(T p)``, enum values).

PlantUML itself only draws member text; we split it into the model's names and types, so
the forms students and LLMs really write (UML ``name : Type`` and Java ``Type name``) must
both come out the same.
"""

from __future__ import annotations

import re

from cluestudio.core.model import Attribute, Method, Param

Member = Attribute | Method

VISIBILITY = "+-#~"
_SEPARATORS = ("--", "==", "..", "__")
_MODIFIERS = {
    "{static}": "static",
    "{classifier}": "static",
    "{abstract}": "abstract",
    "{field}": "field",
    "{method}": "method",
}
# Java/C#-style words some write in front of a member; they carry no name or type.
_JAVA_VISIBILITY = {"public": "+", "private": "-", "protected": "#", "package": "~"}
_JAVA_FLAGS = {"static", "abstract", "final", "const", "readonly", "virtual", "override",
               "default", "synchronized", "native", "transient", "volatile"}
# A lone parameter token is taken as a type if it looks like one, otherwise as a name.
PRIMITIVES = frozenset({
    "int", "integer", "long", "short", "byte", "float", "double", "decimal", "number",
    "bool", "boolean", "char", "string", "str", "void", "object", "date", "datetime",
    "any", "uint", "list", "dict", "set", "map", "array", "bytes",
})
_MODIFIER = re.compile(r"(\{(?:static|classifier|abstract|field|method)\})\s*+",
                       re.IGNORECASE)
_SPACES = re.compile(r"\s*+")
_WORD = re.compile(r"(\S++) ++")
_ENUM_VALUE = re.compile(r"[^\W\d]\w*+(?:\s*+\(.*\))?")
_IDENT = re.compile(r"[^\W\d]\w*+")
_OPENERS = {"<": ">", "(": ")", "[": "]", "{": "}"}


class MemberError(ValueError):
    """A member line we could not make sense of (the parser turns it into a warning)."""


def looks_like_type(token: str) -> bool:
    """Whether a lone parameter token reads as a type (``int``, ``Order``, ``List<T>``)."""
    return (token.lower() in PRIMITIVES or token[:1].isupper()
            or any(ch in token for ch in "<>[].?*&"))


def split_top(text: str, separator: str) -> list[str]:
    """Split at ``separator`` characters that are not inside ``<>``, ``()``, ``[]`` or ``{}``."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, ch in enumerate(text):
        if ch in _OPENERS:
            depth += 1
        elif ch in ">)]}" and depth > 0:
            depth -= 1
        elif depth == 0 and (ch == separator or (separator == " " and ch.isspace())):
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _tokens(text: str) -> list[str]:
    return [t for t in split_top(text, " ") if t]


def _drop_default(text: str) -> str:
    """``int = 5`` → ``int``: default values are not part of the model."""
    return split_top(text, "=")[0].strip()


def parse_member(text: str, line: int, in_enum: bool = False) -> list[Member]:
    """The members one body line declares: none for a separator, several for ``A, B`` in an enum.

    Raises :class:`MemberError` when the line names nothing.
    """
    text = text.strip().rstrip(";").rstrip()
    if not text or _is_separator(text):
        return []
    if text.startswith("* "):
        text = text[2:].lstrip()  # an ER diagram's "mandatory" mark, not part of the name
    visibility = ""
    flags: set[str] = set()
    # One pass with a position: slicing the rest after every marker would cost the square
    # of the line's length on a hostile `{static}{static}…` line.
    pos = 0
    length = len(text)
    while pos < length:
        match = _MODIFIER.match(text, pos)
        if match:
            flags.add(_MODIFIERS[match.group(1).lower()])
        elif text[pos] in VISIBILITY and not visibility and pos + 1 < length:
            visibility = text[pos]
            match = _SPACES.match(text, pos + 1)
        else:
            break
        assert match is not None  # `\s*+` always matches
        pos = match.end()
    text, visibility = _strip_java_words(text[pos:], visibility, flags)
    if not text:
        raise MemberError("a member needs a name")
    if in_enum and not visibility and not flags:
        values = [v.strip() for v in split_top(text, ",")]
        # `RED("r")` is a value with constructor arguments; `label()` is a method.
        if ":" not in text and all(
            _ENUM_VALUE.fullmatch(v) and ("(" not in v or v.split("(")[0].strip().isupper())
            for v in values if v
        ):
            return [Attribute(v.split("(")[0].strip(), "", line=line) for v in values if v]
    paren = text.find("(")
    colon = _top_colon(text)
    is_method = paren >= 0 and (colon < 0 or paren < colon)
    if "method" in flags:
        is_method = True
    if "field" in flags:
        is_method = False
    if is_method:
        return [_method(text, line, visibility, flags)]
    return [_attribute(text, line, visibility, flags)]


def _is_separator(text: str) -> bool:
    head = text[:2]
    return head in _SEPARATORS and (len(text) == 2 or text.endswith(head)
                                    or text.strip(head[0]) == "")


def _strip_java_words(text: str, visibility: str, flags: set[str]) -> tuple[str, str]:
    pos = 0
    while True:
        match = _WORD.match(text, pos)
        if match is None:
            return text[pos:], visibility
        rest = match.end()
        lowered = match.group(1).lower()
        # Only a leading word followed by more member text: a member may well be *named*
        # `default` or `final`.
        if rest >= len(text) or text[rest] in ":(=":
            return text[pos:], visibility
        if lowered in _JAVA_VISIBILITY:
            visibility = visibility or _JAVA_VISIBILITY[lowered]
        elif lowered in _JAVA_FLAGS:
            if lowered in ("static", "abstract"):
                flags.add(lowered)
        else:
            return text[pos:], visibility
        pos = rest


def _top_colon(text: str) -> int:
    """Index of the first ``:`` outside brackets that is not part of ``::``, or -1."""
    depth = 0
    index = 0
    length = len(text)
    while index < length:
        ch = text[index]
        if ch in _OPENERS:
            depth += 1
        elif ch in ">)]}" and depth > 0:
            depth -= 1
        elif ch == ":" and depth == 0:
            if index + 1 < length and text[index + 1] == ":":
                index += 2
                continue
            return index
        index += 1
    return -1


def _attribute(text: str, line: int, visibility: str, flags: set[str]) -> Attribute:
    colon = _top_colon(text)
    if colon >= 0:
        name = _drop_default(text[:colon])
        type_ = _drop_default(text[colon + 1:])
    else:
        tokens = _tokens(_drop_default(text))
        if len(tokens) >= 2:
            name, type_ = tokens[-1], " ".join(tokens[:-1])
        else:
            name, type_ = (tokens[0] if tokens else ""), ""
    if not name or not re.search(r"\w", name):
        raise MemberError("cannot find the attribute's name")
    return Attribute(name, type_, visibility, "static" in flags, line=line)


def _closing_paren(text: str, opening: int) -> int:
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _method(text: str, line: int, visibility: str, flags: set[str]) -> Method:
    opening = text.find("(")
    if opening < 0:
        text += "()"  # `{method} label`: a method written without parentheses
        opening = text.find("(")
    closing = _closing_paren(text, opening)
    if closing < 0:
        raise MemberError("method parameters: '(' is never closed")
    head = text[:opening].strip()
    inside = text[opening + 1:closing]
    tail = text[closing + 1:].strip()
    return_type = ""
    if tail.startswith(":"):
        return_type = tail[1:].strip()
    elif tail and not tail.startswith("{"):
        return_type = tail
    head_tokens = _tokens(head)
    if not head_tokens:
        raise MemberError("a method needs a name")
    name = head_tokens[-1]
    if len(head_tokens) > 1 and not return_type:
        return_type = " ".join(head_tokens[:-1])
    params = tuple(p for p in (parse_param(part) for part in split_top(inside, ",")) if p)
    return Method(name, return_type, params, visibility, "static" in flags,
                  "abstract" in flags, line=line)


def parse_param(text: str) -> Param | None:
    """One parameter: ``p: T``, ``T p``, or a lone name or type (decided by its look)."""
    text = text.strip()
    if not text:
        return None
    colon = _top_colon(text)
    if colon >= 0:
        return Param(_drop_default(text[:colon]), _drop_default(text[colon + 1:]))
    tokens = _tokens(_drop_default(text))
    while len(tokens) > 2 and tokens[0].lower() in ("final", "const"):
        tokens = tokens[1:]  # `final int x`: the modifier is not part of the type
    if not tokens:
        return None
    if len(tokens) >= 2:
        return Param(tokens[-1], " ".join(tokens[:-1]))
    token = tokens[0]
    return Param("", token) if looks_like_type(token) else Param(token, "")
