"""``cluestudio probe``: does a VLM read image A the way the reviewed PlantUML says?"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "probe"
HELP = "ask a VLM about an image (class names, relation directions) and compare with PlantUML"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pairs", nargs="+", type=Path, metavar="IMAGE PUML",
                        help="image A followed by its PlantUML file, repeated")
    parser.add_argument("--prompt-version", default="v1")
    parser.add_argument("--fail-on-flag", action="store_true",
                        help="exit with status 1 when any submission is flagged")
    parser.add_argument("--json", action="store_true", help="print full results as JSON")
    from cluestudio.cli.cmd_convert import add_backend_arguments

    add_backend_arguments(parser)


def run(args: argparse.Namespace) -> int:
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
    backend = backend_from_args(args)
    prompts = load_probe_prompts(args.prompt_version)
    cancel = CancelToken()
    results = []
    for image_path, puml_path in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        diagram = parse_plantuml(puml_path.read_text(encoding="utf-8"),
                                 source=str(puml_path)).diagram
        image = ImageInput.from_bytes(image_path.read_bytes())
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
