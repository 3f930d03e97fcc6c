"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted or computed answers.

It speaks just enough of ``POST /v1/chat/completions`` for the ``openai`` client: scripted
replies are served first (an HTTP error, a slow answer, a broken body, any text), then the
``handler`` answers. Requests are recorded for assertions. Nothing leaves the machine.
"""

from __future__ import annotations

import base64
import io
import json
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    delay: float = 0.0  # seconds before answering (timeouts)
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: bytes | None = None  # sent as is (malformed JSON bodies)
    prompt_tokens: int = 11
    completion_tokens: int = 3


Handler = Callable[[dict[str, Any]], "Reply | str"]


class OpenAIStub:
    def __init__(self, handler: Handler | None = None, model: str = "stub-vlm") -> None:
        self.handler: Handler = handler or (lambda request: "Unknown")
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        stub = self

        class _Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = stub._next(body)
                if reply.delay:
                    stub._closing.wait(reply.delay)
                if reply.raw_body is not None:
                    payload = reply.raw_body
                elif reply.status != 200:
                    payload = json.dumps({"error": {"message": reply.text or "stub error",
                                                    "type": "stub", "code": reply.status}}
                                         ).encode()
                else:
                    payload = json.dumps(stub._completion(body, reply)).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        name="openai-stub", daemon=False)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *replies: Reply | str) -> None:
        with self._lock:
            self._script.extend(r if isinstance(r, Reply) else Reply(r) for r in replies)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self._script:
                return self._script.popleft()
        answer = self.handler(body)
        return answer if isinstance(answer, Reply) else Reply(answer)

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply.text}}],
            "usage": {"prompt_tokens": reply.prompt_tokens,
                      "completion_tokens": reply.completion_tokens,
                      "total_tokens": reply.prompt_tokens + reply.completion_tokens},
        }

    def start(self) -> OpenAIStub:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()  # wake slow answers so shutdown does not wait for them
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- helpers for handlers ------------------------------------------------------------------

def user_text(request: dict[str, Any]) -> str:
    """The text of the first user message."""
    for message in request.get("messages", []):
        if message["role"] == "user":
            content = message["content"]
            if isinstance(content, str):
                return content
            return "\n".join(p["text"] for p in content if p.get("type") == "text")
    return ""


def images(request: dict[str, Any]) -> list[bytes]:
    out = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                if part.get("type") == "image_url":
                    url = part["image_url"]["url"]
                    out.append(base64.b64decode(url.split(",", 1)[1]))
    return out


def png_source(png: bytes) -> str:
    """The PlantUML source a PNG carries in its text chunks (PlantUML and our fakes)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        text = getattr(image, "text", {})
    return str(text.get("plantuml", ""))


_ARROW_BEGIN_LEFT = {"--|>", "o--", "*--", "..>"}
_ARROW_BEGIN_RIGHT = {"<|--", "--o", "--*", "<.."}


def diagram_of(source: str) -> tuple[list[str], set[tuple[str, str]]]:
    """Classes and (begin, end) edges of a diagram written by ``AuditInstance.plantuml``."""
    classes = re.findall(r"^class (\w+)", source, flags=re.MULTILINE)
    edges = set()
    for left, arrow, right in re.findall(r"^(\w+) (\S+) (\w+)$", source, flags=re.MULTILINE):
        if arrow in _ARROW_BEGIN_LEFT:
            edges.add((left, right))
        elif arrow in _ARROW_BEGIN_RIGHT:
            edges.add((right, left))
    return classes, edges


_QUESTIONS = (
    re.compile(r"Does class (\w+) inherit from class (\w+)\?"),
    re.compile(r"Is class (\w+) the whole and class (\w+) the part\?"),
    re.compile(r"Does class (\w+) depend on class (\w+)\?"),
)


def question_of(prompt: str) -> tuple[str, str] | None:
    for pattern in _QUESTIONS:
        match = pattern.search(prompt)
        if match:
            return match.group(1), match.group(2)
    return None


def reader_handler(*, follow_prior: bool = False) -> Handler:
    """A model that reads the diagram perfectly, or one that answers True to every question
    (the prior-following extreme of seed 003) while still reading the names correctly."""

    def handle(request: dict[str, Any]) -> str:
        prompt = user_text(request)
        found = images(request)
        classes, edges = diagram_of(png_source(found[0])) if found else ([], set())
        if "List all class names" in prompt:
            return "```json\n" + json.dumps(classes) + "\n```"
        pair = question_of(prompt)
        if pair is None:
            return "Unknown"
        if follow_prior:
            return "**True**"
        return "True." if pair in edges else "false"

    return handle
