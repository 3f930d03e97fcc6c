"""Model calls through an OpenAI-compatible endpoint: requests/s with 1, 4 and 16 requests in
flight, and the retries (issue 20, item 3).

The endpoint is the test suite's stub server (tests/support/openai_stub.py, a real HTTP
server on 127.0.0.1) answering each request after a fixed delay that stands for the model's
time (default 200 ms, a short VLM answer on a served GPU); the client is
:class:`~cluestudio.core.vlm.openai_backend.OpenAICompatibleBackend`, whose semaphore caps
the requests in flight. A second pass has the server answer 429 (with Retry-After: 0) to
every fifth request: each is retried with back-off and every request still succeeds.

    python benchmarks/bench_endpoint.py [--requests 96] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from cluestudio.core.vlm.backend import VLMRequest
from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend
from support.openai_stub import OpenAIStub, Reply


def measure(concurrency: int, requests: int, delay: float, throttle_every: int = 0
            ) -> tuple[float, int, int]:
    """(requests/s, requests the server saw, most in flight at once)."""
    counter = itertools.count(1)
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()

    def handler(request: dict[str, object]) -> Reply:
        number = next(counter)
        if throttle_every and number % throttle_every == 0:
            return Reply("slow down", status=429, headers={"retry-after": "0"})
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(delay)
        with lock:
            state["now"] -= 1
        return Reply("ok")

    with OpenAIStub(handler) as stub:
        backend = OpenAICompatibleBackend("stub-vlm", base_url=stub.url, api_key="sk-bench",
                                          concurrency=concurrency, backoff_s=0.05,
                                          backoff_max_s=0.2, seed=20)
        batch = [VLMRequest(f"question {i}") for i in range(requests)]
        started = time.perf_counter()
        answers = backend.complete_batch(batch)
        seconds = time.perf_counter() - started
        assert [a.text for a in answers] == ["ok"] * requests
        return requests / seconds, len(stub.requests), state["peak"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=96)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args(argv)
    print(f"{args.requests} requests, the server answers each after {args.delay * 1000:.0f} ms")
    base = None
    for concurrency in (1, 4, 16):
        rate, seen, peak = measure(concurrency, args.requests, args.delay)
        base = base or rate
        ideal = concurrency / args.delay
        print(f"  {concurrency:>2} in flight: {rate:6.1f} requests/s ({rate / base:4.1f}× one at "
              f"a time; ideal {ideal:.0f}/s), at most {peak} at the server")
    rate, seen, peak = measure(16, args.requests, args.delay, throttle_every=5)
    print(f"  16 in flight, every 5th request answered 429: {rate:6.1f} requests/s, "
          f"{seen - args.requests} retried, all {args.requests} answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
