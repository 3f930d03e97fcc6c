"""What the Analysis view and ``cluestudio analysis`` show, gathered from the workspace.

Human totals (the final grade where graders gave one, core/final_grade.py; else the mean
over graders of the current rubric) against each stored metric of the submission's current
PlantUML and the VLM probes' EM / RelAcc, through core's calibration code: the
metric-vs-human disagreement queue, the grader disagreement queue, the correlation table and
its figures; and the inter-rater agreement of the graders (core.agreement) on the total and
on each rubric item, overall, per grader pair and per grader.

One job, plan and run (it stores nothing): :func:`plan_analysis` reads the workspace,
:func:`analyse` computes from what was read; :func:`gather` is both, called by
``cluestudio analysis`` in its process and by the window's Analysis view in the worker
process (:func:`gather_job`, on a read-only view of the file).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.rubric import Rubric, RubricError, get_rubric
from cluestudio.core.workspace import Rating, Workspace

TOTAL = "total"  # the agreement scope of the rubric total

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
    agreement: list[AgreementScope] = field(default_factory=list)  # total, then items
    agreement_note: str = ""  # why there is no agreement to show


@dataclass(frozen=True)
class AgreementScope:
    """Inter-rater agreement on one score: the rubric total or one rubric item.

    ``report`` is core's :class:`~cluestudio.core.agreement.AgreementReport` over all
    graders (items are submission ids; α interval and ordinal); ``pairs`` the α (both) /
    ICC(2,k) / weighted κ of each grader pair; ``kappa_by_grader`` the mean quadratic κ of
    each grader's pairs.
    """

    key: str  # TOTAL or a rubric item id
    label: str
    report: Any
    pairs: list[Any]  # PairAgreement list
    kappa_by_grader: dict[str, float]
    pairable: int  # submissions rated by two or more graders


def agreement_scopes(ratings: Sequence[Rating], rubric: Rubric | None
                     ) -> tuple[list[AgreementScope], str]:
    """Agreement on the total and on each rubric item, or a note saying why there is none."""
    import numpy as np

    from cluestudio.core.agreement import Ratings, agreement_report, pairwise_agreement

    graders = sorted({r.grader for r in ratings})
    if len(graders) < 2:
        return [], (f"Agreement needs two or more graders; {len(graders)} rated with this "
                    "rubric.")
    scopes: list[tuple[str, str, list[tuple[str, str, float]], Sequence[float] | None]] = [
        (TOTAL, "Total", [(str(r.submission_id), r.grader, float(r.total)) for r in ratings
                          if r.total is not None], None)]
    for item in rubric.items if rubric is not None else ():
        scale = item.scale
        steps = round((scale.max - scale.min) / scale.step) if scale.step > 0 else 0
        on_scale = [round(scale.min + k * scale.step, 9) for k in range(steps + 1)]
        records = [(str(r.submission_id), r.grader, float(r.scores[item.id]))
                   for r in ratings if isinstance(r.scores.get(item.id), int | float)]
        # κ counts distance in scale steps; a value off the scale (an older rubric version)
        # falls back to the distinct values as categories.
        fits = {v for _, _, v in records} <= set(on_scale)
        scopes.append((item.id, item.label, records, on_scale if fits else None))
    out = []
    for key, label, records, categories in scopes:
        if not records:
            continue
        table = Ratings.from_records(records)
        pairs = pairwise_agreement(table, categories=categories)
        kappas: dict[str, list[float]] = {}
        for pair in pairs:
            for grader in (pair.first, pair.second):
                kappas.setdefault(grader, []).append(pair.kappa_quadratic)
        pairable = int((np.isfinite(table.values).sum(axis=1) >= 2).sum())
        out.append(AgreementScope(
            key, label, agreement_report(table), pairs,
            {g: float(np.nanmean(v)) if np.isfinite(v).any() else math.nan
             for g, v in kappas.items()}, pairable))
    if not out or out[0].pairable == 0:
        return out, "No submission has been rated by two graders yet."
    return out, ""


def _rubric(rubric_id: str) -> Rubric | None:
    try:
        return get_rubric(rubric_id)
    except (KeyError, RubricError):
        return None  # ratings under an unknown rubric: agreement on their totals only


def _rated_totals(ws: Workspace, rubric_id: str) -> list[Rating]:
    """The ratings under ``rubric_id`` with a total, read a batch at a time and without
    their comments: analysis never shows a comment, and a huge one (a workspace from
    elsewhere) must not be brought into memory for it."""
    import json

    from cluestudio.core.workspace.ops import stream_rows

    out = []
    for r in stream_rows(ws._reader(), "SELECT submission_id, grader, rubric_id, scores, total"
                         " FROM ratings WHERE rubric_id = ? AND total IS NOT NULL"
                         " ORDER BY submission_id, grader", (rubric_id,)):
        try:
            items = json.loads(r["scores"])
        except ValueError:
            items = {}
        out.append(Rating(int(r["submission_id"]), r["grader"], r["rubric_id"],
                          items if isinstance(items, dict) else {}, r["total"]))
    return out


# --- plan: what the analysis reads from the workspace ----------------------------------------


@dataclass(frozen=True)
class AnalysisInputs:
    """The human totals, metric values and ratings of one rubric, as :func:`plan_analysis`
    read them: all that :func:`analyse` needs, no workspace."""

    rubric_id: str
    labels: dict[int, str]  # submission id → "task · source"
    tasks_of: dict[int, str]  # submission id → task id
    ratings: list[Rating]  # under the rubric, with a total
    human: dict[int, float]  # the final grade, else the graders' mean total
    values: dict[str, dict[int, float]]  # metric → submission id → value (rated ones)


def plan_analysis(ws: Workspace, rubric_id: str, cancel: CancelToken) -> AnalysisInputs:
    """Read the ratings under ``rubric_id``, the final grades, the current scores of each
    rated submission's head revision and the VLM probes' EM / RelAcc."""
    summaries = ws.list_submissions()
    labels = {s.id: f"{s.task_id} · {s.source_id}" for s in summaries}
    tasks_of = {s.id: s.task_id for s in summaries}
    ratings = _rated_totals(ws, rubric_id)
    by_submission: dict[int, list[float]] = {}
    for rating in ratings:
        by_submission.setdefault(rating.submission_id, []).append(float(rating.total or 0.0))
    human = {sid: sum(v) / len(v) for sid, v in by_submission.items()}
    # where graders gave a final grade (core/final_grade.py), that is the human score;
    # the mean stays for submissions with only synthetic ratings or awaiting adjudication
    from cluestudio.core.workspace.finals import iter_final_grades

    for grade in iter_final_grades(ws, comments=False):
        sid = grade.submission_id
        if sid in human and grade.rubric_id == rubric_id and grade.final.value is not None:
            human[sid] = grade.final.value
    current = ws.current_scores(list(human))  # of each submission's head revision
    values: dict[str, dict[int, float]] = {}
    for sid, scores in current.items():
        cancel.raise_if_cancelled()
        for metric, score in scores.items():
            if score.value is None or metric.endswith(_SKIP_SUFFIXES):
                continue  # sub-scores (clue-class, rouge-l-recall, …) would crowd the queue
            values.setdefault(metric, {})[sid] = score.value
    for probe in ws.probe_results():  # oldest first: the newest answer per model wins
        sid = int(probe["submission_id"])
        for column, stem in (("em", "probe-em"), ("rel_acc", "probe-rel-acc")):
            if sid in human and probe[column] is not None:
                values.setdefault(f"{stem}[{probe['model']}]", {})[sid] = float(probe[column])
    return AnalysisInputs(rubric_id, labels, tasks_of, ratings, human, values)


# --- run: the queues, correlations, figures and agreement (pure) -----------------------------


def analyse(inputs: AnalysisInputs, cancel: CancelToken, *, top: int = 50,
            resamples: int = 500, figures: bool = True,
            rubric: Rubric | None = None) -> Job[AnalysisData]:
    """What the Analysis view and ``cluestudio analysis`` show, from what was read."""
    import numpy as np

    from cluestudio.core.agreement import Ratings
    from cluestudio.core.calibrate import (
        correlation_report,
        grader_disagreements,
        metric_disagreements,
    )

    ratings, human = inputs.ratings, inputs.human
    grader_queue = grader_disagreements(
        Ratings.from_records((str(r.submission_id), r.grader, float(r.total or 0.0))
                             for r in ratings), top=top) if ratings else []
    ids = sorted(human)
    y = np.array([human[i] for i in ids], dtype=float)
    metrics = {name: np.array([found.get(i, math.nan) for i in ids], dtype=float)
               for name, found in sorted(inputs.values.items())}
    usable = {name: x for name, x in metrics.items() if int(np.isfinite(x).sum()) >= 3
              and np.ptp(x[np.isfinite(x)]) > 0}  # a constant metric correlates with nothing
    note = ""
    if len(ids) < 3:
        note = f"{len(ids)} rated submission(s): rate and score at least 3 to compare."
    elif not usable:
        note = "Fewer than 3 rated submissions are scored: Jobs → Score all listed."
    cancel.raise_if_cancelled()
    yield Progress(1, 5, "disagreement queues", phase="analysing")
    queues = {name: metric_disagreements([str(i) for i in ids], x, y, metric=name, top=top)
              for name, x in usable.items()}
    table = ""
    if usable:
        yield Progress(2, 5, "correlations", phase="analysing")
        table = correlation_report(usable, y, resamples=resamples).to_text()
    pictures: dict[str, bytes] = {}
    if figures and usable:
        cancel.raise_if_cancelled()
        yield Progress(3, 5, "figures", phase="analysing")
        from cluestudio.core.calibrate.plots import report_figures

        tasks = [inputs.tasks_of[i] for i in ids]
        for name, figure in report_figures(usable, y, tasks=tasks).items():
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png", dpi=80)
            figure.clear()
            pictures[name] = buffer.getvalue()
    cancel.raise_if_cancelled()
    yield Progress(4, 5, "inter-rater agreement", phase="analysing")
    if rubric is None or rubric.id != inputs.rubric_id:
        rubric = _rubric(inputs.rubric_id)
    scopes, agreement_note = agreement_scopes(ratings, rubric)
    yield Progress(5, 5, "done", phase="analysing")
    return AnalysisData(inputs.labels, queues, grader_queue, table, pictures, note, scopes,
                        agreement_note)


def gather(ws: Workspace, rubric_id: str, cancel: CancelToken, *, top: int = 50,
           resamples: int = 500, figures: bool = True,
           rubric: Rubric | None = None) -> Job[AnalysisData]:
    """:func:`plan_analysis` then :func:`analyse`, in this process (``cluestudio analysis``)
    or in the window's worker process (:func:`gather_job`)."""
    yield Progress(0, 5, "reading ratings and scores", phase="analysing")
    inputs = plan_analysis(ws, rubric_id, cancel)
    return (yield from analyse(inputs, cancel, top=top, resamples=resamples, figures=figures,
                               rubric=rubric))


def gather_job(workspace: str, rubric_id: str, *, cancel: CancelToken, emit: Any,
               top: int = 50) -> Job[AnalysisData]:
    """:func:`gather` in the worker process, on a read-only view of the workspace file (its
    writer stays in the window's process)."""
    from cluestudio.core.workspace import open_workspace

    ws = open_workspace(workspace, readonly=True)
    try:
        return (yield from gather(ws, rubric_id, cancel, top=top))
    finally:
        ws.close()
