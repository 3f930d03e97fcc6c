"""The draft converter and the check on class diagrams drawn in other tools' looks (issue 29).

    .venv/bin/python benchmarks/bench_draft_drawn.py --drawings 40 --seed 1 [--misses] [--json]
        [--keep DIR] [--cache FILE] [--relayout]

A held-out proxy for "drawn with other tools" (Visio/PowerPoint-style course figures,
StarUML, draw.io, web editors, a UML reference site): ``--drawings`` diagrams of 3–12
classes drawn with PIL in random looks (``core/synth_drawn.py``, from ``--seed``; no rule
was tuned on them), measured exactly as ``bench_realimages.py`` measures a real image (its
``run_item``, ``summarise`` and table): the draft's class/attribute/method/relation P/R/F1,
the check's faithful-flag rate and dropped/invented-class recall, CPU seconds per image.
Then the same per look feature (a font size, a fill, rounded boxes, no compartment rules,
«interface», two-line names, an editor's palette…), which names the looks the draft and
the check fail on. Figures: ``benchmarks/realimages_figures.md``, "Held-out proxy: other
tools' drawings".
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from bench_draft_skins import by_feature
from bench_realimages import (
    ImageResult,
    Item,
    _fmt,
    add_cache_arguments,
    print_misses,
    print_table,
    run_item,
    summarise,
)

from cluestudio.core.ocr import get_engine
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.synth_drawn import random_drawn


def run(count: int, seed: int, folder: Path, cache: OcrCache | None = None,
        relayout: bool = False) -> list[tuple[ImageResult, tuple[str, ...]]]:
    out = []
    for i in range(count):
        drawn = random_drawn(random.Random(f"{seed}:{i}"))
        path = folder / f"drawn{seed}-{i:03d}.png"
        path.write_bytes(drawn.png)
        item = Item(f"seed{seed}", path.name, path, drawn.truth, "other-tool")
        out.append((run_item(item, cache, relayout), drawn.features))
        print(f"{i + 1}/{count} {', '.join(drawn.features)}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawings", type=int, default=20, help="diagrams to draw")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--misses", action="store_true", help="list each image's misses")
    parser.add_argument("--keep", default=None, metavar="DIR", help="keep the drawings here")
    parser.add_argument("--json", action="store_true")
    add_cache_arguments(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        cache = OcrCache(args.cache) if args.cache else None
        try:
            results = run(args.drawings, args.seed, folder, cache, args.relayout)
        finally:
            if cache is not None:
                cache.close()
    overall = summarise([r for r, _ in results])
    features = by_feature(results)
    if args.json:
        print(json.dumps({"all": overall, "features": features}, indent=2, default=str))
        return 0
    print(f"{args.drawings} drawings in other tools' looks, seed {args.seed}")
    print_table({"all": overall}, get_engine().engine_id)
    print("per look feature (images: draft class, attribute, method, relation F1 (typed); "
          "check faithful flagged, dropped class found):")
    for name, s in features.items():
        draft, check = s["draft"], s["check"]
        print(f"  {name:24} {s['images']:3d}: class {_fmt(draft['class']['f1'])}, "
              f"attribute {_fmt(draft['attributes']['f1'])}, "
              f"method {_fmt(draft['methods']['f1'])}, "
              f"relation {_fmt(draft['relation']['f1'])} "
              f"({_fmt(draft['relation_typed']['f1'])}); flagged "
              f"{_fmt(check['false_flag_rate'])}, dropped found {_fmt(check['dropped_recall'])}")
    if args.misses:
        print_misses([r for r, _ in results])
    return 0


if __name__ == "__main__":
    sys.exit(main())
