"""Random PlantUML skins and sizes: renders "in other people's skins" for a held-out proxy.

The draft converter and the check are tuned on a fixed set of real renders; these diagrams
are drawn fresh for every seed, in the skins people really use (``!theme`` names shipped
with PlantUML 1.2026.2, colours, fonts and sizes, ``monochrome``, ``handwritten``, hidden
circles and empty compartments, shadows, orthogonal or polyline arrows, ``scale``, left to
right, no visibility icons) around diagrams of 3–30 classes from ``synth_reference``, some
with packages, generic parameters, notes and a nested class. Each feature drawn is named, so
a benchmark can say which kind of skin the draft fails on. Deterministic per
``random.Random`` state.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

from cluestudio.core.model import ClassDiagram, Note
from cluestudio.core.synth import styled
from cluestudio.core.synth_reference import ATTRIBUTES, random_reference

# Themes of PlantUML 1.2026.2 (``themes/puml-theme-*.puml`` in its jar): light ones people
# pick for slides and reports, and a few dark ones.
LIGHT_THEMES = ("plain", "cerulean", "cerulean-outline", "materia", "materia-outline",
                "sketchy", "sketchy-outline", "bluegray", "spacelab", "mars", "toy",
                "vibrant", "amiga", "mono", "silver", "sandstone", "united", "minty",
                "lightgray", "aws-orange", "reddress-lightblue", "carbon-gray")
DARK_THEMES = ("cyborg", "black-knight", "crt-green", "superhero", "hacker",
               "reddress-darkblue")
COLOURS = ("#FEFECE", "#E3F2FD", "LightYellow", "White", "#DDEEFF", "LightGreen", "Wheat",
           "#F5F5F5", "Lavender", "#FFE0B2", "PaleTurquoise", "#C8E6C9", "LightGray")
LINE_COLOURS = ("Black", "#333333", "DarkBlue", "#A80036", "Gray", "DarkGreen", "#1565C0")
FONTS = ("SansSerif", "Serif", "Monospaced", "Dialog", "DejaVu Sans", "Courier")
NESTED_WORDS = ("Line", "Entry", "Detail", "Part", "Slot")
PACKAGE_WORDS = ("core", "billing", "model", "domain", "people", "logistics", "shop")


@dataclass(frozen=True)
class Skinned:
    """One diagram in one skin: the PlantUML to render, its truth, and the features drawn."""

    text: str
    truth: ClassDiagram
    features: tuple[str, ...]


def random_skin(rng: random.Random) -> tuple[list[str], list[str], bool]:
    """(skin lines after ``@startuml``, feature names, left to right?)."""
    lines: list[str] = []
    features: list[str] = []

    def maybe(p: float, feature: str, *skin: str) -> bool:
        if rng.random() < p:
            lines.extend(skin)
            features.append(feature)
            return True
        return False

    themed = rng.random() < 0.35
    if themed:
        dark = rng.random() < 0.2
        theme = rng.choice(DARK_THEMES if dark else LIGHT_THEMES)
        lines.append(f"!theme {theme}")
        features.append("dark theme" if dark else "light theme")
    maybe(0.15, "monochrome", "skinparam monochrome true")
    maybe(0.1, "handwritten", "skinparam handwritten true")
    if not themed:
        maybe(0.4, "background colour",
              f"skinparam classBackgroundColor {rng.choice(COLOURS)}")
        maybe(0.3, "border colour", f"skinparam classBorderColor {rng.choice(LINE_COLOURS)}")
        maybe(0.3, "arrow colour", f"skinparam ArrowColor {rng.choice(LINE_COLOURS)}")
    maybe(0.25, "border thickness",
          f"skinparam classBorderThickness {rng.choice((0.5, 1.5, 2, 3))}")
    maybe(0.35, "font", f"skinparam classFontName {rng.choice(FONTS)}",
          f"skinparam defaultFontName {rng.choice(FONTS)}")
    if not maybe(0.2, "small font", f"skinparam classFontSize {rng.randint(9, 11)}",
                 f"skinparam classAttributeFontSize {rng.randint(8, 10)}"):
        maybe(0.2, "large font", f"skinparam classFontSize {rng.randint(15, 20)}",
              f"skinparam classAttributeFontSize {rng.randint(13, 17)}")
    maybe(0.4, "hide circle", "hide circle")
    maybe(0.3, "hide empty members", "hide empty members")
    maybe(0.35, "no member icons", "skinparam classAttributeIconSize 0")
    if not maybe(0.2, "shadowing off", "skinparam shadowing false"):
        maybe(0.1, "shadowing on", "skinparam shadowing true")
    line_type = rng.random()
    if line_type < 0.2:
        lines.append("skinparam linetype ortho")
        features.append("ortho lines")
    elif line_type < 0.3:
        lines.append("skinparam linetype polyline")
        features.append("polyline lines")
    if rng.random() < 0.5:
        scale = round(rng.uniform(0.6, 2.0), 2)
        lines.append(f"scale {scale}")
        features.append("scale < 1" if scale < 1 else "scale ≥ 1")
    return lines, features, rng.random() < 0.2


def _with_packages(diagram: ClassDiagram, rng: random.Random) -> ClassDiagram:
    """Classes in two or three packages, kept in runs (the writer groups consecutive ones)."""
    names = rng.sample(PACKAGE_WORDS, rng.randint(2, 3))
    cut = sorted(rng.sample(range(1, len(diagram.classes)), len(names) - 1))
    bounds = [0, *cut, len(diagram.classes)]
    classes = tuple(replace(c, package=names[k])
                    for k in range(len(names)) for c in diagram.classes[bounds[k]:bounds[k + 1]])
    return replace(diagram, classes=classes)


def _with_notes(diagram: ClassDiagram, rng: random.Random) -> ClassDiagram:
    target = rng.choice(diagram.classes).name
    notes = (Note("kept for audit", target),) if rng.random() < 0.7 else ()
    return replace(diagram, notes=(*notes, Note("draft version")))


def _with_generics(text: str, diagram: ClassDiagram, rng: random.Random) -> str:
    """One or two classes declared with a type parameter (``class Basket<T>``)."""
    for cls in rng.sample(diagram.classes, min(2, len(diagram.classes))):
        text = re.sub(rf"^(\s*(?:abstract class|class) {re.escape(cls.name)})(?=[ {{]|$)",
                      rf"\1<{rng.choice(('T', 'K, V', 'E'))}>", text, count=1, flags=re.M)
    return text


def _with_nested(lines: list[str], diagram: ClassDiagram, rng: random.Random) -> list[str]:
    """A class nested in another (``Outer.Inner``, tied by ``+--``), before ``@enduml``."""
    outer = rng.choice([c.name for c in diagram.classes if c.name.isidentifier()])
    inner = f"{outer}.{rng.choice(NESTED_WORDS)}"
    name, typ = rng.choice(ATTRIBUTES)
    return [*lines[:-1], f"class {inner} {{", f"  -{name} : {typ}", "}",
            f"{outer} +-- {inner}", lines[-1]]


def random_skinned(rng: random.Random, classes: tuple[int, int] = (3, 30)) -> Skinned:
    """A random diagram of ``classes`` classes in a random skin; its truth is what our parser
    reads from the text rendered (as for a real render's ``.puml``)."""
    from cluestudio.core.plantuml import parse_plantuml, write_plantuml

    diagram = random_reference(rng, classes=classes)
    skin, features, sideways = random_skin(rng)
    if len(diagram.classes) >= 4 and rng.random() < 0.3:
        diagram = _with_packages(diagram, rng)
        features.append("packages")
    if rng.random() < 0.25:
        diagram = _with_notes(diagram, rng)
        features.append("notes")
    text = write_plantuml(diagram)
    if rng.random() < 0.2:
        text = _with_generics(text, diagram, rng)
        features.append("generics")
    # Smetana (the project's layout engine) throws on a sideways layout of more than about
    # 16 classes (UnsupportedOperationException): larger diagrams stay top to bottom
    if sideways and len(diagram.classes) <= 16:
        text = styled(text, "left_to_right")
        features.append("left to right")
    lines = text.strip().splitlines()
    if rng.random() < 0.15:  # drawn last, so the draws above stay as they were
        lines, skin = _with_nested(lines, diagram, rng), [*skin, "set separator none"]
        features.append("nested class")
    text = "\n".join([lines[0], *skin, *lines[1:]]) + "\n"
    size = len(diagram.classes)
    features.append("3–8 classes" if size <= 8 else "9–16 classes" if size <= 16
                    else "17–30 classes")
    return Skinned(text, parse_plantuml(text).diagram, tuple(features))
