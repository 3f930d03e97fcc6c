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

import random
import sys
from pathlib import Path

from bench_draft_skins import Made, measure_made, proxy_main
from bench_realimages import ImageResult

from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.synth import render_png_batch
from cluestudio.core.synth_photos import random_photo


def _render(text: str) -> bytes:
    return render_png_batch([text])[0]


def run(count: int, seed: int, folder: Path, cache: OcrCache | None = None,
        relayout: bool = False, no_render: bool = False
        ) -> list[tuple[ImageResult, tuple[str, ...]]]:
    def make(i: int) -> Made:
        photo = random_photo(random.Random(f"{seed}:{i}"), render=None if no_render else _render)
        return f"photo{seed}-{i:03d}.jpg", photo.jpeg, photo.truth, photo.features

    return measure_made(make, count, seed, "photo", folder, cache, relayout)


def main(argv: list[str] | None = None) -> int:
    return proxy_main(argv, description=__doc__.splitlines()[0], count_flag="--photos",
                      run=run, heading="{count} random photos, seed {seed}",
                      features_of="photo",
                      switches=[("--no-render", "no PlantUML renders among the photos "
                                                "(no Java needed)")])


if __name__ == "__main__":
    sys.exit(main())
