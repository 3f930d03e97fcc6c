"""Audit tables: EM, RelAcc and the conflict gap Δ per condition, relation and scale.

Cells are (model, condition, relation, scale); roll-ups over relations and/or scales are the
simple mean of cell values, as the paper averages ("averaged across four relation types and
three image sizes"). Δ_c = RelAcc(prior-conform) − RelAcc(c) for each conflict condition c,
computed as the paper pairs them: over conflict answers whose prior-conform twin (same names
and layout, the arrow kept; ``twin`` in the record) was answered by the same model at the same
scale, so an unanswered or missing twin never shifts Δ. ``pairs`` says how many there were.
Outputs: CSV, JSON and a dependency-free SVG bar chart.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cluestudio.core.safe_output import csv_dict_writer
from cluestudio.core.vlm.conditions import CONDITIONS, CONFLICT_CONDITIONS, PRIOR_CONFORM

ALL = "all"


@dataclass(frozen=True)
class Cell:
    model: str
    condition: str
    relation: str  # a relation, or "all"
    scale: str  # "1", "1.5", "2", or "all"
    n: int
    em: float | None
    rel_acc: float | None
    delta: float | None = None  # conflict conditions only, over matched pairs
    pairs: int = 0  # conflict answers with their twin's answer (Δ is over these)

    def to_dict(self) -> dict[str, Any]:
        def pct(value: float | None) -> float | None:
            return None if value is None else round(100.0 * value, 2)

        return {"model": self.model, "condition": self.condition, "relation": self.relation,
                "scale": self.scale, "n": self.n, "em": pct(self.em),
                "rel_acc": pct(self.rel_acc), "delta": pct(self.delta), "pairs": self.pairs}


def _mean(values: Iterable[float | None]) -> float | None:
    items = [v for v in values if v is not None]
    return sum(items) / len(items) if items else None


def _paired_deltas(groups: dict[tuple[str, str, str, str], list[dict[str, Any]]],
                   ) -> dict[tuple[str, str, str, str], tuple[float, int]]:
    """(Δ, pairs) per base conflict cell: mean(twin correct − this correct) over the answers
    whose twin was answered by the same model at the same scale."""
    answered = {(r["model"], f"{float(r['scale']):g}", r.get("instance_id")): float(r["correct"])
                for members in groups.values() for r in members
                if r["condition"] == PRIOR_CONFORM}
    out: dict[tuple[str, str, str, str], tuple[float, int]] = {}
    for key, members in groups.items():
        if key[1] not in CONFLICT_CONDITIONS:
            continue
        gaps = [answered[twin] - float(r["correct"]) for r in members
                if (twin := (r["model"], key[3], r.get("twin"))) in answered]
        if gaps:
            out[key] = (sum(gaps) / len(gaps), len(gaps))
    return out


def summarize(records: Iterable[dict[str, Any]]) -> list[Cell]:
    """Cells for every (model, condition, relation, scale) plus the roll-ups with ``all``."""
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        scale = f"{float(record['scale']):g}"
        groups[(record["model"], record["condition"], record["relation"], scale)].append(record)
    paired = _paired_deltas(groups)
    base = {
        k: Cell(*k, n=len(v), em=_mean(float(r["em"]) for r in v),
                rel_acc=_mean(float(r["correct"]) for r in v),
                delta=paired.get(k, (None, 0))[0], pairs=paired.get(k, (None, 0))[1])
        for k, v in groups.items()
    }
    cells = dict(base)
    dims = {"relation": 2, "scale": 3}
    for rolled in (("scale",), ("relation",), ("relation", "scale")):
        buckets: dict[tuple[str, str, str, str], list[Cell]] = defaultdict(list)
        for k, cell in base.items():
            key = list(k)
            for dim in rolled:
                key[dims[dim]] = ALL
            buckets[(key[0], key[1], key[2], key[3])].append(cell)
        for k, members in buckets.items():
            # Roll-ups average cell values, Δ included, as the paper averages its cells.
            cells[k] = Cell(*k, n=sum(c.n for c in members), em=_mean(c.em for c in members),
                            rel_acc=_mean(c.rel_acc for c in members),
                            delta=_mean(c.delta for c in members),
                            pairs=sum(c.pairs for c in members))
    order = {c: i for i, c in enumerate(CONDITIONS)}
    return sorted(cells.values(), key=lambda c: (c.model, c.relation == ALL, c.relation,
                                                 c.scale == ALL, c.scale,
                                                 order.get(c.condition, 99)))


def to_csv(cells: Sequence[Cell]) -> str:
    out = io.StringIO()
    fields = ["model", "condition", "relation", "scale", "n", "em", "rel_acc", "delta",
              "pairs"]
    writer = csv_dict_writer(out, fields, lineterminator="\n")
    writer.writeheader()
    for cell in cells:
        writer.writerow({k: ("" if v is None else v) for k, v in cell.to_dict().items()})
    return out.getvalue()


def to_json(cells: Sequence[Cell], meta: dict[str, Any] | None = None) -> str:
    return json.dumps({"meta": meta or {}, "cells": [c.to_dict() for c in cells]},
                      indent=2, ensure_ascii=False)


_COLORS = {"prior-conform": "#4C72B0", "2-reverse": "#DD8452", "3-reverse": "#C44E52",
           "3-mixed": "#8172B3", "prior-free": "#55A868"}


def to_svg(cells: Sequence[Cell], model: str | None = None, title: str = "") -> str:
    """Grouped bars of RelAcc per relation (scales averaged), Δ(2-reverse) written on top."""
    rows = [c for c in cells if c.scale == ALL and (model is None or c.model == model)]
    relations = sorted({c.relation for c in rows}, key=lambda r: (r == ALL, r))
    conditions = [c for c in CONDITIONS if any(r.condition == c for r in rows)]
    value = {(c.relation, c.condition): c for c in rows}
    bar, gap, left, top, height = 14, 18, 50, 40, 200
    group = bar * max(1, len(conditions)) + gap
    width = left + group * max(1, len(relations)) + 160
    heading = _esc(title or "RelAcc (%) per relation, scales averaged")
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 60}"'
           f' font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="20" font-size="13">{heading}</text>']
    for tick in range(0, 101, 25):
        y = top + height - height * tick / 100
        svg.append(f'<line x1="{left}" x2="{width - 160}" y1="{y}" y2="{y}" stroke="#ddd"/>'
                   f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{tick}</text>')
    for gi, relation in enumerate(relations):
        x0 = left + gi * group + gap / 2
        for ci, condition in enumerate(conditions):
            cell = value.get((relation, condition))
            if cell is None or cell.rel_acc is None:
                continue
            h = height * cell.rel_acc
            svg.append(f'<rect x="{x0 + ci * bar}" y="{top + height - h}" width="{bar - 2}" '
                       f'height="{h}" fill="{_COLORS.get(condition, "#999")}">'
                       f'<title>{_esc(condition)}: {100 * cell.rel_acc:.1f}%</title></rect>')
        svg.append(f'<text x="{x0 + bar * len(conditions) / 2}" y="{top + height + 16}" '
                   f'text-anchor="middle">{_esc(relation)}</text>')
        reverse = value.get((relation, "2-reverse"))
        if reverse is not None and reverse.delta is not None:
            svg.append(f'<text x="{x0 + bar * len(conditions) / 2}" y="{top + height + 32}" '
                       f'text-anchor="middle" fill="#C00">Δ={100 * reverse.delta:.1f}</text>')
    for ci, condition in enumerate(conditions):
        y = top + ci * 18
        svg.append(f'<rect x="{width - 150}" y="{y}" width="12" height="12" '
                   f'fill="{_COLORS.get(condition, "#999")}"/>'
                   f'<text x="{width - 132}" y="{y + 10}">{_esc(condition)}</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
