"""``cluestudio parse FILE``: read a PlantUML class diagram and show the model and warnings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "parse"
HELP = "parse a PlantUML class diagram and print its model (classes, relations, notes)"


def configure(parser: argparse.ArgumentParser) -> None:
    from cluestudio.core.plantuml.parser import MAX_PARSE_BYTES

    parser.add_argument("file", type=Path, help="a .puml file (UTF-8)")
    parser.add_argument("--json", action="store_true",
                        help="print the model and warnings as JSON")
    parser.add_argument("--max-bytes", type=int, default=MAX_PARSE_BYTES, metavar="N",
                        help=f"refuse files over N bytes (default {MAX_PARSE_BYTES:,})")
    parser.add_argument("--no-preprocessor", action="store_true",
                        help="leave !define/!procedure/!if… as warnings instead of letting "
                             "PlantUML's preprocessor expand them (no Java needed)")


def run(args: argparse.Namespace) -> int:
    from cluestudio.app.input_files import refuse_special_files
    from cluestudio.core.model import diagram_to_dict
    from cluestudio.core.plantuml import parse_file

    refuse_special_files([args.file])
    # A PlantUMLSyntaxError (ParseTooLarge included) ends the command with status 2.
    result = parse_file(args.file, max_bytes=args.max_bytes,
                        preprocessor=None if args.no_preprocessor else "auto")
    if args.json:
        from cluestudio.cli.output import print_json

        data = diagram_to_dict(result.diagram)
        data["warnings"] = [{"line": w.line, "text": w.text, "message": w.message}
                            for w in result.warnings]
        data["omitted_links"] = [{"line": o.line, "begin": o.begin, "end": o.end,
                                  "reason": o.reason} for o in result.omitted_links]
        print_json(data)
        return 0
    diagram = result.diagram
    for cls in diagram.classes:
        where = f" in {cls.package}" if cls.package else ""
        stereotype = f" <<{cls.stereotype}>>" if cls.stereotype else ""
        print(f"{cls.kind.value} {cls.name}{stereotype}{where}  (line {cls.line})")
        for attribute in cls.attributes:
            type_ = f" : {attribute.type}" if attribute.type else ""
            print(f"    {attribute.visibility}{attribute.name}{type_}")
        for method in cls.methods:
            params = ", ".join(f"{p.name}: {p.type}" if p.type else p.name
                               for p in method.params)
            returns = f" : {method.return_type}" if method.return_type else ""
            print(f"    {method.visibility}{method.name}({params}){returns}")
    for relation in diagram.relations:
        label = relation.label
        ends = f" [{label.from_ or '-'} .. {label.to or '-'}]" if label.from_ or label.to else ""
        name = f" : {relation.name}" if relation.name else ""
        print(f"{relation.type.value} {relation.begin} -> {relation.end}{ends}{name}"
              f"  (line {relation.line})")
    for note in diagram.notes:
        target = f" on {note.target}" if note.target else ""
        first = note.text.splitlines()[0] if note.text else ""
        print(f"note{target}: {first}  (line {note.line})")
    for warning in result.warnings:
        print(f"warning: {args.file}:{warning.line}: {warning.message}: {warning.text.strip()!r}",
              file=sys.stderr)
    return 0
