"""``cluestudio convert``: student diagram images (A) → PlantUML with a VLM, plus image B.

Two modes: image files to a folder, or ``--workspace COURSE.sqlite`` (every submission with
an image A and no model conversion yet, each attempt stored as a revision; resumable).
Also home of the backend flags that ``probe`` and ``audit`` share (defaults: [llm] in
settings.toml), and of the workspace-batch flags ``probe`` shares, so the commands take the
same options.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

NAME = "convert"
HELP = "convert class-diagram images to PlantUML with a vision-language model"


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model backend")
    group.add_argument("--backend", choices=("openai", "local", "offline"), default="openai",
                       help="openai: any OpenAI-compatible server (OpenAI, vLLM, Ollama); "
                            "local: a transformers model on this machine; offline: no "
                            "model, a first draft from class boxes and OCR (convert only; "
                            "needs the ocr extra)")
    group.add_argument("--model", default=None,
                       help="model name (server) or Hugging Face name / folder (local); "
                            "default: [llm] model in settings.toml")
    group.add_argument("--base-url", default=None,
                       help="server URL, e.g. http://localhost:8000/v1 (vLLM) or "
                            "http://localhost:11434/v1 (Ollama); default: settings.toml. "
                            "The key comes from CLUESTUDIO_API_KEY / OPENAI_API_KEY or the "
                            "keyring, never from a flag")
    group.add_argument("--temperature", type=float, default=0.0)
    group.add_argument("--max-tokens", type=int, default=2048)
    group.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    group.add_argument("--retries", type=int, default=5,
                       help="retries on 429 / 5xx / timeouts, with exponential back-off")
    group.add_argument("--concurrency", type=int, default=4, help="requests in flight")
    group.add_argument("--seed", type=int, default=0)
    group.add_argument("--device", default="auto", help="local backend: auto | cpu | cuda")
    group.add_argument("--dtype", default="auto",
                       help="local backend: auto (bf16/fp16 on CUDA) | float32 | ...")
    group.add_argument("--batch-size", type=int, default=4, help="local backend batch size")


def backend_options_from_args(args: argparse.Namespace) -> Any:
    from cluestudio.core.settings import load_settings
    from cluestudio.core.vlm.factory import BackendOptions, endpoint_limits

    settings, _ = load_settings()
    base_url = args.base_url or (settings.llm.base_url if args.backend == "openai" else None)
    return BackendOptions(
        backend=args.backend, model=args.model or settings.llm.model, base_url=base_url,
        api_key=settings.api_key(), temperature=args.temperature, max_tokens=args.max_tokens,
        timeout_s=args.timeout, retries=args.retries, concurrency=args.concurrency,
        seed=args.seed, device=args.device, dtype=args.dtype, batch_size=args.batch_size,
        **endpoint_limits(settings.llm))


def backend_from_args(args: argparse.Namespace) -> Any:
    from cluestudio.core.vlm.factory import make_backend

    return make_backend(backend_options_from_args(args))


def batch_on_executor(args: argparse.Namespace, action: str, ws: Any, prompts: Any,
                      **extra: Any) -> Any:
    """``--executor processes|dask|ray``: the batch with the model calls on workers; None
    for ``local`` (the caller runs the in-process batch)."""
    from cluestudio.app.executors import open_executor
    from cluestudio.app.vlm_batches import convert_on, probe_on
    from cluestudio.cli.executor_args import executor_options
    from cluestudio.cli.output import stderr_progress
    from cluestudio.core.jobs import CancelToken, run_job

    executor = open_executor(executor_options(args))
    if executor is None:
        return None
    with executor:
        batch = convert_on if action == "convert" else probe_on
        return run_job(batch(executor, ws, backend_options_from_args(args), CancelToken(),
                             tasks=args.task, redo=args.redo,
                             submission_ids=submission_ids(args), prompts=prompts, **extra),
                       on_progress=stderr_progress)


def add_workspace_arguments(parser: argparse.ArgumentParser, verb: str, done: str) -> None:
    group = parser.add_argument_group("whole workspace")
    group.add_argument("--workspace", type=Path, default=None, metavar="COURSE.sqlite",
                       help=f"{verb} every submission of this workspace instead of files; "
                            "results are stored there, one transaction per submission, so "
                            f"a rerun after an interruption skips what is {done}")
    group.add_argument("--task", action="append", default=[], metavar="ID",
                       help="with --workspace: only this task (repeatable)")
    group.add_argument("--submission", action="append", type=int, default=[], metavar="ID",
                       help="with --workspace: only the submission with this id (repeatable; "
                            "what the window's Tools menu does for one, with --redo)")
    group.add_argument("--redo", action="store_true",
                       help=f"with --workspace: {verb} again what is already {done}")


def submission_ids(args: argparse.Namespace) -> list[int] | None:
    """``--submission`` ids, or None for every submission."""
    return list(args.submission) or None


def add_workspace_executor(parser: argparse.ArgumentParser) -> None:
    from cluestudio.cli.executor_args import add_executor_arguments

    add_executor_arguments(parser)


def check_mode(args: argparse.Namespace, files: list[Path], what: str) -> bool:
    """True for ``--workspace`` mode; a ClueStudioError unless exactly one mode is given."""
    from cluestudio.core.errors import ClueStudioError

    if args.workspace is not None and files:
        raise ClueStudioError(f"give {what} or --workspace COURSE.sqlite, not both")
    if args.workspace is None and not files:
        raise ClueStudioError(f"give {what}, or --workspace COURSE.sqlite for a whole "
                              "workspace")
    if args.workspace is None and (args.task or args.redo or args.submission):
        raise ClueStudioError("--task, --submission and --redo need --workspace COURSE.sqlite")
    if args.workspace is None and getattr(args, "executor", "local") != "local":
        raise ClueStudioError("--executor needs --workspace COURSE.sqlite")
    return args.workspace is not None


def open_batch_workspace(path: Path) -> Any:
    """The workspace a batch writes to; it must exist (a typo should not create one)."""
    from cluestudio.app.workspaces import open_existing_workspace
    from cluestudio.core.errors import ClueStudioError

    if path.is_dir():
        raise ClueStudioError(f"{path}: a folder, not a workspace file "
                              "(import a course folder with `cluestudio import`)")
    if not path.exists():
        raise ClueStudioError(f"{path}: no such workspace")
    return open_existing_workspace(path)


def print_batch_summary(summary: Any, workspace: Path) -> None:
    """The end-of-run summary of a workspace batch, for people (``--json`` prints the dict)."""
    from collections import Counter

    counts = summary.to_dict()["counts"]
    line = ", ".join(f"{n} {k}" for k, n in counts.items())
    tokens = f", {summary.tokens} tokens" if summary.tokens else ""  # none: offline drafts
    print(f"{workspace}: {line} ({summary.model}{tokens})")
    for outcome in summary.failed:
        print(f"  failed {outcome.label}: {outcome.reason}")
    for reason, n in Counter(o.reason for o in summary.skipped).most_common():
        print(f"  skipped {n}: {reason}")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="*", type=Path,
                        help="PNG/JPEG images (image A); or use --workspace")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for <name>.puml, <name>.b.png, <name>.attempts.json "
                             "(default: converted)")
    parser.add_argument("--max-repairs", type=int, default=2,
                        help="times a syntax error is fed back to the model (default 2)")
    parser.add_argument("--plantuml-check", action=argparse.BooleanOptionalAction,
                        default=True,
                        help="check each answer with PlantUML itself (the warm renderer) "
                             "after our parser, and feed its error back (default); "
                             "--no-plantuml-check: our parser only, for machines without "
                             "Java. Without a working PlantUML the check falls back to the "
                             "parser with a warning")
    parser.add_argument("--no-render", action="store_true", help="do not render image B")
    parser.add_argument("--prompt-version", default="v1")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    add_workspace_arguments(parser, "convert", "converted by a model")
    add_backend_arguments(parser)
    add_workspace_executor(parser)


def run(args: argparse.Namespace) -> int:
    if check_mode(args, args.images, "IMAGES"):
        if args.out is not None:
            from cluestudio.core.errors import ClueStudioError

            raise ClueStudioError("--out is for image files; with --workspace the "
                                  "conversions are stored in the workspace")
        return run_workspace(args)
    return run_files(args)


def _repairs(args: argparse.Namespace) -> int:
    """The offline draft gives the same text however often it is asked: no repair rounds."""
    return 0 if args.backend == "offline" else int(args.max_repairs)


def run_workspace(args: argparse.Namespace) -> int:
    from cluestudio.app.vlm_batches import convert_workspace
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.vlm.prompts import load_convert_prompts

    prompts = load_convert_prompts(args.prompt_version)
    with open_batch_workspace(args.workspace) as ws:
        summary = batch_on_executor(args, "convert", ws, prompts,
                                    max_repairs=_repairs(args),
                                    plantuml_check=args.plantuml_check)
        if summary is None:
            summary = run_job(convert_workspace(
                ws, backend_from_args(args), CancelToken(), tasks=args.task, redo=args.redo,
                submission_ids=submission_ids(args), max_repairs=_repairs(args),
                plantuml_check=args.plantuml_check,
                prompts=prompts), on_progress=stderr_progress)
    if args.json:
        print_json({"workspace": str(args.workspace), **summary.to_dict()})
    else:
        print_batch_summary(summary, args.workspace)
    return 1 if summary.failed else 0


def run_files(args: argparse.Namespace) -> int:
    from cluestudio.app.input_files import refuse_special_files
    from cluestudio.cli.output import print_json, say_if_large, stderr_progress
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.safe_output import write_bytes, write_text
    from cluestudio.core.vlm.backend import ImageInput
    from cluestudio.core.vlm.conversion import (
        convert_images,
        default_renderer,
        parser_checker,
    )
    from cluestudio.core.vlm.prompts import load_convert_prompts

    out = args.out or Path("converted")
    if out.exists() and not out.is_dir():  # found before the conversions, not after them
        from cluestudio.core.errors import ClueStudioError

        raise ClueStudioError(f"{out}: --out names a file; give a folder")
    refuse_special_files(args.images)
    backend = backend_from_args(args)
    # Every image is checked (size, format, bombs) before any model sees it.
    items = [(path.name, ImageInput.from_file(path)) for path in args.images]
    if args.backend == "offline":  # OCR of a large page is the long silence here
        for path in args.images:
            say_if_large(path)
    # check=None: our parser, then PlantUML via the warm renderer (image B reuses its PNG).
    check = None if args.plantuml_check else parser_checker
    results = run_job(convert_images(
        items, backend, CancelToken(), max_repairs=_repairs(args), check=check,
        render=None if args.no_render else default_renderer,
        prompts=load_convert_prompts(args.prompt_version)), on_progress=stderr_progress)
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for path, result in zip(args.images, results, strict=True):
        stem = out / path.stem
        if result.puml is not None:
            write_text(stem.with_suffix(".puml"), result.puml + "\n")
        if result.image_b is not None:
            write_bytes(stem.with_suffix(".b.png"), result.image_b)
        write_text(stem.with_suffix(".attempts.json"),
                   json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
        summary.append({"image": str(path), "ok": result.ok, "attempts": len(result.attempts),
                        "puml": str(stem.with_suffix(".puml")) if result.puml else None,
                        "error": result.attempts[-1].error if result.attempts else None,
                        "render_error": result.render_error,
                        "tokens": result.usage.total_tokens})
    if args.json:
        print_json(summary)
    else:
        from cluestudio.app.draft_doubts import doubts_summary
        from cluestudio.core.vlm.conversion import attempts_text

        for row, result in zip(summary, results, strict=True):
            state = "ok" if row["ok"] else f"FAILED ({row['error']})"
            doubts = (f"; {doubts_summary(result.puml, str(row['puml']))}"
                      if args.backend == "offline" and row["ok"] and result.puml else "")
            # the offline draft answers once: no attempts to count
            after = ("" if result.deterministic
                     else f" after {attempts_text(len(result.attempts))}")
            print(f"{row['image']}: {state}{after}{doubts}")
    return 0 if all(r["ok"] for r in summary) else 1
