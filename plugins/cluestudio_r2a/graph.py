"""Component / package / deployment PlantUML → an architecture graph (R2ABench, seed 001).

The graph is a :class:`networkx.DiGraph` whose nodes are the architecture's elements
(components, interfaces, databases, actors, …) and whose edges are the arrows between them.
Containers with a body — ``package``, ``rectangle``, ``node``, ``frame``, ``folder``,
``cloud``, a ``component X { … }`` — are *layers*: each node records the path of containers
around it (``layer``), and a container only becomes a node itself when an arrow touches it.
Node attributes: ``label`` (display name), ``kind`` (keyword), ``layer`` (tuple of container
labels, outermost first), ``leaf`` (not a container), ``line`` (1-based). Edge attributes:
``directed`` (False for ``--``), ``label``, ``line``. ``graph.graph["warnings"]`` lists lines
we did not understand (kept, never silently dropped); ``graph.graph["layers"]`` maps every
container id to its label and parent path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

ELEMENT_KEYWORDS = (
    "component", "interface", "actor", "agent", "artifact", "boundary", "card", "circle",
    "cloud", "collections", "control", "database", "entity", "file", "folder", "frame",
    "hexagon", "label", "node", "package", "person", "portin", "portout", "port", "queue",
    "rectangle", "stack", "storage", "usecase", "process", "action", "namespace",
    "together",
)
_KEYWORDS = "|".join(sorted(ELEMENT_KEYWORDS, key=len, reverse=True))

_STEREO = re.compile(r"<<[^>]*>>")
_COLOR = re.compile(r"(?<![\w\[])#[\w\-|/\\.]+")
# `keyword name [as alias] [<<stereo>>] [#color] [{]`, name quoted, bracketed or bare.
_DECL = re.compile(
    rf"^(?P<kw>{_KEYWORDS})\b\s*"
    r"(?P<name>\"[^\"]*\"|\[[^\]]*\]|[^\s{\"\[]+)?"
    r"(?:\s+as\s+(?P<alias>\"[^\"]*\"|[^\s{]+))?"
    r"\s*(?P<open>\{)?\s*$",
    re.IGNORECASE,
)
_SHORT_COMPONENT = re.compile(r"^\[(?P<name>[^\]]+)\](?:\s+as\s+(?P<alias>\S+))?\s*(?P<open>\{)?$")
_SHORT_INTERFACE = re.compile(
    r"^\(\)\s*(?P<name>\"[^\"]*\"|\S+)(?:\s+as\s+(?P<alias>\S+))?\s*$")
_SHORT_ACTOR = re.compile(r"^:(?P<name>[^:]+):(?:\s+as\s+(?P<alias>\S+))?\s*$")
_ELEM = r"(?:\[[^\]]+\]|\(\)\s*\"[^\"]+\"|\(\)\s*[\w.$]+|:[^:]+:|\"[^\"]+\"|[\w.$@/]+)"
_ARROW = re.compile(
    rf"^(?P<lhs>{_ELEM})\s*(?:\"(?P<ml>[^\"]*)\"\s*)?"
    r"(?P<arrow>[<ox*#+^}{|()]*[-.=~]+(?:\[[^\]]*\])?"
    r"(?:(?:left|right|up|down|le|ri|do|l|r|u|d)(?=[-.=~]))?[-.=~]*[>ox*#+^{}|()]*)"
    rf"\s*(?:\"(?P<mr>[^\"]*)\"\s*)?(?P<rhs>{_ELEM})\s*(?::\s*(?P<label>.*))?$",
    re.IGNORECASE,
)
_SKIP = re.compile(
    r"^(?:@start\w*|@end\w*|skinparam\b|!\w+|title\b|caption\b|header\b|footer\b|"
    r"left to right direction|top to bottom direction|hide\b|show\b|scale\b|"
    r"allow_mixing|allowmixing|remove\b|newpage|center footer)",
    re.IGNORECASE,
)
# A multi-line note or legend: no `:` text and no quoted text on its first line.
_NOTE_START = re.compile(r"^(?:note|legend)\b(?![^\n]*[:\"])", re.IGNORECASE)
_NOTE_END = re.compile(r"^end\s*(?:note|legend)\b", re.IGNORECASE)
# Grouping keywords that never name an architecture element of their own.
_TRANSPARENT = {"together"}


def clean_name(raw: str) -> str:
    """The display name of an element as written: quotes, brackets, ``()`` and ``:`` off."""
    text = raw.strip()
    if text.startswith("()"):
        text = text[2:].strip()
    quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in "\":"
    if quoted or (text.startswith("[") and text.endswith("]")):
        text = text[1:-1]
    return " ".join(text.replace("\\n", " ").split())


@dataclass
class _Scope:
    node_id: str  # "" for a transparent group
    label: str
    path: tuple[str, ...]  # labels of this container and those around it, outermost first


@dataclass
class ArchitectureParse:
    """The parse result before it becomes a graph (kept for tests and explanations)."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    layers: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


class _Parser:
    def __init__(self) -> None:
        self.out = ArchitectureParse()
        self.alias: dict[str, str] = {}  # alias or written name → node id
        self.stack: list[_Scope] = []

    @property
    def layer(self) -> tuple[str, ...]:
        return self.stack[-1].path if self.stack else ()

    def declare(self, kw: str, raw_name: str, alias: str | None, line: int,
                container: bool) -> str:
        label = clean_name(raw_name) or clean_name(alias or "")
        node_id = clean_name(alias) if alias else label
        if alias and alias.startswith('"') and not raw_name.startswith('"'):
            label, node_id = node_id, label  # the `component X as "Long name"` form
        for key in (label, raw_name.strip(), node_id):
            self.alias[key] = node_id
        if container:
            self.out.layers[node_id] = {"label": label, "kind": kw, "parent": self.layer,
                                        "line": line}
        else:
            self.out.nodes[node_id] = {"label": label, "kind": kw, "layer": self.layer,
                                       "leaf": True, "line": line}
        return node_id

    def resolve(self, raw: str, line: int) -> str:
        text = raw.strip()
        for key in (text, clean_name(text)):
            if key in self.alias:
                node_id = self.alias[key]
                break
        else:
            kind = ("component" if text.startswith("[") else
                    "interface" if text.startswith("()") else
                    "actor" if text.startswith(":") else "component")
            node_id = self.declare(kind, text, None, line, container=False)
        if node_id not in self.out.nodes and node_id in self.out.layers:
            # An arrow to a container: the container takes part in the graph as a node.
            layer = self.out.layers[node_id]
            self.out.nodes[node_id] = {"label": layer["label"], "kind": layer["kind"],
                                       "layer": layer["parent"], "leaf": False,
                                       "line": layer["line"]}
        return node_id

    def feed(self, text: str) -> ArchitectureParse:
        in_note = in_block_comment = False
        skip_depth = 0  # inside a `skinparam x {` or similar block we do not read
        for number, raw_line in enumerate(text.splitlines(), 1):
            line = raw_line.strip()
            if in_block_comment:
                in_block_comment = "'/" not in line
                continue
            if line.startswith("/'"):
                in_block_comment = "'/" not in line[2:]
                continue
            if not line or line.startswith("'"):
                continue
            if in_note:
                in_note = not _NOTE_END.match(line)
                continue
            if skip_depth:
                skip_depth += line.count("{") - line.count("}")
                continue
            if _SKIP.match(line):
                if line.endswith("{"):
                    skip_depth = 1
                continue
            if _NOTE_START.match(line):
                in_note = True
                continue
            if line.lower().startswith("note "):
                continue  # one-line note: `note right of X : text`, `note "text" as N`
            self.line(number, raw_line, line)
        for scope in self.stack:
            self.out.warnings.append(f"container {scope.label!r} is never closed")
        return self.out

    def line(self, number: int, raw_line: str, line: str) -> None:
        if line == "}":
            if self.stack:
                self.stack.pop()
            else:
                self.out.warnings.append(f"line {number}: '}}' closes nothing")
            return
        bare = _COLOR.sub("", _STEREO.sub("", line)).strip()
        match = _SHORT_COMPONENT.match(bare)
        if match:
            self.open_or_declare("component", f"[{match['name']}]", match["alias"],
                                 number, bool(match["open"]))
            return
        match = _SHORT_INTERFACE.match(bare) or _SHORT_ACTOR.match(bare)
        if match:
            kind = "interface" if bare.startswith("()") else "actor"
            self.declare(kind, match["name"], match["alias"], number, container=False)
            return
        match = _ARROW.match(bare)
        if match and not _DECL.match(bare):
            self.arrow(match, number)
            return
        match = _DECL.match(bare)
        if match:
            kw = match["kw"].lower()
            if kw in _TRANSPARENT:
                if match["open"]:
                    self.stack.append(_Scope("", "", self.layer))
                return
            self.open_or_declare(kw, match["name"] or "", match["alias"], number,
                                 bool(match["open"]))
            return
        self.out.warnings.append(f"line {number}: not understood: {raw_line.strip()!r}")

    def open_or_declare(self, kw: str, name: str, alias: str | None, number: int,
                        opens: bool) -> None:
        node_id = self.declare(kw, name, alias, number, container=opens)
        if opens:
            label = self.out.layers[node_id]["label"]
            self.stack.append(_Scope(node_id, label, (*self.layer, label)))

    def arrow(self, match: re.Match[str], number: int) -> None:
        left = self.resolve(match["lhs"], number)
        right = self.resolve(match["rhs"], number)
        arrow = re.sub(r"\[[^\]]*\]", "", match["arrow"])
        points_left = arrow.startswith("<")
        points_right = arrow.endswith(">")
        if "hidden" in match["arrow"].lower():
            return  # layout-only link: not part of the architecture
        begin, end = (right, left) if points_left and not points_right else (left, right)
        self.out.edges.append((begin, end, {
            "directed": points_left != points_right,
            "label": (match["label"] or "").strip(),
            "line": number,
        }))


def parse_architecture(text: str) -> ArchitectureParse:
    """Parse component/package/deployment PlantUML; never raises on odd lines (warnings)."""
    return _Parser().feed(text)


def architecture_graph(text: str) -> nx.DiGraph:
    """The :class:`networkx.DiGraph` of a component/deployment PlantUML text."""
    import networkx as nx

    parsed = parse_architecture(text)
    graph = nx.DiGraph(warnings=list(parsed.warnings), layers=dict(parsed.layers))
    for node_id, attrs in parsed.nodes.items():
        graph.add_node(node_id, **attrs)
    for begin, end, attrs in parsed.edges:
        if graph.has_edge(begin, end):
            continue  # parallel arrows collapse into one edge of the architecture
        graph.add_edge(begin, end, **attrs)
    return graph
