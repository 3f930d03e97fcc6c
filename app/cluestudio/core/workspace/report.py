"""The report of an import or merge: every bad file or row named, with why."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError


@dataclass(frozen=True)
class Problem:
    source: str
    message: str
    line: int | None = None
    severity: str = "error"  # "error" stops the whole run; "warning" is kept and reported

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.severity}: {self.message}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    # Whose work a merge added (ratings/reviews → name → count): a pack says who rated, so
    # the report says it back (issue 25).
    added_by: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter))

    def error(self, source: str, message: str, line: int | None = None) -> None:
        self.problems.append(Problem(source, message, line, "error"))

    def warning(self, source: str, message: str, line: int | None = None) -> None:
        self.problems.append(Problem(source, message, line, "warning"))

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.errors,
            "counts": dict(sorted(self.counts.items())),
            "errors": [vars(p) for p in self.errors],
            "warnings": [vars(p) for p in self.warnings],
            "conflicts": self.conflicts,
        } | ({"added_by": {kind: dict(sorted(names.items()))
                           for kind, names in sorted(self.added_by.items())}}
             if self.added_by else {})


class ImportFailed(ClueStudioError):
    """An import or merge found errors; nothing was written. ``report`` lists them all."""

    def __init__(self, report: Report) -> None:
        self.report = report
        errors = report.errors
        shown = "; ".join(str(p) for p in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"{len(errors)} error(s), nothing was written: {shown}{more}")
