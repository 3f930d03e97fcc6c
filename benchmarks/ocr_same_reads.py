"""Whether two checkouts' OCR engines read the real images the same, line by line: every
text, box corner and confidence of ``engine.read`` (issue 29: speed work on the pipeline
around the models must not change a read; the engine id stays only where none changes).

    PYTHONPATH=<checkout A>/app .venv/bin/python benchmarks/ocr_same_reads.py --dump /tmp/a.json
    PYTHONPATH=<checkout B>/app .venv/bin/python benchmarks/ocr_same_reads.py --dump /tmp/b.json
    .venv/bin/python benchmarks/ocr_same_reads.py --compare /tmp/a.json /tmp/b.json

On ``../shared/realimages/`` (``$CLUESTUDIO_REALIMAGES`` elsewhere; exits 0 with a note when
absent). The dumps hold what the images say: write them outside the repository. The
comparison exits 1 when an image reads differently and names it; the CPU seconds of each
dump's reads are printed beside (one run each, so only a rough figure).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench_realimages import items, realimages_folder


def dump(target: Path) -> int:
    from cluestudio.core.ocr import get_engine
    from cluestudio.core.ocr.image import load_image_file

    root = realimages_folder()
    if root is None:
        print("no ../shared/realimages/ next to the repository (set CLUESTUDIO_REALIMAGES): "
              "nothing to read")
        return 0
    engine = get_engine()
    reads, cpu = {}, 0.0
    for item in items(root, None):
        pixels = load_image_file(item.image).pixels
        started = time.process_time()
        lines = engine.read(pixels)
        cpu += time.process_time() - started
        reads[str(item.image.relative_to(root))] = [
            [line.text, [list(point) for point in line.box.points], line.confidence]
            for line in lines]
    target.write_text(json.dumps({"engine": engine.engine_id, "cpu_s": cpu, "reads": reads}))
    print(f"{len(reads)} images read by {engine.engine_id} in {cpu:.1f} CPU-s -> {target}")
    return 0


def compare(first: Path, second: Path) -> int:
    a, b = (json.loads(path.read_text()) for path in (first, second))
    shared = sorted(set(a["reads"]) & set(b["reads"]))
    differ = [name for name in shared if a["reads"][name] != b["reads"][name]]
    for name in differ:
        print(f"reads differently: {name}")
    print(f"{len(shared)} images in both, {len(differ)} read differently; engines "
          f"{a['engine']} / {b['engine']}; CPU {a['cpu_s']:.1f} / {b['cpu_s']:.1f} s")
    return 1 if differ or not shared else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--dump", type=Path, metavar="FILE")
    group.add_argument("--compare", type=Path, nargs=2, metavar="FILE")
    args = parser.parse_args(argv)
    return dump(args.dump) if args.dump else compare(*args.compare)


if __name__ == "__main__":
    sys.exit(main())
