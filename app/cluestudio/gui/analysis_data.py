"""What the Analysis view shows, gathered from the workspace by a job (no Qt here).

Human totals (mean over graders of the current rubric) against each stored metric of the
submission's current PlantUML, through core's calibration code: the metric-vs-human
disagreement queue, the grader disagreement queue, the correlation table and its figures.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.workspace import Workspace
from cluestudio.gui.services import text_hash

# Sub-scores (clue-class, rouge-l-recall, …) would crowd the queue; the headline values do.
_SKIP_SUFFIXES = ("-class", "-attribute", "-method", "-relation", "-precision", "-recall")


@dataclass(frozen=True)
class AnalysisData:
    labels: dict[int, str]  # submission id → "task · source"
    metric_queues: dict[str, list[Any]]  # metric → MetricDisagreement list, worst first
    grader_queue: list[Any]  # GraderDisagreement list, worst first
    correlations: str  # the correlation table as text
    figures: dict[str, bytes] = field(default_factory=dict)  # name → PNG
    note: str = ""  # why something is missing (too few ratings, no scores)


def gather(ws: Workspace, rubric_id: str, cancel: CancelToken, *, top: int = 50,
           resamples: int = 500, figures: bool = True) -> Job[AnalysisData]:
    import numpy as np

    from cluestudio.core.agreement import Ratings
    from cluestudio.core.calibrate import (
        correlation_report,
        grader_disagreements,
        metric_disagreements,
    )

    yield Progress(0, 4, "reading ratings and scores")
    summaries = ws.list_submissions()
    labels = {s.id: f"{s.task_id} · {s.source_id}" for s in summaries}
    tasks_of = {s.id: s.task_id for s in summaries}
    ratings = [r for r in ws.ratings() if r.rubric_id == rubric_id and r.total is not None]
    by_submission: dict[int, list[float]] = {}
    for rating in ratings:
        by_submission.setdefault(rating.submission_id, []).append(float(rating.total or 0.0))
    human = {sid: sum(v) / len(v) for sid, v in by_submission.items()}
    heads = {}
    for sid in human:
        cancel.raise_if_cancelled()
        head = ws.head_revision(sid)
        if head is not None:
            heads[sid] = text_hash(head.puml)
    values: dict[str, dict[int, float]] = {}
    for row in ws.scores():
        sid = int(row["submission_id"])
        if heads.get(sid) != row["content_hash"] or row["value"] is None:
            continue  # unrated, or a score of an older revision
        if row["metric"].endswith(_SKIP_SUFFIXES):
            continue
        values.setdefault(row["metric"], {})[sid] = float(row["value"])
    grader_queue = grader_disagreements(
        Ratings.from_records((str(r.submission_id), r.grader, float(r.total or 0.0))
                             for r in ratings), top=top) if ratings else []
    ids = sorted(human)
    y = np.array([human[i] for i in ids], dtype=float)
    metrics = {name: np.array([found.get(i, math.nan) for i in ids], dtype=float)
               for name, found in sorted(values.items())}
    usable = {name: x for name, x in metrics.items() if int(np.isfinite(x).sum()) >= 3
              and np.ptp(x[np.isfinite(x)]) > 0}  # a constant metric correlates with nothing
    note = ""
    if len(ids) < 3:
        note = f"{len(ids)} rated submission(s): rate and score at least 3 to compare."
    elif not usable:
        note = "Fewer than 3 rated submissions are scored: Jobs → Score all listed."
    cancel.raise_if_cancelled()
    yield Progress(1, 4, "disagreement queues")
    queues = {name: metric_disagreements([str(i) for i in ids], x, y, metric=name, top=top)
              for name, x in usable.items()}
    table = ""
    if usable:
        yield Progress(2, 4, "correlations")
        table = correlation_report(usable, y, resamples=resamples).to_text()
    pictures: dict[str, bytes] = {}
    if figures and usable:
        cancel.raise_if_cancelled()
        yield Progress(3, 4, "figures")
        from cluestudio.core.calibrate.plots import report_figures

        for name, figure in report_figures(usable, y, tasks=[tasks_of[i] for i in ids]).items():
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png", dpi=80)
            figure.clear()
            pictures[name] = buffer.getvalue()
    yield Progress(4, 4, "done")
    return AnalysisData(labels, queues, grader_queue, table, pictures, note)
