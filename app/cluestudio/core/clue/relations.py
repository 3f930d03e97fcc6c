"""Relation leaves of ES_cr: the relation-type LUT (a data file) and sim_rm (DESIGN §3)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.model import Multiplicity, RelationType

#: Row/column order of the LUT matrix.
TYPE_ORDER: tuple[RelationType, ...] = tuple(RelationType)
TYPE_INDEX: dict[RelationType, int] = {t: i for i, t in enumerate(TYPE_ORDER)}

_STRUCTURAL = frozenset({RelationType.ASSOCIATION, RelationType.AGGREGATION,
                         RelationType.COMPOSITION})
_NON_STRUCTURAL = frozenset({RelationType.DEPENDENCY, RelationType.GENERALIZATION,
                             RelationType.REALIZATION})
_MANY = r"\*|many|much|multi"


@dataclass(frozen=True)
class MultiplicityRule:
    r"""When two multiplicity labels match (DESIGN §3): equal, or both "many".

    "Many" is a regular-expression *search* of ``\*|many|much|multi`` anywhere in the label,
    as the authors' code does: ``0..*``, ``1..*``, ``*`` and ``many`` all match each other,
    ``1`` vs ``0..1`` does not.
    """

    case_sensitive: bool
    trim: bool  # compare labels after stripping surrounding whitespace

    @cached_property
    def _many(self) -> re.Pattern[str]:
        return re.compile(_MANY, 0 if self.case_sensitive else re.IGNORECASE)

    def is_many(self, q: str) -> bool:
        return self._many.search(q) is not None

    def key(self, q: str) -> str:
        """A canonical form: two labels match iff their keys are equal."""
        if self.trim:
            q = q.strip()
        return "\0many" if self.is_many(q) else q

    def match(self, q1: str, q2: str) -> float:
        return 1.0 if self.key(q1) == self.key(q2) else 0.0


#: The default profile: trimmed, case-insensitive.
PAPER_MULTIPLICITY = MultiplicityRule(case_sensitive=False, trim=True)
#: The authors' package: untrimmed equality, case-sensitive search.
PACKAGE_MULTIPLICITY = MultiplicityRule(case_sensitive=True, trim=False)


def default_lut_path() -> Path:
    from cluestudio.resources_path import resources_dir

    return resources_dir() / "clue" / "relation_lut.toml"


def load_lut(path: str | Path | None = None) -> np.ndarray:
    """The 6×6 LUT in :data:`TYPE_ORDER`, checked to be complete, symmetric and in [0, 1]."""
    path = Path(path) if path is not None else default_lut_path()
    return _load_lut_cached(str(path)).copy()


@lru_cache(maxsize=8)
def _load_lut_cached(path: str) -> np.ndarray:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ClueStudioError(f"cannot read relation LUT {path}: {error}") from error
    types = data.get("types")
    table = data.get("table", {})
    expected = [t.value for t in TYPE_ORDER]
    if not isinstance(types, list) or sorted(types) != sorted(expected):
        raise ClueStudioError(f"{path}: 'types' must list {', '.join(expected)}")
    lut = np.zeros((6, 6))
    for row_type in types:
        row = table.get(row_type)
        if not isinstance(row, list) or len(row) != 6:
            raise ClueStudioError(f"{path}: row {row_type} must have 6 numbers")
        for col_type, value in zip(types, row, strict=True):
            lut[expected.index(row_type), expected.index(col_type)] = float(value)
    if not np.allclose(lut, lut.T):
        raise ClueStudioError(f"{path}: the relation LUT must be symmetric")
    if lut.min() < 0 or lut.max() > 1:
        raise ClueStudioError(f"{path}: LUT values must lie in [0, 1]")
    return lut


def multiplicity_match(q1: str, q2: str,
                       rule: MultiplicityRule = PAPER_MULTIPLICITY) -> float:
    """1 if equal (after trimming), or both contain a "many" marker; else 0."""
    return rule.match(q1, q2)


def sim_rm_matrix(types1: list[RelationType], labels1: list[Multiplicity],
                  types2: list[RelationType], labels2: list[Multiplicity],
                  rule: MultiplicityRule = PAPER_MULTIPLICITY) -> np.ndarray:
    """sim_rm for every pair of two relation lists at once (same values as :func:`sim_rm`)."""
    def keys(labels: list[Multiplicity], end: str) -> np.ndarray:
        out = np.empty(len(labels), dtype=object)  # object: compare whole strings
        out[:] = [rule.key(getattr(label, end)) for label in labels]
        return out

    s1 = np.array([t in _STRUCTURAL for t in types1], dtype=bool)
    s2 = np.array([t in _STRUCTURAL for t in types2], dtype=bool)
    f1, f2 = keys(labels1, "from_"), keys(labels2, "from_")
    t1, t2 = keys(labels1, "to"), keys(labels2, "to")
    both_structural = s1[:, None] & s2[None, :]
    neither = ~s1[:, None] & ~s2[None, :]
    ends = 0.5 * ((f1[:, None] == f2[None, :]).astype(float)
                  + (t1[:, None] == t2[None, :]).astype(float))
    return np.where(both_structural, ends, np.where(neither, 1.0, 0.0))


def sim_rm(l1: Multiplicity, l2: Multiplicity, t1: RelationType, t2: RelationType,
           rule: MultiplicityRule = PAPER_MULTIPLICITY) -> float:
    """Relationship multiplicity similarity, OODEval Def. 4.5."""
    if t1 in _STRUCTURAL and t2 in _STRUCTURAL:
        return 0.5 * (rule.match(l1.from_, l2.from_) + rule.match(l1.to, l2.to))
    if t1 in _NON_STRUCTURAL and t2 in _NON_STRUCTURAL:
        return 1.0
    return 0.0
