"""``cluestudio pack``: export a workspace as a pack, or merge graders' packs into one."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "pack"
HELP = "export a pack (zip of JSON + images) or merge packs from several graders"


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="pack_command", required=True)
    export = sub.add_parser("export", help="write a pack of a workspace")
    export.add_argument("workspace", type=Path)
    export.add_argument("pack", type=Path, help="the .zip to write")
    export.add_argument("--grader", help="only this grader's ratings and reviews")
    export.add_argument("--json", action="store_true")
    merge = sub.add_parser("merge", help="merge packs into a workspace (conflicts reported)")
    merge.add_argument("workspace", type=Path, help="workspace file (created if missing)")
    merge.add_argument("packs", type=Path, nargs="+")
    merge.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.cmd_import import print_failure, print_report
    from cluestudio.cli.output import print_json
    from cluestudio.core.workspace import ImportFailed, open_workspace
    from cluestudio.core.workspace.pack import export_pack, merge_packs

    if args.pack_command == "export":
        with open_workspace(args.workspace, create=False, readonly=True) as ws:
            counts = export_pack(ws, args.pack, grader=args.grader)
        if args.json:
            print_json({"pack": str(args.pack), "counts": counts})
        else:
            print(f"{args.pack}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        return 0
    with open_workspace(args.workspace) as ws:
        try:
            report = merge_packs(ws, list(args.packs))
        except ImportFailed as failed:
            return print_failure(failed, args.json)
    print_report(report.to_dict(), args.json)
    return 1 if report.conflicts and not args.json else 0
