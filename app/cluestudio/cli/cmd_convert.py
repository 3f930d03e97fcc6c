"""``cluestudio convert``: student diagram images (A) → PlantUML with a VLM, plus image B.

Also home of the backend flags that ``probe`` and ``audit`` share (defaults: [llm] in
settings.toml), so the three commands take the same options.
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
    group.add_argument("--backend", choices=("openai", "local"), default="openai",
                       help="openai: any OpenAI-compatible server (OpenAI, vLLM, Ollama); "
                            "local: a transformers model on this machine")
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


def backend_from_args(args: argparse.Namespace) -> Any:
    from cluestudio.core.settings import load_settings
    from cluestudio.core.vlm.factory import BackendOptions, make_backend

    settings, _ = load_settings()
    base_url = args.base_url or (settings.llm.base_url if args.backend == "openai" else None)
    return make_backend(BackendOptions(
        backend=args.backend, model=args.model or settings.llm.model, base_url=base_url,
        api_key=settings.api_key(), temperature=args.temperature, max_tokens=args.max_tokens,
        timeout_s=args.timeout, retries=args.retries, concurrency=args.concurrency,
        seed=args.seed, device=args.device, dtype=args.dtype, batch_size=args.batch_size))


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", type=Path, help="PNG/JPEG images (image A)")
    parser.add_argument("--out", type=Path, default=Path("converted"),
                        help="folder for <name>.puml, <name>.b.png, <name>.attempts.json")
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
    add_backend_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.jobs import CancelToken, run_job
    from cluestudio.core.vlm.backend import ImageInput
    from cluestudio.core.vlm.conversion import (
        convert_images,
        default_renderer,
        parser_checker,
    )
    from cluestudio.core.vlm.prompts import load_convert_prompts

    backend = backend_from_args(args)
    items = [(path.name, ImageInput.from_bytes(path.read_bytes())) for path in args.images]
    # check=None: our parser, then PlantUML via the warm renderer (image B reuses its PNG).
    check = None if args.plantuml_check else parser_checker
    results = run_job(convert_images(
        items, backend, CancelToken(), max_repairs=args.max_repairs, check=check,
        render=None if args.no_render else default_renderer,
        prompts=load_convert_prompts(args.prompt_version)), on_progress=stderr_progress)
    args.out.mkdir(parents=True, exist_ok=True)
    summary = []
    for path, result in zip(args.images, results, strict=True):
        stem = args.out / path.stem
        if result.puml is not None:
            stem.with_suffix(".puml").write_text(result.puml + "\n", encoding="utf-8")
        if result.image_b is not None:
            stem.with_suffix(".b.png").write_bytes(result.image_b)
        stem.with_suffix(".attempts.json").write_text(
            json.dumps(result.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
        summary.append({"image": str(path), "ok": result.ok, "attempts": len(result.attempts),
                        "puml": str(stem.with_suffix(".puml")) if result.puml else None,
                        "error": result.attempts[-1].error if result.attempts else None,
                        "render_error": result.render_error,
                        "tokens": result.usage.total_tokens})
    if args.json:
        print_json(summary)
    else:
        for row in summary:
            state = "ok" if row["ok"] else f"FAILED ({row['error']})"
            print(f"{row['image']}: {state} after {row['attempts']} attempt(s)")
    return 0 if all(r["ok"] for r in summary) else 1
