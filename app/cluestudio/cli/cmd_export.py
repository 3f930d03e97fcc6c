"""``cluestudio export``: ratings, scores and reviews as tidy CSV and JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "export"
HELP = "export ratings, scores and reviews as tidy CSV/JSON (one row per submission × item)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", type=Path)
    parser.add_argument("out_dir", type=Path, help="folder for <table>.csv / <table>.json")
    parser.add_argument("--tables", default="ratings,scores,reviews,final",
                        help="comma-separated subset of ratings,scores,reviews,final (one row "
                             "per submission: its final grade)")
    parser.add_argument("--format", default="csv,json", help="csv, json or csv,json")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.workspace import open_workspace
    from cluestudio.core.workspace.export import TABLES, export_tables

    tables = tuple(t.strip() for t in args.tables.split(",") if t.strip())
    formats = tuple(f.strip() for f in args.format.split(",") if f.strip())
    bad = [t for t in tables if t not in TABLES] + [f for f in formats if f not in ("csv",
                                                                                    "json")]
    if bad:
        raise ClueStudioError(f"unknown table or format: {', '.join(bad)}")
    with open_workspace(args.workspace, create=False, readonly=True) as ws:
        written = export_tables(ws, args.out_dir, tables, formats)
    if args.json:
        print_json({"written": {k: str(v) for k, v in written.items()}})
    else:
        for path in written.values():
            print(path)
    return 0
