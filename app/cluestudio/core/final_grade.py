"""The final grade of a submission, defined once (issue 27).

Every hand-back and summary — the gradebook, the feedback pages, the tidy export's
``final`` table, the Analysis view's human score — reads the grade this rule gives:

1. a lead grader's **adjudicated** rating, when there is one;
2. else the **single** rating, when one grader rated it;
3. else, with two or more graders, their **mean** when their totals lie within
   ``threshold`` points of each other (0–100 scale; 10 by default);
4. else **needs adjudication**: no grade until a lead records one.

Synthetic ratings (the sample course's generated ones) are no grader's word and do not count.
A rating's total includes the point adjustments of the comment-bank comments it uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

DEFAULT_THRESHOLD = 10.0


class Basis(StrEnum):
    ADJUDICATED = "adjudicated"
    SINGLE = "single rating"
    MEAN = "mean of graders"
    NEEDS_ADJUDICATION = "needs adjudication"
    UNGRADED = "not graded"


@dataclass(frozen=True)
class GraderTotal:
    grader: str
    total: float


@dataclass(frozen=True)
class FinalGrade:
    value: float | None  # 0-100; None while needs adjudication or not graded
    basis: Basis
    graders: tuple[str, ...] = ()
    spread: float | None = None  # max - min of the graders' totals

    @property
    def graded(self) -> bool:
        return self.value is not None


def rule_text(threshold: float = DEFAULT_THRESHOLD) -> str:
    """The rule in one sentence, for reports and the README."""
    return (f"adjudicated rating, else the single rating, else the mean of the graders when "
            f"their totals differ by at most {threshold:g} points, else needs adjudication")


def final_grade(ratings: Sequence[GraderTotal], adjudicated: float | None = None, *,
                threshold: float = DEFAULT_THRESHOLD) -> FinalGrade:
    """The final grade from the (human) graders' totals and the lead's adjudication."""
    graders = tuple(sorted(r.grader for r in ratings))
    totals = [float(r.total) for r in ratings]
    spread = (max(totals) - min(totals)) if len(totals) >= 2 else None
    if adjudicated is not None:
        return FinalGrade(round(float(adjudicated), 4), Basis.ADJUDICATED, graders, spread)
    if not totals:
        return FinalGrade(None, Basis.UNGRADED)
    if len(totals) == 1:
        return FinalGrade(round(totals[0], 4), Basis.SINGLE, graders)
    assert spread is not None
    if spread <= threshold + 1e-9:
        return FinalGrade(round(sum(totals) / len(totals), 4), Basis.MEAN, graders, spread)
    return FinalGrade(None, Basis.NEEDS_ADJUDICATION, graders, spread)


def adjusted_total(total: float, adjustments: Sequence[float], total_max: float = 100.0
                   ) -> float:
    """A rating's total with its bank comments' point adjustments, kept within 0..max."""
    return round(min(total_max, max(0.0, total + sum(adjustments))), 4)
