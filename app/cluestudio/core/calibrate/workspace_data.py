"""Calibration data straight from a course workspace: reference/candidate pairs and ratings.

A submission takes part when its task has a reference that parses, its newest PlantUML
revision parses, and at least one grader rated it. Everything left out is listed with the
reason, so a user can see why fewer pairs were used than submissions exist.

:func:`stored_metrics` adds what else the workspace knows about the same submissions (the
baselines and plugin metrics stored by scoring, the VLM probes' EM and RelAcc), so the report
compares every metric on the same pairs and the same split.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from cluestudio.core.calibrate.ratings_io import HumanRating
from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.model import ClassDiagram
from cluestudio.core.workspace.ops import text_hash

if TYPE_CHECKING:
    from cluestudio.core.workspace import Workspace


@dataclass
class CalibrationData:
    ids: list[str] = field(default_factory=list)  # "task_id/source_id"
    task_ids: list[str] = field(default_factory=list)
    pairs: list[tuple[ClassDiagram, ClassDiagram]] = field(default_factory=list)
    ratings: list[HumanRating] = field(default_factory=list)  # every grader's total
    skipped: list[str] = field(default_factory=list)  # "task/source: why"
    submission_ids: list[int] = field(default_factory=list)  # workspace ids, as ``ids``
    content_hashes: list[str] = field(default_factory=list)  # sha256 of the PlantUML used

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
        data.submission_ids.append(summary.id)
        data.content_hashes.append(text_hash(head.puml))
        data.ratings.extend(
            HumanRating(key, r.grader, float(r.total), summary.source_id)
            for r in ratings if r.total is not None
        )
    return data


def stored_metrics(ws: Workspace, data: CalibrationData, *,
                   exclude: Collection[str] = ()) -> dict[str, np.ndarray]:
    """Every other metric the workspace holds for ``data``'s submissions, NaN where missing.

    - Scores (baselines, plugin metrics) are each submission's *current* score
      (core/workspace/scores.py: the newest computed for its head revision, the text that
      was calibrated), as every view shows them. Names in ``exclude`` (the CLUE suite,
      which the fit recomputes) are left out.
    - Probe rows give ``probe-em[MODEL]`` and ``probe-rel-acc[MODEL]`` (``[PROBE/MODEL]``
      when the workspace holds more than one kind of probe); they rate the image, not a
      revision, so the newest row per submission and model counts.

    Names are sorted; a metric with no value for any of the submissions is not returned.
    """
    index = {sid: i for i, sid in enumerate(data.submission_ids)}
    wanted = dict(zip(data.submission_ids, data.content_hashes, strict=True))
    newest: dict[tuple[str, int], tuple[str, float]] = {}  # (metric, row) → (created, value)

    def keep(metric: str, row: int, created: str, value: float) -> None:
        old = newest.get((metric, row))
        if old is None or created >= old[0]:
            newest[(metric, row)] = (created, value)

    current = ws.current_scores(data.submission_ids)
    for sid, scores in current.items():
        for metric, score in scores.items():
            if score.value is None or metric in exclude or score.content_hash != wanted[sid]:
                continue
            keep(metric, index[sid], score.scored_at, score.value)
    probes = [p for p in ws.probe_results() if int(p["submission_id"]) in index]
    several = len({p["probe"] for p in probes}) > 1
    for probe in probes:
        label = f"{probe['probe']}/{probe['model']}" if several else str(probe["model"])
        for column, stem in (("em", "probe-em"), ("rel_acc", "probe-rel-acc")):
            if probe[column] is not None:
                keep(f"{stem}[{label}]", index[int(probe["submission_id"])],
                     str(probe["created_at"]), float(probe[column]))
    out: dict[str, np.ndarray] = {}
    for (metric, row), (_, value) in sorted(newest.items()):
        out.setdefault(metric, np.full(len(data.ids), np.nan))[row] = value
    return out
