"""``cluestudio calibrate``: fit CLUE's weights to human totals and report how well they fit.

    cluestudio calibrate PAIRS --ratings ratings.csv [--trials 200] [--seed 0]
                         [-o profile.toml] [--report DIR] [--json]
    cluestudio calibrate course.sqlite [...]     (pairs and ratings from a workspace)

PAIRS is the pairs list of ``cluestudio score --pairs`` (CSV or JSON: ``reference``,
``candidate`` paths and an ``id``). Ratings are the workspace's ``ratings.csv`` (id
``task_id/source_id`` or ``source_id``) or a plain ``id,total`` CSV; several graders of one
submission are averaged. The pairs sharing a reference file form one task in the report.

The report correlates every metric with the human totals on the same split: the CLUE suite
with the fitted weights (``clue``, …) and with the starting profile (``clue@shipped``, …),
plus, from a workspace, the stored baseline/plugin scores of the calibrated revisions and
the VLM probes' EM and RelAcc; from a pairs file, any other numeric column (``bleu``, …;
an empty cell is a missing value). A metric missing for some pairs is correlated on the
pairs that have it (its ``n``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

NAME = "calibrate"
HELP = "fit CLUE weights to human ratings (optuna TPE) and write a profile and report"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pairs", type=Path,
                        help="pairs list (CSV or JSON), as for `score`, or a workspace .sqlite")
    parser.add_argument("--ratings", type=Path, metavar="CSV",
                        help="human ratings: workspace ratings.csv or id,total "
                             "(not needed with a workspace)")
    parser.add_argument("--trials", type=int, default=200, help="optimiser trials (200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of split and sampler (0)")
    parser.add_argument("--test-fraction", type=float, default=0.2,
                        help="held-out share, stratified by score decile (0.2)")
    parser.add_argument("--weight-bootstrap", type=int, default=20, metavar="N",
                        help="refit on N resamples of the training pairs for a 95%% interval "
                             "of each weight (20; 0 = off). The objective does not identify "
                             "the weights: wide intervals are reported as warnings")
    parser.add_argument("--bootstrap-trials", type=int, default=None, metavar="M",
                        help="trials per bootstrap refit (default: a quarter of --trials, "
                             "at least 20)")
    parser.add_argument("--interval-warning", type=float, default=0.2, metavar="WIDTH",
                        help="warn about weights whose interval is wider than this (0.2)")
    parser.add_argument("--patience", type=int, default=None, metavar="N",
                        help="stop after N trials without a new best (the paper used 50)")
    parser.add_argument("--start", type=Path, metavar="TOML",
                        help="profile to start from and compare with (default: shipped)")
    parser.add_argument("-o", "--output", type=Path, metavar="TOML",
                        help="write the fitted weight profile here")
    parser.add_argument("--name", default="calibrated", help="name of the written profile")
    parser.add_argument("--report", type=Path, metavar="DIR",
                        help="write correlations, disagreement queue and plots here")
    parser.add_argument("--no-plots", action="store_true", help="report without figures")
    parser.add_argument("--resamples", type=int, default=2000,
                        help="bootstrap resamples for the report's CIs (2000)")
    parser.add_argument("--embedder", default="minilm",
                        help="exact | minilm (default) | Hugging Face model name or folder")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--profile", default="paper", choices=("paper", "oodeval-code"))
    parser.add_argument("--normalization", default="reference",
                        choices=("reference", "paper-eq3"))
    parser.add_argument("--json", action="store_true", help="JSON output on stdout")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.cmd_score import read_pairs
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.calibrate import calibrate, write_report
    from cluestudio.core.calibrate.leafcache import LeafCache
    from cluestudio.core.calibrate.ratings_io import human_totals, read_ratings
    from cluestudio.core.clue import ClueScorer, ClueWeights, get_profile
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.jobs import run_job

    if args.trials < 1:
        raise ClueStudioError("--trials must be at least 1")
    if args.weight_bootstrap == 1 or args.weight_bootstrap < 0:
        raise ClueStudioError("--weight-bootstrap must be 0 (off) or at least 2")
    if args.pairs.suffix in {".sqlite", ".db"}:
        ids, tasks, human, pairs, extra = _from_workspace(args.pairs)
        extra_source = "workspace"
    else:
        if args.ratings is None:
            raise ClueStudioError("--ratings CSV is required unless PAIRS is a workspace")
        rows = read_pairs(args.pairs)
        ids = [str(r["id"]) for r in rows]
        tasks = [str(r["reference"]) for r in rows]
        human = human_totals(read_ratings(args.ratings), ids)
        pairs = _parse_pairs(rows)
        extra = _metric_columns(args.pairs, len(rows))
        extra_source = "pairs file"
    if len(pairs) < 10:
        raise ClueStudioError(f"{len(pairs)} rated pairs are too few to calibrate (need 10+)")
    # Without --start: the shipped weights of the similarity profile (the package's own
    # full-precision optimum under oodeval-code).
    start = (ClueWeights.load(args.start) if args.start
             else ClueWeights.shipped(get_profile(args.profile).weights))
    progress = stderr_progress if not args.json or sys.stderr.isatty() else None
    scorer = ClueScorer(args.embedder, profile=args.profile, normalization=args.normalization,
                        device=args.device)
    try:
        batch = run_job(scorer.build_leaves(pairs), on_progress=progress)
        embedder_id = scorer.embedder.id
    finally:
        scorer.close()
    cache = LeafCache.from_batch(batch, args.normalization)
    provenance = {"pairs_file": str(args.pairs), "ratings_file": str(args.ratings or ""),
                  "pairs": len(pairs), "embedder": embedder_id, "profile": args.profile,
                  "normalization": args.normalization, "start_profile": start.name}
    result = run_job(calibrate(cache, human, trials=args.trials, seed=args.seed,
                               test_fraction=args.test_fraction, start=start,
                               patience=args.patience, name=args.name,
                               provenance=provenance, bootstrap=args.weight_bootstrap,
                               bootstrap_trials=args.bootstrap_trials,
                               width_threshold=args.interval_warning), on_progress=progress)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    out: dict[str, Any] = result.to_dict()
    if args.output is not None:
        result.save_profile(args.output, name=args.name)
        out["profile_file"] = str(args.output)
    if args.report is not None:
        metrics, sources, plotted = _report_metrics(cache, result, start, extra, extra_source,
                                                    shipped=args.start is None)
        report = write_report(args.report, metrics, human, ids=ids, split=result.split,
                              tasks=tasks, calibration=result,
                              resamples=args.resamples, seed=args.seed,
                              plots=not args.no_plots, plotted=plotted, sources=sources)
        out["report"] = {"folder": str(args.report), "files": report["files"],
                         "metrics": report["metrics"]}
    if args.json:
        print_json(out)
    else:
        _print_summary(result, args)
    return 0


# Sub-scores crowd the figures; they stay in the correlation table.
_SUB_SCORE_SUFFIXES = ("-precision", "-recall")


def _report_metrics(cache: Any, result: Any, start: Any, extra: dict[str, Any],
                    extra_source: str, *, shipped: bool
                    ) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The report's metrics (fitted CLUE, starting CLUE, others), their sources, the plotted."""
    from cluestudio.core.clue import METRIC_NAMES

    label = "shipped" if shipped else start.name
    fitted, before = cache.scores(result.weights), cache.scores(start)
    metrics: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for i, name in enumerate(METRIC_NAMES):
        metrics[name], sources[name] = fitted[:, i], "CLUE, fitted weights"
    for i, name in enumerate(METRIC_NAMES):
        key = f"{name}@{label}"
        metrics[key], sources[key] = before[:, i], f"CLUE, {start.name} weights"
    for name, values in extra.items():
        if name not in metrics:  # the weight-independent metrics appear once
            metrics[name], sources[name] = values, extra_source
    plotted = [*METRIC_NAMES, *(k for k in extra if k in metrics and sources[k] == extra_source
                                and not k.endswith(_SUB_SCORE_SUFFIXES))]
    return metrics, sources, plotted


def _metric_columns(path: Path, count: int) -> dict[str, Any]:
    """Numeric columns of the pairs file besides id/reference/candidate, NaN where empty.

    A column with a cell that is not a number is not a metric (a task name, a note) and is
    left out with a warning when it also holds numbers. CLUE's own names are left out:
    the fit recomputes them.
    """
    import csv
    import io
    import json
    import math

    import numpy as np

    from cluestudio.core.clue import METRIC_NAMES

    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        entries = [e if isinstance(e, dict) else {} for e in json.loads(text)]
    else:
        entries = list(csv.DictReader(io.StringIO(text)))
    if len(entries) != count:
        return {}
    names: dict[str, None] = {}
    for entry in entries:
        names.update(dict.fromkeys(str(k) for k in entry))
    out: dict[str, Any] = {}
    for name in names:
        if name in {"id", "reference", "candidate", *METRIC_NAMES} or not name:
            continue
        values = np.full(count, math.nan)
        numeric, bad = 0, None
        for row, entry in enumerate(entries):
            cell = entry.get(name)
            if cell is None or (isinstance(cell, str) and not cell.strip()):
                continue
            try:
                values[row] = float(cell)
                numeric += 1
            except (TypeError, ValueError):
                bad = row + 1
                break
        if bad is not None:
            if numeric:
                print(f"warning: column {name!r} of {path} is not numeric (pair {bad}); "
                      "not reported as a metric", file=sys.stderr)
            continue
        if numeric:
            out[name] = values
    return out


def _from_workspace(path: Path) -> tuple[list[str], list[str], Any, list[tuple[Any, Any]],
                                         dict[str, Any]]:
    from cluestudio.core.calibrate.workspace_data import calibration_data, stored_metrics
    from cluestudio.core.clue import METRIC_NAMES
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.workspace import open_workspace

    with open_workspace(path, create=False, readonly=True) as ws:
        data = calibration_data(ws)
        extra = stored_metrics(ws, data, exclude=METRIC_NAMES)
    for reason in data.skipped:
        print(f"skipped {reason}", file=sys.stderr)
    if not data.ids:
        raise ClueStudioError(f"{path}: no rated submission with parsable PlantUML")
    return data.ids, data.task_ids, data.human_totals(), data.pairs, extra


def _parse_pairs(rows: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    from cluestudio.core.plantuml.parser import parse_file

    diagrams: dict[Path, Any] = {}  # a reference shared by many pairs is parsed once
    warned = 0
    for row in rows:
        for key in ("reference", "candidate"):
            if row[key] not in diagrams:
                parsed = parse_file(row[key])
                warned += len(parsed.warnings)
                diagrams[row[key]] = parsed.diagram
    if warned:
        print(f"warning: {warned} PlantUML line(s) not understood (see `cluestudio parse`)",
              file=sys.stderr)
    return [(diagrams[r["reference"]], diagrams[r["candidate"]]) for r in rows]


def _print_summary(result: Any, args: argparse.Namespace) -> None:
    split = result.split
    print(f"{result.trials} trials in {result.seconds:.1f} s; train {len(split.train)}, "
          f"test {len(split.test)} (seed {result.seed})")
    print(f"{'':<16}{'train Σρ':>10}{'test Σρ':>10}")
    for ev in (result.best, *result.baselines):
        print(f"{ev.label:<16}{ev.train_objective:>10.4f}{ev.test_objective:>10.4f}")
    print(f"\n{'metric':<16}{'train ρ':>10}{'test ρ':>10}")
    for metric, value in result.best.train.items():
        print(f"{metric:<16}{value:>10.4f}{result.best.test[metric]:>10.4f}")
    intervals = result.intervals
    if intervals is None:
        print("\nweights: " + ", ".join(f"{k}={v:.3f}"
                                        for k, v in result.weights.values().items()))
    else:
        print(f"\n{'weight':<8}{'fitted':>8}   {100 * intervals.level:.0f}% interval "
              f"({intervals.resamples} bootstrap refits)")
        for name, value in intervals.fitted.items():
            mark = "  wide: not identified" if name in intervals.wide else ""
            print(f"{name:<8}{value:>8.3f}   [{intervals.low[name]:.3f}, "
                  f"{intervals.high[name]:.3f}]{mark}")
    if args.output is not None:
        print(f"profile -> {args.output}")
    if args.report is not None:
        print(f"report  -> {args.report}/ (every metric: correlations.txt)")
