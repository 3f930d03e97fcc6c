"""Any OpenAI-compatible chat endpoint with images: OpenAI itself, vLLM, Ollama.

The ``openai`` package is imported on first use. Retries are ours, not the client's, so the
back-off honours ``Retry-After``, is logged, and can be tuned or disabled in tests.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cluestudio.core.redact import redact, remember_secret
from cluestudio.core.vlm.backend import (
    BackendError,
    BackendManifest,
    Usage,
    VLMRequest,
    VLMResponse,
    openai_messages,
)

log = logging.getLogger("cluestudio.vlm")

API_KEY_ENV = ("CLUESTUDIO_API_KEY", "OPENAI_API_KEY")
KEYRING_SERVICE = "cluestudio"
# vLLM and Ollama accept any key, but the client insists on one.
PLACEHOLDER_KEY = "not-needed"


def resolve_api_key(base_url: str | None, explicit: str | None = None) -> str | None:
    """Key from the argument, the environment, or the OS keyring (never the workspace file).

    The keyring entry is ``service="cluestudio"``, ``username=<base URL or "openai">``.
    """
    if explicit:
        return explicit
    for name in API_KEY_ENV:
        value = os.environ.get(name)
        if value:
            return value
    try:
        import keyring  # optional: a desktop user stores the key once
    except ImportError:
        return None
    try:
        return keyring.get_password(KEYRING_SERVICE, base_url or "openai")
    except Exception as error:  # no keyring backend on a headless server is normal
        log.debug("keyring lookup failed: %s", error)
        return None


class OpenAICompatibleBackend:
    """Chat completions with base64 images, a concurrency limit, retries and usage logging."""

    manifest = BackendManifest(
        name="openai-compatible",
        version="1",
        kinds=("converter", "probe"),
        description="OpenAI-compatible chat completions (OpenAI, vLLM, Ollama) with images",
    )

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 2048,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        backoff_max_s: float = 60.0,
        concurrency: int = 4,
        seed: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_answer_bytes: int = 1 << 20,
        allow_cross_host_redirects: bool = False,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s
        self.seed = seed
        self.max_answer_bytes = max_answer_bytes
        self.allow_cross_host_redirects = allow_cross_host_redirects
        self._concurrency = max(1, concurrency)
        self._slots = threading.BoundedSemaphore(self._concurrency)
        self._sleep = sleep
        self._client: Any = None
        self._lock = threading.Lock()
        self._usage = Usage()
        self._jitter = random.Random(seed)

    @property
    def model_id(self) -> str:
        return self.model

    @property
    def concurrency(self) -> int:
        return self._concurrency

    @property
    def usage(self) -> Usage:
        """Tokens used by this backend object so far (all calls, all threads)."""
        return self._usage

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    import openai
                except ImportError as error:
                    raise BackendError(
                        "the OpenAI-compatible backend needs the 'openai' package "
                        "(pip install openai)"
                    ) from error
                key = resolve_api_key(self.base_url, self._api_key)
                remember_secret(key)  # never shown again, whatever an endpoint echoes
                if key is None and self.base_url is None:
                    raise BackendError(
                        "no API key: set CLUESTUDIO_API_KEY or OPENAI_API_KEY, or store one "
                        "with `keyring set cluestudio openai`"
                    )
                from cluestudio.core.vlm.endpoint_guard import guarded_http_client

                self._client = openai.OpenAI(
                    base_url=self.base_url, api_key=key or PLACEHOLDER_KEY,
                    timeout=self.timeout_s, max_retries=0,
                    http_client=guarded_http_client(
                        self.base_url, timeout_s=self.timeout_s,
                        max_answer_bytes=self.max_answer_bytes,
                        allow_cross_host_redirects=self.allow_cross_host_redirects),
                )
            return self._client

    def complete(self, request: VLMRequest) -> VLMResponse:
        import openai

        from cluestudio.core.vlm.endpoint_guard import endpoint_refused

        refused = endpoint_refused()
        client = self._get_client()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": openai_messages(request),
            "temperature": self.temperature if request.temperature is None
            else request.temperature,
            "max_tokens": request.max_tokens or self.max_tokens,
        }
        if self.seed is not None:
            kwargs["seed"] = self.seed
        started = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            try:
                with self._slots:
                    reply = client.chat.completions.create(**kwargs)
                break
            except refused as error:  # the endpoint's doing: asking again won't help
                raise BackendError(f"{self.model}: {_short(error)}") from error
            except (openai.APITimeoutError, openai.APIConnectionError,
                    openai.RateLimitError, openai.InternalServerError,
                    openai.APIResponseValidationError, ValueError) as error:
                # ValueError: a body that is not JSON (a proxy hiccup) is worth one more try.
                failure: Exception = error
            except openai.APIStatusError as error:
                if error.status_code < 500:  # 4xx other than 429: asking again won't help
                    raise BackendError(f"{self.model}: HTTP {error.status_code}: "
                                       f"{_short(error)}") from error
                failure = error
            if attempt > self.max_retries:
                raise BackendError(
                    f"{self.model}: gave up after {attempt} attempts: {_short(failure)}"
                ) from failure
            delay = self._delay(attempt, _retry_after(failure))
            log.warning("%s: %s; retry %d/%d in %.2fs", self.model, _short(failure),
                        attempt, self.max_retries, delay)
            self._sleep(delay)
        seconds = time.perf_counter() - started
        text = (reply.choices[0].message.content or "") if reply.choices else ""
        usage = Usage(
            getattr(reply.usage, "prompt_tokens", 0) or 0,
            getattr(reply.usage, "completion_tokens", 0) or 0,
        ) if reply.usage is not None else Usage()
        with self._lock:
            self._usage = self._usage + usage
        log.info("%s: %d prompt + %d completion tokens, %.2fs, %d attempt(s)", self.model,
                 usage.prompt_tokens, usage.completion_tokens, seconds, attempt)
        _check_answer_tokens(self.model, text, usage, kwargs["max_tokens"])
        return VLMResponse(text=text, model=getattr(reply, "model", None) or self.model,
                           usage=usage, seconds=seconds, attempts=attempt)

    def complete_batch(self, requests: Sequence[VLMRequest]) -> list[VLMResponse]:
        if len(requests) <= 1:
            return [self.complete(r) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self._concurrency, len(requests))) as pool:
            return list(pool.map(self.complete, requests))

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(self.backoff_max_s, retry_after)
        base = self.backoff_s * (2 ** (attempt - 1))
        # Jitter keeps a team's clients from retrying in lock-step against a shared server.
        return min(self.backoff_max_s, base * (1.0 + 0.25 * self._jitter.random()))


# No tokenizer writes more than this many characters a token: a longer answer came from an
# endpoint that ignored max_tokens, and would cost as much again in a repair request.
_MAX_CHARS_PER_TOKEN = 16


def _check_answer_tokens(model: str, text: str, usage: Usage, max_tokens: int) -> None:
    """Refuse an answer longer than the ``max_tokens`` we asked for, by the endpoint's own
    count or by its length."""
    if usage.completion_tokens > max_tokens or len(text) > max_tokens * _MAX_CHARS_PER_TOKEN:
        raise BackendError(
            f"{model}: the answer ({usage.completion_tokens:,} tokens, {len(text):,} "
            f"characters) is longer than the {max_tokens:,} tokens asked for; refused")


def _retry_after(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _short(error: Exception) -> str:
    # Redacted first, then cut: a cut key would no longer be recognised as one.
    return (redact(str(error)).splitlines() or [type(error).__name__])[0][:200]
