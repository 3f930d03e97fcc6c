"""The offline conversion check on diagrams it was not tuned on (issue 18).

    .venv/bin/python benchmarks/bench_check.py [--seed 2] [--diagrams 12] [--json]

For each of ``--diagrams`` random reference diagrams (``synth_reference``, drawn from
``--seed``; the thresholds were tuned on seed 1, the README figures use seed 2), image A is
rendered in four looks (PlantUML default, handwritten, monochrome with a serif font, a photo
of a printout) and read once by OCR. Eleven conversions are checked against each image: the
truth itself and one with each planted conversion error (``synth.CONVERSION_ERRORS``).
Reported per look:

- OCR word recall: share of the truth's drawn names paired with OCR text (clean conversion);
  class-name recall the same for class names;
- per planted error type: recall (the planted name is flagged, in the right direction) and
  the precision of every flag raised on those conversions;
- precision and recall of class- and attribute-name flags over all conversions (the goal);
- seconds per image (OCR and box finding, not cached) and per check;
- with ``--draft``: CLUE (exact embedder and MiniLM) of the offline draft converter's
  PlantUML against the truth, and its seconds per image beyond OCR.
Goals: class-name recall ≥ 0.95 on the clean looks; class/attribute flags precision and
recall ≥ 0.9; ≤ 2 s per image on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from typing import Any

from cluestudio.core.check import CheckReport, check_conversion, diagram_names
from cluestudio.core.check.match import near_spelling
from cluestudio.core.check.names import name_key
from cluestudio.core.check.report import FLAG_CONFIDENCE
from cluestudio.core.model import ClassDiagram
from cluestudio.core.ocr import OcrCache, OcrResult, get_engine, read_image
from cluestudio.core.plantuml import parse_plantuml, write_plantuml
from cluestudio.core.synth import (
    CONVERSION_ERRORS,
    LOOKS,
    Mutation,
    plant_conversion_error,
    render_look,
)
from cluestudio.core.synth_reference import random_reference

CLEAN_LOOKS = ("default", "handwritten", "mono_serif")
GOAL_KINDS = ("class", "attribute")


def _same(a: str, b: str) -> bool:
    return near_spelling(name_key(a), name_key(b))


def _truth_diff(truth: ClassDiagram, conversion: ClassDiagram
                ) -> tuple[Counter[str], Counter[str]]:
    """(names the conversion lacks, names it adds), as multisets of keys."""
    t = Counter(n.key for n in diagram_names(truth))
    c = Counter(n.key for n in diagram_names(conversion))
    return t - c, c - t


def _planted(mutation: Mutation) -> tuple[str, str, str]:
    """(direction, name, kind of name) the check should flag for a planted error."""
    kind = mutation.kind
    name_kind = ("class" if kind.endswith("class") else "attribute"
                 if kind.endswith("attribute") else "method" if kind.endswith("method")
                 else "label" if kind == "drop_label" else "multiplicity")
    if kind.startswith("invent"):
        name = mutation.target.split(".")[-1].removesuffix("()")
        return "invented", name, name_kind
    return "missing", mutation.before, name_kind


def _flags(report: CheckReport) -> list[tuple[str, str, str]]:
    out = [("missing", m.text, m.kind) for m in report.missing
           if m.confidence >= FLAG_CONFIDENCE]
    out += [("invented", i.text, i.kind) for i in report.invented
            if i.confidence >= FLAG_CONFIDENCE]
    return out


def _score_flags(flags: list[tuple[str, str, str]], missing: Counter[str],
                 invented: Counter[str]) -> list[tuple[str, str, bool]]:
    """(direction, kind, true?) per flag: true when the name really is missing/invented."""
    left = {"missing": Counter(missing), "invented": Counter(invented)}
    scored = []
    for direction, text, kind in flags:
        pool = left[direction]
        hit = next((k for k in pool if pool[k] > 0 and (
            k == name_key(text, multiplicity=kind == "multiplicity") or _same(k, text))), None)
        if hit is not None:
            pool[hit] -= 1
        scored.append((direction, kind, hit is not None))
    return scored


def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


def run(seed: int, diagrams: int, looks: list[str], cache: OcrCache | None = None,
        draft: bool = False) -> dict[str, Any]:
    engine = get_engine()
    drafts: dict[str, list[tuple[ClassDiagram, ClassDiagram, float]]] = defaultdict(list)
    per_look: dict[str, dict[str, Any]] = {}
    stats: dict[str, dict[str, Any]] = {look: defaultdict(list) for look in looks}
    for d in range(diagrams):
        truth_model = random_reference(random.Random(f"{seed}:{d}"))
        truth_text = write_plantuml(truth_model)
        truth = parse_plantuml(truth_text).diagram
        conversions: list[tuple[Mutation | None, ClassDiagram]] = [(None, truth)]
        for kind in CONVERSION_ERRORS:
            rng = random.Random(f"{seed}:{d}:{kind}")
            for _ in range(30):
                planted = plant_conversion_error(truth_model, kind, rng)
                if planted is not None:
                    text = write_plantuml(planted[0])
                    conversions.append((planted[1], parse_plantuml(text).diagram))
                    break
        for look in looks:
            image = render_look(truth_text, look, random.Random(f"{seed}:{d}:{look}"))
            started, cpu = time.perf_counter(), time.process_time()
            ocr: OcrResult = read_image(image, f"{d}-{look}", engine=engine, cache=cache)
            s = stats[look]
            if not ocr.cached:
                s["image_seconds"].append(time.perf_counter() - started)
                s["image_cpu"].append(time.process_time() - cpu)
            if draft:
                from cluestudio.core.draft import draft_from_image

                started = time.perf_counter()
                # the pixel method, should a render ever carry its source (core/embedded)
                made = draft_from_image(image, f"{d}-{look}", engine=engine, cache=cache,
                                        pixels=True)
                drafts[look].append((truth, made.diagram, time.perf_counter() - started))
            for mutation, conversion in conversions:
                started = time.perf_counter()
                report = check_conversion(ocr, conversion)
                s["check_seconds"].append(time.perf_counter() - started)
                missing, invented = _truth_diff(truth, conversion)
                scored = _score_flags(_flags(report), missing, invented)
                for direction, kind, true in scored:
                    s[f"cat:{direction}-{kind}"].append(true)
                s["triage"].append((mutation is not None, report.triage))
                if mutation is None:
                    names = diagram_names(conversion)
                    found = report.names_found
                    s["names"].append((found, len(names)))
                    # class-name recall: class names paired (not flagged invented)
                    invented_classes = {i.text for i in report.invented if i.kind == "class"}
                    classes = [n.text for n in names if n.kind == "class"]
                    s["classes"].append((sum(c not in invented_classes for c in classes),
                                         len(classes)))
                    s["flags_on_clean"].append(len(scored))
                    continue
                direction, name, name_kind = _planted(mutation)
                # a label of two words is found when either word is flagged
                wanted = [w for w in name.split() if len(w) > 2] or [name]
                detected = any(dr == direction and any(_same(text, w) for w in wanted)
                               for dr, text, _k in _flags(report))
                if mutation.kind.startswith("rename"):
                    detected = detected or any(
                        dr == "invented" and _same(text, mutation.after)
                        for dr, text, _k in _flags(report))
                s[f"recall:{mutation.kind}"].append(detected)
                s[f"precision:{mutation.kind}"].extend(t for _d, _k, t in scored)
                if name_kind in GOAL_KINDS:
                    s["goal_recall"].append(detected)
        print(f"diagram {d + 1}/{diagrams} done", file=sys.stderr, flush=True)
    for look in looks:
        s = stats[look]
        goal_flags = [t for key, values in s.items() if key.startswith("cat:")
                      and key.split("-", 1)[1] in GOAL_KINDS for t in values]
        per_look[look] = {
            "images": len(s["names"]),
            "ocr_word_recall": _ratio(sum(f for f, _ in s["names"]),
                                      sum(n for _, n in s["names"])),
            "class_name_recall": _ratio(sum(f for f, _ in s["classes"]),
                                        sum(n for _, n in s["classes"])),
            "flags_per_clean_conversion": statistics.mean(s["flags_on_clean"]),
            "errors": {kind: {"n": len(s[f"recall:{kind}"]),
                              "recall": _ratio(sum(s[f"recall:{kind}"]),
                                               len(s[f"recall:{kind}"])),
                              "precision": _ratio(sum(s[f"precision:{kind}"]),
                                                  len(s[f"precision:{kind}"]))}
                       for kind in CONVERSION_ERRORS},
            "flag_categories": {key[4:]: {"flags": len(v), "precision": _ratio(sum(v), len(v))}
                                for key, v in sorted(s.items()) if key.startswith("cat:")},
            "goal_class_attribute": {
                "recall": _ratio(sum(s["goal_recall"]), len(s["goal_recall"])),
                "precision": _ratio(sum(goal_flags), len(goal_flags))},
            "triage_auc": _auc(s["triage"]),
            "seconds_per_image": {"median": statistics.median(s["image_seconds"] or [0.0]),
                                  "max": max(s["image_seconds"] or [0.0]),
                                  # CPU time of all the process's threads: what the image
                                  # costs whatever else the machine is doing
                                  "cpu_median": statistics.median(s["image_cpu"] or [0.0])},
            "seconds_per_check": {"median": statistics.median(s["check_seconds"])},
        }
    if draft:
        _score_drafts(drafts, per_look)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"seed": seed, "diagrams": diagrams, "engine": engine.engine_id,
            "cores": os.cpu_count(), "load_at_end": load, "looks": per_look}


def _score_drafts(drafts: dict[str, list[tuple[ClassDiagram, ClassDiagram, float]]],
                  per_look: dict[str, dict[str, Any]]) -> None:
    from cluestudio.core.clue import ClueScorer

    for embedder in ("exact", "minilm"):
        scorer = ClueScorer(embedder)
        try:
            for look, items in drafts.items():
                results = [scorer.score(truth, made).scores.as_dict() for truth, made, _ in items]
                per_look[look].setdefault("draft", {})[embedder] = {
                    key: statistics.mean(r[key] for r in results) for key in results[0]}
                per_look[look]["draft"]["seconds_beyond_ocr"] = statistics.median(
                    t for _, _, t in items)
        finally:
            scorer.close()


def _auc(pairs: list[tuple[bool, float]]) -> float | None:
    """Probability that a conversion with an error gets a higher triage than a clean one."""
    bad = [v for is_bad, v in pairs if is_bad]
    good = [v for is_bad, v in pairs if not is_bad]
    if not bad or not good:
        return None
    wins = sum((b > g) + 0.5 * (b == g) for b in bad for g in good)
    return wins / (len(bad) * len(good))


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def print_table(result: dict[str, Any]) -> None:
    looks = result["looks"]
    names = list(looks)
    load = result.get("load_at_end")
    print(f"engine {result['engine']}, seed {result['seed']}, {result['diagrams']} diagrams "
          f"× {len(CONVERSION_ERRORS) + 1} conversions per look; {result.get('cores')} cores, "
          f"load {'?' if load is None else f'{load:.1f}'} at the end")
    print(f"{'':28}" + "".join(f"{n:>13}" for n in names))

    def row(label: str, values: list[str]) -> None:
        print(f"{label:28}" + "".join(f"{v:>13}" for v in values))

    row("OCR word recall", [_fmt(looks[n]["ocr_word_recall"]) for n in names])
    row("class-name recall", [_fmt(looks[n]["class_name_recall"]) for n in names])
    row("flags on a clean conversion", [f"{looks[n]['flags_per_clean_conversion']:.2f}"
                                        for n in names])
    for kind in CONVERSION_ERRORS:
        row(f"{kind} R / P", [f"{_fmt(looks[n]['errors'][kind]['recall'])}/"
                              f"{_fmt(looks[n]['errors'][kind]['precision'])}" for n in names])
    row("class+attribute flags R", [_fmt(looks[n]["goal_class_attribute"]["recall"])
                                    for n in names])
    row("class+attribute flags P", [_fmt(looks[n]["goal_class_attribute"]["precision"])
                                    for n in names])
    row("triage AUC", [_fmt(looks[n]["triage_auc"]) for n in names])
    row("s/image (median, max)", [f"{looks[n]['seconds_per_image']['median']:.2f},"
                                  f"{looks[n]['seconds_per_image']['max']:.1f}" for n in names])
    row("CPU s/image (median)", [f"{looks[n]['seconds_per_image']['cpu_median']:.2f}"
                                 for n in names])
    row("ms/check (median)", [f"{1000 * looks[n]['seconds_per_check']['median']:.1f}"
                              for n in names])
    if all("draft" in looks[n] for n in names):
        for embedder in ("exact", "minilm"):
            for key in ("clue", "clue-class", "clue-attribute", "clue-method",
                        "clue-relation"):
                row(f"draft {key} ({embedder})",
                    [_fmt(looks[n]["draft"][embedder].get(key)) for n in names])
        row("draft s/image beyond OCR", [f"{looks[n]['draft']['seconds_beyond_ocr']:.2f}"
                                         for n in names])
    worst = min(looks[n]["class_name_recall"] or 0 for n in names if n in CLEAN_LOOKS)
    print(f"goal class-name recall ≥ 0.95 on clean looks: {worst:.2f} "
          f"{'✓' if worst >= 0.95 else '✗'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2, help="1 was used for tuning")
    parser.add_argument("--diagrams", type=int, default=12)
    parser.add_argument("--looks", nargs="*", default=list(LOOKS), choices=list(LOOKS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cache", default=None, metavar="FILE",
                        help="OCR cache file (re-runs skip OCR; timings cover new images)")
    parser.add_argument("--draft", action="store_true",
                        help="also score the offline draft converter with CLUE")
    args = parser.parse_args(argv)
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        # a cache of this run's own, at least, so the draft reuses each image's OCR
        cache = OcrCache(args.cache or f"{scratch}/ocr.sqlite")
        try:
            result = run(args.seed, args.diagrams, args.looks, cache, args.draft)
        finally:
            cache.close()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
