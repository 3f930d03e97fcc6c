"""The class-diagram model of OODEval Def. 4.1 (DESIGN.md §2), as immutable dataclasses.

Every element keeps the 1-based line of the PlantUML text it came from (``line``) so errors
and GUI highlights can point at it; line numbers and other presentation details are left out
of equality, so ``parse(write(d)) == d`` compares what the diagram *says*, not where.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum


class RelationType(StrEnum):
    """Relation types of the CLUE model; values are the paper's abbreviations."""

    ASSOCIATION = "AS"
    AGGREGATION = "AG"
    COMPOSITION = "CO"
    DEPENDENCY = "DE"
    GENERALIZATION = "GE"
    REALIZATION = "RE"


class ClassKind(StrEnum):
    CLASS = "class"
    ABSTRACT = "abstract"
    INTERFACE = "interface"
    ENUM = "enum"


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str = ""


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    type: str = ""
    visibility: str = ""  # one of "", "+", "-", "#", "~"
    is_static: bool = False
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    return_type: str = ""
    params: tuple[Param, ...] = ()
    visibility: str = ""
    is_static: bool = False
    is_abstract: bool = False
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Class:
    name: str
    attributes: tuple[Attribute, ...] = ()
    methods: tuple[Method, ...] = ()
    kind: ClassKind = ClassKind.CLASS
    stereotype: str = ""  # e.g. "entity" from <<entity>>, without the brackets
    package: str = ""  # dotted path of enclosing packages/namespaces, "" at top level
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Multiplicity:
    """Multiplicities at the two ends: ``from_`` at ``begin``, ``to`` at ``end`` (DESIGN §2)."""

    from_: str = ""
    to: str = ""


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation in canonical direction, whatever way its arrow was written.

    GE/RE: begin = child or implementor, end = parent or interface. AG/CO: begin = whole
    (diamond side), end = part. DE: begin = client, end = supplier. AS: as written.
    """

    type: RelationType
    begin: str
    end: str
    label: Multiplicity = Multiplicity()
    name: str = ""  # the text after ':' on the arrow line, e.g. "owns"
    line: int | None = field(default=None, compare=False)
    # AS only, as the arrow heads say: "end" (A --> B), "begin" (A <-- B), "both", "" (A -- B).
    # Not compared: CLUE reads associations without navigability; grade by group does not.
    navigable: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    target: str = ""  # class the note is attached to, "" for a floating note
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ClassDiagram:
    classes: tuple[Class, ...] = ()
    relations: tuple[Relation, ...] = ()
    notes: tuple[Note, ...] = ()

    def class_named(self, name: str) -> Class | None:
        for cls in self.classes:
            if cls.name == name:
                return cls
        return None

    @property
    def class_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.classes)

    def without_lines(self) -> ClassDiagram:
        """A copy with every ``line`` cleared (handy for comparing or hashing content)."""
        return ClassDiagram(
            classes=tuple(
                replace(
                    c,
                    line=None,
                    attributes=tuple(replace(a, line=None) for a in c.attributes),
                    methods=tuple(replace(m, line=None) for m in c.methods),
                )
                for c in self.classes
            ),
            relations=tuple(replace(r, line=None) for r in self.relations),
            notes=tuple(replace(n, line=None) for n in self.notes),
        )


def diagram_to_dict(diagram: ClassDiagram) -> dict[str, object]:
    """A JSON-ready dict of the diagram (enums as their values, lines kept)."""
    return {
        "classes": [
            {
                "name": c.name,
                "kind": c.kind.value,
                "stereotype": c.stereotype,
                "package": c.package,
                "line": c.line,
                "attributes": [
                    {"name": a.name, "type": a.type, "visibility": a.visibility,
                     "is_static": a.is_static, "line": a.line}
                    for a in c.attributes
                ],
                "methods": [
                    {"name": m.name, "return_type": m.return_type,
                     "params": [{"name": p.name, "type": p.type} for p in m.params],
                     "visibility": m.visibility, "is_static": m.is_static,
                     "is_abstract": m.is_abstract, "line": m.line}
                    for m in c.methods
                ],
            }
            for c in diagram.classes
        ],
        "relations": [
            {"type": r.type.value, "begin": r.begin, "end": r.end,
             "label": {"from": r.label.from_, "to": r.label.to},
             "name": r.name, "line": r.line}
            for r in diagram.relations
        ],
        "notes": [{"text": n.text, "target": n.target, "line": n.line} for n in diagram.notes],
    }
