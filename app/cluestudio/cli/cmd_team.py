"""``cluestudio team``: grade a course as a team.

    cluestudio team split WS packs/ --graders ann,bob --overlap 0.2 [--by submission|task]
    cluestudio team merge WS ann-done.zip bob-done.zip      # + agreement on the overlap
    cluestudio team agreement WS
    cluestudio team queue WS [--threshold 10]               # ratings side by side
    cluestudio team adjudicate WS TASK SOURCE --lead lee (--take ann | --total 72 |
                               --scores classes=4,attributes=3,...) [--comment TEXT]

A grader opens their pack with ``cluestudio pack merge mine.sqlite ann.zip``, grades, and
sends back ``cluestudio pack export mine.sqlite ann-done.zip --grader ann``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

NAME = "team"
HELP = "split a course among graders, merge their packs, agreement, adjudication queue"


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="team_command", required=True)
    split = sub.add_parser("split", help="split the course into one pack per grader")
    split.add_argument("workspace", type=Path)
    split.add_argument("out_dir", type=Path)
    split.add_argument("--graders", required=True, help="comma-separated names")
    split.add_argument("--overlap", type=float, default=0.1,
                       help="fraction graded by two graders (default 0.1)")
    split.add_argument("--by", choices=("submission", "task"), default="submission")
    split.add_argument("--seed", type=int, default=0)
    split.add_argument("--origin", choices=("student", "llm", "synthetic"),
                       help="only submissions of this origin")
    merge = sub.add_parser("merge", help="merge graders' packs; agreement on the overlap")
    merge.add_argument("workspace", type=Path)
    merge.add_argument("packs", type=Path, nargs="+")
    agreement = sub.add_parser("agreement", help="agreement on the doubly graded submissions")
    agreement.add_argument("workspace", type=Path)
    queue = sub.add_parser("queue", help="overlapping ratings that need a lead's decision")
    queue.add_argument("workspace", type=Path)
    queue.add_argument("--threshold", type=float, help="points; default: the course's")
    adjudicate = sub.add_parser("adjudicate", help="record the lead's final rating")
    adjudicate.add_argument("workspace", type=Path)
    adjudicate.add_argument("task")
    adjudicate.add_argument("source")
    adjudicate.add_argument("--lead", required=True)
    how = adjudicate.add_mutually_exclusive_group(required=True)
    how.add_argument("--take", metavar="GRADER", help="take this grader's rating")
    how.add_argument("--total", type=float)
    how.add_argument("--scores", help="item=score,… on the rubric's scales")
    adjudicate.add_argument("--comment", default="")
    for command in (split, merge, agreement, queue, adjudicate):
        command.add_argument("--json", action="store_true")


def _scores(text: str) -> dict[str, float]:
    from cluestudio.core.errors import ClueStudioError

    out = {}
    for part in text.split(","):
        item, sep, value = part.partition("=")
        try:
            out[item.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ClueStudioError(f"--scores: {part!r} is not item=number")
    return out


def _print_agreement(report: Any, as_json: bool, extra: dict[str, Any]) -> None:
    from cluestudio.cli.output import print_json

    if as_json:
        print_json({**extra, "agreement": report.to_dict() if report else None})
    elif report is None:
        print("agreement: no submission was rated by two graders")
    else:
        print(report.to_text())


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.cmd_import import print_failure
    from cluestudio.cli.output import print_json, safe_text
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.workspace import ImportFailed, open_workspace, team
    from cluestudio.core.workspace.adjudication import Adjudicate, adjudication_queue
    from cluestudio.core.workspace.finals import final_grades

    command = args.team_command
    readonly = command in ("agreement", "queue")
    with open_workspace(args.workspace, create=False, readonly=readonly) as ws:
        if command == "split":
            split = team.split_course(ws, args.out_dir, args.graders.split(","),
                                      overlap=args.overlap, by=args.by, seed=args.seed,
                                      origin=args.origin)
            if args.json:
                print_json({"packs": {g: str(p) for g, p in split.packs.items()},
                            "assigned": split.assigned, "overlap": split.overlap,
                            "idle": list(split.idle)})
            else:
                for grader, path in split.packs.items():
                    print(f"{path}: {split.assigned[grader]} submissions for {grader}")
                print(f"{split.overlap} submissions go to two graders")
                if split.idle:
                    print(f"no submission for {', '.join(split.idle)}: no pack")
            return 0
        if command == "merge":
            try:
                report, agreement = team.merge_team(ws, list(args.packs))
            except ImportFailed as failed:
                return print_failure(failed, args.json)
            waiting = len(adjudication_queue(ws))
            if not args.json:
                print(", ".join(f"{k} {v}" for k, v in sorted(report.counts.items())))
                for conflict in report.conflicts:
                    where = (f"bank comment {conflict['uid']}" if "uid" in conflict else
                             f"{conflict.get('task_id')}/{conflict.get('source_id')}")
                    print(safe_text(f"  conflict: {conflict['message']} ({where})"),
                          file=sys.stderr)
                print(f"{waiting} submissions wait for adjudication (cluestudio team queue)")
            _print_agreement(agreement, args.json, {"merge": report.to_dict(),
                                                    "adjudication_queue": waiting})
            return 0
        if command == "agreement":
            _print_agreement(team.overlap_agreement(ws), args.json, {})
            return 0
        if command == "queue":
            entries = adjudication_queue(ws, threshold=args.threshold)
            if args.json:
                print_json([{"task_id": e.task_id, "source_id": e.source_id,
                             "spread": e.spread,
                             "ratings": [vars(r) for r in e.ratings],
                             "item_comments": e.item_comments} for e in entries])
                return 0
            for e in entries:
                print(safe_text(f"{e.task_id}/{e.source_id}: {e.spread:g} points apart"))
                for r in e.ratings:
                    items = " ".join(f"{k}={v:g}" for k, v in r.scores.items())
                    print(safe_text(f"  {r.grader:<12} {r.adjusted:6.2f}  {items}"))
                    if r.comment:
                        print(safe_text(f"  {'':<12} “{r.comment}”"))
                    for item, texts in e.item_comments.get(r.grader, {}).items():
                        print(safe_text(f"  {'':<12} {item}: {'; '.join(texts)}"))
            if not entries:
                print("nothing waits for adjudication")
            return 0
        found = ws.find_submission(args.task, args.source)
        if found is None:
            raise ClueStudioError(f"{args.workspace}: no submission {args.task}/{args.source}")
        if args.take:
            taken = [r for r in final_grades(ws)[found.id].ratings if r.grader == args.take]
            if not taken:
                raise ClueStudioError(f"{args.take} did not rate {args.task}/{args.source}")
            command_ = Adjudicate(found.id, args.lead, scores=taken[0].scores or None,
                                  total=taken[0].adjusted,
                                  comment=args.comment or taken[0].comment)
        elif args.scores:
            command_ = Adjudicate(found.id, args.lead, scores=_scores(args.scores),
                                  comment=args.comment)
        else:
            command_ = Adjudicate(found.id, args.lead, total=args.total, comment=args.comment)
        before = final_grades(ws)[found.id].adjudication
        total = ws.execute(command_).result
    replaced = ("" if before is None else
                f"; replaces {safe_text(before['lead'])}'s {float(before['total']):g}")
    if args.json:
        print_json({"task_id": args.task, "source_id": args.source, "final": total})
    else:
        print(safe_text(f"{args.task}/{args.source}: final grade {total:g} (adjudicated by "
                        f"{args.lead}{replaced})"))
    return 0
