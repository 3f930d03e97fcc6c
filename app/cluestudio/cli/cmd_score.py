"""``cluestudio score``: CLUE scores of a candidate diagram, or of a list of pairs.

    cluestudio score REF.puml CAND.puml [--explain] [--json]
    cluestudio score --pairs pairs.csv [-o scores.csv] [--json]
    cluestudio score REF CAND --kind component|deployment|package|sysml|code [--json]
    cluestudio score --workspace COURSE.sqlite [--task ID] [--kind K] [--only-missing] [--json]
        [--executor local|processes|dask|ray] [--scheduler ADDRESS] [--ray-address ADDRESS]

``--kind class`` (the default) is CLUE on class diagrams. Any other kind runs the metric
plugins that apply to it (``cluestudio plugins`` lists them): R2ABench for component,
deployment and package diagrams, SysMEval for SysML v2 text, code similarity for Python.
LLM metrics use the ``[llm]`` endpoint of settings.toml and are skipped (with a note on
stderr) when none is configured.

A pairs list is CSV (columns ``reference,candidate``, optional ``id``) or JSON (a list of
objects with those keys); paths are relative to the list file.

``--workspace`` scores every submission of a course workspace (its newest PlantUML against
its task's reference) with the job the window runs: CLUE and the plugin metrics of each
task's kind, stored chunk by chunk, so an interrupted run keeps what it finished and
``--only-missing`` resumes it; scoring again is idempotent.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from cluestudio.cli.executor_args import add_executor_arguments, executor_options

NAME = "score"
HELP = "score a candidate against a reference: CLUE, or the plugin metrics of a diagram kind"
# Pairs scored and written together, as the workspace job's chunks (app.scoring.DEFAULT_CHUNK;
# importing that module costs a cold run 0.3 s of workspace code a pairs list never uses).
PAIRS_CHUNK = 50
KINDS = ("class", "component", "deployment", "package", "sysml", "code")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reference", nargs="?", type=Path, help="reference PlantUML file")
    parser.add_argument("candidate", nargs="?", type=Path, help="candidate PlantUML file")
    parser.add_argument("--pairs", type=Path, metavar="FILE",
                        help="CSV or JSON list of reference,candidate paths (batch mode)")
    parser.add_argument("--workspace", type=Path, metavar="COURSE.sqlite",
                        help="score the submissions of a workspace and store the scores")
    parser.add_argument("--task", metavar="ID", help="--workspace: only this task")
    parser.add_argument("--only-missing", action="store_true",
                        help="--workspace: skip what is already scored with these settings")
    parser.add_argument("--chunk-size", type=int, default=None, metavar="N",
                        help="--workspace: pairs scored and stored together (default 50 in "
                             "this process; on an executor, sized to take ~5 s each)")
    parser.add_argument("--profile-metrics", action="store_true",
                        help="print the seconds each metric took")
    parser.add_argument("--kind", default=None, choices=KINDS,
                        help="diagram kind: class (CLUE, default) or another kind, scored by "
                             "the metric plugins that apply to it; with --workspace, only "
                             "the tasks of this kind")
    parser.add_argument("--embedder", default="minilm",
                        help="exact | minilm (default) | Hugging Face model name or folder")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--weights", type=Path, metavar="FILE",
                        help="weight profile TOML (default: the paper's weights)")
    parser.add_argument("--normalization", default="reference",
                        choices=("reference", "paper-eq3"))
    parser.add_argument("--profile", default="paper", choices=("paper", "oodeval-code"),
                        help="similarity profile: paper (σ=(cos+1)/2, mean pooling) or "
                             "oodeval-code (the authors' package, rule for rule: raw cosine, "
                             "its pooling, its weights; docs/adr/0003)")
    parser.add_argument("--explain", action="store_true",
                        help="show the class, member and relation matchings")
    parser.add_argument("--json", action="store_true", help="JSON output")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help="batch mode: write the scores CSV here instead of stdout")
    add_executor_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from cluestudio.core.clue import ClueScorer, ClueWeights
    from cluestudio.core.errors import ClueStudioError

    if args.workspace is not None:
        return run_workspace(args)
    if args.pairs is None and (args.reference is None or args.candidate is None):
        raise ClueStudioError("give REF.puml CAND.puml, --pairs FILE or --workspace FILE")
    args.kind = args.kind or "class"
    if args.kind != "class":
        from cluestudio.cli.kind_score import run_kind

        return run_kind(args)
    weights = ClueWeights.load(args.weights) if args.weights else None
    scorer = ClueScorer(args.embedder, profile=args.profile,
                        normalization=args.normalization, weights=weights, device=args.device)
    try:
        if args.pairs is not None:
            return _run_batch(scorer, args)
        return _run_one(scorer, args)
    finally:
        scorer.close()


def run_workspace(args: argparse.Namespace) -> int:
    """``--workspace``: the window's scoring job, in this process, with a progress bar."""
    from cluestudio.app.scoring import DEFAULT_CHUNK, ScoringOptions, score_workspace
    from cluestudio.cli.output import ProgressBar, print_json
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.jobs import run_job
    from cluestudio.core.settings import load_settings
    from cluestudio.core.workspace import open_workspace

    if args.reference is not None or args.pairs is not None:
        raise ClueStudioError("--workspace scores the workspace's own pairs: give no files")
    from cluestudio.app.executors import open_executor

    if args.chunk_size is not None and args.chunk_size < 1:
        raise ClueStudioError("--chunk-size must be at least 1")
    options = ScoringOptions(args.embedder, args.device, args.profile, args.normalization,
                             str(args.weights or ""), load_settings()[0])
    chosen = executor_options(args)
    bar = ProgressBar(label="score")
    with open_workspace(args.workspace, create=False) as ws:
        executor = open_executor(chosen)
        try:
            chunk = args.chunk_size or (DEFAULT_CHUNK if executor is None else None)
            summary = run_job(score_workspace(ws, options, task_id=args.task,
                                              diagram_kind=args.kind,
                                              only_missing=args.only_missing,
                                              chunk_size=chunk, executor=executor),
                              on_progress=None if args.json else bar)
        finally:
            bar.close()
            if executor is not None:
                executor.close()
    if args.json:
        print_json({"workspace": str(args.workspace), **summary.to_dict()})
    else:
        print(f"{len(summary.scored)} scored, {summary.skipped} already scored, "
              f"{len(summary.failed)} could not be scored ({summary.seconds:.1f} s)")
        if summary.workers:
            print(f"on {chosen.kind}: {len(summary.workers)} worker process(es) "
                  f"({', '.join(summary.workers)})")
        for _, why in sorted(summary.failed.items()):
            print(f"  not scored: {why}", file=sys.stderr)
        for name, message in summary.plugin_errors.items():
            print(f"warning: metric {name} failed: {message}", file=sys.stderr)
        for kind, notes in summary.notes.items():
            for note in notes:
                print(f"note ({kind} tasks): {note}", file=sys.stderr)
        if args.profile_metrics:
            # Workers' seconds add up past the wall time: shares of their sum then.
            print_metric_seconds(summary.metric_seconds, summary.stage_seconds,
                                 None if summary.workers else summary.seconds,
                                 len(summary.scored))
    return 0


def print_metric_seconds(seconds: dict[str, float], stages: dict[str, float] | None = None,
                         total: float | None = None, pairs: int = 0) -> None:
    """Seconds per metric, slowest first, then the one-time stages (``--profile-metrics``).

    Percentages are of the whole run (``total``) when it is given; what no metric or stage
    accounts for (progress, Python between the steps) is shown as "other"."""
    stages = stages or {}
    accounted = sum(seconds.values()) + sum(stages.values())
    whole = total if total is not None and total > 0 else accounted or 1.0
    print("seconds per metric:" + (f" ({pairs} pairs)" if pairs else ""))
    for name, value in sorted(seconds.items(), key=lambda kv: -kv[1]):
        per_pair = f"{1000 * value / pairs:8.1f} ms/pair" if pairs else ""
        print(f"  {name:<26} {value:8.2f} s  {100 * value / whole:5.1f} %{per_pair}")
    if stages:
        print("start-ups and other stages:")
        for name, value in sorted(stages.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<26} {value:8.2f} s  {100 * value / whole:5.1f} %")
    if total is not None and total > accounted:
        print(f"  {'other':<26} {total - accounted:8.2f} s  "
              f"{100 * (total - accounted) / whole:5.1f} %")


def _parse(path: Path) -> Any:
    from cluestudio.core.plantuml.parser import parse_file

    result = parse_file(path)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return result.diagram


def _run_one(scorer: Any, args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.jobs import run_job

    pair = (_parse(args.reference), _parse(args.candidate))
    result = run_job(scorer.score_pairs([pair]),
                     on_progress=stderr_progress if sys.stderr.isatty() else None)[0]
    if args.json:
        print_json({"reference": str(args.reference), "candidate": str(args.candidate),
                    **result.to_dict(explain=args.explain)})
        return 0
    print(f"reference: {args.reference}\ncandidate: {args.candidate}")
    for name, value in result.scores.as_dict().items():
        print(f"  {name:<15} {value:.4f}")
    if args.explain:
        print(format_explanation(result.explanation.to_dict()))
    return 0


def _run_batch(scorer: Any, args: argparse.Namespace) -> int:
    """Score a pairs list a chunk at a time, writing each chunk's rows as soon as it is
    scored: memory stays flat however long the list (each chunk's matrices and
    explanations are dropped once written)."""
    import contextlib
    from collections import OrderedDict

    from cluestudio.core.safe_output import atomic_open

    rows = read_pairs(args.pairs)
    references: OrderedDict[Path, Any] = OrderedDict()  # shared references: parsed once

    def diagram(path: Path) -> Any:
        if path in references:
            references.move_to_end(path)
            return references[path]
        found = references[path] = _parse(path)
        if len(references) > 256:
            references.popitem(last=False)
        return found

    with contextlib.ExitStack() as stack:
        out = stack.enter_context(atomic_open(args.output)) if args.output else sys.stdout
        _write_batch(scorer, args, rows, out, diagram)
    if args.output is not None:
        print(f"{len(rows)} pairs scored -> {args.output}", file=sys.stderr)
    return 0


def _write_batch(scorer: Any, args: argparse.Namespace, rows: list[dict[str, Any]],
                 out: Any, diagram: Any) -> None:
    from cluestudio.cli.output import ProgressBar
    from cluestudio.core.clue.batch import METRIC_NAMES
    from cluestudio.core.jobs import Progress, run_job, within
    from cluestudio.core.safe_output import csv_writer

    bar = ProgressBar(label="score")
    as_json = args.json and args.output is None
    writer = csv_writer(out)
    done = 0
    try:
        out.write("[") if as_json else writer.writerow(["id", "reference", "candidate",
                                                        *METRIC_NAMES])
        for start in range(0, len(rows), PAIRS_CHUNK):
            chunk = rows[start:start + PAIRS_CHUNK]
            pairs = [(diagram(r["reference"]), _parse(r["candidate"])) for r in chunk]
            results = run_job(within(scorer.score_pairs(pairs), done, len(rows)),
                              on_progress=bar)
            for row, res in zip(chunk, results, strict=True):
                if as_json:
                    item = {"id": row["id"], "reference": str(row["reference"]),
                            "candidate": str(row["candidate"]),
                            **res.to_dict(explain=args.explain)}
                    text = json.dumps(item, indent=2, ensure_ascii=False, default=str)
                    out.write(("," if done else "") + "\n" + text)
                else:
                    writer.writerow([row["id"], row["reference"], row["candidate"],
                                     *(f"{v:.6f}" for v in res.scores.as_dict().values())])
                done += 1
            bar(Progress(done, len(rows), f"{done}/{len(rows)} pairs scored"))
        if as_json:
            out.write("\n]\n")
    finally:
        bar.close()


def read_pairs(path: Path) -> list[dict[str, Any]]:
    """Rows with ``id``, ``reference`` and ``candidate`` (paths resolved beside the list).

    CSV, a JSON list or JSONL (one pair per line), told by the extension (``.csv``,
    ``.json``, ``.jsonl``/``.ndjson``) or else by the content; no pairs at all is an error.
    """
    from cluestudio.core.errors import ClueStudioError

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ClueStudioError(f"cannot read pairs list {path}: {error}") from error
    entries = [(number, entry) for number, entry in _pair_entries(path, text)]
    if not entries:
        raise ClueStudioError(f"{path}: no pairs in the list (0 rows); nothing was scored")
    rows = []
    for number, entry in entries:
        if isinstance(entry, list | tuple) and len(entry) == 2:
            entry = {"reference": entry[0], "candidate": entry[1]}
        if (not isinstance(entry, dict) or not isinstance(entry.get("reference"), str)
                or not isinstance(entry.get("candidate"), str)
                or not entry["reference"] or not entry["candidate"]):
            raise ClueStudioError(f"{path}: pair {number} needs 'reference' and 'candidate'")
        rows.append({"id": str(entry.get("id") or number),
                     "reference": path.parent / entry["reference"],
                     "candidate": path.parent / entry["candidate"]})
    return rows


def _pair_entries(path: Path, text: str) -> list[tuple[int, Any]]:
    """(line or position, raw entry) of every pair in a CSV, JSON or JSONL list."""
    from cluestudio.core.errors import ClueStudioError

    suffix = path.suffix.lower()
    head = text.lstrip()[:1]
    if suffix in (".jsonl", ".ndjson") or (suffix not in (".json", ".csv") and head == "{"):
        entries = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    entries.append((number, json.loads(line)))
                except json.JSONDecodeError as error:
                    raise ClueStudioError(f"{path}:{number}: not valid JSON: {error}"
                                          ) from error
        return entries
    if suffix == ".json" or (suffix != ".csv" and head == "["):
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            raise ClueStudioError(f"{path}: not valid JSON: {error}") from error
        if not isinstance(raw, list):
            raise ClueStudioError(f"{path}: expected a JSON list of pairs")
        return list(enumerate(raw, 1))
    return list(enumerate(csv.DictReader(io.StringIO(text)), 1))


def format_explanation(data: dict[str, Any]) -> str:
    """The matchings as indented text (``--explain`` without ``--json``)."""
    lines = ["classes:"]
    classes = data["classes"]
    for m in classes["matches"]:
        lines.append(f"  {m['reference']['text']} <-> {m['candidate']['text']}  "
                     f"{m['similarity']:.3f} (name {m['name_similarity']:.3f}, attributes "
                     f"{m['attribute_similarity']:.3f}, methods {m['method_similarity']:.3f})")
        for kind in ("attributes", "methods"):
            for inner in m[kind]["matches"]:
                lines.append(f"      {inner['reference']['text']} <-> "
                             f"{inner['candidate']['text']}  {inner['similarity']:.3f}")
            for missing in m[kind]["unmatched_reference"]:
                lines.append(f"      missing {kind[:-1]}: {missing['text']}")
    for missing in classes["unmatched_reference"]:
        lines.append(f"  missing class: {missing['text']}")
    for extra in classes["unmatched_candidate"]:
        lines.append(f"  extra class (ignored): {extra['text']}")
    lines.append("relations:")
    relations = data["relations"]
    for m in relations["matches"]:
        lines.append(f"  {m['reference']['text']}  <->  {m['candidate']['text']}  "
                     f"{m['similarity']:.3f}")
    for missing in relations["unmatched_reference"]:
        lines.append(f"  missing relation: {missing['text']}")
    return "\n".join(lines)
