"""Calibration data straight from a course workspace: reference/candidate pairs and ratings.

A submission takes part when its task has a reference that parses, its newest PlantUML
revision parses, and at least one grader rated it. Everything left out is listed with the
reason, so a user can see why fewer pairs were used than submissions exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from cluestudio.core.calibrate.ratings_io import HumanRating
from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.model import ClassDiagram

if TYPE_CHECKING:
    from cluestudio.core.workspace import Workspace


@dataclass
class CalibrationData:
    ids: list[str] = field(default_factory=list)  # "task_id/source_id"
    task_ids: list[str] = field(default_factory=list)
    pairs: list[tuple[ClassDiagram, ClassDiagram]] = field(default_factory=list)
    ratings: list[HumanRating] = field(default_factory=list)  # every grader's total
    skipped: list[str] = field(default_factory=list)  # "task/source: why"

    def human_totals(self) -> np.ndarray:
        """Mean total over graders, in the order of ``ids``."""
        totals: dict[str, list[float]] = {}
        for rating in self.ratings:
            totals.setdefault(rating.id, []).append(rating.total)
        return np.array([float(np.mean(totals[i])) for i in self.ids])


def _parse(text: str) -> ClassDiagram:
    from cluestudio.core.plantuml import parse_plantuml

    return parse_plantuml(text).diagram


def calibration_data(ws: Workspace, *, include_synthetic: bool = True) -> CalibrationData:
    """Pairs and human totals of every rated, parsable submission in ``ws``."""
    data = CalibrationData()
    references: dict[str, ClassDiagram | None] = {}
    for task in ws.tasks():
        try:
            references[task.id] = _parse(task.reference_puml) if task.reference_puml else None
        except PlantUMLSyntaxError:
            references[task.id] = None
    for summary in ws.list_submissions():
        key = f"{summary.task_id}/{summary.source_id}"
        ratings = [r for r in ws.ratings(summary.id)
                   if r.total is not None and (include_synthetic or not r.synthetic)]
        if not ratings:
            continue  # unrated submissions are simply not part of calibration
        reference = references.get(summary.task_id)
        if reference is None:
            data.skipped.append(f"{key}: the task has no parsable reference PlantUML")
            continue
        head = ws.head_revision(summary.id)
        if head is None:
            data.skipped.append(f"{key}: no PlantUML revision")
            continue
        try:
            candidate = _parse(head.puml)
        except PlantUMLSyntaxError as error:
            data.skipped.append(f"{key}: newest revision does not parse ({error})")
            continue
        data.ids.append(key)
        data.task_ids.append(summary.task_id)
        data.pairs.append((reference, candidate))
        data.ratings.extend(
            HumanRating(key, r.grader, float(r.total), summary.source_id)
            for r in ratings if r.total is not None
        )
    return data
