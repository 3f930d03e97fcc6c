"""ClassDiagram → PlantUML text that PlantUML renders and our parser reads back unchanged.

``parse_plantuml(write_plantuml(d)).diagram == d`` for every valid model: class names unique
and non-empty; relation ends and note targets name classes of the diagram; no ``"`` or line
break in names, types, stereotypes, multiplicities and relation names; member and parameter
names without ``(``, ``:``, ``,`` or ``=``; relation names without PlantUML's reading marks at
the ends (``< x``, ``x >``) or surrounding quotes; note lines stripped and none of them
``end note``; whitespace stripped at the ends of every string. Names that are not plain
identifiers (letters, digits, ``_``) are written in quotes with a generated alias; packages as
``package a.b { … }``.
"""

from __future__ import annotations

import re
from itertools import groupby

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    ClassKind,
    Method,
    Param,
    Relation,
    RelationType,
)
from cluestudio.core.plantuml._members import MemberError, parse_member, parse_param

__all__ = ["attribute_text", "method_text", "relation_text", "write_plantuml"]

_IDENTIFIER = re.compile(r"[^\W\d]\w*+")
_DOTTED_PATH = re.compile(r"[^\W\d]\w*+(?:\.[^\W\d]\w*+)*+")
_KEYWORD = {
    ClassKind.CLASS: "class",
    ClassKind.ABSTRACT: "abstract class",
    ClassKind.INTERFACE: "interface",
    ClassKind.ENUM: "enum",
}
_ARROW = {
    RelationType.ASSOCIATION: "-->",
    RelationType.AGGREGATION: "o--",
    RelationType.COMPOSITION: "*--",
    RelationType.DEPENDENCY: "..>",
    RelationType.GENERALIZATION: "--|>",
    RelationType.REALIZATION: "..|>",
}
_INDENT = "  "


def write_plantuml(diagram: ClassDiagram) -> str:
    """The diagram as ``@startuml … @enduml`` text: classes, then relations, then notes."""
    refs = _references(diagram)
    lines = ["@startuml"]
    for package, group in groupby(diagram.classes, key=lambda c: c.package):
        indent = ""
        if package:
            lines.append(f"package {_package_token(package)} {{")
            indent = _INDENT
        for cls in group:
            lines.extend(indent + line for line in _class_lines(cls, refs))
        if package:
            lines.append("}")
    lines.extend(_relation_line(relation, refs) for relation in diagram.relations)
    lines.extend(_note_lines(diagram, refs))
    lines.append("@enduml")
    return "\n".join(lines) + "\n"


def _is_plain(name: str) -> bool:
    # Keywords are fine as names: PlantUML (and our parser) read `Note --> Title` as a link.
    return bool(_IDENTIFIER.fullmatch(name))


def _references(diagram: ClassDiagram) -> dict[str, str]:
    """How each class is referred to in relations and notes: its name, or a fresh alias."""
    used = set(diagram.class_names)
    refs: dict[str, str] = {}
    counter = 0
    for name in diagram.class_names:
        if _is_plain(name):
            refs[name] = name
            continue
        counter += 1
        while f"C{counter}" in used:
            counter += 1
        refs[name] = f"C{counter}"
        used.add(refs[name])
    return refs


def _ref(name: str, refs: dict[str, str]) -> str:
    return refs.get(name) or (name if _is_plain(name) else f'"{name}"')


def _package_token(path: str) -> str:
    return path if _DOTTED_PATH.fullmatch(path) else f'"{path}"'


def _class_lines(cls: Class, refs: dict[str, str]) -> list[str]:
    ref = refs[cls.name]
    declared = cls.name if ref == cls.name else f'"{cls.name}" as {ref}'
    header = f"{_KEYWORD[cls.kind]} {declared}"
    if cls.stereotype:
        header += f" <<{cls.stereotype}>>"
    if not cls.attributes and not cls.methods:
        return [header]
    in_enum = cls.kind is ClassKind.ENUM
    body = [_attribute_line(a, in_enum) for a in cls.attributes]
    body += [_method_line(m, in_enum) for m in cls.methods]
    return [header + " {", *(_INDENT + line for line in body), "}"]


def _reads_back(text: str, member: Attribute | Method, in_enum: bool) -> bool:
    try:
        return parse_member(text, 0, in_enum) == [member]
    except MemberError:
        return False


def _first_readable(candidates: list[str], member: Attribute | Method, in_enum: bool) -> str:
    for text in candidates:
        if _reads_back(text, member, in_enum):
            return text
    return candidates[-1]


def _prefix(visibility: str, is_static: bool, is_abstract: bool = False) -> str:
    return ("{static} " if is_static else "") + ("{abstract} " if is_abstract else "") \
        + visibility


def _attribute_line(attribute: Attribute, in_enum: bool) -> str:
    prefix = _prefix(attribute.visibility, attribute.is_static)
    if attribute.type:
        text = f"{prefix}{attribute.name} : {attribute.type}"
    else:
        # `name` alone is read as an attribute without a type unless it looks like `Type
        # name` (or a modifier word); then `name :` says it explicitly.
        text = _first_readable([f"{prefix}{attribute.name}", f"{prefix}{attribute.name} :"],
                               attribute, in_enum)
    if "(" not in attribute.name:
        return text
    # `{field} label()`: a field whose name has parentheses says it is one.
    return _first_readable([text, "{field} " + text], attribute, in_enum)


def _param_text(param: Param) -> str:
    if param.name and param.type:
        return f"{param.name}: {param.type}"
    # A lone token is read as a type or a name by its look; say which when that would fail.
    candidates = [param.name, f"{param.name}:"] if param.name else [param.type, f": {param.type}"]
    for text in candidates:
        if parse_param(text) == param:
            return text
    return candidates[-1]


def _method_line(method: Method, in_enum: bool) -> str:
    prefix = _prefix(method.visibility, method.is_static, method.is_abstract)
    params = ", ".join(_param_text(p) for p in method.params)
    returns = f" : {method.return_type}" if method.return_type else ""
    text = f"{method.name}({params}){returns}"
    # In an enum `RED()` reads as a value with arguments; `{method}` says otherwise.
    return _first_readable([prefix + text, "{method} " + prefix + text], method, in_enum)


def _relation_line(relation: Relation, refs: dict[str, str]) -> str:
    begin = _ref(relation.begin, refs)
    end = _ref(relation.end, refs)
    from_ = f' "{relation.label.from_}"' if relation.label.from_ else ""
    to = f'"{relation.label.to}" ' if relation.label.to else ""
    name = f" : {relation.name}" if relation.name else ""
    return f"{begin}{from_} {_ARROW[relation.type]} {to}{end}{name}"


def attribute_text(attribute: Attribute) -> str:
    """One attribute as its line in a class body (``-name : String``)."""
    return _attribute_line(attribute, False)


def method_text(method: Method) -> str:
    """One method as its line in a class body (``+book(at: Date) : Loan``)."""
    return _method_line(method, False)


def relation_text(relation: Relation) -> str:
    """One relation as its arrow line, naming the classes as they are named."""
    return _relation_line(relation, {})


def _note_lines(diagram: ClassDiagram, refs: dict[str, str]) -> list[str]:
    used = set(diagram.class_names) | set(refs.values())
    lines: list[str] = []
    counter = 0
    for note in diagram.notes:
        single = "\n" not in note.text and note.text
        if note.target:
            head = f"note right of {_ref(note.target, refs)}"
            if single:
                lines.append(f"{head} : {note.text}")
                continue
        else:
            counter += 1
            while f"N{counter}" in used:
                counter += 1
            if single and '"' not in note.text:
                lines.append(f'note "{note.text}" as N{counter}')
                continue
            head = f"note as N{counter}"
        lines.extend([head, *note.text.split("\n"), "end note"] if note.text
                     else [head, "end note"])
    return lines
