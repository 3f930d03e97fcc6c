"""What a model endpoint may send back (issue 25): a bounded answer from the host we asked.

A model endpoint is not trusted. Unchecked, a 50 MB answer was accepted and sent back whole
in the repair request (millions of tokens on a paid API), and a redirect to another host was
followed silently (the client drops the key there, but not the student's image). The HTTP
client the OpenAI backend uses gets two hooks here:

- every request, redirects included, must go to the host of the configured base URL unless
  the settings allow cross-host redirects (``[llm] allow_cross_host_redirects``);
- an answer is read at most ``max_answer_bytes`` (``[llm] max_answer_kb``) and asked for
  uncompressed, so a small compressed body cannot inflate past the cap.

``openai`` is imported on first use, as by the backend itself.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import cache
from typing import Any

DEFAULT_MAX_ANSWER_BYTES = 1 << 20  # a PlantUML answer is at most the parser's 1 MiB


@cache
def endpoint_refused() -> type[Exception]:
    """The error the guards raise: an ``openai.OpenAIError``, so the client passes it on
    as it is (neither wrapped nor retried)."""
    import openai

    class EndpointRefused(openai.OpenAIError):
        """The endpoint redirected elsewhere or answered past the cap."""

    return EndpointRefused


def _httpx() -> Any:
    # The HTTP package the installed openai client is built on (httpx, or its fork).
    import openai

    base = openai.DefaultHttpxClient.__mro__[1]
    return sys.modules[base.__module__.split(".")[0]]


def _capped_stream(httpx: Any, stream: Any, limit: int, url: str) -> Any:
    """The response body, refused once more than ``limit`` bytes have come."""

    class CappedStream(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            read = 0
            for chunk in stream:
                read += len(chunk)
                if read > limit:
                    raise endpoint_refused()(f"{url}: the answer is over the {limit:,}-byte cap "
                                          "([llm] max_answer_kb); refused")
                yield chunk

        def close(self) -> None:
            stream.close()

    return CappedStream()


def guarded_http_client(base_url: str | None, *, timeout_s: float,
                        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
                        allow_cross_host_redirects: bool = False) -> Any:
    """An HTTP client for ``openai.OpenAI(http_client=…)`` with both guards."""
    httpx = _httpx()
    home = httpx.URL(base_url or "https://api.openai.com/v1").host

    def check_request(request: Any) -> None:
        if request.url.host != home and not allow_cross_host_redirects:
            raise endpoint_refused()(
                f"the endpoint {home} redirected to another host ({request.url.host}); "
                "refused, nothing was sent there (set [llm] allow_cross_host_redirects = "
                "true to allow it)")
        request.headers["accept-encoding"] = "identity"

    def check_response(response: Any) -> None:
        url = f"{response.request.url.scheme}://{response.request.url.host}"
        encoding = response.headers.get("content-encoding", "identity").lower()
        if encoding not in ("identity", ""):
            raise endpoint_refused()(f"{url}: a compressed answer ({encoding}) though none was "
                                  "asked for; refused")
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > max_answer_bytes:
            raise endpoint_refused()(f"{url}: the answer is {int(length):,} bytes, over the "
                                  f"{max_answer_bytes:,}-byte cap ([llm] max_answer_kb); "
                                  "refused")
        response.stream = _capped_stream(httpx, response.stream, max_answer_bytes, url)

    import openai

    return openai.DefaultHttpxClient(
        timeout=timeout_s,
        event_hooks={"request": [check_request], "response": [check_response]})
