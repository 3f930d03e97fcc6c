"""Synthetic student-like submissions: seeded mutations of a reference diagram.

Each candidate records the ground truth of what was changed (renamed, dropped, added,
wrong relation type, reversed arrow, wrong multiplicity), so metrics and graders can be
checked against known defects; candidates are rendered in several visual styles
(handwritten, monochrome, scaled, left-to-right) the way real photos and exports differ.
Deterministic: the same reference, seed and count give the same candidates.
"""

from __future__ import annotations

import io
import random
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    Method,
    Multiplicity,
    Relation,
    RelationType,
)

MUTATIONS = (
    "rename_class", "rename_member", "drop_attribute", "drop_method", "drop_class",
    "extra_attribute", "extra_method", "extra_class", "wrong_relation_type",
    "reverse_relation", "wrong_multiplicity", "drop_relation",
)

# Words students swap in for each other; anything else gets a student-ish variant.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "Member": ("Borrower", "User"), "Customer": ("Client", "Buyer"), "Item": ("Media",),
    "Copy": ("BookCopy", "Exemplar"), "Loan": ("Borrowing", "Lending"),
    "Order": ("Purchase",), "Product": ("Article", "Good"), "Address": ("Location",),
    "Payment": ("Transaction",), "Patient": ("Client",), "Doctor": ("Physician",),
    "Appointment": ("Booking", "Visit"), "Medication": ("Drug", "Medicine"),
    "Librarian": ("Staff",), "Category": ("ProductCategory",), "Room": ("Ward",),
    "name": ("title", "fullName"), "email": ("mail", "eMail"), "date": ("day",),
    "status": ("state",), "cancel": ("abort", "remove"), "total": ("getTotal", "sum"),
    "amount": ("value",), "price": ("cost",),
}
_EXTRA_ATTRS = (("id", "int"), ("createdAt", "Date"), ("notes", "String"), ("active", "boolean"))
_EXTRA_METHODS = (("toString", "String"), ("validate", "boolean"), ("save", "void"))
_EXTRA_CLASSES = ("Manager", "Helper", "DataStore", "Report")
_MULTIPLICITIES = ("1", "0..1", "*", "0..*", "1..*", "2")

STYLES: dict[str, tuple[str, ...]] = {
    "plain": (),
    "handwritten": ("skinparam handwritten true",),
    "monochrome": ("skinparam monochrome true", "skinparam shadowing false"),
    "small": ("scale 0.75",),
    "left_to_right": ("left to right direction",),
    "mono_handwritten": ("skinparam monochrome true", "skinparam handwritten true"),
}

@dataclass(frozen=True)
class Mutation:
    """Ground truth of one change: what kind, on which element, and the before/after."""

    kind: str
    target: str
    before: str = ""
    after: str = ""

@dataclass(frozen=True)
class Candidate:
    source_id: str
    diagram: ClassDiagram
    mutations: tuple[Mutation, ...]
    style: str
    seed: int
    meta: dict[str, Any] = field(default_factory=dict)

    def ground_truth(self) -> dict[str, Any]:
        return {"origin": "synthetic", "seed": self.seed, "style": self.style,
                "mutations": [asdict(m) for m in self.mutations]}

def _variant(name: str, rng: random.Random) -> str:
    if name in SYNONYMS:
        return rng.choice(SYNONYMS[name])
    if name[:1].isupper():
        return rng.choice((name + "Info", name + "Entity", "The" + name))
    return rng.choice((name + "Value", "my" + name[:1].upper() + name[1:], name.lower() + "_"))

def _rename_refs(diagram: ClassDiagram, old: str, new: str) -> ClassDiagram:
    classes = tuple(replace(c, name=new) if c.name == old else c for c in diagram.classes)
    relations = tuple(replace(r, begin=new if r.begin == old else r.begin,
                              end=new if r.end == old else r.end) for r in diagram.relations)
    return replace(diagram, classes=classes, relations=relations)

def _set_class(diagram: ClassDiagram, index: int, cls: Class) -> ClassDiagram:
    classes = list(diagram.classes)
    classes[index] = cls
    return replace(diagram, classes=tuple(classes))

def _apply(kind: str, d: ClassDiagram, rng: random.Random) -> tuple[ClassDiagram, Mutation] | None:
    """One mutation of ``kind``, or None where it does not apply (e.g. no methods left)."""
    if not d.classes:
        return None
    ci = rng.randrange(len(d.classes))
    cls = d.classes[ci]
    if kind == "rename_class":
        new = _variant(cls.name, rng)
        if d.class_named(new):
            return None
        return _rename_refs(d, cls.name, new), Mutation(kind, cls.name, cls.name, new)
    if kind == "rename_member":
        members = [("a", i) for i in range(len(cls.attributes))] + [
            ("m", i) for i in range(len(cls.methods))]
        if not members:
            return None
        which, i = rng.choice(members)
        if which == "a":
            attr = cls.attributes[i]
            new_attr = replace(attr, name=_variant(attr.name, rng))
            attrs = (*cls.attributes[:i], new_attr, *cls.attributes[i + 1:])
            return (_set_class(d, ci, replace(cls, attributes=attrs)),
                    Mutation(kind, f"{cls.name}.{attr.name}", attr.name, new_attr.name))
        meth = cls.methods[i]
        new_meth = replace(meth, name=_variant(meth.name, rng))
        methods = (*cls.methods[:i], new_meth, *cls.methods[i + 1:])
        return (_set_class(d, ci, replace(cls, methods=methods)),
                Mutation(kind, f"{cls.name}.{meth.name}()", meth.name, new_meth.name))
    if kind == "drop_attribute":
        if not cls.attributes:
            return None
        i = rng.randrange(len(cls.attributes))
        gone = cls.attributes[i].name
        attrs = (*cls.attributes[:i], *cls.attributes[i + 1:])
        return (_set_class(d, ci, replace(cls, attributes=attrs)),
                Mutation(kind, f"{cls.name}.{gone}", gone, ""))
    if kind == "drop_method":
        if not cls.methods:
            return None
        i = rng.randrange(len(cls.methods))
        gone = cls.methods[i].name
        methods = (*cls.methods[:i], *cls.methods[i + 1:])
        return (_set_class(d, ci, replace(cls, methods=methods)),
                Mutation(kind, f"{cls.name}.{gone}()", gone, ""))
    if kind == "drop_class":
        if len(d.classes) < 4:
            return None
        classes = tuple(c for c in d.classes if c.name != cls.name)
        relations = tuple(r for r in d.relations if cls.name not in (r.begin, r.end))
        return replace(d, classes=classes, relations=relations), Mutation(kind, cls.name,
                                                                          cls.name, "")
    if kind == "extra_attribute":
        name, typ = rng.choice(_EXTRA_ATTRS)
        if any(a.name == name for a in cls.attributes):
            return None
        attrs = (*cls.attributes, Attribute(name, typ, "-"))
        return (_set_class(d, ci, replace(cls, attributes=attrs)),
                Mutation(kind, f"{cls.name}.{name}", "", f"{name} : {typ}"))
    if kind == "extra_method":
        name, ret = rng.choice(_EXTRA_METHODS)
        if any(m.name == name for m in cls.methods):
            return None
        methods = (*cls.methods, Method(name, ret, (), "+"))
        return (_set_class(d, ci, replace(cls, methods=methods)),
                Mutation(kind, f"{cls.name}.{name}()", "", f"{name}() : {ret}"))
    if kind == "extra_class":
        name = rng.choice(_EXTRA_CLASSES)
        if d.class_named(name):
            return None
        extra = Class(name, (Attribute("id", "int", "-"),))
        rel = Relation(RelationType.ASSOCIATION, name, cls.name)
        return (replace(d, classes=(*d.classes, extra), relations=(*d.relations, rel)),
                Mutation(kind, name, "", f"{name} -- {cls.name}"))
    if not d.relations:
        return None
    ri = rng.randrange(len(d.relations))
    rel = d.relations[ri]
    rels = list(d.relations)
    target = f"{rel.begin}-{rel.type.value}-{rel.end}"
    if kind == "wrong_relation_type":
        new_type = rng.choice([t for t in RelationType if t != rel.type])
        rels[ri] = replace(rel, type=new_type)
        mutation = Mutation(kind, target, rel.type.value, new_type.value)
    elif kind == "reverse_relation":
        if rel.begin == rel.end:
            return None
        rels[ri] = replace(rel, begin=rel.end, end=rel.begin,
                           label=Multiplicity(rel.label.to, rel.label.from_))
        mutation = Mutation(kind, target, f"{rel.begin}->{rel.end}", f"{rel.end}->{rel.begin}")
    elif kind == "wrong_multiplicity":
        if not (rel.label.from_ or rel.label.to):
            return None
        new_to = rng.choice([m for m in _MULTIPLICITIES if m != rel.label.to])
        rels[ri] = replace(rel, label=Multiplicity(rel.label.from_, new_to))
        mutation = Mutation(kind, target, rel.label.to, new_to)
    elif kind == "drop_relation":
        del rels[ri]
        mutation = Mutation(kind, target, target, "")
    else:
        raise ValueError(f"unknown mutation {kind!r}")
    return replace(d, relations=tuple(rels)), mutation

def mutate(reference: ClassDiagram, rng: random.Random, count: int
           ) -> tuple[ClassDiagram, tuple[Mutation, ...]]:
    """Apply ``count`` random applicable mutations; returns the candidate and ground truth."""
    diagram, done = reference, list[Mutation]()
    attempts = 0
    while len(done) < count and attempts < count * 20:
        attempts += 1
        result = _apply(rng.choice(MUTATIONS), diagram, rng)
        if result is not None:
            diagram = result[0]
            done.append(result[1])
    return diagram, tuple(done)

def generate(reference: ClassDiagram, count: int, *, seed: int = 0, prefix: str = "synth",
             max_mutations: int = 4) -> list[Candidate]:
    """``count`` candidates; the first is unchanged (a perfect student), the rest mutated."""
    out = []
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")  # per candidate, so one change shifts no others
        n = 0 if i == 0 else rng.randint(1, max_mutations)
        diagram, mutations = mutate(reference, rng, n)
        style = list(STYLES)[i % len(STYLES)]
        out.append(Candidate(f"{prefix}{i + 1:03d}", diagram, mutations, style, seed))
    return out

# Smetana (our layout engine) ignores "left to right direction"; one-dash arrows are what
# really put two classes side by side, so the sideways style shortens every arrow.
_SIDEWAYS = frozenset({"left_to_right"})
_ARROW = re.compile(r"^([<|*o#x}^+]{0,2})(-{2,}|\.{2,})([>|*o#x{^+]{0,2})$")


def _short_arrows(line: str) -> str:
    tokens = line.split(" ")
    for i, token in enumerate(tokens[1:], start=1):
        match = _ARROW.match(token)
        if match:
            tokens[i] = match.group(1) + match.group(2)[0] + match.group(3)
            break
    return " ".join(tokens)


def styled(puml: str, style: str) -> str:
    """Insert a style's skinparams right after ``@startuml`` (added if missing)."""
    lines = puml.strip().splitlines()
    if style in _SIDEWAYS:
        lines = [_short_arrows(line) for line in lines]
    extra = list(STYLES[style])
    if lines and lines[0].strip().startswith("@startuml"):
        return "\n".join([lines[0], *extra, *lines[1:]]) + "\n"
    return "\n".join(["@startuml", *extra, *lines, "@enduml"]) + "\n"

def render_png_batch(texts: list[str]) -> list[bytes]:
    """PNG of each text, rendered by the shared warm PlantUML renderer."""
    from cluestudio.core.plantuml.renderer import get_renderer

    renderer = get_renderer()
    return [renderer.render(text, fmt="png") for text in texts]

def shrink_png(data: bytes, max_bytes: int = 40_000) -> bytes:
    """A palette PNG (diagrams have few colours), downscaled until it fits ``max_bytes``."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        image = opened.convert("RGB")
        for factor in (1.0, 0.85, 0.7, 0.6, 0.5, 0.4):
            size = (max(1, int(image.width * factor)), max(1, int(image.height * factor)))
            scaled = image if factor == 1.0 else image.resize(size, Image.Resampling.LANCZOS)
            buffer = io.BytesIO()
            scaled.quantize(colors=16, dither=Image.Dither.NONE).save(
                buffer, format="PNG", optimize=True)
            if buffer.tell() <= max_bytes:
                break
        return buffer.getvalue()


# --- conversion errors and looks of image A (issue 18) -------------------------------------
# A conversion (image A → PlantUML) that dropped, renamed or invented one thing: the truth
# is rendered as image A, the erroneous diagram is "what the converter wrote", and the
# Mutation records what the check should find.
CONVERSION_ERRORS = (
    "drop_class", "drop_attribute", "drop_method", "drop_label", "drop_multiplicity",
    "rename_class", "rename_attribute", "invent_class", "invent_attribute", "invent_method",
)
# Planted kinds that are the same change as a student mutation above.
_SAME_AS_MUTATION = {"drop_class": "drop_class", "drop_attribute": "drop_attribute",
                     "drop_method": "drop_method", "rename_class": "rename_class",
                     "invent_class": "extra_class", "invent_attribute": "extra_attribute",
                     "invent_method": "extra_method"}


def plant_conversion_error(diagram: ClassDiagram, kind: str, rng: random.Random
                           ) -> tuple[ClassDiagram, Mutation] | None:
    """``diagram`` with one conversion error of ``kind`` (None where it cannot apply)."""
    if kind in _SAME_AS_MUTATION:
        found = _apply(_SAME_AS_MUTATION[kind], diagram, rng)
        return None if found is None else (found[0], replace(found[1], kind=kind))
    if kind == "rename_attribute":
        owners = [i for i, c in enumerate(diagram.classes) if c.attributes]
        if not owners:
            return None
        ci = rng.choice(owners)
        cls = diagram.classes[ci]
        ai = rng.randrange(len(cls.attributes))
        attr = cls.attributes[ai]
        new = _variant(attr.name, rng)
        if new.casefold().replace("_", "") == attr.name.casefold().replace("_", ""):
            new = "my" + attr.name[:1].upper() + attr.name[1:]
        attrs = (*cls.attributes[:ai], replace(attr, name=new), *cls.attributes[ai + 1:])
        return (_set_class(diagram, ci, replace(cls, attributes=attrs)),
                Mutation(kind, f"{cls.name}.{attr.name}", attr.name, new))
    if kind in ("drop_label", "drop_multiplicity"):
        if kind == "drop_label":
            choices = [i for i, r in enumerate(diagram.relations) if r.name]
        else:
            choices = [i for i, r in enumerate(diagram.relations)
                       if r.label.from_ or r.label.to]
        if not choices:
            return None
        ri = rng.choice(choices)
        rel = diagram.relations[ri]
        target = f"{rel.begin}-{rel.type.value}-{rel.end}"
        if kind == "drop_label":
            changed, before = replace(rel, name=""), rel.name
        else:
            ends = [e for e in ("from_", "to") if getattr(rel.label, e)]
            end = rng.choice(ends)
            before = getattr(rel.label, end)
            changed = replace(rel, label=replace(rel.label, **{end: ""}))
        rels = list(diagram.relations)
        rels[ri] = changed
        return replace(diagram, relations=tuple(rels)), Mutation(kind, target, before, "")
    raise ValueError(f"unknown conversion error {kind!r}")


# Four ways image A looks in practice: PlantUML's default, its handwritten style, another
# theme and font, and a phone photo of a printout (render_look applies photo_of).
LOOKS: dict[str, tuple[str, ...]] = {
    "default": (),
    "handwritten": ("skinparam handwritten true",),
    "mono_serif": ("skinparam monochrome true", "skinparam shadowing false",
                   "skinparam defaultFontName Serif", "skinparam classBackgroundColor white"),
    "photo": (),
}


def with_skinparams(puml: str, extra: tuple[str, ...]) -> str:
    lines = puml.strip().splitlines()
    if lines and lines[0].strip().startswith("@startuml"):
        return "\n".join([lines[0], *extra, *lines[1:]]) + "\n"
    return "\n".join(["@startuml", *extra, *lines, "@enduml"]) + "\n"


def render_look(puml: str, look: str, rng: random.Random) -> bytes:
    """Image A of ``puml`` in ``look``: PNG, or JPEG for the photo."""
    png = render_png_batch([with_skinparams(puml, LOOKS[look])])[0]
    return photo_of(png, rng) if look == "photo" else png


def photo_of(png: bytes, rng: random.Random) -> bytes:
    """A phone photo of a printed diagram: enlarged, tilted a few degrees, lit unevenly
    (a gradient and a darker corner), slightly blurred, grainy, saved as JPEG."""
    import numpy as np
    from PIL import Image, ImageFilter

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGB")
    scale = rng.uniform(1.2, 1.5)
    image = image.resize((int(image.width * scale), int(image.height * scale)),
                         Image.Resampling.BICUBIC)
    paper = (rng.randint(235, 250), rng.randint(230, 245), rng.randint(215, 235))
    image = image.rotate(rng.uniform(-3.0, 3.0), resample=Image.Resampling.BICUBIC,
                         expand=True, fillcolor=paper)
    pixels = np.asarray(image, dtype=np.float32)
    height, width = pixels.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (xs / width - 0.5) * np.cos(angle) + (ys / height - 0.5) * np.sin(angle)
    light = 0.83 + 0.3 * ramp  # 0.68 … 0.98 across the page
    cx, cy = rng.uniform(0, width), rng.uniform(0, height)
    light -= 0.12 * np.exp(-(((xs - cx) / width) ** 2 + ((ys - cy) / height) ** 2) * 4)
    pixels = pixels * light[..., None]
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, 5, pixels.shape)
    pixels = np.clip(pixels + noise, 0, 255).astype(np.uint8)
    photo = Image.fromarray(pixels).filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.1)))
    out = io.BytesIO()
    photo.save(out, format="JPEG", quality=rng.randint(45, 65))
    return out.getvalue()
