"""Diagram kinds of a task: which parser, renderer and metrics apply (issue 9, item 5).

A task's kind decides how its texts are read. ``class`` texts are PlantUML class diagrams
(our parser, CLUE, the baselines); ``component``, ``deployment`` and ``package`` texts are
PlantUML architecture diagrams (rendered as usual, scored by the R2ABench plugins, never
checked with the class parser); ``sysml`` texts are SysML v2 textual models and ``code``
texts Python source: neither can be rendered by PlantUML. The vocabulary is the one plugin
manifests use for ``diagram_kinds`` (docs/adr/0006-plugin-manifests.md).
"""

from __future__ import annotations

import re

DIAGRAM_KINDS: tuple[str, ...] = ("class", "component", "deployment", "package", "sysml",
                                  "code")
DEFAULT_KIND = "class"
#: Kinds whose texts are PlantUML (rendered by the jar); the others are shown as text.
PLANTUML_KINDS = frozenset({"class", "component", "deployment", "package"})

_SYSML = re.compile(r"^\s*(?:abstract\s+)?(?:part|port|item|action|requirement|attribute|"
                    r"connection|interface|state|constraint|enum)\s+def\b|^\s*part\s+\w+\s*:",
                    re.MULTILINE)
_START = re.compile(r"^\s*@start\w+", re.MULTILINE)
_CLASS = re.compile(r"^\s*(?:abstract\s+class|abstract|class|enum|annotation)\s+\S",
                    re.MULTILINE)
_COMPONENT = re.compile(r"^\s*(?:component|node|database|artifact|\[[^\]\n]+\])",
                        re.MULTILINE)


def is_known(kind: str) -> bool:
    return kind in DIAGRAM_KINDS


def kind_error(kind: object) -> str:
    """The message for a kind that is not one of :data:`DIAGRAM_KINDS`."""
    return f"unknown diagram_kind {kind!r} (one of: {', '.join(DIAGRAM_KINDS)})"


def detect_kind(text: str) -> str | None:
    """The kind of an obvious reference text, or None when it is not obvious.

    SysML v2: no ``@start…`` line and a ``part def`` / ``part x :`` style definition.
    Component: PlantUML with ``component``, ``node``, ``database`` or ``[Name]`` elements
    and no ``class``/``enum`` declaration. Anything else is left to the caller's default.
    """
    if not text.strip():
        return None
    if not _START.search(text) and _SYSML.search(text):
        return "sysml"
    if _COMPONENT.search(text) and not _CLASS.search(text):
        return "component"
    return None


def renders_with_plantuml(kind: str) -> bool:
    return kind in PLANTUML_KINDS


def uses_class_parser(kind: str) -> bool:
    """Only class-diagram texts are checked with (and scored through) the class parser."""
    return kind == "class"


def no_rendering_note(kind: str) -> str:
    """What the views show instead of a picture for a kind PlantUML cannot draw."""
    return {"sysml": "SysML v2 text: no diagram rendering",
            "code": "Python source: no diagram rendering"}.get(kind, "no diagram rendering")
