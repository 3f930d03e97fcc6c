"""Build a backend from plain options (CLI flags, settings.toml), without importing it early."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.vlm.backend import VLMBackend

BACKENDS = ("openai", "local", "offline")


@dataclass(frozen=True)
class BackendOptions:
    backend: str = "openai"
    model: str = ""
    base_url: str | None = None
    api_key: str | None = None
    temperature: float = 0.0
    max_tokens: int = 2048
    timeout_s: float = 120.0
    retries: int = 5
    concurrency: int = 4
    seed: int | None = 0
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int = 4
    max_answer_bytes: int = 1 << 20
    allow_cross_host_redirects: bool = False


def endpoint_limits(llm: Any) -> dict[str, Any]:
    """The ``[llm]`` settings that bound what an endpoint may send back, as options."""
    return {"max_answer_bytes": llm.max_answer_kb * 1024,
            "allow_cross_host_redirects": llm.allow_cross_host_redirects}


def make_backend(options: BackendOptions) -> VLMBackend:
    if options.backend == "offline":  # no model: boxes + OCR (core.draft, issue 18)
        from cluestudio.core.draft.plugin import OfflineDraftConverter

        converter = OfflineDraftConverter()
        # Boxes + OCR + traced lines: the same draft however often it is asked (its
        # module says so), and a repair round only ran it again (issue 29).
        converter.manifest = replace(converter.manifest, deterministic=True)
        return converter
    if not options.model:
        raise ClueStudioError("no model: pass --model (or set [llm] model in settings.toml)")
    if options.backend == "openai":
        from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend

        return OpenAICompatibleBackend(
            options.model, base_url=options.base_url, api_key=options.api_key,
            temperature=options.temperature, max_tokens=options.max_tokens,
            timeout_s=options.timeout_s, max_retries=options.retries,
            concurrency=options.concurrency, seed=options.seed,
            max_answer_bytes=options.max_answer_bytes,
            allow_cross_host_redirects=options.allow_cross_host_redirects)
    if options.backend == "local":
        from cluestudio.core.vlm.local_backend import TransformersBackend

        return TransformersBackend(
            options.model, device=options.device, dtype=options.dtype,
            max_tokens=options.max_tokens, temperature=options.temperature,
            batch_size=options.batch_size, seed=options.seed or 0)
    raise ClueStudioError(f"unknown backend {options.backend!r}; expected one of {BACKENDS}")


_WORKER_BACKENDS: dict[str, VLMBackend] = {}


def worker_backend(options: Any) -> VLMBackend:
    """This process's backend for ``options`` (a local VLM loads once per executor worker:
    the workspace batches' and the audit's chunks all ask this one)."""
    key = repr(options)
    if key not in _WORKER_BACKENDS:
        _WORKER_BACKENDS[key] = make_backend(options)
    return _WORKER_BACKENDS[key]


def model_id_of(options: BackendOptions) -> str:
    """The model id results are keyed by, without loading a local model here."""
    if options.backend == "local":
        return str(options.model)
    return make_backend(options).model_id
