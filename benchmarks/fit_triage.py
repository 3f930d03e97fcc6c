"""Fit the check's triage calibration on rendered synthetic diagrams (issue 29).

    .venv/bin/python benchmarks/fit_triage.py [--seed calibrate] [--diagrams 12]
        [--cache FILE]

The triage score should mean what it says: of the conversions scored 0.7, about 70 % are
really wrong. The check's findings give a weight (``CheckReport.weighted_flags``); this
fits the map from that weight to the chance that the conversion is wrong, on data the
project makes itself, never on the real images (they are the held-out measure,
``bench_realimages.py`` prints its calibration table).

For each of ``--diagrams`` random reference diagrams (``synth_reference``, drawn from
``--seed``), image A is rendered in every look of ``synth.LOOKS`` and read once by OCR;
three kinds of conversion are checked against it, as ``bench_realimages.py`` does on real
images: the truth (faithful), the truth with one class dropped, with one class invented
(two plantings each, each weighing half), weighing 1 : 1 : 1. A logistic map (Platt
scaling, with Platt's smoothed targets so that separable data give no infinite slope) of
``log(1 + weight)`` is fitted; its two numbers go to ``report.TRIAGE_PLATT``. The table of
the fitted map against the data, per bin, is printed.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from cluestudio.core.check import check_conversion
from cluestudio.core.check.platt import fit_platt, reliability_table
from cluestudio.core.check.report import TRIAGE_PLATT, calibrated_triage
from cluestudio.core.ocr import OcrCache, get_engine, read_image
from cluestudio.core.plantuml import parse_plantuml, write_plantuml
from cluestudio.core.synth import LOOKS, plant_conversion_error, render_look
from cluestudio.core.synth_reference import random_reference

WRONG_KINDS = ("drop_class", "invent_class")
PLANTINGS = 2


def collect(seed: str, diagrams: int, cache: OcrCache | None) -> list[tuple[float, bool, float]]:
    """(weighted flags, really wrong, weight) of every judged conversion."""
    engine = get_engine()
    out: list[tuple[float, bool, float]] = []
    for d in range(diagrams):
        truth_model = random_reference(random.Random(f"{seed}:{d}"))
        truth_text = write_plantuml(truth_model)
        truth = parse_plantuml(truth_text).diagram
        conversions: list[tuple[Any, bool, float]] = [(truth, False, 1.0)]
        for kind in WRONG_KINDS:
            rng = random.Random(f"{seed}:{d}:{kind}")
            planted = [p for p in (plant_conversion_error(truth_model, kind, rng)
                                   for _ in range(PLANTINGS)) if p is not None]
            conversions += [(parse_plantuml(write_plantuml(p[0])).diagram, True,
                             1.0 / len(planted)) for p in planted]
        for look in LOOKS:
            image = render_look(truth_text, look, random.Random(f"{seed}:{d}:{look}"))
            ocr = read_image(image, f"{d}-{look}", engine=engine, cache=cache)
            for diagram, wrong, weight in conversions:
                report = check_conversion(ocr, diagram)
                if report.verdict in ("clean", "flagged"):
                    out.append((report.weighted_flags, wrong, weight))
            print(f"diagram {d} {look} read", file=sys.stderr, flush=True)
    return out


def table(data: list[tuple[float, bool, float]], platt: tuple[float, float]
          ) -> list[tuple[str, float, float, float]]:
    return reliability_table([(calibrated_triage(x, platt), y, w) for x, y, w in data])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default="calibrate")
    parser.add_argument("--diagrams", type=int, default=12)
    parser.add_argument("--cache", default=None, metavar="FILE")
    args = parser.parse_args(argv)
    cache = OcrCache(args.cache) if args.cache else None
    try:
        data = collect(args.seed, args.diagrams, cache)
    finally:
        if cache is not None:
            cache.close()
    fitted = fit_platt(data)
    print(f"{len(data)} judged conversions, seed {args.seed!r}, {args.diagrams} diagrams "
          f"× {len(LOOKS)} looks")
    print(f"TRIAGE_PLATT = ({fitted[0]:.3f}, {fitted[1]:.3f})   (in use: {TRIAGE_PLATT})")
    for label, fit in (("fitted", fitted), ("in use", TRIAGE_PLATT)):
        print(f"calibration on the fitting data, map {label}:")
        for row, weight, mean, wrong in table(data, fit):
            print(f"  triage {row}: {weight:5.1f} conversions, mean triage {mean:.2f}, "
                  f"really wrong {wrong:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
