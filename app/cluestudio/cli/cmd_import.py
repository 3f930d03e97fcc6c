"""``cluestudio import``: a course folder or OODEval-like JSONL into a workspace, all or nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cluestudio.core.workspace import ImportFailed

NAME = "import"
HELP = "import a course folder or a .jsonl file into a workspace (all or nothing)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", type=Path, help="workspace file (created if missing)")
    parser.add_argument("source", type=Path, help="course folder or .jsonl file")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--allow-outside", action="store_true",
                        help="also read files that symbolic links or JSONL image paths place "
                             "outside the imported folder (refused by default)")


def print_report(report_dict: dict[str, Any], as_json: bool) -> None:
    from cluestudio.cli.output import print_json

    if as_json:
        print_json(report_dict)
        return
    for kind in ("errors", "warnings"):
        for p in report_dict[kind]:
            where = p["source"] + (f":{p['line']}" if p["line"] else "")
            print(f"{where}: {p['severity']}: {p['message']}", file=sys.stderr)
    for c in report_dict.get("conflicts", []):
        print(f"conflict: {c}", file=sys.stderr)
    for kind, names in report_dict.get("added_by", {}).items():
        print(f"{kind} added by " + ", ".join(f"{name} {n}" for name, n in names.items()))
    counts = report_dict["counts"]
    print(", ".join(f"{k} {v}" for k, v in counts.items()) or "nothing to do")


def print_failure(failed: ImportFailed, as_json: bool) -> int:
    """Every problem of an import or merge that wrote nothing, then the one-line error; 2.
    One problem is that one line alone, and a refusal never says "nothing to do"."""
    report = failed.report.to_dict()
    if as_json:
        print_report(report, as_json)
        return 2
    problems = [*report["errors"], *report["warnings"]]
    if len(problems) > 1 or report.get("conflicts"):
        for p in problems:
            where = p["source"] + (f":{p['line']}" if p["line"] else "")
            print(f"{where}: {p['severity']}: {p['message']}", file=sys.stderr)
        for c in report.get("conflicts", []):
            print(f"conflict: {c}", file=sys.stderr)
    print(f"error: {failed}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from cluestudio.app.input_files import refuse_special_files
    from cluestudio.cli.output import stderr_progress
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import ImportFailed, import_path, open_workspace

    refuse_special_files([args.workspace, args.source])  # before the workspace is made
    with open_workspace(args.workspace) as ws:
        try:
            report = run_job(import_path(ws, args.source, allow_outside=args.allow_outside),
                             None if args.json else stderr_progress)
        except ImportFailed as failed:
            return print_failure(failed, args.json)
    print_report(report.to_dict(), args.json)
    return 0
