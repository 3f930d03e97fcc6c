"""``cluestudio check``: does the PlantUML say what image A shows? Offline, with OCR.

IMAGE PUML pairs, or ``--workspace COURSE.sqlite``: each submission's head revision
against its image A, stored in ``check_results`` (skipped when that revision, image and OCR
engine were already checked; the window's "Check all listed" plans the same way:
app/checks.py). ``--plan`` lists what would be checked and why the others are not, and checks
nothing. Needs the ``ocr`` extra (``pip install 'cluestudio[ocr]'``).

Where image A carries the PlantUML it was rendered from (PlantUML writes it into every PNG),
the conversion is compared with that, model to model, and OCR is not run; ``--pixels`` (or
``[ocr] embedded_source = false``) reads the pixels all the same. Each report says which.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

NAME = "check"
HELP = "check conversions offline: OCR image A and list what the PlantUML dropped or invented"


def _languages_note() -> str:
    from cluestudio.core.ocr.engine import READS_NOTE

    return (f"{READS_NOTE} `[ocr] language = \"de\"` (en, fr, es; default auto) in the "
            "settings file names it: the check then reports a PlantUML in another language "
            "as such instead of as dropped and invented names.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = _languages_note()
    parser.add_argument("pairs", nargs="*", type=Path, metavar="IMAGE PUML",
                        help="image A followed by its PlantUML file, repeated; "
                             "or use --workspace")
    parser.add_argument("--json", action="store_true",
                        help="print full reports as JSON (boxes in image pixels, lines)")
    parser.add_argument("--fail-on-flag", action="store_true",
                        help="exit with status 1 when any conversion is flagged")
    parser.add_argument("--no-cache", action="store_true",
                        help="read every image again instead of using the OCR cache")
    parser.add_argument("--pixels", action="store_true",
                        help="read image A's pixels with OCR even where it carries the "
                             "PlantUML it was rendered from (default: compare with that)")
    from cluestudio.cli.cmd_convert import add_workspace_arguments

    add_workspace_arguments(parser, "check", "checked (same revision, image and engine)")
    parser.add_argument("--plan", action="store_true",
                        help="--workspace: list what would be checked (and why the others "
                             "are not); check nothing")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.cmd_convert import check_mode

    if check_mode(args, args.pairs, "IMAGE PUML pairs"):
        return run_workspace(args)
    return run_files(args)


def _cache(args: argparse.Namespace) -> Any:
    from cluestudio.core.ocr import OcrCache

    return None if args.no_cache else OcrCache()


def _describe(report: Any) -> list[str]:
    lines = []
    for m in report.missing:
        where = f" in {m.owner}" + (f" (line {m.owner_line})" if m.owner_line else "") \
            if m.owner else ""
        if m.box is None:  # compared with the source image A carries: its line, no box
            at = f"line {m.source_line} of the source A carries" if m.source_line else \
                "in the source A carries"
            lines.append(f"  missing {m.kind} {m.text!r} ({at}){where}")
            continue
        x0, y0, x1, y1 = (round(v) for v in m.box.rect)
        lines.append(f"  missing {m.kind} {m.text!r} at ({x0},{y0})-({x1},{y1}){where}, "
                     f"confidence {m.confidence:.2f}")
    embedded = report.evidence == "embedded"
    for i in report.invented:
        near = (f", the source A carries has {i.nearest!r}" if embedded else
                f", nearest read {i.nearest!r}") if i.nearest else ""
        line = f"line {i.line}" if i.line else "no line"
        sure = "" if embedded else f", confidence {i.confidence:.2f}"  # always 1 there
        lines.append(f"  invented {i.kind} {i.text!r} ({line}){near}{sure}")
    return lines


JUDGED = ("clean", "flagged")  # verdicts reached name by name: their findings are listed


def _verdict(report: Any) -> str:
    """The verdict in the words the window uses (core/check/report.py's reason)."""
    if report.verdict == "could not judge":
        return "COULD NOT JUDGE: " + report.reason.removeprefix("could not judge: ")
    if report.verdict == "language":
        return f"ANOTHER LANGUAGE ({report.reason})"
    if report.flagged:
        return "FLAGGED"
    # "agrees" alone read as "its attributes are right" where the check weighed none
    return "agrees on what it judged" if report.not_judged else "agrees"


def pixels_wanted(args: argparse.Namespace, settings: Any) -> bool:
    """``--pixels``, or the settings' ``[ocr] embedded_source = false``."""
    return bool(args.pixels) or not settings.ocr.embedded_source


def _evidence(report: Any) -> str:
    """What the report compared the conversion with, in one line ("" for plain OCR)."""
    if report.evidence == "embedded":
        return f"  {report.evidence_note}"
    return f"  note: {report.evidence_note}" if report.evidence_note else ""


def run_files(args: argparse.Namespace) -> int:
    from cluestudio.app.input_files import refuse_special_files
    from cluestudio.cli.output import print_json, say_if_large
    from cluestudio.core.check import check_files
    from cluestudio.core.errors import ClueStudioError

    if len(args.pairs) % 2:
        raise ClueStudioError("give IMAGE PUML pairs (an even number of paths)")
    refuse_special_files(args.pairs)
    from cluestudio.core.settings import load_settings

    cache = _cache(args)
    settings = load_settings()[0]
    language = settings.ocr.language  # [ocr] language: image A's names
    pixels = pixels_wanted(args, settings)
    results = []
    try:
        for image, puml in zip(args.pairs[::2], args.pairs[1::2], strict=True):
            say_if_large(image)
            results.append((image, puml, check_files(image, puml, cache=cache,
                                                     language=language, pixels=pixels)))
    finally:
        if cache is not None:
            cache.close()
    if args.json:
        print_json([{"image": str(image), "puml": str(puml), **report.to_dict()}
                    for image, puml, report in results])
    else:
        for image, _puml, report in results:
            recall = "n/a" if report.text_recall is None else f"{report.text_recall:.0%}"
            shown = "n/a" if report.name_precision is None else f"{report.name_precision:.0%}"
            # no triage number where the check did not judge by names: it would read as one
            triage = f", triage {report.triage:.2f}" if report.verdict in JUDGED else ""
            print(f"{image}: {_verdict(report)}{triage} (image text in "
                  f"the PlantUML {recall}, PlantUML names in the image {shown})")
            if _evidence(report):
                print(_evidence(report))
            if report.verdict in JUDGED:
                for line in [f"  ? {sentence}" for sentence in report.not_judged] \
                        + _describe(report):
                    print(line)
            elif report.missing or report.invented:
                # as the window's check panel: no name-by-name verdict, so its names are
                # noise, not findings ("invented class 'X', confidence 1.00" misleads)
                print(f"  {len(report.missing) + len(report.invented)} names not compared: "
                      "a person looks at this one (--json lists them)")
    return 1 if args.fail_on_flag and any(r.flagged for _i, _p, r in results) else 0


def run_workspace(args: argparse.Namespace) -> int:
    from collections import Counter

    from cluestudio.app.checks import check_workspace
    from cluestudio.cli.cmd_convert import open_batch_workspace, submission_ids
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.jobs import CancelToken, run_job

    if args.plan:
        return run_plan(args)
    cache = _cache(args)
    try:
        with open_batch_workspace(args.workspace) as ws:
            from cluestudio.core.settings import load_settings

            settings = load_settings()[0]
            summary = run_job(check_workspace(ws, CancelToken(), tasks=args.task,
                                              submission_ids=submission_ids(args),
                                              redo=args.redo, cache=cache,
                                              language=settings.ocr.language,
                                              pixels=pixels_wanted(args, settings)),
                              on_progress=stderr_progress)
    finally:
        if cache is not None:
            cache.close()
    if args.json:
        print_json({"workspace": str(args.workspace), **summary.to_dict()})
    else:
        for o in summary.flagged:
            stored = " (stored earlier)" if o.stored else ""
            found = o.unjudged or (f"triage {o.triage:.2f}, {o.missing} missing, "
                                   f"{o.invented} invented")
            if o.evidence == "embedded":
                found += ", compared with the PlantUML image A carries"
            print(f"FLAGGED {o.label}: {found} (revision {o.revision_id}){stored}")
        for o in summary.outcomes:  # judged, with names it did not weigh: say which
            for sentence in o.not_judged:
                print(f"? {o.label}: {sentence}")
        counts = summary.to_dict()["counts"]
        print(f"{args.workspace}: " + ", ".join(f"{n} {k}" for k, n in counts.items())
              + f" ({summary.engine})")
        for o in summary.having("failed"):
            print(f"  failed {o.label}: {o.reason}")
        for reason, n in Counter(o.reason for o in summary.having("skipped")).most_common():
            print(f"  skipped {n}: {reason}")
    if args.fail_on_flag and summary.flagged:
        return 1
    return 1 if summary.having("failed") else 0


def run_plan(args: argparse.Namespace) -> int:
    """``--workspace --plan``: the submissions a check would read, and the others with why."""
    from collections import Counter

    from cluestudio.app.checks import plan_checks
    from cluestudio.cli.cmd_convert import open_batch_workspace, submission_ids
    from cluestudio.cli.output import print_json
    from cluestudio.core.settings import load_settings

    pixels = pixels_wanted(args, load_settings()[0])
    with open_batch_workspace(args.workspace) as ws:
        plan = plan_checks(ws, submission_ids(args), tasks=args.task, redo=args.redo,
                           pixels=pixels)
    if args.json:
        print_json({"workspace": str(args.workspace), "action": "check-plan",
                    "to_check": [{"submission_id": i.submission_id, "task_id": i.task_id,
                                  "source_id": i.source_id, "revision_id": i.revision_id}
                                 for i in plan.items],
                    "skipped": [o.to_dict() for o in plan.outcomes]})
        return 0
    for item in plan.items:
        print(f"to check #{item.submission_id} {item.task_id}/{item.source_id} "
              f"(revision {item.revision_id})")
    print(f"{args.workspace}: {len(plan.items)} to check, {len(plan.outcomes)} skipped")
    for reason, n in Counter(o.reason for o in plan.outcomes).most_common():
        print(f"  skipped {n}: {reason}")
    return 0
