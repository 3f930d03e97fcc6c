"""What the window lists of an offline OCR check: the findings worth a reviewer's look.

The check itself (core/check) scores and flags; this only decides what the review pane
lists and boxes on image A, so that on clean diagrams it does not cry wolf (issue 24):

- a multiplicity ("1", "*", "0..1") is never listed as "in the PlantUML, not in image A":
  one or two glyphs beside a line, which OCR misses far more often than a converter
  invents them;
- a name image A shows is not listed as dropped when the PlantUML has it, under whatever
  class: the check read it inside the box of another class (a tight layout), so the box on
  A would point at a correct name.

The submission's flag and triage stay the check's own (the list sorts by them); the
window only says how many findings it left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_MULTIPLICITY = re.compile(r"^\s*(?:[0-9*nN]+(?:\s*\.{2,}\s*[0-9*nN]+)?)\s*$")


@dataclass(frozen=True)
class ShownFindings:
    missing: tuple[Any, ...]
    invented: tuple[Any, ...]
    hidden: int  # findings left out as doubtful


def _key(text: str) -> str:
    return re.sub(r"[\s_]+", "", text).casefold()


def _in_plantuml(text: str, puml_key: str) -> bool:
    """Whether the PlantUML has ``text`` (spacing, case, underscores ignored); a member read
    with its type ("name : String") counts by its whole text or its name."""
    whole = _key(text)
    name = _key(re.split(r"[:(]", text, maxsplit=1)[0])
    return bool(whole) and (whole in puml_key or (len(name) > 2 and name in puml_key))


def shown_findings(report: Any, puml: str | None) -> ShownFindings:
    """The findings of ``report`` the window lists for a conversion with text ``puml``."""
    missing = tuple(getattr(report, "missing", ()) or ())
    invented = tuple(getattr(report, "invented", ()) or ())
    kept_invented = tuple(f for f in invented if f.kind != "multiplicity"
                          and not _MULTIPLICITY.match(f.text))
    puml_key = _key(puml or "")
    kept_missing = tuple(f for f in missing
                         if not (puml_key and _in_plantuml(f.text, puml_key)))
    return ShownFindings(kept_missing, kept_invented,
                         len(missing) - len(kept_missing) + len(invented) - len(kept_invented))
