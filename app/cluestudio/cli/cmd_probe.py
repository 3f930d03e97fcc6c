"""``cluestudio probe``: does a VLM read image A the way the reviewed PlantUML says?

IMAGE PUML pairs, or ``--workspace COURSE.sqlite``: each submission's image A against its
head revision, stored in ``probe_results`` (skipped when that input was already probed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "probe"
HELP = "ask a VLM about an image (class names, relation directions) and compare with PlantUML"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pairs", nargs="*", type=Path, metavar="IMAGE PUML",
                        help="image A followed by its PlantUML file, repeated; "
                             "or use --workspace")
    parser.add_argument("--prompt-version", default="v1")
    parser.add_argument("--fail-on-flag", action="store_true",
                        help="exit with status 1 when any submission is flagged")
    parser.add_argument("--json", action="store_true", help="print full results as JSON")
    from cluestudio.cli.cmd_convert import (
        add_backend_arguments,
        add_workspace_arguments,
        add_workspace_executor,
    )

    add_workspace_arguments(parser, "probe", "probed (same image, PlantUML, model, prompts)")
    add_backend_arguments(parser)
    add_workspace_executor(parser)


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.cmd_convert import check_mode

    if check_mode(args, args.pairs, "IMAGE PUML pairs"):
        return run_workspace(args)
    return run_files(args)


def run_workspace(args: argparse.Namespace) -> int:
    from cluestudio.app.vlm_batches import probe_workspace
    from cluestudio.cli.cmd_convert import (
        backend_from_args,
        batch_on_executor,
        open_batch_workspace,
        print_batch_summary,
        submission_ids,
    )
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.vlm.prompts import load_probe_prompts

    prompts = load_probe_prompts(args.prompt_version)
    with open_batch_workspace(args.workspace) as ws:
        summary = batch_on_executor(args, "probe", ws, prompts)
        if summary is None:
            summary = run_job(probe_workspace(ws, backend_from_args(args), CancelToken(),
                                              tasks=args.task, redo=args.redo,
                                              submission_ids=submission_ids(args),
                                              prompts=prompts),
                              on_progress=stderr_progress)
    if args.json:
        print_json({"workspace": str(args.workspace), **summary.to_dict()})
    else:
        for outcome in summary.flagged:
            rel = "n/a" if outcome.rel_acc is None else f"{100 * outcome.rel_acc:.0f}%"
            stored = " (stored earlier)" if outcome.stored else ""
            print(f"FLAGGED {outcome.label}: EM={'yes' if outcome.em else 'no'} "
                  f"RelAcc={rel}{stored}")
            for reason in outcome.reasons:
                print(f"  {reason['kind']}: {reason['detail']}")
        print_batch_summary(summary, args.workspace)
    if args.fail_on_flag and summary.flagged:
        return 1
    return 1 if summary.failed else 0


def run_files(args: argparse.Namespace) -> int:
    from cluestudio.cli.cmd_convert import backend_from_args
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.plantuml import parse_plantuml
    from cluestudio.core.vlm.backend import ImageInput
    from cluestudio.core.vlm.probe import probe_submission
    from cluestudio.core.vlm.prompts import load_probe_prompts

    if len(args.pairs) % 2:
        raise ClueStudioError("give IMAGE PUML pairs (an even number of paths)")
    from cluestudio.app.input_files import refuse_special_files

    refuse_special_files(args.pairs)
    backend = backend_from_args(args)
    prompts = load_probe_prompts(args.prompt_version)
    cancel = CancelToken()
    results = []
    for image_path, puml_path in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        diagram = parse_plantuml(puml_path.read_text(encoding="utf-8"),
                                 source=str(puml_path)).diagram
        image = ImageInput.from_file(image_path)
        results.append(run_job(probe_submission(image, diagram, backend, cancel,
                                                source=image_path.name, prompts=prompts),
                               on_progress=stderr_progress))
    if args.json:
        print_json([r.to_dict() for r in results])
    else:
        for r in results:
            rel = "n/a" if r.rel_acc is None else f"{100 * r.rel_acc:.0f}%"
            print(f"{r.source}: EM={'yes' if r.em else 'no'} RelAcc={rel} "
                  f"{'FLAGGED' if r.flag else 'agrees'}")
            for reason in r.reasons:
                print(f"  {reason.kind}: {reason.detail}")
    return 1 if args.fail_on_flag and any(r.flag for r in results) else 0
