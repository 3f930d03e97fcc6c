"""What the metric panel says in words: metric titles, the check's reasons, the baselines and
VLM probe as HTML, and an element diff as lists. Pure text, so it is read without a panel.
"""

from __future__ import annotations

from html import escape
from typing import Any

from cluestudio.app.plugin_explanations import (
    as_number,
    value_text,
)
from cluestudio.gui.qt import QColor

RED = QColor("#d32f2f")
AMBER = QColor("#b26a00")  # extra elements: not an error in themselves
# Names as the papers print them; other metrics show their plugin name.
_TITLES = {"bleu": "BLEU", "rouge-l": "ROUGE-L", "codebertscore": "CodeBERTScore",
           "syntactic-validity": "Syntactic validity"}
# Probe disagreements that raise the flag (core FlagPolicy's default); others are notes.
FLAG_KINDS = frozenset({"missing-class", "extra-class", "unreadable-class-list",
                        "relation-mismatch"})


# The probe's class reasons said "(missing-class)" next to CLUE's "Missing from the
# candidate", which reads as if the candidate lacked the class; the probe compares image A
# with the PlantUML, so its tag says what that side means for the conversion.
PLAIN_REASONS = {"missing-class": "in the PlantUML, not read from image A: "
                                  "did the conversion invent it?",
                 "extra-class": "read from image A, not in the PlantUML: "
                                "did the conversion drop it?"}


def reason_html(kind: str, detail: str) -> str:
    """One probe reason, its kind in plain words (the raw kind for the others)."""
    tag = PLAIN_REASONS.get(kind, kind)
    return f"{escape(detail)} <small>({escape(tag)})</small>"


def baselines_html(baselines: dict[str, Any]) -> str:
    """Baseline metrics as table rows; ``name-precision``/``name-recall`` join ``name``'s row."""
    if not baselines:
        return ""
    mains = sorted(k for k in baselines
                   if not any(k.startswith(other + "-") for other in baselines if other != k))
    rows = []
    for name in mains:
        subs = sorted(k for k in baselines if k.startswith(name + "-"))
        detail = ", ".join(f"{k[len(name) + 1:]} {value_text(baselines[k])}" for k in subs)
        rows.append(f"<tr><td>{escape(_TITLES.get(name, name))}</td>"
                    f"<td align='right'><b>{value_text(baselines[name])}</b></td>"
                    f"<td><small>{escape(detail)}</small></td></tr>")
    return ("<b>Baselines</b><table cellspacing='0' cellpadding='1'>" + "".join(rows)
            + "</table>")


def probe_html(probe: dict[str, Any]) -> str:
    """The VLM probe's verdict on image A: EM, RelAcc, the flag and every reason given."""
    em = as_number(probe.get("em"))
    rel = as_number(probe.get("rel_acc"))
    model = f" ({escape(str(probe['model']))})" if probe.get("model") else ""
    head = (f"<b>VLM probe</b>{model}: EM {'—' if em is None else ('yes' if em else 'no')}, "
            f"RelAcc {'n/a' if rel is None else f'{100 * rel:.0f}%'}")
    reasons = list(probe.get("reasons") or [])
    reasons += [{"kind": "flag", "detail": str(f)} for f in probe.get("flags") or ()]
    flagged = bool(probe.get("flagged")) or bool(probe.get("flags"))
    if flagged:
        head += f" — <span style='color:{RED.name()}'><b>⚑ flagged</b></span>"
    elif probe:
        head += " — agrees with the PlantUML"
    items = []
    for reason in reasons:
        kind, detail = str(reason.get("kind", "")), str(reason.get("detail", ""))
        style = f"color:{RED.name()}" if kind in FLAG_KINDS or kind == "flag" else "color:gray"
        items.append(f"<li style='{style}'>{reason_html(kind, detail)}</li>")
    return f"<p>{head}</p>" + (f"<ul style='margin:0'>{''.join(items)}</ul>" if items else "")


def diff_lists(diff: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """An element diff (``DiagramDiff.to_dict()``) as the tree's lists: the reference's
    missing elements, the candidate's partly matched ones (with what differs) and extra
    ones; members are named with their class."""
    def row(element: dict[str, Any]) -> dict[str, Any]:
        owner = element.get("owner") or ""
        kind = str(element.get("kind", ""))
        text = str(element.get("text", ""))
        named = f"{owner}.{text}" if owner and kind in ("attribute", "method") else text
        why = str(element.get("why") or "")
        return {"text": named + (f" — {why}" if why else ""), "kind": kind,
                "line": element.get("line"), "why": why}

    elements = [e for e in diff.get("elements") or [] if isinstance(e, dict)]
    return {"missing": [row(e) for e in diff.get("missing") or [] if isinstance(e, dict)],
            "partly": [row(e) for e in elements if e.get("status") == "partly"],
            "extra": [row(e) for e in elements if e.get("status") == "extra"]}
