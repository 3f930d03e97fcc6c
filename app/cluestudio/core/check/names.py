"""The names a class diagram puts in its picture, each with its kind and PlantUML line.

What PlantUML draws as text: class names, stereotypes, attribute and method names,
parameter names, every identifier of a type (``Map<String, Item>`` → Map, String, Item),
relation labels and multiplicities, note text. Each is kept once per place it is drawn,
so the comparison with the image can count (two ``String`` attributes draw ``String``
twice).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from cluestudio.core.model import Class, ClassDiagram

KINDS = ("class", "stereotype", "attribute", "method", "parameter", "type", "label",
         "multiplicity", "note", "package")

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_MULTIPLICITY = re.compile(r"^\s*(?:[0-9]+|[*nN])(?:\s*\.{1,3}\s*(?:[0-9]+|[*nN]))?\s*$")


@dataclass(frozen=True)
class ModelName:
    """One name as the PlantUML states it."""

    text: str
    kind: str  # one of KINDS
    line: int | None  # 1-based line of the element it belongs to in the PlantUML
    owner: str = ""  # the class it belongs to ("" for relations and notes)

    @property
    def key(self) -> str:
        return name_key(self.text, multiplicity=self.kind == "multiplicity")

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "kind": self.kind, "line": self.line, "owner": self.owner}


def fold_diacritics(text: str) -> str:
    """``text`` without its diacritics (``Kündigung`` → ``Kundigung``, ``ïnterface`` →
    ``interface``): OCR adds and drops them on words of any language (issue 29)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


def name_key(text: str, *, multiplicity: bool = False) -> str:
    """What two spellings of one name share: case, diacritics and underscores-vs-camelCase
    ignored (``birth_date`` = ``birthDate``, ``Kündigung`` = ``Kundigung``); multiplicities
    with dots normalised (``0.*`` = ``0..*``)."""
    if multiplicity:
        compact = re.sub(r"\s+", "", text).replace("N", "n")
        return re.sub(r"\.+", "..", compact)
    return fold_diacritics(re.sub(r"[\s_]+", "", text)).casefold()


def is_multiplicity(text: str) -> bool:
    return bool(_MULTIPLICITY.match(text))


def identifiers(text: str) -> list[str]:
    """Identifiers of a type or label: ``List<Book>`` → [List, Book]; single letters
    (a generic ``T``) are too weak to compare and left out."""
    return [m.group() for m in _IDENTIFIER.finditer(text) if len(m.group()) > 1]


def nary_diamond(cls: Class) -> bool:
    """Whether ``cls`` is an n-ary association's ``<> name``: a small diamond drawn without
    its name, not a class box."""
    return cls.stereotype == "diamond" and not (cls.attributes or cls.methods)


def diagram_names(diagram: ClassDiagram) -> list[ModelName]:
    """Every drawn name of ``diagram``, in the order of its elements."""
    out: list[ModelName] = []

    def words(text: str, kind: str, line: int | None, owner: str = "") -> None:
        out.extend(ModelName(w, kind, line, owner) for w in identifiers(text))

    packages: set[str] = set()
    for cls in diagram.classes:
        if nary_diamond(cls):
            continue
        if _IDENTIFIER.fullmatch(cls.name):
            out.append(ModelName(cls.name, "class", cls.line, cls.name))
        else:  # a display name (``"Html (utility)"``, ``Queue.Node<T>``): its words
            words(cls.name, "class", cls.line, cls.name)
        words(cls.stereotype, "stereotype", cls.line, cls.name)
        if cls.package:
            packages.update(cls.package.split("."))
        for attr in cls.attributes:
            out.append(ModelName(attr.name, "attribute", attr.line, cls.name))
            words(attr.type, "type", attr.line, cls.name)
        for method in cls.methods:
            out.append(ModelName(method.name, "method", method.line, cls.name))
            for param in method.params:
                if param.name:
                    out.append(ModelName(param.name, "parameter", method.line, cls.name))
                words(param.type, "type", method.line, cls.name)
            words(method.return_type, "type", method.line, cls.name)
    for relation in diagram.relations:
        for end in (relation.label.from_, relation.label.to):
            if end.strip():
                if is_multiplicity(end):
                    out.append(ModelName(end.strip(), "multiplicity", relation.line))
                else:
                    words(end, "label", relation.line)
        words(relation.name, "label", relation.line)
    for note in diagram.notes:
        words(note.text, "note", note.line, note.target)
    out.extend(ModelName(p, "package", None) for p in sorted(packages) if len(p) > 1)
    return [n for n in out if n.text.strip()]
