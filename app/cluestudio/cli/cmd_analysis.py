"""``cluestudio analysis``: the Analysis dock's tables from a workspace, on a terminal.

    cluestudio analysis COURSE.sqlite [--rubric ID] [--top N] [--json]

Where metric and humans disagree most (per metric), which submissions the graders rated far
apart, how each metric correlates with the human totals, and the inter-rater agreement
(Krippendorff's α interval and ordinal, ICC, weighted κ) on the total and per rubric item.
The same gathering as the window's Analysis dock (:mod:`cluestudio.app.analysis`).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

NAME = "analysis"
HELP = "print where metrics and graders disagree, correlations and inter-rater agreement"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", type=Path, help="workspace file (.sqlite)")
    parser.add_argument("--rubric", default=None, metavar="ID",
                        help="rubric whose ratings to use (default: the class-diagram rubric)")
    parser.add_argument("--top", type=int, default=10, metavar="N",
                        help="rows of each disagreement queue (default 10)")
    parser.add_argument("--json", action="store_true", help="JSON output")


def run(args: argparse.Namespace) -> int:
    from cluestudio.app.analysis import gather
    from cluestudio.cli.output import print_json
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.rubric import DEFAULT_RUBRIC_ID
    from cluestudio.core.workspace import open_workspace

    rubric_id = args.rubric or DEFAULT_RUBRIC_ID
    with open_workspace(args.workspace, create=False, readonly=True) as ws:
        data = run_job(gather(ws, rubric_id, CancelToken(), top=args.top, figures=False))
    if args.json:
        print_json(as_dict(data, rubric_id))
    else:
        print(as_text(data, rubric_id))
    return 0


def _number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 4)


def as_dict(data: Any, rubric_id: str) -> dict[str, Any]:
    def label(key: str) -> str:
        return data.labels.get(int(key), key) if str(key).isdigit() else str(key)

    return {
        "rubric": rubric_id, "note": data.note,
        "metric_disagreements": {
            metric: [{**d.to_dict(), "submission": label(d.id)} for d in queue]
            for metric, queue in data.metric_queues.items()},
        "grader_disagreements": [{**d.to_dict(), "submission": label(d.id)}
                                 for d in data.grader_queue],
        "correlations": data.correlations,
        "agreement_note": data.agreement_note,
        "agreement": [{"scope": scope.key, "label": scope.label,
                       "pairable_submissions": scope.pairable,
                       "report": scope.report.to_dict(),
                       "pairs": [p.to_dict() for p in scope.pairs],
                       "mean_weighted_kappa_by_grader": {
                           g: _number(k) for g, k in scope.kappa_by_grader.items()}}
                      for scope in data.agreement],
    }


def as_text(data: Any, rubric_id: str) -> str:
    lines = [f"Rubric: {rubric_id}"]
    if data.note:
        lines.append(data.note)
    for metric, queue in data.metric_queues.items():
        lines.append(f"\nWhere {metric} and the humans disagree most (residual = human − "
                     "predicted from the metric):")
        for d in queue:
            lines.append(f"  {d.rank:>3}. {data.labels.get(int(d.id), d.id):<36} "
                         f"{metric} {d.value:6.3f}  human {d.human:6.1f}  predicted "
                         f"{d.predicted:6.1f}  residual {d.residual:+6.1f}")
    if data.grader_queue:
        lines.append("\nSubmissions the graders rated far apart:")
        for d in data.grader_queue:
            ratings = ", ".join(f"{g} {v:g}" for g, v in sorted(d.ratings.items()))
            lines.append(f"  {d.rank:>3}. {data.labels.get(int(d.id), d.id):<36} "
                         f"range {d.range:5.1f}  ({ratings})")
    if data.correlations:
        lines += ["\nCorrelation of each metric with the human total:", data.correlations]
    lines.append("\nInter-rater agreement (Krippendorff's α for interval and for ordinal "
                 "data, ICC(2,k), quadratic-weighted κ):")
    if data.agreement_note:
        lines.append(f"  {data.agreement_note}")
    for scope in data.agreement:
        report = scope.report
        lines.append(f"  {scope.label:<24} α interval {_fmt(report.alpha_interval)}  "
                     f"α ordinal {_fmt(report.alpha_ordinal)}  ICC(2,k) {_fmt(report.icc.icc2k)}  "
                     f"({scope.pairable} submissions rated by two or more)")
        for pair in scope.pairs:
            lines.append(f"      {pair.first} × {pair.second}: n {pair.n}, α interval "
                         f"{_fmt(pair.alpha_interval)}, α ordinal {_fmt(pair.alpha_ordinal)}, "
                         f"κw {_fmt(pair.kappa_quadratic)}")
    return "\n".join(lines)


def _fmt(value: float) -> str:
    return "  n/a" if value is None or not math.isfinite(value) else f"{value:5.3f}"
