"""``cluestudio render``: draw one PlantUML file as PNG or SVG with the sandboxed renderer."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "render"
HELP = "Render a PlantUML file to PNG or SVG (format from the output's extension)."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="PlantUML text file ('-' reads standard input)")
    parser.add_argument("-o", "--output", required=True, help="image to write (.png or .svg)")
    parser.add_argument("--format", choices=("png", "svg"),
                        help="image format (default: from the output file's extension)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds allowed for the diagram (default: 20)")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")


def _read(name: str) -> str:
    from cluestudio.core.errors import ClueStudioError

    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ClueStudioError(f"{name}: cannot read: {error}") from None


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.plantuml.renderer import Format, get_renderer
    from cluestudio.core.safe_output import write_bytes

    output = Path(args.output)
    fmt: Format
    chosen = args.format or output.suffix.lower().lstrip(".")
    if chosen == "png":
        fmt = "png"
    elif chosen == "svg":
        fmt = "svg"
    else:
        raise ClueStudioError(
            f"{output}: cannot tell the image format from the extension; use .png or .svg "
            "or --format"
        )
    source = "<stdin>" if args.file == "-" else args.file
    text = _read(args.file)
    renderer = get_renderer()
    if args.timeout is not None:
        renderer.timeout = args.timeout
    image = renderer.render(text, fmt, source=source)
    try:
        write_bytes(output, image)  # never half an image, never through a symlink
    except OSError as error:
        raise ClueStudioError(f"{output}: cannot write: {error}") from None
    if args.json:
        print_json({"source": source, "output": str(output), "format": fmt, "bytes": len(image)})
    return 0
