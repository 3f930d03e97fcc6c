"""``cluestudio clean-copy``: the data of a workspace that was refused for foreign schema
objects (triggers, views, tables or indexes ClueStudio did not make), in a new, clean one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "clean-copy"
HELP = "copy a refused workspace's data (tables only) into a new clean workspace"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", type=Path, help="the refused workspace (only read)")
    parser.add_argument("clean", type=Path, help="the new workspace file to write")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.workspace.clean_copy import copy_to_clean

    counts = copy_to_clean(args.workspace, args.clean)
    if args.json:
        print_json({"clean": str(args.clean),
                    "rows": {table: copied for table, (copied, _) in counts.items()},
                    "left_out": {table: left for table, (_, left) in counts.items() if left}})
    else:
        print(f"{args.clean}: " + ", ".join(f"{table} {copied}" for table, (copied, _)
                                            in counts.items() if copied))
        for table, (_, left) in counts.items():
            if left:
                print(f"warning: {table}: {left} row(s) left out (they break the schema's "
                      "constraints)", file=sys.stderr)
    return 0
