"""What the review mode writes about a PlantUML text: the parsed model in short, and why a
text does not render (Qt-free, so it sits in the application layer)."""

from __future__ import annotations

from html import escape
from typing import Any


def summary_html(summary: dict[str, Any] | None, warnings: tuple = (),
                 error: tuple[int | None, str] | None = None) -> str:
    """What the parsed model contains, as a short HTML list (or why there is none)."""
    if summary is None:
        where = f"line {error[0]}: " if error and error[0] else ""
        why = f"<br>{escape(where + error[1])}" if error else ""
        return f"<i>The text does not parse; fix the marked line.</i>{why}"
    classes, relations = summary["classes"], summary["relations"]
    parts = [f"<b>{len(classes)}</b> classes, <b>{summary['attributes']}</b> attributes, "
             f"<b>{summary['methods']}</b> methods, <b>{len(relations)}</b> relations"]
    parts.append("<ul>" + "".join(
        f"<li>{escape(c['name'])} <small>({c['kind']}, {c['attributes']} attr, "
        f"{c['methods']} meth)</small></li>" for c in classes) + "</ul>")
    if relations:
        parts.append("<ul>" + "".join(
            f"<li>{escape(r['begin'])} —{r['type']}→ {escape(r['end'])}</li>"
            for r in relations) + "</ul>")
    if warnings:
        parts.append("<b>Warnings</b><ul>" + "".join(
            f"<li>line {line}: {escape(message)}</li>" for line, message in warnings) + "</ul>")
    return "".join(parts)


def render_problem(result: Any) -> str | None:
    """What is wrong with a preview's text, said after "the revision …": "does not render
    (line 3: …)" or "does not parse (…)"; None when it renders and parses."""
    for what, error in (("does not render", result.render_error),
                        ("does not parse", result.parse_error)):
        if error is not None:
            line, message = error
            return f"{what} (line {line}: {message})" if line else f"{what} ({message})"
    return None
