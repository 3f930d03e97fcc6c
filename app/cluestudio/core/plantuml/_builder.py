"""The model under construction while the parser reads: classes by key, notes, relations.

Kept apart from the line reader in ``parser.py`` so the rules about *names* — which class a
name means (``_names.py``), classes created by their first mention, notes linked by ``N1 ..
A``, the names classes get in the model — live in one place.

Model names: a class is called by the name PlantUML shows for it (``class "Long name" as L``
→ ``Long name``, ``a.b.C`` → ``C``). Two different classes can show the same name (two
namespaces, or ``"Long name"`` written in a link, which PlantUML reads as a *new* class);
the model needs one name per class, so the first keeps the shown name and each later one is
called by its PlantUML key (``b.C``, ``L``), or ``name (2)`` when that is taken too. Each such
renaming is reported as a warning.
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
from cluestudio.core.plantuml._arrows import LinkEnd, RelationSyntax
from cluestudio.core.plantuml._members import Member
from cluestudio.core.plantuml._names import TOP, NameTable, Place, Scope


@dataclass(frozen=True)
class OmittedLink:
    """A line PlantUML draws between two elements that is no relation of the model.

    ``reason`` is ``hidden`` (a layout helper, ``-[hidden]-``, whatever its ends),
    ``note`` (a note's connector) or ``package`` (an end is a package). ``begin``/``end``
    are model class names where the end is a class, else the name as written (a note
    attached with ``note … of`` is ``note N``, the diagram's N-th note).
    """

    line: int
    begin: str
    end: str
    reason: str


@dataclass
class ClassDraft:
    key: str
    display: str
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
    target: str  # a class key, "" when floating
    line: int


@dataclass(frozen=True)
class _RelationDraft:
    type: RelationType
    begin: str  # class keys
    end: str
    label: Multiplicity
    name: str
    line: int
    navigable: str = ""


_NO_MULTIPLICITY = Multiplicity()


class BuildError(ValueError):
    """A statement PlantUML refuses for what it names (an unknown class in ``(A, B)``)."""


class DiagramBuilder:
    def __init__(self) -> None:
        self.names = NameTable()
        self.classes: dict[str, ClassDraft] = {}  # by key, in first-appearance order
        self.relations: list[_RelationDraft] = []
        self.notes: list[_NoteDraft] = []
        self.note_aliases: dict[str, int] = {}
        self.groups: set[str] = set()  # package and namespace names and paths
        self.omitted: list[OmittedLink] = []
        self.association_points = 0
        self.links = 0  # links read so far (a `note on link` needs one)
        self.last_class: str | None = None
        self._lollipops = 0

    # -- building ------------------------------------------------------------------------

    def build(self) -> tuple[ClassDiagram, list[tuple[int, str]]]:
        """The model, plus (line, message) for every class that had to be renamed."""
        names, renamed = self._model_names()
        classes = tuple(
            Class(names[d.key], tuple(d.attributes), tuple(d.methods), d.kind, d.stereotype,
                  d.package, line=d.line)
            for d in self.classes.values()
        )
        relations = tuple(
            Relation(r.type, names[r.begin], names[r.end], r.label, r.name, line=r.line,
                     navigable=r.navigable)
            for r in self.relations
        )
        notes = tuple(Note(n.text, names.get(n.target, ""), line=n.line) for n in self.notes)
        self.omitted = [OmittedLink(o.line, names.get(o.begin, o.begin), names.get(o.end, o.end),
                                    o.reason) for o in self.omitted]
        return ClassDiagram(classes, relations, notes), renamed

    def _model_names(self) -> tuple[dict[str, str], list[tuple[int, str]]]:
        taken: set[str] = set()
        first: dict[str, ClassDraft] = {}
        names: dict[str, str] = {}
        later: list[ClassDraft] = []
        for draft in self.classes.values():
            if draft.display in taken:
                later.append(draft)
            else:
                taken.add(draft.display)
                first[draft.display] = draft
                names[draft.key] = draft.display
        renamed: list[tuple[int, str]] = []
        for draft in later:
            name = draft.key if draft.key not in taken and not draft.key.startswith("\0") \
                else draft.display
            number = 1
            while name in taken:
                number += 1
                name = f"{draft.display} ({number})"
            taken.add(name)
            names[draft.key] = name
            other = first[draft.display]
            renamed.append((draft.line, f"'{draft.display}' is also the name of another "
                            f"class (line {other.line}); PlantUML keeps them apart, so this "
                            f"one is called '{name}'"))
        return names, renamed

    # -- classes -------------------------------------------------------------------------

    def _create(self, place: Place, line: int, kind: ClassKind = ClassKind.CLASS,
                stereotype: str = "") -> ClassDraft:
        draft = ClassDraft(place.key, place.display, kind, place.package, line,
                           stereotype=stereotype)
        self.classes[place.key] = draft
        self.names.add(place)
        return draft

    def class_for(self, token: str, line: int, scope: Scope = TOP, *,
                  declaration: bool = False, kind: ClassKind = ClassKind.CLASS) -> ClassDraft:
        """The class ``token`` names from ``scope``, created (in order of appearance) if new."""
        if "::" in token and self.names.separator != "::" and not token.startswith("::"):
            # `A::member` (a link to a member) names class A, known or not (PlantUML 1.2026;
            # 1.2022.6 made a class `A::member` unless A was a known plain name).
            token = token.split("::", 1)[0]
        key, place = self.names.resolve(token, scope, declaration=declaration)
        draft = self.classes.get(key)
        if draft is None:
            draft = self._create(place, line, kind)
        return draft

    def is_class(self, token: str, scope: Scope = TOP) -> bool:
        return self.names.find(token, scope) is not None

    def declare(self, draft: ClassDraft, *, kind: ClassKind, stereotype: str, display: str,
                scope: Scope, line: int) -> None:
        """A class header for ``draft``: its kind, stereotype and shown name."""
        if not draft.declared:
            # Its place is where the name led (PlantUML 1.2026: `class X` in a package is
            # that package's X, `class .X` the top level's); 1.2022.6 moved a class used
            # before into the package that declared it.
            draft.line = line
        draft.kind = kind
        draft.declared = True
        if stereotype:
            draft.stereotype = stereotype
        if display:
            draft.display = display
        self.last_class = draft.key

    def lollipop(self, token: str, line: int, scope: Scope) -> ClassDraft:
        """The interface drawn as a lollipop (``A -() I``): a class of its own, which PlantUML
        never finds by its name again."""
        self._lollipops += 1
        place = Place(f"\0lollipop{self._lollipops}", scope.path, token)
        return self._create(place, line, ClassKind.INTERFACE)

    def turn_into_group(self, key: str) -> None:
        """A class that a package of the same name replaces: it, and what links it, go."""
        del self.classes[key]
        self.names.discard(key)
        kept = []
        for relation in self.relations:
            if key in (relation.begin, relation.end):
                self.omitted.append(OmittedLink(relation.line, relation.begin, relation.end,
                                                "package"))
            else:
                kept.append(relation)
        self.relations = kept
        for note in self.notes:
            if note.target == key:
                note.target = ""
        if self.last_class == key:
            self.last_class = None

    def add_group(self, name: str, path: str) -> None:
        """Register a package or namespace block (its name and full path)."""
        self.groups.update((name, path))

    def add_relation(self, type_: RelationType, begin: str, end: str, line: int,
                     label: Multiplicity = _NO_MULTIPLICITY, name: str = "",
                     navigable: str = "") -> None:
        self.relations.append(_RelationDraft(type_, begin, end, label, name, line, navigable))

    # -- links ---------------------------------------------------------------------------

    def link(self, syntax: RelationSyntax, line: int, scope: Scope) -> str | None:
        """Add what a link line says; a message if it says nothing we model."""
        self.links += 1
        left, right = syntax.left, syntax.right
        left_note, right_note = self._note_alias(left, scope), self._note_alias(right, scope)
        if left_note is not None or right_note is not None:
            self._link_note(left, right, left_note, right_note, line, scope,
                            "hidden" if syntax.hidden else "note")
            return None
        if self._is_group(left, scope) or self._is_group(right, scope):
            for side in (left, right):
                if not self._is_group(side, scope) and side.couple is None:
                    self.class_for(side.token, line, scope)
            self.omitted.append(OmittedLink(line, left.token, right.token,
                                            "hidden" if syntax.hidden else "package"))
            return None
        if left.couple is not None or right.couple is not None:
            self._association_class(syntax, line, scope)
            return None
        if syntax.lollipop:
            owner = right if syntax.lollipop == "left" else left
            if not self.is_class(owner.token, scope):
                # PlantUML 1.2026 ("No class X"); 1.2022.6 made the class.
                raise BuildError(f"no class '{owner.token}' to carry the lollipop: declare "
                                 "it first")
        begin = self._end_class(left, syntax.lollipop == "left", line, scope)
        end = self._end_class(right, syntax.lollipop == "right", line, scope)
        if syntax.hidden:
            self.omitted.append(OmittedLink(line, begin, end, "hidden"))
            return None
        if syntax.swap:
            begin, end = end, begin
            label = Multiplicity(syntax.right_multiplicity, syntax.left_multiplicity)
        else:
            label = Multiplicity(syntax.left_multiplicity, syntax.right_multiplicity)
        self.add_relation(syntax.type, begin, end, line, label, syntax.label,
                          syntax.navigable)
        return None

    def _end_class(self, end: LinkEnd, lollipop: bool, line: int, scope: Scope) -> str:
        if lollipop:
            return self.lollipop(end.token, line, scope).key
        return self.class_for(end.token, line, scope).key

    def _association_class(self, syntax: RelationSyntax, line: int, scope: Scope) -> None:
        """``(A, B) .. C``: C is the association class of A–B; the model has no such thing,
        so C gets an association with each of A and B (PlantUML adds a point entity)."""
        for side, other in ((syntax.left, syntax.right), (syntax.right, syntax.left)):
            if side.couple is None:
                continue
            members = []
            for token in side.couple:
                key = self.names.find(token, scope)
                if key is None:
                    raise BuildError(f"no class {token} for the association class")
                members.append(key)
            self.association_points += 1
            if other.couple is None:
                target = self.class_for(other.token, line, scope).key
                for member in members:
                    self.add_relation(RelationType.ASSOCIATION, target, member, line)

    # -- notes ---------------------------------------------------------------------------

    def add_note(self, text: str, target: str, line: int, alias: str = "") -> None:
        """A note; one with a target is drawn with a connector to it."""
        if alias:
            self.note_aliases[alias] = len(self.notes)
        self.notes.append(_NoteDraft(text, target, line))
        if target:
            self.omitted.append(OmittedLink(line, f"note {len(self.notes)}", target, "note"))

    def add_group_note(self, text: str, group: str, line: int) -> None:
        """``note top of model``, where ``model`` is a package: a note, no class; its
        connector is a link PlantUML draws and the model has not."""
        self.notes.append(_NoteDraft(text, "", line))
        self.omitted.append(OmittedLink(line, f"note {len(self.notes)}", group, "note"))

    def is_group(self, token: str, scope: Scope) -> bool:
        """``token`` names a package (or namespace) and no class."""
        return token in self.groups and not self.is_class(token, scope)

    def _note_alias(self, end: LinkEnd, scope: Scope) -> int | None:
        if end.quoted or end.couple is not None or self.is_class(end.token, scope):
            return None
        return self.note_aliases.get(end.token)

    def _is_group(self, end: LinkEnd, scope: Scope) -> bool:
        return end.couple is None and not end.quoted and self.is_group(end.token, scope)

    def _link_note(self, left: LinkEnd, right: LinkEnd, left_note: int | None,
                   right_note: int | None, line: int, scope: Scope, reason: str) -> None:
        begin, end = left.token, right.token
        # A note linked to a package (`N1 .. model`) names no class.
        if left_note is None and left.couple is None and not self._is_group(left, scope):
            begin = self.class_for(left.token, line, scope).key
        if right_note is None and right.couple is None and not self._is_group(right, scope):
            end = self.class_for(right.token, line, scope).key
        self.omitted.append(OmittedLink(line, begin, end, reason))
        if left_note is not None and right_note is not None:
            return  # a line between two notes says nothing about classes
        if left_note is not None:
            note_index, other = left_note, right
        else:
            assert right_note is not None
            note_index, other = right_note, left
        if other.couple is not None or self._is_group(other, scope):
            return
        target = self.class_for(other.token, line, scope).key
        note = self.notes[note_index]
        if not note.target:
            note.target = target  # `N1 .. A` attaches a floating note to A
