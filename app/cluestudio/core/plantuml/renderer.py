"""The renderer service: PlantUML text → PNG or SVG bytes from one warm, sandboxed JVM.

A JVM costs about a second to start, so one stays running in PlantUML's ``-pipe`` mode and
serves every diagram of the process (``docs/adr/0002-warm-plantuml-renderer.md`` says why
pipe and not PicoWeb). Student text is untrusted (DESIGN §8): the sandbox security profile,
a scrubbed environment, an input size limit and a per-diagram timeout apply to every call.
"""

from __future__ import annotations

import atexit
import os
import re
import subprocess
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from cluestudio.core.errors import RenderError, RendererUnavailable, RenderTimeout
from cluestudio.core.plantuml import runtime
from cluestudio.core.plantuml._pipe import PipeDied, PipeReply, PipeTimeout, PlantUMLPipe
from cluestudio.core.plantuml.runtime import RuntimeMissing

Format = Literal["png", "svg"]
FORMATS: tuple[Format, ...] = ("png", "svg")

DEFAULT_TIMEOUT = 20.0
DEFAULT_MAX_INPUT_BYTES = 256 * 1024
# Largest image side in pixels (PlantUML's default is 4096, which crops big class diagrams).
# 8192² pixels stays under Pillow's decompression-bomb guard (~89 Mpx), which stays on.
LIMIT_SIZE = 8192
# JVM start and class loading are not the diagram's fault: they get their own allowance.
STARTUP_TIMEOUT = 60.0

# -pipeNoStderr: the ERROR report comes on stdout in place of the image, so an answer is
# either an image or an error, never both. -nometadata: no copy of the source in the image.
_PIPE_ARGS = ("-pipe", "-pipeNoStderr", "-nometadata", "-charset", "UTF-8")
_SECURITY_PROPERTIES = (
    # runtime.JVM_ARGS sets the profile already; the environment variable is a second lock
    # for launchers that drop -D options (PlantUML reads the property, then the variable).
    ("PLANTUML_SECURITY_PROFILE", "SANDBOX"),
    ("PLANTUML_LIMIT_SIZE", str(LIMIT_SIZE)),
)
# %getenv() works even in the sandbox profile, so a submission could print an API key into
# its image: the JVM sees only what it needs to run and find fonts.
_ENV_KEEP = (
    "PATH", "SYSTEMROOT", "WINDIR", "TEMP", "TMP", "TMPDIR", "HOME", "USERPROFILE",
    "LANG", "LC_ALL", "LC_CTYPE", "FONTCONFIG_FILE", "FONTCONFIG_PATH",
)
_WARMUP = "@startuml\nclass Warmup {\n  +name: String\n}\nWarmup --> Warmup\n@enduml\n"

# Java's BufferedReader.readLine splits lines exactly here; the line numbers must agree.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_START_WORD = re.compile(r"@start([A-Za-z0-9_]*)")
_JAVA_EXCEPTION = re.compile(
    r"^(?:Exception in thread .*|(?:[A-Za-z_$][\w$]*\.)+[\w$]*(?:Exception|Error)\b.*)$",
    re.MULTILINE,
)
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def jvm_command(*plantuml_args: str) -> list[str]:
    """The full command line for a sandboxed PlantUML JVM with ``plantuml_args``."""
    java, *rest = runtime.base_command(*plantuml_args)
    return [java, *(f"-D{key}={value}" for key, value in _SECURITY_PROPERTIES), *rest]


def jvm_environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key.upper() in _ENV_KEEP}
    env.update(_SECURITY_PROPERTIES)
    return env


@dataclass(frozen=True)
class _Prepared:
    """The user's text as the single block PlantUML's pipe reader needs, plus line mapping."""

    block: str
    lines: list[str]  # the user's lines, to quote the offending one
    offset: int  # user's 1-based line = PlantUML's 0-based index within the block + offset
    last_line: int  # last user line that made it into the block

    def user_line(self, plantuml_index: int) -> int:
        return max(1, min(plantuml_index + self.offset, self.last_line))


def _prepare(text: str) -> _Prepared:
    lines = _LINE_BREAK.split(text)
    # PlantUML only looks for @start/@end at column 0 and drops what precedes @start.
    start = next((i for i, line in enumerate(lines) if line.startswith("@start")), None)
    if start is None:
        head, body, offset, end = "@startuml", lines, 0, "@enduml"
    else:
        head, body, offset = lines[start], lines[start + 1 :], start + 1
        match = _START_WORD.match(head)
        end = "@end" + (match.group(1) if match else "uml")
    # Anything after the first @end line would reach PlantUML as a second diagram and put
    # the request/answer protocol out of step; PlantUML ignores it in a file anyway.
    stop = next((i for i, line in enumerate(body) if line.startswith("@end")), len(body))
    body = body[:stop]
    # "@@@format" lines would switch the output format of this and later requests.
    body = [" " + line if line.startswith("@@@format") else line for line in body]
    block = "\n".join([head, *body, end]) + "\n"
    return _Prepared(block, lines, offset, max(1, offset + len(body)))


def _check_request(text: str, fmt: str, max_input_bytes: int, source: str | None) -> None:
    if fmt not in FORMATS:
        raise RenderError(f"unknown image format {fmt!r} (use png or svg)", source=source)
    size = len(text.encode("utf-8", "replace"))
    if size > max_input_bytes:
        raise RenderError(
            f"diagram text is {size / 1024:.0f} KB, over the {max_input_bytes / 1024:.0f} KB "
            "limit for rendering",
            source=source,
        )


def _image_or_error(reply: PipeReply, fmt: Format, prepared: _Prepared,
                    source: str | None) -> bytes:
    """The image bytes of one answer, or the RenderError it stands for."""
    out = reply.stdout
    if out.startswith(b"ERROR\n"):
        # -pipeNoStderr report: "ERROR", 0-based line index within the block, messages.
        _, index, *messages = out.decode("utf-8", "replace").split("\n")
        message = "; ".join(m.strip() for m in messages if m.strip())
        line = prepared.user_line(int(index)) if index.strip().lstrip("-").isdigit() else None
        text = prepared.lines[line - 1] if line is not None else ""
        raise RenderError(message or "PlantUML could not read the diagram",
                          line=line, text=text, source=source)
    crash = _JAVA_EXCEPTION.search(reply.stderr)
    if crash is not None:
        # PlantUML drew its "An error has occured" picture; that is a failure, not a diagram.
        raise RenderError(f"PlantUML failed while drawing the diagram: {crash.group(0).strip()}",
                          source=source)
    signature = _PNG_SIGNATURE if fmt == "png" else b"<svg"
    found = out.find(signature)
    if found < 0:
        raise RenderError(f"PlantUML returned no {fmt.upper()} image", source=source)
    if fmt == "svg":
        declaration = out.rfind(b"<?xml", 0, found)
        found = declaration if declaration >= 0 else found
    return out[found:]


class PlantUMLRenderer:
    """Renders PlantUML text with one long-lived JVM; safe to share between threads.

    The JVM starts on the first render, is restarted (and the render retried once) if it
    died, and is killed when a diagram exceeds ``timeout`` seconds. Calls are serialised:
    one JVM renders one diagram at a time, which on a laptop is also the fastest.
    """

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT,
                 max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
                 startup_timeout: float = STARTUP_TIMEOUT) -> None:
        self.timeout = timeout
        self.max_input_bytes = max_input_bytes
        self.startup_timeout = startup_timeout
        self._lock = threading.Lock()
        self._pipe: PlantUMLPipe | None = None

    @property
    def pid(self) -> int | None:
        """Process id of the running JVM, if one is running (for diagnostics and tests)."""
        pipe = self._pipe
        return pipe.pid if pipe is not None and pipe.alive() else None

    def render(self, text: str, fmt: Format = "png", *, source: str | None = None) -> bytes:
        """PNG or SVG bytes of the first diagram in ``text``; :class:`RenderError` if none.

        ``text`` may omit ``@startuml``/``@enduml``. Error lines are 1-based lines of
        ``text``; ``source`` (a file name) is named in errors.
        """
        _check_request(text, fmt, self.max_input_bytes, source)
        prepared = _prepare(text)
        request = f"@@@format {fmt}\n{prepared.block}".encode("utf-8", "replace")
        with self._lock:
            reply = self._exchange(request, fmt, source)
            if "OutOfMemoryError" in reply.stderr or "StackOverflowError" in reply.stderr:
                self._discard()  # a JVM past these is not to be trusted with the next one
        return _image_or_error(reply, fmt, prepared, source)

    def _exchange(self, request: bytes, fmt: Format, source: str | None) -> PipeReply:
        for attempt in (1, 2):
            pipe = self._running_pipe(fmt, source)
            try:
                return pipe.request(request, self.timeout)
            except PipeTimeout:
                self._discard()
                raise RenderTimeout(
                    f"rendering took longer than {self.timeout:g} s; PlantUML was stopped",
                    source=source,
                ) from None
            except PipeDied as died:
                self._discard()
                if attempt == 2:
                    raise RenderError(f"PlantUML stopped while rendering: {died}",
                                      source=source) from None
        raise AssertionError("unreachable")

    def _running_pipe(self, fmt: Format, source: str | None) -> PlantUMLPipe:
        if self._pipe is not None and self._pipe.alive():
            return self._pipe
        self._discard()
        try:
            pipe = PlantUMLPipe(jvm_command(*_PIPE_ARGS), jvm_environment())
            # One small diagram pays for JVM start and class loading under the startup
            # allowance, so the caller's diagram gets the whole per-diagram timeout.
            pipe.request(f"@@@format {fmt}\n{_WARMUP}".encode(), self.startup_timeout)
        except RuntimeMissing as error:
            raise RendererUnavailable(str(error), source=source) from None
        except (PipeDied, PipeTimeout) as error:
            raise RendererUnavailable(f"PlantUML did not start: {error or 'timed out'}",
                                      source=source) from None
        self._pipe = pipe
        return pipe

    def _discard(self) -> None:
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            pipe.kill()

    def close(self) -> None:
        """Stop the JVM. A later render starts a fresh one."""
        with self._lock:
            pipe, self._pipe = self._pipe, None
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> PlantUMLRenderer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


_shared: PlantUMLRenderer | None = None
_shared_lock = threading.Lock()


def get_renderer() -> PlantUMLRenderer:
    """The process-wide renderer (GUI worker, CLI batches); its JVM is stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = PlantUMLRenderer()
            atexit.register(_shared.close)
        return _shared


def render_once(text: str, fmt: Format = "png", *, source: str | None = None,
                timeout: float = DEFAULT_TIMEOUT) -> bytes:
    """Render with a JVM of its own (about a second each): the baseline the service beats."""
    _check_request(text, fmt, DEFAULT_MAX_INPUT_BYTES, source)
    prepared = _prepare(text)
    try:
        done = subprocess.run(
            jvm_command(*_PIPE_ARGS, f"-t{fmt}"),
            input=prepared.block.encode("utf-8", "replace"),
            capture_output=True,
            timeout=timeout,
            env=jvm_environment(),
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise RenderTimeout(f"rendering took longer than {timeout:g} s; PlantUML was stopped",
                            source=source) from None
    except OSError as error:
        raise RendererUnavailable(f"cannot start Java: {error}", source=source) from None
    reply = PipeReply(done.stdout, done.stderr.decode("utf-8", "replace"))
    return _image_or_error(reply, fmt, prepared, source)
