"""Element diff: how long classifying and colouring one submission takes, and its render.

For each of the sample course's 66 submissions: the CLUE explanation against its task's
reference (``exact`` embedder, as when no stored score applies), the classification, the
coloured PlantUML (two parses: the candidate's and the check of the result), then PNG
renders of the plain and the coloured text with the warm renderer. Goal: the diff well
under the ~100 ms a view may take off the UI thread; rendering no slower than the plain
text's.

    python benchmarks/bench_diff.py
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from cluestudio.core.diff import annotate, diff_texts
from cluestudio.core.plantuml.renderer import get_renderer

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "annotations" / "sample" / "tasks"


def main() -> None:
    pairs = []
    for task in sorted(TASKS.iterdir()):
        reference = (task / "reference.puml").read_text(encoding="utf-8")
        pairs += [(reference, p.read_text(encoding="utf-8"))
                  for p in sorted((task / "submissions").glob("*.puml"))]
    renderer = get_renderer()
    for reference, text in pairs[:8]:  # warm-up: imports, JIT
        renderer.render(annotate(text, diff_texts(reference, text)).text, "png")
    diff_ms, annotate_ms, plain_ms, coloured_ms, missed = [], [], [], [], 0
    for reference, text in pairs:
        start = time.perf_counter()
        diff = diff_texts(reference, text)
        diff_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        annotation = annotate(text, diff)
        annotate_ms.append((time.perf_counter() - start) * 1000)
        missed += len(annotation.not_coloured)
        start = time.perf_counter()
        renderer.render(text, "png")
        plain_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        renderer.render(annotation.text, "png")
        coloured_ms.append((time.perf_counter() - start) * 1000)

    def line(label: str, values: list[float]) -> str:
        p95 = sorted(values)[int(0.95 * (len(values) - 1))]
        return (f"{label:<28} median {statistics.median(values):6.1f} ms   "
                f"p95 {p95:6.1f} ms")

    print(f"{len(pairs)} submissions, {missed} elements left uncoloured")
    print(line("diff (CLUE exact + classify)", diff_ms))
    print(line("coloured PlantUML", annotate_ms))
    print(line("render plain PNG", plain_ms))
    print(line("render coloured PNG", coloured_ms))


if __name__ == "__main__":
    main()
