"""The model under construction while the parser reads: classes by name, aliases, notes.

Kept apart from the line reader in ``parser.py`` so the rules about *names* — aliases,
dotted package paths, classes created by their first mention, notes linked by ``N1 .. A`` —
live in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    ClassKind,
    Method,
    Multiplicity,
    Note,
    Relation,
    RelationType,
)
from cluestudio.core.plantuml._arrows import RelationSyntax
from cluestudio.core.plantuml._declarations import ClassHeader
from cluestudio.core.plantuml._members import Member


@dataclass
class ClassDraft:
    name: str
    kind: ClassKind
    package: str
    line: int
    stereotype: str = ""
    declared: bool = False  # by a header, not only mentioned
    attributes: list[Attribute] = field(default_factory=list)
    methods: list[Method] = field(default_factory=list)

    def add(self, members: list[Member]) -> None:
        for member in members:
            if isinstance(member, Method):
                self.methods.append(member)
            else:
                self.attributes.append(member)


@dataclass
class _NoteDraft:
    text: str
    target: str
    line: int


class DiagramBuilder:
    def __init__(self) -> None:
        self.classes: dict[str, ClassDraft] = {}  # by model name, in first-appearance order
        self.aliases: dict[str, str] = {}  # alias or dotted name → model name
        self.relations: list[Relation] = []
        self.notes: list[_NoteDraft] = []
        self.note_aliases: dict[str, int] = {}
        self.packages: set[str] = set()
        self.separator: str | None = "."  # PlantUML's namespaceSeparator
        self.package_path = ""  # dotted path of the package block being read
        self.last_class: str | None = None

    def build(self) -> ClassDiagram:
        classes = tuple(
            Class(d.name, tuple(d.attributes), tuple(d.methods), d.kind, d.stereotype,
                  d.package, line=d.line)
            for d in self.classes.values()
        )
        notes = tuple(Note(n.text, n.target, line=n.line) for n in self.notes)
        return ClassDiagram(classes, tuple(self.relations), notes)

    # -- classes -------------------------------------------------------------------------

    def split_package(self, name: str, quoted: bool) -> tuple[str, str]:
        """``a.b.C`` → (``C``, ``a.b``) with PlantUML's namespace separator; quoted names stay."""
        sep = self.separator
        if quoted or not sep or sep not in name.strip(sep):
            return name, ""
        prefix, _, short = name.rpartition(sep)
        return short, prefix.strip(sep).replace(sep, ".")

    def _new_class(self, name: str, package: str, line: int,
                   kind: ClassKind = ClassKind.CLASS) -> ClassDraft:
        draft = ClassDraft(name, kind, package or self.package_path, line)
        self.classes[name] = draft
        return draft

    def is_class(self, token: str) -> bool:
        token = token.strip('"')
        return token in self.classes or token in self.aliases

    def class_named(self, token: str, quoted: bool, line: int,
                    kind: ClassKind = ClassKind.CLASS) -> str:
        """The class a name refers to, created (in first-appearance order) if new."""
        if token in self.aliases:
            return self.aliases[token]
        if token in self.classes:
            return token
        if not quoted and "::" in token and self.separator != "::":
            return self.class_named(token.split("::", 1)[0], False, line, kind)  # A::member
        name, package = self.split_package(token, quoted)
        if name not in self.classes:
            self._new_class(name, package, line, kind)
        if name != token:
            self.aliases[token] = name
        return name

    def declare(self, header: ClassHeader, line: int) -> ClassDraft:
        """A class header: create or update the class, add its extends/implements relations."""
        name, package = self.split_package(header.name, header.quoted)
        draft = self.classes.get(name) or self._new_class(name, package, line)
        if header.alias:
            self.aliases[header.alias] = name
        if header.name != name:
            self.aliases[header.name] = name
        # A dotted name is absolute; otherwise the enclosing package block decides. A later
        # top-level re-declaration does not move a class out of its package.
        package = package or self.package_path
        if not draft.declared or package:
            draft.package = package
        if not draft.declared:
            draft.line = line
        draft.kind = header.kind
        draft.declared = True
        if header.stereotype:
            draft.stereotype = header.stereotype
        self.last_class = name
        parent_kind = ClassKind.INTERFACE if header.kind is ClassKind.INTERFACE else ClassKind.CLASS
        for parent in header.extends:
            target = self.class_named(parent, False, line, parent_kind)
            self.relations.append(Relation(RelationType.GENERALIZATION, name, target, line=line))
        for interface in header.implements:
            target = self.class_named(interface, False, line, ClassKind.INTERFACE)
            self.relations.append(Relation(RelationType.REALIZATION, name, target, line=line))
        return draft

    def add_package(self, name: str) -> str:
        """Register a package block's name; returns its dotted path."""
        path = f"{self.package_path}.{name}" if self.package_path else name
        self.packages.update((name, path))
        return path

    # -- relations and notes -------------------------------------------------------------

    def link(self, syntax: RelationSyntax, line: int) -> str | None:
        """Add the relation a link line stands for; a message if it says nothing we model."""
        left_note = self._note_alias(syntax.left, syntax.left_quoted)
        right_note = self._note_alias(syntax.right, syntax.right_quoted)
        if left_note is not None or right_note is not None:
            self._link_note(syntax, left_note, right_note, line)
            return None
        if self._is_package(syntax.left) or self._is_package(syntax.right):
            return "links between packages are not part of the model; ignored"
        left = self.class_named(syntax.left, syntax.left_quoted, line)
        right = self.class_named(syntax.right, syntax.right_quoted, line)
        if syntax.hidden:
            return None
        if syntax.swap:
            begin, end = right, left
            label = Multiplicity(syntax.right_multiplicity, syntax.left_multiplicity)
        else:
            begin, end = left, right
            label = Multiplicity(syntax.left_multiplicity, syntax.right_multiplicity)
        self.relations.append(Relation(syntax.type, begin, end, label, syntax.label, line=line))
        return None

    def add_note(self, text: str, target: str, line: int, alias: str = "") -> None:
        if alias:
            self.note_aliases[alias] = len(self.notes)
        self.notes.append(_NoteDraft(text, target, line))

    def _note_alias(self, token: str, quoted: bool) -> int | None:
        if quoted or token in self.classes or token in self.aliases:
            return None
        return self.note_aliases.get(token)

    def _is_package(self, token: str) -> bool:
        return token in self.packages and not self.is_class(token)

    def _link_note(self, syntax: RelationSyntax, left: int | None, right: int | None,
                   line: int) -> None:
        if left is not None and right is not None:
            return  # a line between two notes says nothing about classes
        if left is not None:
            note_index, other, quoted = left, syntax.right, syntax.right_quoted
        else:
            assert right is not None
            note_index, other, quoted = right, syntax.left, syntax.left_quoted
        target = self.class_named(other, quoted, line)
        note = self.notes[note_index]
        if not note.target:
            note.target = target  # `N1 .. A` attaches a floating note to A
