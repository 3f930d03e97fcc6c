"""Reading declaration headers: ``abstract class "Long Name" as LN<T> <<entity>> {``.

The parts come in PlantUML's order (``CommandCreateClass``, the same in 1.2022.6 and
1.2026.2): the name (``"Shown" as CODE``, ``CODE as "Shown"``, ``CODE`` or ``"CODE"``),
generic parameters, stereotypes,
tags, a ``[[link]]``, a colour, a ``##line`` colour, ``extends``, ``implements``, then an
optional ``{``. A small scanner rather than one big regular expression: generics nest
(``Map<K, List<V>>``) and every leftover character must be reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.model import ClassKind


class DeclarationError(ValueError):
    """A header with text we cannot place."""


# keyword → (kind, stereotype implied when none is written)
CLASS_KEYWORDS: dict[str, tuple[ClassKind, str]] = {
    "class": (ClassKind.CLASS, ""),
    "abstract class": (ClassKind.ABSTRACT, ""),
    "abstract": (ClassKind.ABSTRACT, ""),
    "interface": (ClassKind.INTERFACE, ""),
    "enum": (ClassKind.ENUM, ""),
    "protocol": (ClassKind.INTERFACE, "protocol"),
    "circle": (ClassKind.INTERFACE, "circle"),
    "annotation": (ClassKind.CLASS, "annotation"),
    "entity": (ClassKind.CLASS, "entity"),
    "struct": (ClassKind.CLASS, "struct"),
    "diamond": (ClassKind.CLASS, "diamond"),
    # Read by PlantUML 1.2026 (1.2022.6 refused them): classes.
    "static class": (ClassKind.CLASS, ""),
    "exception": (ClassKind.CLASS, "exception"),
    "record": (ClassKind.CLASS, "record"),
    "dataclass": (ClassKind.CLASS, "dataclass"),
    "metaclass": (ClassKind.CLASS, "metaclass"),
    "stereotype": (ClassKind.CLASS, "stereotype"),
}
# PlantUML 1.2022.6 has no `{ … }` body for these two.
BODYLESS_KEYWORDS = frozenset({"circle", "diamond"})
CLASS_HEADER = re.compile(
    r"(abstract\s++class|static\s++class|"
    + "|".join(k for k in CLASS_KEYWORDS if " " not in k)
    + r")(?:\s++(?P<rest>.*+)|$)",
    re.IGNORECASE,
)
# Object-diagram elements PlantUML reads in a class diagram too.
OBJECT_HEADER = re.compile(r"(object|map|json)(?:\s++(?P<rest>.*+)|$)", re.IGNORECASE)
LOLLIPOP_HEADER = re.compile(r"\(\)\s*+(?P<rest>.*+)")
DIAMOND_HEADER = re.compile(r"<>\s*+(?P<name>[\w.]++)")
# Containers that group classes: `package`/`namespace`, and the others with a `{` block.
PACKAGE_KEYWORDS = ("package", "namespace", "rectangle", "hexagon", "node", "artifact",
                    "folder", "file", "frame", "cloud", "database", "storage", "component",
                    "card", "queue", "stack")
PACKAGE_HEADER = re.compile(rf"({'|'.join(PACKAGE_KEYWORDS)})(?:\s++(?P<rest>.*+)|$)",
                            re.IGNORECASE)
# Elements of other diagrams; in a class diagram only after `allowmixing`.
MIXING_KEYWORDS = ("actor/", "actor", "usecase/", "usecase", "component", "boundary",
                   "control", "collections", "person", "artifact", "folder", "card", "file",
                   "rectangle", "hexagon", "label", "node", "frame", "cloud", "database",
                   "queue", "stack", "storage", "agent", "port", "portin", "portout", "state")
MIXING_HEADER = re.compile(rf"({'|'.join(re.escape(k) for k in MIXING_KEYWORDS)})"
                           r"\s++(?P<rest>.++)", re.IGNORECASE)

_CODE = re.compile(r'[^\s{}"<>]++')
_SPACE = re.compile(r"\s++")
_TOKEN = re.compile(r"[^\s{]*+")
_AS = re.compile(r"\s++as\s++", re.IGNORECASE)
_INHERIT = re.compile(r"(extends|implements)\s++", re.IGNORECASE)
_INHERIT_NAME = re.compile(r'"[^"\n]++"|[^\s,{}"]++')
_SPOT = re.compile(r"\(\s*+\S?\s*+(?:,[^)]*+)?+\)\s*+")
_STEREOTYPE = re.compile(r"<<(.*?)>>")
_OBJECT_NAME = re.compile(r'(?:"(?P<display>[^"\n]++)"\s++as\s++)?(?P<code>[\w.]++)')
_MIXING_NAME = re.compile(
    r'(?P<name>"[^"\n]++"|\([^()\n]++\)|\[[^\[\]\n]++\]|:[^:\n]++:|[\w.]++)'
    r'(?:\s++as\s++(?P<other>"[^"\n]++"|\([^()\n]++\)|\[[^\[\]\n]++\]|:[^:\n]++:|[\w.]++))?+',
    re.IGNORECASE)


@dataclass(frozen=True)
class ClassHeader:
    keyword: str
    kind: ClassKind
    name: str  # the code (what links use), quotes removed
    display: str  # the name shown when it differs from the code's last part, else ""
    stereotype: str  # "" when none was written
    extends: tuple[str, ...]
    implements: tuple[str, ...]
    opens_body: bool  # ends with `{`
    closes_body: bool  # ends with `{}` (an empty body on the same line)


@dataclass(frozen=True)
class PackageHeader:
    keyword: str
    name: str  # the name shown (and the package path segment)
    alias: str  # `package "Shown" as code`
    opens_body: bool
    closes_body: bool


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_space(self) -> None:
        match = _SPACE.match(self.text, self.pos)
        if match:
            self.pos = match.end()

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def peek(self, literal: str) -> bool:
        return self.text.startswith(literal, self.pos)

    def quoted(self) -> str | None:
        if not self.peek('"'):
            return None
        close = self.text.find('"', self.pos + 1)
        if close < 0:
            raise DeclarationError("a quoted name is never closed")
        value = self.text[self.pos + 1:close]
        self.pos = close + 1
        return value

    def code(self) -> str | None:
        match = _CODE.match(self.text, self.pos)
        if not match:
            return None
        self.pos = match.end()
        return match.group()

    def name(self) -> tuple[str, bool]:
        quoted = self.quoted()
        if quoted is not None:
            return quoted, True
        code = self.code()
        if code is None:
            raise DeclarationError("expected a name")
        return code, False

    def balanced(self, opening: str, closing: str) -> str:
        depth = 0
        for index in range(self.pos, len(self.text)):
            ch = self.text[index]
            if ch == opening:
                depth += 1
            elif ch == closing:
                depth -= 1
                if depth == 0:
                    value = self.text[self.pos + 1:index]
                    self.pos = index + 1
                    return value
        raise DeclarationError(f"'{opening}' is never closed")

    def until(self, literal: str) -> str:
        close = self.text.find(literal, self.pos)
        if close < 0:
            raise DeclarationError(f"'{literal}' is missing")
        value = self.text[self.pos:close]
        self.pos = close + len(literal)
        return value

    def token(self) -> str:
        match = _TOKEN.match(self.text, self.pos)
        assert match is not None
        self.pos = match.end()
        return match.group()


def stereotype_text(raw: str) -> str:
    """``(S,#FF7700) Singleton`` → ``Singleton``: the spot character is presentation only."""
    return _SPOT.sub("", raw.strip(), count=1).strip()


def stereotypes_in(raw: str) -> str:
    """``<<entity>> <<audited>>`` → ``entity, audited``."""
    return ", ".join(s for s in (stereotype_text(m) for m in _STEREOTYPE.findall(raw)) if s)


_WRAPPERS = {"(": ")", "[": "]", ":": ":"}


def _unwrapped(name: str) -> str:
    """PlantUML drops one pair of ``()``, ``[]`` or ``::`` around a declared name
    (``Interface (IObserver){`` declares ``IObserver``), as it does for quotes."""
    if len(name) > 2 and _WRAPPERS.get(name[0]) == name[-1]:
        return name[1:-1]
    return name


def _name_and_display(scan: _Scanner) -> tuple[str, str]:
    """(code, shown name) of ``"Shown" as CODE``, ``CODE as "Shown"``, ``CODE``, ``"CODE"``."""
    name, quoted = scan.name()
    match = _AS.match(scan.text, scan.pos)
    if not match:
        return _unwrapped(name), ""
    scan.pos = match.end()
    other, other_quoted = scan.name()
    if quoted == other_quoted:
        raise DeclarationError("'as' joins a quoted name and a plain code "
                               '(class "Shown name" as Code)')
    return (other, name) if quoted else (name, other)


def _stereotype(scan: _Scanner) -> str:
    """PlantUML's ``<<.*>>``: from the first ``<<`` to the last ``>>`` of the line."""
    end = scan.text.rfind(">>")
    if end < scan.pos + 2:
        raise DeclarationError("'>>' is missing")
    raw = scan.text[scan.pos:end + 2]
    scan.pos = end + 2
    return stereotypes_in(raw)


def _body_brace(scan: _Scanner, what: str) -> tuple[bool, bool]:
    if not scan.peek("{"):
        raise DeclarationError(f"unexpected text in the {what} declaration")
    scan.pos += 1
    scan.skip_space()
    if scan.at_end():
        return True, False
    if scan.peek("}"):
        scan.pos += 1
        scan.skip_space()
        if scan.at_end():
            return False, True
    raise DeclarationError(f"a {what} body must start on the line after '{{'")


def parse_class_header(keyword: str, rest: str) -> ClassHeader:
    keyword = " ".join(keyword.lower().split())
    kind, implied_stereotype = CLASS_KEYWORDS[keyword]
    scan = _Scanner(rest.strip())
    if scan.at_end():
        raise DeclarationError(f"'{keyword}' without a name")
    name, display = _name_and_display(scan)
    scan.skip_space()
    if scan.peek("<") and not scan.peek("<<"):
        scan.balanced("<", ">")  # generic parameters: not part of the model
        scan.skip_space()
    stereotype = ""
    if scan.peek("<<"):
        stereotype = _stereotype(scan)
        scan.skip_space()
    _decorations(scan)
    extends: list[str] = []
    implements: list[str] = []
    for word, target in (("extends", extends), ("implements", implements)):
        inherit = _INHERIT.match(scan.text, scan.pos)
        if inherit and inherit.group(1).lower() == word:
            scan.pos = inherit.end()
            _inherit_names(scan, target)
            scan.skip_space()
    opens = closes = False
    if not scan.at_end():
        if _INHERIT.match(scan.text, scan.pos) or scan.peek("<<") or scan.peek("#"):
            raise DeclarationError("the parts of a class declaration come in this order: "
                                   "name, <<stereotype>>, [[link]], #colour, extends, "
                                   "implements")
        opens, closes = _body_brace(scan, "class")
        if keyword in BODYLESS_KEYWORDS and opens:
            raise DeclarationError(f"'{keyword}' takes no body")
    return ClassHeader(keyword, kind, name, display, stereotype or implied_stereotype,
                       tuple(extends), tuple(implements), opens, closes)


def _decorations(scan: _Scanner) -> None:
    """Tags, a link, a colour and a line colour, in PlantUML's order; none is modelled."""
    while scan.peek("$"):
        scan.token()
        scan.skip_space()
    if scan.peek("[["):
        scan.until("]]")
        scan.skip_space()
    if scan.peek("#") and not scan.peek("##"):
        scan.token()
        scan.skip_space()
    if scan.peek("##"):
        scan.token()
        scan.skip_space()


def _inherit_names(scan: _Scanner, target: list[str]) -> None:
    while True:
        scan.skip_space()
        match = _INHERIT_NAME.match(scan.text, scan.pos)
        if not match:
            raise DeclarationError("expected a class name after extends/implements")
        scan.pos = match.end()
        target.append(match.group().strip('"'))
        scan.skip_space()
        if not scan.peek(","):
            return
        scan.pos += 1


@dataclass(frozen=True)
class ElementHeader:
    """An object, map, json, lollipop, diamond or mixed-in element: a name and a body flag."""

    name: str
    display: str
    stereotype: str
    opens_body: bool


def parse_object_header(keyword: str, rest: str) -> ElementHeader:
    """``object "Shown" as code <<s>> #colour {`` (and ``map``, ``json``)."""
    text = rest.strip()
    match = _OBJECT_NAME.match(text)
    if not text or match is None:
        raise DeclarationError(f"'{keyword}' without a name")
    tail = text[match.end():].strip()
    opens = tail.endswith("{")
    if opens:
        tail = tail[:-1].strip()
    stereotype = stereotypes_in(tail)
    if tail and not (tail.startswith(("<<", "[[", "#"))):
        raise DeclarationError(f"unexpected text in the {keyword} declaration")
    return ElementHeader(match.group("code"), match.group("display") or "",
                         stereotype or keyword.lower(), opens)


def parse_lollipop_header(rest: str) -> ElementHeader:
    """``() Name`` or ``() "Shown" as code``."""
    scan = _Scanner(rest.strip())
    if scan.at_end():
        raise DeclarationError("'()' without a name")
    name, display = _name_and_display(scan)
    scan.skip_space()
    tail = scan.text[scan.pos:]
    return ElementHeader(name, display, stereotypes_in(tail), False)


def parse_mixing_header(keyword: str, rest: str) -> ElementHeader:
    """``actor "Bob" as b``, ``usecase (Order)``, ``component [Web]``: name and stereotype."""
    match = _MIXING_NAME.match(rest.strip())
    if match is None:
        raise DeclarationError(f"'{keyword}' without a name")
    first, other = match.group("name"), match.group("other")
    shown, code = first, other or first
    if other and not other.startswith(('"', "(", "[", ":")):
        shown, code = first, other
    elif other:
        shown, code = other, first
    tail = rest.strip()[match.end():]
    display = _unwrap(shown) if other else ""
    return ElementHeader(_unwrap(code), display,
                         stereotypes_in(tail) or keyword.lower().rstrip("/"), False)


def _unwrap(token: str) -> str:
    if len(token) >= 2 and token[0] + token[-1] in ('""', "()", "[]", "::"):
        return token[1:-1].strip()
    return token


def parse_package_header(keyword: str, rest: str) -> PackageHeader:
    scan = _Scanner(rest.strip())
    if scan.at_end():
        raise DeclarationError(f"'{keyword}' without a name")
    name, quoted = scan.name()
    alias = ""
    match = _AS.match(scan.text, scan.pos)
    if match:
        scan.pos = match.end()
        other, other_quoted = scan.name()
        if quoted and not other_quoted:
            alias = other
        elif other_quoted and not quoted:
            name, alias = other, name
        else:
            alias = other
    opens = closes = False
    while True:
        scan.skip_space()
        if scan.at_end():
            break
        if scan.peek("<<"):
            scan.pos += 2
            scan.until(">>")
            continue
        if scan.peek("[["):
            scan.until("]]")
            continue
        if scan.peek("#") or scan.peek("$"):
            scan.token()
            continue
        opens, closes = _body_brace(scan, "package")
        break
    return PackageHeader(keyword.lower(), name, alias, opens, closes)
