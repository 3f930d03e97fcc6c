"""``cluestudio audit``: the seed-003 prior-bias audit of a VLM, resumable, with reports.

Every answer is stored as it arrives, in ``OUT/results.jsonl`` (or ``--cache``) or, with
``--workspace FILE.sqlite``, in that workspace's ``audit_results`` table; re-running with the
same settings asks only what is missing. Writes ``summary.csv``, ``summary.json`` and
``relacc.svg`` into ``--out``; ``--report-only`` rebuilds them from the stored answers
without asking the model.

The diagrams come from the shipped chains or from ``--vocabulary FILE``; the paper's
generator fills that file: ``--generate-vocabulary N`` asks the endpoint (a text LLM) for N
chains per relation, checks and repairs them, and extends FILE (resumable).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

NAME = "audit"
HELP = "measure a VLM's prior bias on generated UML diagrams (EM, RelAcc, conflict gap)"


def configure(parser: argparse.ArgumentParser) -> None:
    from cluestudio.core.vlm.conditions import CONDITIONS, SCALES
    from cluestudio.core.vlm.prompts import RELATIONS

    parser.add_argument("--out", type=Path, default=Path("audit"), help="output folder")
    parser.add_argument("--cache", type=Path, default=None,
                        help="answers file to resume from (default: OUT/results.jsonl); "
                             "with --workspace, its answers are first copied into the "
                             "workspace")
    parser.add_argument("--workspace", type=Path, default=None, metavar="FILE.sqlite",
                        help="store answers in this workspace (created if missing) instead "
                             "of a JSONL file; resumes from the answers it holds")
    parser.add_argument("--report-only", action="store_true",
                        help="ask nothing: rebuild the reports from the stored answers "
                             "(model from --model or settings.toml)")
    parser.add_argument("--conditions", nargs="+", choices=CONDITIONS, default=list(CONDITIONS))
    parser.add_argument("--relations", nargs="+", choices=RELATIONS, default=list(RELATIONS))
    parser.add_argument("--scales", nargs="+", type=float, default=list(SCALES))
    parser.add_argument("--per-cell", type=int, default=10,
                        help="diagrams per (condition, relation); 0 = all (default 10)")
    parser.add_argument("--scale-mode", choices=("resize", "plantuml"), default="resize",
                        help="resize: one render, resized (seed 003); plantuml: re-render "
                             "with PlantUML's scale directive")
    parser.add_argument("--prompt-version", default="v1")
    parser.add_argument("--stage2-max-tokens", type=int, default=16, metavar="N",
                        help="answer budget of the relation question (16); raise it for "
                             "models that reason before answering (the last verdict counts)")
    parser.add_argument("--vocabulary", type=Path, default=None, metavar="FILE.json",
                        help="class chains to draw diagrams from (default: the shipped ones)")
    parser.add_argument("--generate-vocabulary", type=int, default=None, metavar="N",
                        help="ask the endpoint for N chains per relation, validate and "
                             "repair them, write --vocabulary FILE, and stop")
    parser.add_argument("--dry-run", action="store_true",
                        help="only write the generated diagrams (.puml) to OUT/diagrams")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    from cluestudio.cli.cmd_convert import add_backend_arguments, add_workspace_executor

    add_backend_arguments(parser)
    add_workspace_executor(parser)


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.safe_output import write_text
    from cluestudio.core.vlm.audit import AuditConfig, stored_audit
    from cluestudio.core.vlm.cache import AnswerStore, ResultCache
    from cluestudio.core.vlm.chains import load_vocabulary
    from cluestudio.core.vlm.report import summarize, to_csv, to_json, to_svg

    if args.generate_vocabulary is not None:
        return _generate_vocabulary(args)
    if args.stage2_max_tokens < 1:
        raise ClueStudioError("--stage2-max-tokens must be at least 1")
    vocabulary = load_vocabulary(args.vocabulary) if args.vocabulary else None
    config = AuditConfig.with_vocabulary(
        vocabulary, conditions=tuple(args.conditions), relations=tuple(args.relations),
        scales=tuple(args.scales), per_cell=args.per_cell or None, seed=args.seed,
        scale_mode=args.scale_mode, prompt_version=args.prompt_version,
        stage2_max_tokens=args.stage2_max_tokens)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.dry_run:
        folder = args.out / "diagrams"
        folder.mkdir(exist_ok=True)
        instances = config.instances()
        for instance in instances:
            name = f"{instance.condition}_{instance.relation}_{instance.id}.puml"
            write_text(folder / name, instance.plantuml())
        print(f"{len(instances)} diagrams × {len(config.scales)} scales written to {folder}")
        return 0
    with contextlib.ExitStack() as stack:
        store: AnswerStore
        if args.workspace is not None:
            from cluestudio.core.vlm.workspace_adapter import WorkspaceAnswerStore
            from cluestudio.core.workspace import open_workspace

            ws = stack.enter_context(open_workspace(args.workspace))
            store = WorkspaceAnswerStore(ws, seed=config.seed)
            if args.cache is not None and args.cache.exists():
                copied = store.import_records(ResultCache(args.cache).records())
                print(f"{copied} answer(s) copied from {args.cache} into {args.workspace}",
                      file=sys.stderr)
        else:
            store = ResultCache(args.cache or args.out / "results.jsonl")
        if args.report_only:
            from cluestudio.core.settings import load_settings

            model = args.model or load_settings()[0].llm.model
            result = stored_audit(config, model, store)
        else:
            result = _ask(args, config, store)
    cells = summarize(result.records)
    meta = {"model": result.model, "prompt_version": result.prompt_version,
            "config": config.to_dict(), "records": len(result.records),
            "asked": result.asked, "failures": list(result.failures)}
    write_text(args.out / "summary.csv", to_csv(cells))
    write_text(args.out / "summary.json", to_json(cells, meta))
    write_text(args.out / "relacc.svg", to_svg(cells, title=f"{result.model}: RelAcc (%)"))
    if args.json:
        print_json({"meta": meta, "cells": [c.to_dict() for c in cells]})
    else:
        for cell in cells:
            if cell.relation == "all" and cell.scale == "all":
                delta = "" if cell.delta is None else f"  Δ={100 * cell.delta:.1f}"
                em = "n/a" if cell.em is None else f"{100 * cell.em:.1f}"
                acc = "n/a" if cell.rel_acc is None else f"{100 * cell.rel_acc:.1f}"
                print(f"{cell.condition:14} EM={em:>5}  RelAcc={acc:>5}{delta}")
        print(f"reports in {args.out}")
    for failure in result.failures:
        print(f"failed: {failure}")
    return 0 if not result.failures else 1


def _ask(args: argparse.Namespace, config: Any, store: Any) -> Any:
    """Ask what the store lacks, here (``--executor local``) or on an executor's workers."""
    from cluestudio.app.executors import open_executor
    from cluestudio.app.vlm_audit import audit_on
    from cluestudio.cli.cmd_convert import backend_from_args, backend_options_from_args
    from cluestudio.cli.executor_args import executor_options
    from cluestudio.cli.output import stderr_progress
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.vlm.audit import run_audit
    from cluestudio.core.vlm.conversion import default_renderer

    executor = open_executor(executor_options(args))
    if executor is None:
        return run_job(run_audit(backend_from_args(args), config, store, default_renderer,
                                 CancelToken()), on_progress=stderr_progress)
    with executor:
        return run_job(audit_on(executor, backend_options_from_args(args), config, store,
                                CancelToken()), on_progress=stderr_progress)


def _generate_vocabulary(args: argparse.Namespace) -> int:
    """Seed 003's generator: chains from the endpoint, checked, repaired, saved."""
    from cluestudio.cli.cmd_convert import backend_from_args
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.vlm.chains import (
        generate_vocabulary,
        load_vocabulary,
        save_vocabulary,
    )

    if args.vocabulary is None:
        raise ClueStudioError("--generate-vocabulary needs --vocabulary FILE.json to write")
    if args.generate_vocabulary < 1:
        raise ClueStudioError("--generate-vocabulary must be at least 1")
    existing = load_vocabulary(args.vocabulary) if args.vocabulary.exists() else None
    backend = backend_from_args(args)
    vocabulary, reports = run_job(
        generate_vocabulary(backend, args.generate_vocabulary, tuple(args.relations),
                            existing, CancelToken()), on_progress=stderr_progress)
    merged = {**(existing or {}), **vocabulary}
    save_vocabulary(args.vocabulary, merged, {"generator": backend.model_id})
    summary = {"vocabulary": str(args.vocabulary),
               "relations": [r.to_dict() for r in reports]}
    if args.json:
        print_json(summary)
    else:
        for report in reports:
            print(f"{report.relation:12} {len(report.accepted):5} chains ({report.new} new, "
                  f"{len(report.rejected)} rejected, {report.requests} requests)")
        print(f"written to {args.vocabulary}")
    short = [r.relation for r in reports if len(r.accepted) < args.generate_vocabulary]
    if short:
        print(f"fewer chains than asked for: {', '.join(short)} (run again to continue)",
              file=sys.stderr)
    return 0 if not short else 1
