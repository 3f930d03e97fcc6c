"""``cluestudio synth``: student-like candidates of a reference diagram, with ground truth."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

NAME = "synth"
HELP = "generate synthetic submissions (seeded mutations + styled images) from a reference"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reference", type=Path, help="reference .puml")
    parser.add_argument("out_dir", type=Path, help="writes <id>.puml, <id>.png, <id>.json")
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prefix", default="s")
    parser.add_argument("--no-images", action="store_true", help="PlantUML and truth only")
    parser.add_argument("--max-kb", type=int, default=40, help="shrink PNGs to this size")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.safe_output import write_bytes, write_text
    from cluestudio.core.synth import generate, render_png_batch, shrink_png, styled

    try:
        from cluestudio.core.plantuml import (
            parse_plantuml,
            write_plantuml,
        )
    except ImportError as error:
        raise ClueStudioError("the PlantUML parser is not installed") from error
    text = args.reference.read_text(encoding="utf-8")
    reference = parse_plantuml(text, source=str(args.reference)).diagram
    candidates = generate(reference, args.count, seed=args.seed, prefix=args.prefix)
    texts = [write_plantuml(c.diagram) for c in candidates]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    pngs = [] if args.no_images else render_png_batch(
        [styled(t, c.style) for t, c in zip(texts, candidates, strict=True)])
    out = []
    for i, (candidate, puml) in enumerate(zip(candidates, texts, strict=True)):
        stem = args.out_dir / candidate.source_id
        write_text(stem.with_suffix(".puml"), puml)
        write_text(stem.with_suffix(".json"), json.dumps(candidate.ground_truth(), indent=1))
        if pngs:
            write_bytes(stem.with_suffix(".png"), shrink_png(pngs[i], args.max_kb * 1024))
        out.append({"id": candidate.source_id, **candidate.ground_truth()})
    if args.json:
        print_json({"candidates": out})
    else:
        for c in out:
            kinds = ", ".join(m["kind"] for m in c["mutations"]) or "unchanged"
            print(f"{c['id']} [{c['style']}]: {kinds}")
    return 0
