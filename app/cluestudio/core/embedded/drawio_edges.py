"""draw.io edges as UML relations: the heads at their ends, their labels, and the PlantUML
line that says the same (the table is in :mod:`drawio_uml`'s docstring)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.embedded.drawio_cells import Cell, safe_text

_MULTIPLICITY = re.compile(r"(?:\d+|\*|[nNmM])(?:\s*\.\.\s*(?:\d+|\*|[nNmM]))?")
STEREOTYPE = re.compile(r"(?:<<|«)\s*([^<>«»]*?)\s*(?:>>|»)")
_ER_ENDS = {"ERone": "1", "ERmandOne": "1", "ERmany": "*", "ERzeroToOne": "0..1",
            "ERzeroToMany": "0..*", "ERoneToMany": "1..*"}
_ARROWS = {"AS": "--", "DE": "..>", "GE": "--|>", "RE": "..|>", "CO": "*--", "AG": "o--"}
_NEAR_END = 0.3


@dataclass
class EdgeRelation:
    """One relation, ends by class name in canonical order (GE/RE: child, parent; CO/AG:
    whole, part; DE: client, supplier; AS: as drawn) and the PlantUML arrow that says it."""

    kind: str
    begin: str
    end: str
    arrow: str
    reversed: bool = False  # begin is the edge's target (the head was at the source)
    from_: str = ""
    to: str = ""
    name: str = ""


def is_multiplicity(text: str) -> bool:
    return bool(_MULTIPLICITY.fullmatch(text.strip()))


def read_labels(relation: EdgeRelation, edge: Cell, labels: list[Cell]) -> None:
    """Multiplicities and the name from the edge's own label and its label cells (where
    along the edge each sits: ``x`` from -1 at the source to 1 at the target)."""
    names = list(edge.lines())
    ends: dict[str, str] = {}
    for child in sorted(labels, key=lambda c: c.order):
        x = child.geometry.x if child.geometry.relative else 0.0
        side = "source" if x < -_NEAR_END else "target" if x > _NEAR_END else ""
        for line in child.lines():
            if side and is_multiplicity(line):
                ends.setdefault(side, " ".join(line.split()))
            elif not side:
                names.append(line)
    if relation.kind in ("GE", "RE"):
        return  # the head says it all; "extends" labels add nothing
    style = edge.style
    # Written labels first; else what crow's feet draw.
    at_source = ends.get("source") or _ER_ENDS.get(style.get("startArrow", ""), "")
    at_target = ends.get("target") or _ER_ENDS.get(style.get("endArrow", ""), "")
    if relation.reversed:
        at_source, at_target = at_target, at_source
    relation.from_, relation.to = safe_text(at_source), safe_text(at_target)
    name = " ".join(n for n in names if not is_multiplicity(n))
    name = STEREOTYPE.sub(lambda m: m.group(1), name)
    relation.name = safe_text(name).strip("<>").strip()


def _head(arrow: str, filled: bool) -> str:
    """What a draw.io end marker means: triangle, diamond (filled), hollow (diamond),
    er (crow's feet), arrow or none."""
    if arrow in ("block", "blockThin") and not filled:
        return "triangle"
    if arrow in ("diamond", "diamondThin"):
        return "diamond" if filled else "hollow"
    if arrow in _ER_ENDS:
        return "er"
    if arrow in ("", "none", "oval", "dash", "cross", "circle", "circlePlus", "halfCircle"):
        return "none"
    return "arrow"


def relation_of(edge: Cell, source: str, target: str) -> EdgeRelation:
    """The relation ``edge`` draws from class ``source`` to class ``target``; when both
    ends carry heads the stronger decides, as in our PlantUML parser (triangle, filled
    diamond, hollow diamond, arrow)."""
    style = edge.style
    start = _head(style.get("startArrow", "none"), style.get("startFill", "1") != "0")
    # draw.io's default edge ends in a filled "classic" arrow head.
    end = _head(style.get("endArrow", "classic"), style.get("endFill", "1") != "0")
    dashed = style.flag("dashed")
    for head in ("triangle", "diamond", "hollow"):
        if head in (start, end):
            at_start = start == head
            if head == "triangle":
                kind = "RE" if dashed else "GE"
                # The triangle marks the parent, the relation's end.
                return EdgeRelation(kind, target, source, _ARROWS[kind], reversed=at_start) \
                    if at_start else EdgeRelation(kind, source, target, _ARROWS[kind])
            kind = "CO" if head == "diamond" else "AG"
            # The diamond marks the whole, the relation's begin.
            return EdgeRelation(kind, source, target, _ARROWS[kind]) if at_start \
                else EdgeRelation(kind, target, source, _ARROWS[kind], reversed=True)
    if dashed:
        if start == "arrow" and end != "arrow":
            return EdgeRelation("DE", target, source, "..>", reversed=True)
        return EdgeRelation("DE", source, target, "..>" if end == "arrow" else "..")
    arrow = {("arrow", "arrow"): "<-->", ("arrow", "none"): "<--", ("arrow", "er"): "<--",
             ("none", "arrow"): "-->", ("er", "arrow"): "-->"}.get((start, end), "--")
    return EdgeRelation("AS", source, target, arrow)


def relation_line(relation: EdgeRelation, aliases: dict[str, str]) -> str:
    """``C1 "1" *-- "0..*" C2 : holds``, with each class's alias."""
    arrow = relation.arrow
    from_ = f' "{relation.from_}"' if relation.from_ else ""
    to = f'"{relation.to}" ' if relation.to else ""
    name = f" : {relation.name}" if relation.name else ""
    return f"{aliases[relation.begin]}{from_} {arrow} {to}{aliases[relation.end]}{name}"
