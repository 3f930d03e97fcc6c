"""``cluestudio group``: submissions of a task whose diagrams say the same, to grade once.

    cluestudio group COURSE.sqlite TASK [--threshold 0.97] [--embedder exact] [--json]

The same grouping as the window's "grade by group" (:mod:`cluestudio.app.groups`, on
:mod:`cluestudio.core.groups`): a group holds submissions whose current PlantUML says the
same once layout, order, whitespace and case are ignored; submissions at CLUE ≥ the
threshold both ways are listed after it as "near, differs" with their element differences,
never as members.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "group"
HELP = "list groups of submissions with the same diagram (grade each group once)"
DEFAULT_THRESHOLD = 0.97  # core.groups.DEFAULT_THRESHOLD, without importing it for --help


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", type=Path, help="workspace file (.sqlite)")
    parser.add_argument("task", help="task id")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                        help="suggest near submissions at CLUE both ways at or above this "
                             f"(default {DEFAULT_THRESHOLD})")
    parser.add_argument("--embedder", default="exact",
                        help="exact (default: fast, deterministic), minilm, or a model")
    parser.add_argument("--json", action="store_true", help="JSON output")


def run(args: argparse.Namespace) -> int:
    from cluestudio.app.groups import group_submissions
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.groups import GroupOptions
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import open_workspace

    options = GroupOptions(args.threshold, args.embedder)
    with open_workspace(args.workspace, create=False, readonly=True) as ws:
        result = run_job(group_submissions(ws, args.task, options),
                         None if args.json else stderr_progress)
    if args.json:
        print_json(result.to_dict())
        return 0
    print(f"{args.task}: {len(result.groups)} groups, {len(result.singletons)} alone, "
          f"{result.distinct} distinct diagrams; {result.pairs_scored} of "
          f"{result.pairs_possible} pairs scored in {result.seconds:.2f} s")
    for group in result.groups:
        members = ", ".join(m.source_id for m in group.members)
        print(f"  {group.key} [{group.size}]: {members}")
        for near in group.near:
            print(f"      near, differs: {near.source_id} ({near.similarity:.3f}): "
                  + "; ".join(near.differences))
    for sid, why in sorted(result.unreadable.items()):
        print(f"  not grouped: submission {sid}: {why}")
    return 0
