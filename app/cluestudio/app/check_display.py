"""What the window lists of an offline OCR check: the findings worth a reviewer's look.

What is no finding (a multiplicity "not in image A", a name the PlantUML states under
another class, a word its legend writes, a palette's sample shape) is decided by the check
itself (core/check/doubtful.py), so the report, its flag and triage, the benchmarks and
the window agree (issue 29). A fresh report has those set aside already; this applies the
same rules to the conversion's current text, so that a report stored by an older check,
or checked against an earlier revision of the text, cries no more wolf than a fresh one
(an older check's report also loses the names it listed that the PlantUML states under
another class: it paired names regardless of boxes).
The window only says how many findings it left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ShownFindings:
    missing: tuple[Any, ...]
    invented: tuple[Any, ...]
    hidden: int  # findings left out as no finding (by the check, or here)


def _stated(puml: str | None) -> tuple[list[Any], frozenset[str], dict[Any, Any]]:
    """The names ``puml`` states, the words it draws outside its model and the words for
    the kinds its keywords declare (none when it does not parse: then only multiplicities
    are left out)."""
    from cluestudio.core.check.doubtful import drawn_outside_model, kind_words
    from cluestudio.core.check.names import diagram_names
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.plantuml import parse_plantuml

    if not puml or not puml.strip():
        return [], frozenset(), {}
    try:
        diagram = parse_plantuml(puml).diagram
    except ClueStudioError:
        return [], frozenset(), {}
    return (list(diagram_names(diagram)), drawn_outside_model(puml, diagram),
            kind_words(diagram))


def shown_findings(report: Any, puml: str | None) -> ShownFindings:
    """The findings of ``report`` the window lists for a conversion with text ``puml``."""
    from cluestudio.core.check.check import CHECK_VERSION
    from cluestudio.core.check.doubtful import set_aside

    if getattr(report, "evidence", "") == "embedded":
        # compared with the source image A carries: every finding is certain, none is
        # OCR's noise to set aside
        return ShownFindings(tuple(getattr(report, "missing", ())),
                             tuple(getattr(report, "invented", ())),
                             int(getattr(report, "set_aside", 0) or 0))
    names, drawn, kinds = _stated(puml)
    # an older check paired names regardless of boxes: what it listed as dropped that the
    # PlantUML states under another class was a name read twice
    version = str(getattr(report, "version", "") or "")
    legacy = version != CHECK_VERSION and not (version.isdigit() and int(version) >= 3)
    missing, invented, left_out = set_aside(getattr(report, "missing", ()) or (),
                                            getattr(report, "invented", ()) or (),
                                            names, drawn, stated_anywhere=legacy,
                                            kinds=kinds)
    return ShownFindings(missing, invented,
                         int(getattr(report, "set_aside", 0) or 0) + left_out)
