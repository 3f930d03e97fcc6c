"""Reading class and package headers: ``abstract class "Long Name" as LN<T> <<entity>> {``.

A small scanner rather than one big regular expression: the parts may come in a few orders,
generics nest (``Map<K, List<V>>``), and every leftover character must be reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.model import ClassKind


class DeclarationError(ValueError):
    """A class or package header with text we cannot place."""


# keyword → (kind, stereotype implied when none is written)
CLASS_KEYWORDS: dict[str, tuple[ClassKind, str]] = {
    "class": (ClassKind.CLASS, ""),
    "static class": (ClassKind.CLASS, ""),
    "abstract class": (ClassKind.ABSTRACT, ""),
    "abstract": (ClassKind.ABSTRACT, ""),
    "interface": (ClassKind.INTERFACE, ""),
    "enum": (ClassKind.ENUM, ""),
    "protocol": (ClassKind.INTERFACE, "protocol"),
    "circle": (ClassKind.INTERFACE, "circle"),
    "annotation": (ClassKind.CLASS, "annotation"),
    "entity": (ClassKind.CLASS, "entity"),
    "struct": (ClassKind.CLASS, "struct"),
    "exception": (ClassKind.CLASS, "exception"),
    "record": (ClassKind.CLASS, "record"),
    "dataclass": (ClassKind.CLASS, "dataclass"),
    "metaclass": (ClassKind.CLASS, "metaclass"),
    "stereotype": (ClassKind.CLASS, "stereotype"),
    "diamond": (ClassKind.CLASS, "diamond"),
}
CLASS_HEADER = re.compile(
    r"(abstract\s++class|static\s++class|"
    + "|".join(k for k in CLASS_KEYWORDS if " " not in k)
    + r")(?:\s++(?P<rest>.*+)|$)",
    re.IGNORECASE,
)
# Containers that group classes; all but package/namespace are other diagrams' elements
# unless they open a `{` block.
PACKAGE_KEYWORDS = ("package", "namespace", "folder", "frame", "rectangle", "node", "cloud",
                    "database", "component")
PACKAGE_HEADER = re.compile(rf"({'|'.join(PACKAGE_KEYWORDS)})(?:\s++(?P<rest>.*+)|$)",
                            re.IGNORECASE)

_CODE = re.compile(r'[^\s{}"<>]++')
_SPACE = re.compile(r"\s++")
_AS = re.compile(r"\s++as\s++", re.IGNORECASE)
_INHERIT = re.compile(r"(extends|implements)\s++", re.IGNORECASE)
_INHERIT_NAME = re.compile(r'"[^"\n]++"|[^\s,{}"]++')
_SPOT = re.compile(r"\(\s*+\S?\s*+(?:,[^)]*+)?+\)\s*+")


@dataclass(frozen=True)
class ClassHeader:
    keyword: str
    kind: ClassKind
    name: str
    quoted: bool  # the name was written in quotes: it is literal (no package split)
    alias: str
    stereotype: str  # "" when none was written
    extends: tuple[str, ...]
    implements: tuple[str, ...]
    opens_body: bool  # ends with `{`
    closes_body: bool  # ends with `{}` (an empty body on the same line)


@dataclass(frozen=True)
class PackageHeader:
    keyword: str
    name: str
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
        start = self.pos
        while self.pos < len(self.text) and not self.text[self.pos].isspace():
            self.pos += 1
        return self.text[start:self.pos]


def stereotype_text(raw: str) -> str:
    """``(S,#FF7700) Singleton`` → ``Singleton``: the spot character is presentation only."""
    return _SPOT.sub("", raw.strip(), count=1).strip()


def _name_and_alias(scan: _Scanner) -> tuple[str, bool, str]:
    name, quoted = scan.name()
    alias = ""
    match = _AS.match(scan.text, scan.pos)
    if match:
        scan.pos = match.end()
        other, other_quoted = scan.name()
        if quoted or not other_quoted:
            alias = other  # "Display" as CODE (or, leniently, CODE as CODE)
        else:
            name, quoted, alias = other, True, name  # CODE as "Display"
    return name, quoted, alias


def _decorations(scan: _Scanner, stereotypes: list[str]) -> bool:
    """Skip stereotypes, colours, links and tags; True if anything was consumed."""
    if scan.peek("<<"):
        scan.pos += 2
        stereotypes.append(stereotype_text(scan.until(">>")))
    elif scan.peek("[["):
        scan.until("]]")
    elif scan.peek("#") or scan.peek("$"):
        scan.token()
    else:
        return False
    return True


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
    name, quoted, alias = _name_and_alias(scan)
    scan.skip_space()
    if scan.peek("<") and not scan.peek("<<"):
        scan.balanced("<", ">")  # generic parameters: not part of the model
    stereotypes: list[str] = []
    extends: list[str] = []
    implements: list[str] = []
    opens = closes = False
    while True:
        scan.skip_space()
        if scan.at_end():
            break
        before = scan.pos
        if _decorations(scan, stereotypes):
            if extends or implements:
                # PlantUML reads stereotypes and colours only before extends/implements.
                scan.pos = before
                raise DeclarationError("stereotypes and colours go before extends/implements")
            continue
        inherit = _INHERIT.match(scan.text, scan.pos)
        if inherit:
            scan.pos = inherit.end()
            target = extends if inherit.group(1).lower() == "extends" else implements
            _inherit_names(scan, target)
            continue
        opens, closes = _body_brace(scan, "class")
        break
    return ClassHeader(keyword, kind, name, quoted, alias,
                       ", ".join(s for s in stereotypes if s) or implied_stereotype,
                       tuple(extends), tuple(implements), opens, closes)


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


def parse_package_header(keyword: str, rest: str) -> PackageHeader:
    scan = _Scanner(rest.strip())
    if scan.at_end():
        raise DeclarationError(f"'{keyword}' without a name")
    name, _quoted, _alias = _name_and_alias(scan)
    opens = closes = False
    stereotypes: list[str] = []
    while True:
        scan.skip_space()
        if scan.at_end():
            break
        if _decorations(scan, stereotypes):
            continue
        opens, closes = _body_brace(scan, "package")
        break
    return PackageHeader(keyword.lower(), name, opens, closes)
