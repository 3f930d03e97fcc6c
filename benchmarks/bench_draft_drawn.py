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

import random
import sys
from pathlib import Path

from bench_draft_skins import Made, measure_made, proxy_main
from bench_realimages import ImageResult

from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.synth_drawn import random_drawn


def run(count: int, seed: int, folder: Path, cache: OcrCache | None = None,
        relayout: bool = False) -> list[tuple[ImageResult, tuple[str, ...]]]:
    def make(i: int) -> Made:
        drawn = random_drawn(random.Random(f"{seed}:{i}"))
        return f"drawn{seed}-{i:03d}.png", drawn.png, drawn.truth, drawn.features

    return measure_made(make, count, seed, "other-tool", folder, cache, relayout)


def main(argv: list[str] | None = None) -> int:
    return proxy_main(argv, description=__doc__.splitlines()[0], count_flag="--drawings",
                      run=run, heading="{count} drawings in other tools' looks, seed {seed}",
                      features_of="look")


if __name__ == "__main__":
    sys.exit(main())
