"""Plugin metrics of non-class tasks in plain rows: the values table and the explanation tree.

No Qt here: :func:`metrics_html` is the metric panel's "Metrics" block and
:func:`explanation_groups` the groups and rows of its explanation tree (SysMEval's claims
with their verdicts, R2ABench's node alignment, orphans and god components, the judge's
rationale), so the panel only turns rows into tree items.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from html import escape
from typing import Any

#: Value keys in the order and words the papers use; others follow, sorted, as named.
METRIC_TITLES: dict[str, str] = {
    "sysm-precision": "SysM-P", "sysm-recall": "SysM-R", "sysm-f1": "SysM-F1",
    "node-f1": "Node F1", "node-precision": "Node precision", "node-recall": "Node recall",
    "edge-f1": "Edge F1", "edge-precision": "Edge precision", "edge-recall": "Edge recall",
    "layer-accuracy": "Layer accuracy", "ged-accuracy": "GED accuracy (0–100)", "ged": "GED",
    "orphan-ratio": "Orphan ratio", "god-ratio": "God-component ratio",
    "syntactic-validity": "Syntactic validity",
    "completeness": "Judge: completeness", "accuracy": "Judge: accuracy",
    "rationality": "Judge: rationality", "readability": "Judge: readability",
    "judge-average": "Judge: average (1–5)",
    "tsed": "TSED", "bleu": "BLEU", "rouge-l": "ROUGE-L", "codebertscore": "CodeBERTScore",
}


@dataclass(frozen=True)
class Row:
    text: str
    value: str = ""
    bad: bool = False  # shown in red: an unsupported claim, an orphan, a missing element
    tooltip: str = ""


def as_number(value: Any) -> float | None:
    """A metric value as a float, or None for what is missing or not a number (NaN too)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def value_text(value: Any) -> str:
    """A metric value as the panels show it: three decimals, or a dash."""
    number = as_number(value)
    return "—" if number is None else f"{number:.3f}"


def metric_title(key: str) -> str:
    return METRIC_TITLES.get(key, key)


def metrics_html(values: dict[str, Any], notes: list[str] | tuple[str, ...] = ()) -> str:
    """The "Metrics" block: one row per value, known metrics first, then notes in grey."""
    order = list(METRIC_TITLES)
    keys = sorted(values, key=lambda k: (order.index(k) if k in order else len(order), k))
    rows = "".join(f"<tr><td>{escape(metric_title(k))}</td>"
                   f"<td align='right'><b>{value_text(values[k])}</b></td></tr>" for k in keys)
    parts = []
    if rows:
        parts.append(f"<b>Metrics</b><table cellspacing='0' cellpadding='1'>{rows}</table>")
    if notes:
        parts.append("<p style='color:gray'>" + "<br>".join(escape(n) for n in notes) + "</p>")
    return "".join(parts)


def _claims(items: Any) -> list[Row]:
    rows = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        supported = bool(item.get("supported"))
        rows.append(Row(str(item.get("claim", "")), "✓ supported" if supported else "✗ not",
                        not supported, str(item.get("evidence", ""))))
    return rows


def _sysmeval(data: dict[str, Any]) -> list[tuple[str, list[Row]]]:
    candidate = _claims(data.get("candidate_claims"))
    reference = _claims(data.get("reference_claims"))
    return [(f"Candidate claims checked against the reference ({len(candidate)})", candidate),
            (f"Reference claims recovered by the candidate ({len(reference)})", reference)]


def _r2a_structure(data: dict[str, Any]) -> list[tuple[str, list[Row]]]:
    aligned = [Row(f"{a.get('reference', '')}  ↔  {a.get('candidate', '')}",
                   value_text(a.get("similarity")), tooltip=str(a.get("by", "")))
               for a in data.get("node_alignment") or [] if isinstance(a, dict)]
    edges = [Row(f"{' → '.join(map(str, e.get('reference', [])))}", "matched")
             for e in data.get("edge_matches") or [] if isinstance(e, dict)]
    groups = [(f"Aligned nodes ({len(aligned)})", aligned),
              (f"Matched edges ({len(edges)})", edges)]
    orphans = [Row(str(o), bad=True) for o in data.get("orphans") or []]
    gods = [Row(str(g), bad=True) for g in data.get("god_components") or []]
    if orphans:
        groups.append((f"Orphan components ({len(orphans)})", orphans))
    if gods:
        groups.append((f"God components ({len(gods)})", gods))
    ged = data.get("ged")
    if isinstance(ged, dict) and ged.get("method"):
        groups.append(("Graph edit distance", [Row(f"method: {ged['method']}",
                                                   str(ged.get("seconds", "")))]))
    return groups


def _other(name: str, data: Any) -> list[tuple[str, list[Row]]]:
    if isinstance(data, dict):
        rows = [Row(f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}")
                for k, v in data.items() if v not in (None, "", [], {})]
    else:
        rows = [Row(json.dumps(data, ensure_ascii=False))]
    return [(metric_title(name), rows)]


def explanation_groups(explanations: dict[str, Any]) -> list[tuple[str, list[Row]]]:
    """(group title, rows) for each plugin's explanation, in a stable order."""
    groups: list[tuple[str, list[Row]]] = []
    for name in sorted(explanations):
        data = explanations[name]
        if name == "sysmeval" and isinstance(data, dict):
            groups += _sysmeval(data)
        elif name == "r2a-structure" and isinstance(data, dict):
            groups += _r2a_structure(data)
        elif name == "r2a-judge" and isinstance(data, dict):
            groups.append(("Judge rationale", [Row(str(data.get("rationale", "")))]))
        elif name == "r2a-validity" and isinstance(data, dict):
            message = data.get("message") or "renders without an error"
            line = f" (line {data['error_line']})" if data.get("error_line") else ""
            groups.append(("Syntactic validity", [Row(f"{message}{line}")]))
        else:
            groups += _other(name, data)
    return groups
