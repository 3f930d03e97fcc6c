"""The draft converter and the check on PlantUML renders in random skins and sizes (issue 29).

    .venv/bin/python benchmarks/bench_draft_skins.py --skins 60 --seed 1 [--misses] [--json]
        [--cache FILE] [--relayout]

A held-out proxy for "PlantUML renders in other people's skins and sizes": ``--skins`` diagrams
of 3–30 classes in random skins (``core/synth_skins.py``, drawn from ``--seed``; no rule was
tuned on them) are rendered by the project's renderer and measured exactly as
``bench_realimages.py`` measures a real render (its ``run_item``, ``summarise`` and table):
the draft's class/attribute/method/relation P/R/F1, the check's faithful-flag rate and
dropped/invented-class recall, CPU seconds per image. Then the draft's class and attribute
F1 and the faithful-flag rate per skin feature (a theme, monochrome, ortho lines, a scale,
a size…), which names the kinds of skin the draft fails on. Figures:
``benchmarks/realimages_figures.md``, "Held-out proxy: random skins".

It measures the pixel method (the proxy for it): ``run_item`` without ``embedded`` calls the
OCR check and the pixel draft directly, whatever the PNG carries (PlantUML's own renders
carry their source, which the check and the draft read instead of the pixels for a user:
core/embedded; the project's renderer writes none).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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

from cluestudio.core.model import ClassDiagram
from cluestudio.core.ocr import get_engine
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.synth import render_png_batch
from cluestudio.core.synth_skins import random_skinned

# A proxy's i-th image: its file name, bytes, truth and the features it was made with.
Made = tuple[str, bytes, ClassDiagram, tuple[str, ...]]


def measure_made(make: Callable[[int], Made], count: int, seed: int, kind: str,
                 folder: Path, cache: OcrCache | None, relayout: bool
                 ) -> list[tuple[ImageResult, tuple[str, ...]]]:
    """Each of ``count`` images ``make`` makes, written to ``folder`` and measured as a real
    image of ``kind`` is (``bench_realimages.run_item``), with its features; progress on
    stderr."""
    out = []
    for i in range(count):
        name, data, truth, features = make(i)
        path = folder / name
        path.write_bytes(data)
        item = Item(f"seed{seed}", path.name, path, truth, kind)
        out.append((run_item(item, cache, relayout), features))
        print(f"{i + 1}/{count} {', '.join(features)}", file=sys.stderr, flush=True)
    return out


def run(count: int, seed: int, folder: Path, cache: OcrCache | None = None,
        relayout: bool = False) -> list[tuple[ImageResult, tuple[str, ...]]]:
    def make(i: int) -> Made:
        skinned = random_skinned(random.Random(f"{seed}:{i}"))
        return (f"skin{seed}-{i:03d}.png", render_png_batch([skinned.text])[0],
                skinned.truth, skinned.features)

    return measure_made(make, count, seed, "plantuml", folder, cache, relayout)


def by_feature(results: list[tuple[ImageResult, tuple[str, ...]]]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[ImageResult]] = defaultdict(list)
    for result, features in results:
        for feature in features:
            groups[feature].append(result)
        if not features or all(f.endswith("classes") for f in features):
            groups["no skin (default)"].append(result)
    return {f: summarise(rs) for f, rs in sorted(groups.items())}


def print_by_feature(features: dict[str, dict[str, Any]], what: str) -> None:
    print(f"per {what} (images: draft class, attribute, method, relation F1 (typed); "
          "check faithful flagged, dropped class found):")
    for name, s in features.items():
        draft, check = s["draft"], s["check"]
        print(f"  {name:24} {s['images']:3d}: class {_fmt(draft['class']['f1'])}, "
              f"attribute {_fmt(draft['attributes']['f1'])}, "
              f"method {_fmt(draft['methods']['f1'])}, "
              f"relation {_fmt(draft['relation']['f1'])} "
              f"({_fmt(draft['relation_typed']['f1'])}); flagged "
              f"{_fmt(check['false_flag_rate'])}, dropped found {_fmt(check['dropped_recall'])}")


# run(count, seed, folder, cache, relayout, **switches): each image made and measured
Run = Callable[..., list[tuple[ImageResult, tuple[str, ...]]]]


def proxy_main(argv: list[str] | None, *, description: str, count_flag: str, run: Run,
               heading: str, features_of: str,
               switches: Sequence[tuple[str, str]] = ()) -> int:
    """A held-out proxy's command line: ``count_flag`` images from ``--seed``, made and
    measured by ``run``; the table of ``bench_realimages``, then the figures per feature
    (``features_of``: what the features are of, "skin", "look"). ``switches``: the proxy's
    own on/off options (flag, help), given to ``run`` as keywords (``--no-x`` → ``no_x``)."""
    parser = argparse.ArgumentParser(description=description)
    for flag, help_text in switches:
        parser.add_argument(flag, action="store_true", help=help_text)
    parser.add_argument(count_flag, type=int, default=20, dest="count", help="images to make")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--misses", action="store_true", help="list each image's misses")
    parser.add_argument("--keep", default=None, metavar="DIR", help="keep the images here")
    parser.add_argument("--json", action="store_true")
    add_cache_arguments(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        cache = OcrCache(args.cache) if args.cache else None
        try:
            chosen = {flag.lstrip("-").replace("-", "_"): getattr(
                args, flag.lstrip("-").replace("-", "_")) for flag, _ in switches}
            results = run(args.count, args.seed, folder, cache, args.relayout, **chosen)
        finally:
            if cache is not None:
                cache.close()
    overall = summarise([r for r, _ in results])
    features = by_feature(results)
    if args.json:
        print(json.dumps({"all": overall, "features": features}, indent=2, default=str))
        return 0
    print(heading.format(count=args.count, seed=args.seed))
    print_table({"all": overall}, get_engine().engine_id)
    print_by_feature(features, f"{features_of} feature")
    if args.misses:
        print_misses([r for r, _ in results])
    return 0


def main(argv: list[str] | None = None) -> int:
    return proxy_main(argv, description=__doc__.splitlines()[0], count_flag="--skins", run=run,
                      heading="{count} random skins, seed {seed}", features_of="skin")


if __name__ == "__main__":
    sys.exit(main())
