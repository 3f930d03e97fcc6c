"""``cluestudio agreement``: how well graders agree on the submissions they all rated.

    cluestudio agreement ratings.csv [--top 20] [--by sd|range] [--json]

Prints Krippendorff's α for interval and for ordinal data (rubric scores are ordinal; both
are shown, each labelled), ICC(2,1) and ICC(2,k) (Shrout & Fleiss), weighted κ for every
pair of graders, a per-grader table, and the submissions graders disagree on most.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "agreement"
HELP = ("inter-rater agreement (Krippendorff's alpha interval and ordinal, ICC, weighted "
        "kappa) of a ratings CSV")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ratings", type=Path,
                        help="workspace ratings.csv (task_id,source_id,grader,...) or "
                             "id,grader,total")
    parser.add_argument("--top", type=int, default=20,
                        help="submissions in the disagreement queue (20)")
    parser.add_argument("--by", choices=("sd", "range"), default="sd",
                        help="rank disagreements by SD or range of the ratings")
    parser.add_argument("--json", action="store_true", help="JSON output on stdout")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.agreement import Ratings, agreement_report
    from cluestudio.core.calibrate.queue import grader_disagreements
    from cluestudio.core.calibrate.ratings_io import read_ratings
    from cluestudio.core.errors import ClueStudioError

    records = read_ratings(args.ratings)
    try:
        ratings = Ratings.from_records((r.id, r.grader, r.total) for r in records)
    except ValueError as error:
        raise ClueStudioError(f"{args.ratings}: {error}") from None
    if len(ratings.graders) < 2:
        raise ClueStudioError(f"{args.ratings}: agreement needs at least two graders")
    report = agreement_report(ratings)
    queue = grader_disagreements(ratings, by=args.by, top=args.top)
    if args.json:
        print_json({**report.to_dict(), "disagreements": [q.to_dict() for q in queue]})
        return 0
    print(report.to_text())
    if queue:
        print(f"\nmost disagreement (by {args.by}):")
        for q in queue:
            shown = ", ".join(f"{g}={v:g}" for g, v in q.ratings.items())
            print(f"{q.rank:>3}. {q.id:<30} sd {q.sd:6.2f}  range {q.range:6.2f}  {shown}")
    return 0
