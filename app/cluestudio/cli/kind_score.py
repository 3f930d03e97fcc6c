"""``cluestudio score REF CAND --kind K`` for kinds other than class: the plugin metrics.

The metrics are those :mod:`cluestudio.core.kind_metrics` picks for the kind (the same the
GUI runs). Files are read as text and never parsed as class diagrams. A metric that fails is
reported on stderr by name and the others still print; when none can run, that is the error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cluestudio.core.errors import ClueStudioError


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ClueStudioError(f"{path}: cannot read: {error.strerror or error}") from error
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ClueStudioError(f"{path}:{line}: not UTF-8 text (byte {error.start})") from error


def run_kind(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.kind_metrics import configured_backend, score_pair
    from cluestudio.core.settings import load_settings

    if args.pairs is not None:
        raise ClueStudioError(f"--pairs scores class diagrams only; score {args.kind} "
                              "diagrams one pair at a time (REF CAND --kind ...)")
    reference, candidate = read_text(args.reference), read_text(args.candidate)
    settings, problems = load_settings()
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    backend = configured_backend(settings)
    runs, notes, errors = score_pair(args.kind, reference, candidate, backend=backend,
                                     embedder=args.embedder,
                                     names=(str(args.reference), str(args.candidate)))
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    for name, message in errors.items():
        print(f"warning: metric {name} failed on {args.candidate}: {message}", file=sys.stderr)
    if not runs:
        if errors:
            raise ClueStudioError(f"{args.candidate}: no metric could score it "
                                  f"({'; '.join(f'{k}: {v}' for k, v in errors.items())})")
        if notes:
            raise ClueStudioError(f"no metric for {args.kind} diagrams can run without an LLM "
                                  "endpoint: set [llm] base_url and model in settings.toml")
        raise ClueStudioError(f"no metric plugin applies to {args.kind} diagrams")
    if args.json:
        metrics = [run.to_dict() for run in runs]
        if not args.explain:
            for metric in metrics:
                metric.pop("explanation", None)
        print_json({"reference": str(args.reference), "candidate": str(args.candidate),
                    "kind": args.kind, "metrics": metrics, "notes": notes, "errors": errors})
        return 0
    print(f"reference: {args.reference}\ncandidate: {args.candidate}\nkind: {args.kind}")
    for run in runs:
        print(f"  {run.name} (version {run.version})")
        for key, value in run.values.items():
            print(f"    {key:<20} {_number(value)}")
        if args.explain and run.explanation is not None:
            text = json.dumps(run.explanation, indent=2, ensure_ascii=False, default=str)
            print("\n".join("      " + line for line in text.splitlines()))
    return 0


def _number(value: Any) -> str:
    return "n/a" if value is None else f"{value:.4f}"
