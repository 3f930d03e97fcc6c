"""``cluestudio import-code``: Python classes → PlantUML class diagram (OpenClassGen, seed 004).

A ``.py`` file or a folder gives one diagram written to ``-o out.puml``. An OpenClassGen-style
corpus (``.csv``, ``.json``, ``.jsonl``) gives one diagram per row, written into the folder
``-o`` names as ``<id>.puml``; rows that do not parse are skipped and listed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

NAME = "import-code"
HELP = "turn Python classes (file, folder or OpenClassGen corpus) into a PlantUML diagram"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help=".py file, folder, or .csv/.json/.jsonl corpus")
    parser.add_argument("-o", "--output", type=Path,
                        help="output .puml (for a corpus: a folder); default: stdout")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON summary (and the diagram as data) to stdout")
    parser.add_argument("--include-dunder", action="store_true",
                        help="keep __eq__, __repr__, ... (only __init__ is kept by default)")
    parser.add_argument("--skip-errors", action="store_true",
                        help="in a folder, skip files with syntax errors instead of stopping")
    parser.add_argument("--limit", type=int, help="corpus: import only the first N rows")


def _write_plantuml(diagram: Any) -> str:
    try:
        from cluestudio.core.plantuml import write_plantuml
    except ImportError:
        from cluestudio.core.plantuml.writer import write_plantuml
    return str(write_plantuml(diagram))


def _import_plugin() -> Any:
    try:
        import cluestudio_openclassgen.importer as importer
    except ImportError as error:
        from cluestudio.core.errors import ClueStudioError

        raise ClueStudioError("the OpenClassGen plugin (cluestudio_openclassgen) is not "
                              "installed") from error
    return importer


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.model import diagram_to_dict
    from cluestudio.core.safe_output import write_text

    importer = _import_plugin()
    if importer.is_corpus(args.path):
        corpus = importer.import_corpus(args.path, include_dunder=args.include_dunder,
                                        limit=args.limit)
        if args.output:
            args.output.mkdir(parents=True, exist_ok=True)
            for design in corpus.designs:
                safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in design.name)
                write_text(args.output / f"{safe}.puml", _write_plantuml(design.diagram))
        for line in corpus.skipped:
            print(f"warning: skipped {line}", file=sys.stderr)
        if args.json:
            print_json({"designs": [{"name": d.name, "classes": list(d.diagram.class_names),
                                     "origins": d.origins} for d in corpus.designs],
                        "skipped": list(corpus.skipped)})
        elif not args.output:
            for design in corpus.designs:
                print(f"' --- {design.name}\n{_write_plantuml(design.diagram)}")
        return 0 if corpus.designs or not corpus.skipped else 2
    design, warnings = importer.import_code(args.path, include_dunder=args.include_dunder,
                                            skip_errors=args.skip_errors)
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    text = _write_plantuml(design.diagram)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        write_text(args.output, text)
    if args.json:
        print_json({"output": str(args.output) if args.output else None,
                    "classes": list(design.diagram.class_names), "origins": design.origins,
                    "warnings": warnings, "diagram": diagram_to_dict(design.diagram)})
    elif not args.output:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
