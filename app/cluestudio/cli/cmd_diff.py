"""``cluestudio diff``: a candidate's elements against the reference, and a coloured copy.

    cluestudio diff REFERENCE.puml CANDIDATE.puml [-o COLOURED.puml] [--png OUT.png]
                    [--embedder exact] [--json]

Every candidate class, member and relation matched / partly matched / extra and every
missing reference element, with lines (:mod:`cluestudio.core.diff`); ``-o`` writes
the candidate's PlantUML coloured by that diff, ``--png`` its rendering.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "diff"
HELP = "compare a candidate class diagram with the reference, element by element"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reference", type=Path, help="reference PlantUML file")
    parser.add_argument("candidate", type=Path, help="candidate PlantUML file")
    parser.add_argument("-o", "--output", type=Path, help="write the coloured PlantUML here")
    parser.add_argument("--png", type=Path, help="render the coloured PlantUML to this PNG")
    parser.add_argument("--embedder", default="exact",
                        help="exact (default), minilm, or a model name or folder")
    parser.add_argument("--json", action="store_true", help="JSON output")


def _read(path: Path) -> str:
    from cluestudio.core.errors import SourceError

    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError(f"cannot read the file ({error})", source=str(path)) from error


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.diff import Status, annotate, diff_texts
    from cluestudio.core.safe_output import write_bytes, write_text

    candidate = _read(args.candidate)
    diff = diff_texts(_read(args.reference), candidate, embedder=args.embedder)
    annotation = annotate(candidate, diff)
    if args.output:
        write_text(args.output, annotation.text)
    if args.png:
        from cluestudio.core.plantuml.renderer import get_renderer

        write_bytes(args.png, get_renderer().render(annotation.text, "png",
                                                    source=str(args.candidate)))
    if args.json:
        print_json({**diff.to_dict(),
                    "not_coloured": [e.to_dict() for e in annotation.not_coloured],
                    "notes": list(annotation.notes)})
        return 0
    for element in (*diff.elements, *diff.missing):
        side = args.reference if element.status is Status.MISSING else args.candidate
        where = f"{side.name}:{element.line}"
        why = f"  ({element.why})" if element.why else ""
        owner = f"{element.owner}." if element.owner else ""
        print(f"{element.status.value:8} {element.kind:9} {where:<24} {owner}{element.text}{why}")
    return 0
