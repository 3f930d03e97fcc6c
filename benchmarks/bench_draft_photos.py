"""The draft converter and the check on photographed diagrams made fresh per seed (issue 29).

    .venv/bin/python benchmarks/bench_draft_photos.py --photos 30 --seed 1 [--misses] [--json]
        [--no-render] [--keep DIR] [--cache FILE] [--relayout]

A held-out proxy for "whiteboard photos, a photographed exam": ``--photos`` diagrams of 2–7
classes drawn in marker on a board, in pen on ruled or squared paper with the back page
showing through, or (unless ``--no-render``) rendered by the project's PlantUML renderer in
its handwritten/sketchy look, then photographed: perspective, tilt, uneven light, glare,
reflections, defocus, noise, JPEG (``core/synth_photos.py``, drawn from ``--seed``; no rule
was tuned on them). Each JPEG goes the pixel path, decoded and read by OCR as a real photo
(``bench_realimages.run_item``): the draft's class/attribute/method/relation P/R/F1, the
check's faithful-flag rate and dropped/invented-class recall, CPU seconds per image; then
the draft's F1 and the faithful-flag rate per feature (perspective, glare, paper, a marker
colour…). Figures: ``benchmarks/realimages_figures.md``, "Held-out proxy: photos".
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from bench_draft_skins import by_feature, print_by_feature
from bench_realimages import (
    ImageResult,
    Item,
    add_cache_arguments,
    print_misses,
    print_table,
    run_item,
    summarise,
)

from cluestudio.core.ocr import get_engine
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.synth import render_png_batch
from cluestudio.core.synth_photos import random_photo


def _render(text: str) -> bytes:
    return render_png_batch([text])[0]


def run(count: int, seed: int, folder: Path, cache: OcrCache | None = None,
        relayout: bool = False, renders: bool = True
        ) -> list[tuple[ImageResult, tuple[str, ...]]]:
    out = []
    for i in range(count):
        photo = random_photo(random.Random(f"{seed}:{i}"), render=_render if renders else None)
        path = folder / f"photo{seed}-{i:03d}.jpg"
        path.write_bytes(photo.jpeg)
        item = Item(f"seed{seed}", path.name, path, photo.truth, "photo")
        out.append((run_item(item, cache, relayout), photo.features))
        print(f"{i + 1}/{count} {', '.join(photo.features)}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=20, help="photos to make")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-render", action="store_true",
                        help="no PlantUML renders among the photos (no Java needed)")
    parser.add_argument("--misses", action="store_true", help="list each image's misses")
    parser.add_argument("--keep", default=None, metavar="DIR", help="keep the photos here")
    parser.add_argument("--json", action="store_true")
    add_cache_arguments(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        cache = OcrCache(args.cache) if args.cache else None
        try:
            results = run(args.photos, args.seed, folder, cache, args.relayout,
                          not args.no_render)
        finally:
            if cache is not None:
                cache.close()
    overall = summarise([r for r, _ in results])
    features = by_feature(results)
    if args.json:
        print(json.dumps({"all": overall, "features": features}, indent=2, default=str))
        return 0
    print(f"{args.photos} random photos, seed {args.seed}")
    print_table({"all": overall}, get_engine().engine_id)
    print_by_feature(features, "feature")
    if args.misses:
        print_misses([r for r, _ in results])
    return 0


if __name__ == "__main__":
    sys.exit(main())
