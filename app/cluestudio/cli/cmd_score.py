"""``cluestudio score``: CLUE scores of a candidate diagram, or of a list of pairs.

    cluestudio score REF.puml CAND.puml [--explain] [--json]
    cluestudio score --pairs pairs.csv [-o scores.csv] [--json]
    cluestudio score REF CAND --kind component|deployment|package|sysml|code [--json]

``--kind class`` (the default) is CLUE on class diagrams. Any other kind runs the metric
plugins that apply to it (``cluestudio plugins`` lists them): R2ABench for component,
deployment and package diagrams, SysMEval for SysML v2 text, code similarity for Python.
LLM metrics use the ``[llm]`` endpoint of settings.toml and are skipped (with a note on
stderr) when none is configured.

A pairs list is CSV (columns ``reference,candidate``, optional ``id``) or JSON (a list of
objects with those keys); paths are relative to the list file.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

NAME = "score"
HELP = "score a candidate against a reference: CLUE, or the plugin metrics of a diagram kind"
KINDS = ("class", "component", "deployment", "package", "sysml", "code")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reference", nargs="?", type=Path, help="reference PlantUML file")
    parser.add_argument("candidate", nargs="?", type=Path, help="candidate PlantUML file")
    parser.add_argument("--pairs", type=Path, metavar="FILE",
                        help="CSV or JSON list of reference,candidate paths (batch mode)")
    parser.add_argument("--kind", default="class", choices=KINDS,
                        help="diagram kind: class (CLUE, default) or another kind, scored by "
                             "the metric plugins that apply to it")
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


def run(args: argparse.Namespace) -> int:
    from cluestudio.core.clue import ClueScorer, ClueWeights
    from cluestudio.core.errors import ClueStudioError

    if args.pairs is None and (args.reference is None or args.candidate is None):
        raise ClueStudioError("give REF.puml CAND.puml, or --pairs FILE")
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
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.jobs import run_job

    rows = read_pairs(args.pairs)
    diagrams: dict[Path, Any] = {}  # a reference shared by many pairs is parsed once
    for row in rows:
        for key in ("reference", "candidate"):
            if row[key] not in diagrams:
                diagrams[row[key]] = _parse(row[key])
    pairs = [(diagrams[r["reference"]], diagrams[r["candidate"]]) for r in rows]
    results = run_job(scorer.score_pairs(pairs), on_progress=stderr_progress)
    if args.json and args.output is None:
        print_json([{"id": r["id"], "reference": str(r["reference"]),
                     "candidate": str(r["candidate"]), **res.to_dict(explain=args.explain)}
                    for r, res in zip(rows, results, strict=True)])
        return 0
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    names = list(results[0].scores.as_dict()) if results else []
    writer.writerow(["id", "reference", "candidate", *names])
    for row, res in zip(rows, results, strict=True):
        writer.writerow([row["id"], row["reference"], row["candidate"],
                         *(f"{v:.6f}" for v in res.scores.as_dict().values())])
    if args.output is not None:
        args.output.write_text(buffer.getvalue(), encoding="utf-8")
        print(f"{len(results)} pairs scored -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(buffer.getvalue())
    return 0


def read_pairs(path: Path) -> list[dict[str, Any]]:
    """Rows with ``id``, ``reference`` and ``candidate`` (paths resolved beside the list)."""
    from cluestudio.core.errors import ClueStudioError

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ClueStudioError(f"cannot read pairs list {path}: {error}") from error
    if path.suffix.lower() == ".json":
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            raise ClueStudioError(f"{path}: not valid JSON: {error}") from error
        if not isinstance(raw, list):
            raise ClueStudioError(f"{path}: expected a JSON list of pairs")
        entries = [e if isinstance(e, dict) else {"reference": e[0], "candidate": e[1]}
                   for e in raw]
    else:
        entries = list(csv.DictReader(io.StringIO(text)))
    rows = []
    for number, entry in enumerate(entries, 1):
        if not entry.get("reference") or not entry.get("candidate"):
            raise ClueStudioError(f"{path}: pair {number} needs 'reference' and 'candidate'")
        rows.append({"id": entry.get("id") or str(number),
                     "reference": path.parent / entry["reference"],
                     "candidate": path.parent / entry["candidate"]})
    return rows


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
