"""Reading human ratings for calibration and agreement from a CSV file.

Two layouts: the workspace's ``ratings.csv`` (``task_id, source_id, grader`` and rubric
items or ``total``; read by :mod:`cluestudio.core.workspace.ratings_csv`, so rubric totals
are computed the same way everywhere), or a plain ``id, total`` table (``grader`` and
``score`` optional) for data that never went through a workspace.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cluestudio.core.errors import ClueStudioError, SourceError


@dataclass(frozen=True)
class HumanRating:
    id: str  # "task_id/source_id" for workspace ratings, else the "id" column
    grader: str
    total: float
    source_id: str = ""  # workspace ratings: also matched against a pair id alone


def read_ratings(path: str | Path) -> list[HumanRating]:
    """All ratings of the file; errors name the file and line."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise ClueStudioError(f"cannot read ratings {path}: {error}") from error
    except UnicodeDecodeError as error:
        raise SourceError("not UTF-8; save the CSV as UTF-8", source=str(path)) from error
    header = next(csv.reader(io.StringIO(text)), [])
    if {"task_id", "source_id", "grader"} <= set(header):
        return _workspace_ratings(path)
    return _plain_ratings(path, text)


def _workspace_ratings(path: Path) -> list[HumanRating]:
    from cluestudio.core.workspace.ratings_csv import read_ratings_csv
    from cluestudio.core.workspace.report import Report

    report = Report()
    planned = read_ratings_csv(path, report)
    if report.errors:
        first = report.errors[0]
        more = f" (and {len(report.errors) - 1} more)" if len(report.errors) > 1 else ""
        raise SourceError(first.message + more, line=first.line, source=str(path))
    return [HumanRating(f"{r.task_id}/{r.source_id}", r.grader, float(r.total),
                        r.source_id) for r in planned if r.total is not None]


def _plain_ratings(path: Path, text: str) -> list[HumanRating]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    fields = reader.fieldnames or []
    value_key = "total" if "total" in fields else "score" if "score" in fields else None
    if "id" not in fields or value_key is None:
        raise SourceError("ratings need columns task_id,source_id,grader,total (workspace "
                          "layout) or id,total", line=1, source=str(path))
    out = []
    for row in reader:
        line = reader.line_num
        try:
            value = float(row[value_key])
        except (TypeError, ValueError):
            raise SourceError(f"{value_key} is not a number", line=line,
                              text=str(row.get(value_key)), source=str(path)) from None
        if not np.isfinite(value):
            raise SourceError(f"{value_key} is not finite", line=line, source=str(path))
        out.append(HumanRating(str(row["id"]).strip(), str(row.get("grader") or "grader"),
                               value))
    return out


def human_totals(ratings: Sequence[HumanRating], ids: Sequence[str]) -> np.ndarray:
    """The mean total over graders of each id in ``ids``; every id must have a rating."""
    sums: dict[str, list[float]] = {}
    owners: dict[str, set[str]] = {}
    for r in ratings:
        sums.setdefault(r.id, []).append(r.total)
        if r.source_id:
            owners.setdefault(r.source_id, set()).add(r.id)
    # A bare source id also names its submission, unless two tasks use the same one.
    for source_id, full in owners.items():
        if len(full) == 1 and source_id not in sums:
            sums[source_id] = sums[next(iter(full))]
    missing = [i for i in ids if i not in sums]
    if missing:
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        raise ClueStudioError(f"{len(missing)} pair(s) have no rating: {shown}")
    return np.array([float(np.mean(sums[i])) for i in ids])
