"""The renderer service: PlantUML text → PNG, SVG or XMI, syntax reports and preprocessed
text, from one warm, sandboxed JVM.

A JVM costs about a second to start, so one stays running and serves every diagram of the
process (``docs/adr/0002-warm-plantuml-renderer.md``). It runs ClueStudio's own small server
class around PlantUML's API rather than PlantUML's ``-pipe`` mode: every answer is framed by
its own length and the id of its request, so no diagram text can decide which answer belongs
to which request. Student text is untrusted (DESIGN §8): the sandbox security profile,
``%getenv`` switched off, a scrubbed environment, an input size limit, a per-diagram timeout
and a JVM memory cap apply to every call.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import re
import threading
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import Literal

from cluestudio.core.errors import (
    ClueStudioError,
    RenderError,
    RendererUnavailable,
    RenderTimeout,
)
from cluestudio.core.plantuml import runtime
from cluestudio.core.plantuml._server import (
    RenderServerProcess,
    ServerAnswer,
    ServerDied,
    ServerTimeout,
)
from cluestudio.core.plantuml.runtime import RuntimeMissing
from cluestudio.core.plantuml.syntax_report import SyntaxReport

Format = Literal["png", "svg"]
FORMATS: tuple[Format, ...] = ("png", "svg")
XmiFlavour = Literal["standard", "star", "argo"]
_XMI_COMMANDS: dict[str, str] = {"standard": "xmi", "star": "xmi:star", "argo": "xmi:argo"}

DEFAULT_TIMEOUT = 20.0
DEFAULT_MAX_INPUT_BYTES = 256 * 1024
# A string-doubling or !define bomb otherwise grows the JVM to several GB before the timeout;
# the largest real class diagrams we tried need well under 300 MB.
DEFAULT_MAX_MEMORY_MB = 1024
# Largest image side in pixels (PlantUML's default is 4096, which crops big class diagrams).
# 8192² pixels stays under Pillow's decompression-bomb guard (~89 Mpx), which stays on.
LIMIT_SIZE = 8192
# JVM start and class loading are not the diagram's fault: they get their own allowance.
STARTUP_TIMEOUT = 60.0

SERVER_JAR = Path(__file__).with_name("java") / "cluestudio-render-server.jar"
_SERVER_CLASS = "cluestudio.RenderServer"
# PNG in under half the CPU (docs/adr/0002): java/png_palette holds bit-identical twins of
# PlantUML's two PNG packers (Quantify555, QuantifyPacked28: pixel by pixel through the colour
# model in PlantUML's own) and an ImageIO writer for palette images without the JDK's per-row
# filter search (the same image in fewer bytes; other images go to the JDK's writer). The jar
# goes before PlantUML's on the class path, so its classes win, but only for the exact
# classes the twins were ported from; any other jar (a user's own, a later release) keeps
# its own code and the JDK's writer.
PNG_PALETTE_JAR = SERVER_JAR.with_name("cluestudio-png-palette.jar")
PNG_PALETTE_PORTED_FROM = {  # PlantUML 1.2026.2, MIT build
    "net/sourceforge/plantuml/png/quant/Quantify555.class":
        "bee648ea8105a6389286670da98c35cf793683988a1b7323ad0727ecb50d95fe",
    "net/sourceforge/plantuml/png/quant/Cube555.class":
        "293eb3f07ae7e25b450f81e115bb8d76e6f64c2f46ea4b2a373273a07bc04431",
    "net/sourceforge/plantuml/png/quant/QuantifyPacked28.class":
        "db191a0ea4dff13d1a9d4f3d05a9aafc874efcaf6e6630d18ed535c094a73c73",
    "net/sourceforge/plantuml/png/quant/QuantUtils.class":
        "739c0ae615801b4375f6c2f7492bdd360d31a996c665bcc08b20a03693a08442",
}
# Config lines the server applies to every diagram: what -Playout=smetana adds on PlantUML's
# command line (its Java port of Graphviz, so no `dot` binary is needed).
_CONFIG = ("!pragma layout smetana",)
_SECURITY_PROPERTIES = (
    # runtime.JVM_ARGS sets the profile already. Not in the environment: PlantUML 1.2023 on
    # lets %getenv read any PLANTUML* variable; the server checks the profile instead and
    # refuses to start without SANDBOX (RenderServer.sandbox).
    ("PLANTUML_SECURITY_PROFILE", "SANDBOX"),
    ("PLANTUML_LIMIT_SIZE", str(LIMIT_SIZE)),
)
# The server switches %getenv off; the JVM still sees only what it needs to run and find
# fonts, so no API key is ever in its reach.
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
_ENTITY_COUNT = re.compile(r"\((\d+) \w+\)")
# Links a diagram may keep in SVG: the web and mail. file:, javascript:, data: and relative
# paths (which resolve to local files when the SVG is opened from disk) become "#".
_SVG_LINK = re.compile(rb'((?:xlink:)?href=")([^"]*)(")')
_SAFE_LINK = re.compile(rb"(?i)(?:https?:|mailto:|#)")


def png_palette_port_fits(jar: Path) -> bool:
    """Whether ``jar``'s PNG packer classes are the ones our faster twins were ported from."""
    try:
        stat = jar.stat()
    except OSError:
        return False
    return _palette_classes_match(str(jar), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=8)
def _palette_classes_match(jar: str, size: int, mtime_ns: int) -> bool:
    # size and mtime: a jar replaced in place is looked at again.
    try:
        with zipfile.ZipFile(jar) as archive:
            return all(hashlib.sha256(archive.read(name)).hexdigest() == digest
                       for name, digest in PNG_PALETTE_PORTED_FROM.items())
    except (OSError, KeyError, zipfile.BadZipFile):
        return False


def jvm_command(max_memory_mb: int = DEFAULT_MAX_MEMORY_MB, jar: Path | None = None,
                *, fast_png: bool = True) -> list[str]:
    """The full command line of a sandboxed render server JVM (``jar``: a PlantUML jar
    other than the configured one; ``fast_png=False``: PlantUML's own PNG steps even where
    ours fit, for comparing the two)."""
    plantuml = jar or runtime.plantuml_jar()
    palette = [str(PNG_PALETTE_JAR)] if fast_png and png_palette_port_fits(plantuml) else []
    classpath = os.pathsep.join([str(SERVER_JAR), *palette, str(plantuml)])
    return [
        str(runtime.java_executable()),
        *runtime.JVM_ARGS,
        f"-Xmx{max_memory_mb}m",
        *(f"-D{key}={value}" for key, value in _SECURITY_PROPERTIES),
        "-cp", classpath, _SERVER_CLASS, *_CONFIG,
    ]


def jvm_environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key.upper() in _ENV_KEEP}
    env.update((key, value) for key, value in _SECURITY_PROPERTIES
               if key != "PLANTUML_SECURITY_PROFILE")
    return env


@dataclass(frozen=True)
class _Prepared:
    """The user's text as the single block PlantUML reads, plus the line mapping back."""

    block: str
    lines: list[str]  # the user's lines, to quote the offending one
    offset: int  # user's 1-based line = PlantUML's 0-based index within the block + offset
    last_line: int  # last user line that made it into the block

    def user_line(self, plantuml_index: int) -> int:
        return max(1, min(plantuml_index + self.offset, self.last_line))


@dataclass(frozen=True)
class Preprocessed:
    """A diagram after PlantUML's preprocessor: one entry per expanded line."""

    lines: list[str]  # the expanded lines, without @startuml/@enduml
    origins: list[int]  # for each, the 1-based line of the user's text it came from


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
    # Only the first diagram of a file is drawn, as PlantUML does for a file's first image.
    stop = next((i for i, line in enumerate(body) if line.startswith("@end")), len(body))
    body = body[:stop]
    block = "\n".join([head, *body, end]) + "\n"
    return _Prepared(block, lines, offset, max(1, offset + len(body)))


def _check_request(text: str, max_input_bytes: int, source: str | None) -> None:
    size = len(text.encode("utf-8", "replace"))
    if size > max_input_bytes:
        raise RenderError(
            f"diagram text is {size / 1024:.0f} KB, over the {max_input_bytes / 1024:.0f} KB "
            "limit for rendering",
            source=source,
        )


def _check_format(fmt: str, source: str | None) -> None:
    if fmt not in FORMATS:
        raise RenderError(f"unknown image format {fmt!r} (use png or svg)", source=source)


def _report_error(body: bytes, prepared: _Prepared, source: str | None) -> RenderError:
    """The RenderError an ERROR answer stands for: 0-based line index, then messages."""
    index, _, rest = body.decode("utf-8", "replace").partition("\n")
    message = "; ".join(m.strip() for m in rest.split("\n") if m.strip())
    line = prepared.user_line(int(index)) if index.strip().lstrip("-").isdigit() else None
    text = prepared.lines[line - 1] if line is not None and line <= len(prepared.lines) else ""
    return RenderError(message or "PlantUML could not read the diagram",
                       line=line, text=text, source=source)


def _failure(answer: ServerAnswer, prepared: _Prepared, source: str | None,
             max_memory_mb: int) -> RenderError | None:
    """The error an answer stands for, or None when PlantUML did its job."""
    if answer.status == "ERROR":
        return _report_error(answer.body, prepared, source)
    if answer.status == "OOM" or "OutOfMemoryError" in answer.log:
        return RenderError(f"PlantUML ran out of memory (limit {max_memory_mb} MB) on this "
                           "diagram", source=source)
    if answer.status == "CRASH":
        detail = answer.body.decode("utf-8", "replace").strip()
        return RenderError(f"PlantUML failed on the diagram: {detail}", source=source)
    crash = _JAVA_EXCEPTION.search(answer.log)
    if crash is not None:
        # PlantUML drew its "An error has occured" picture; that is a failure, not a diagram.
        return RenderError(f"PlantUML failed while drawing the diagram: "
                           f"{crash.group(0).strip()}", source=source)
    return None


def _image(answer: ServerAnswer, fmt: Format, source: str | None) -> bytes:
    out = answer.body
    signature = _PNG_SIGNATURE if fmt == "png" else b"<svg"
    found = out.find(signature)
    if found < 0:
        raise RenderError(f"PlantUML returned no {fmt.upper()} image", source=source)
    if fmt == "svg":
        declaration = out.rfind(b"<?xml", 0, found)
        return safe_svg_links(out[declaration if declaration >= 0 else found :])
    return out[found:]


def safe_svg_links(svg: bytes) -> bytes:
    """``svg`` with every link that is not http(s), mailto or a fragment turned into ``#``."""

    def replace(match: re.Match[bytes]) -> bytes:
        target = match.group(2).strip()
        keep = _SAFE_LINK.match(target) is not None
        return match.group(1) + (target if keep else b"#") + match.group(3)

    return _SVG_LINK.sub(replace, svg)


def _syntax_report(answer: ServerAnswer, prepared: _Prepared) -> SyntaxReport:
    if answer.status == "ERROR":
        error = _report_error(answer.body, prepared, None)
        return SyntaxReport("ERROR", None, error.line, error.message)
    kind, _, description = answer.body.decode("utf-8", "replace").partition("\n")
    match = _ENTITY_COUNT.search(description)
    return SyntaxReport(kind.strip() or "OTHER", int(match.group(1)) if match else None, None,
                        description.strip())


def _preprocessed(answer: ServerAnswer, prepared: _Prepared) -> Preprocessed:
    split = [row.partition("\t") for row in answer.body.decode("utf-8", "replace").split("\n")]
    rows = [(index, text) for index, _, text in split if index.strip().isdigit()]
    # The block's own @start/@end lines are ours (or the user's), not diagram content.
    if rows and rows[0][1].startswith("@start"):
        rows = rows[1:]
    if rows and rows[-1][1].startswith("@end"):
        rows = rows[:-1]
    return Preprocessed([text for _, text in rows],
                        [prepared.user_line(int(index)) for index, _ in rows])


class PlantUMLRenderer:
    """Renders PlantUML text with one long-lived JVM; safe to share between threads.

    The JVM starts on the first call, is restarted (and the call retried once) if it died,
    and is killed when a diagram exceeds ``timeout`` seconds or its memory limit. Calls are
    serialised: one JVM draws one diagram at a time, which on a laptop is also the fastest.
    """

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT,
                 max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
                 startup_timeout: float = STARTUP_TIMEOUT,
                 max_memory_mb: int = DEFAULT_MAX_MEMORY_MB,
                 jar: Path | None = None, fast_png: bool = True) -> None:
        self.timeout = timeout
        self.jar = jar  # None: the configured jar (runtime.plantuml_jar)
        self.fast_png = fast_png  # False: PlantUML's own PNG steps (jvm_command)
        self.max_input_bytes = max_input_bytes
        self.startup_timeout = startup_timeout
        self.max_memory_mb = max_memory_mb
        self._lock = threading.Lock()
        self._server: RenderServerProcess | None = None

    @property
    def pid(self) -> int | None:
        """Process id of the running JVM, if one is running (for diagnostics and tests)."""
        server = self._server
        return server.pid if server is not None and server.alive() else None

    def render(self, text: str, fmt: Format = "png", *, source: str | None = None) -> bytes:
        """PNG or SVG bytes of the first diagram in ``text``; :class:`RenderError` if none.

        ``text`` may omit ``@startuml``/``@enduml``. Error lines are 1-based lines of
        ``text``; ``source`` (a file name) is named in errors.
        """
        _check_format(fmt, source)
        answer, prepared = self._ask(fmt, text, source)
        failure = _failure(answer, prepared, source, self.max_memory_mb)
        if failure is not None:
            raise failure
        return _image(answer, fmt, source)

    def check_syntax(self, text: str, *, source: str | None = None,
                     timeout: float | None = None) -> SyntaxReport:
        """PlantUML's verdict without drawing: the diagram type and entity count, or the
        error and its 1-based line (what ``java -jar plantuml.jar -syntax`` prints)."""
        answer, prepared = self._ask("syntax", text, source, timeout)
        if answer.status != "ERROR":
            failure = _failure(answer, prepared, source, self.max_memory_mb)
            if failure is not None:
                raise failure
        return _syntax_report(answer, prepared)

    def preprocess(self, text: str, *, source: str | None = None) -> Preprocessed:
        """The diagram after PlantUML's preprocessor (``!define``, ``!procedure``, ``!if``,
        ``$variables``), each line with the user's line it came from; RenderError on a
        preprocessor error. ``!include`` stays sandboxed: only PlantUML's bundled stdlib."""
        answer, prepared = self._ask("preproc", text, source)
        failure = _failure(answer, prepared, source, self.max_memory_mb)
        if failure is not None:
            raise failure
        return _preprocessed(answer, prepared)

    def xmi(self, text: str, flavour: XmiFlavour = "star", *,
            source: str | None = None) -> bytes:
        """PlantUML's XMI export (``-txmi:star`` lists relations; ``standard`` only classes)."""
        answer, prepared = self._ask(_XMI_COMMANDS[flavour], text, source)
        failure = _failure(answer, prepared, source, self.max_memory_mb)
        if failure is not None:
            raise failure
        return answer.body

    def _ask(self, command: str, text: str, source: str | None,
             timeout: float | None = None) -> tuple[ServerAnswer, _Prepared]:
        _check_request(text, self.max_input_bytes, source)
        prepared = _prepare(text)
        payload = prepared.block.encode("utf-8", "replace")
        with self._lock:
            answer = self._exchange(command, payload, source, timeout or self.timeout)
            if answer.status == "OOM" or any(
                    name in answer.log for name in ("OutOfMemoryError", "StackOverflowError")):
                self._discard()  # a JVM past these is not to be trusted with the next one
        return answer, prepared

    def _exchange(self, command: str, payload: bytes, source: str | None,
                  timeout: float) -> ServerAnswer:
        for attempt in (1, 2):
            server = self._running_server(source)
            try:
                return server.request(command, payload, timeout)
            except ServerTimeout:
                self._discard()
                raise RenderTimeout(
                    f"rendering took longer than {timeout:g} s; PlantUML was stopped",
                    source=source,
                ) from None
            except ServerDied as died:
                self._discard()
                if attempt == 2:
                    raise RenderError(f"PlantUML stopped while rendering: {died}",
                                      source=source) from None
        raise AssertionError("unreachable")

    def start_in_background(self) -> threading.Thread:
        """Start the JVM on a thread of its own and return at once, so that it starts while
        the caller does other work (loading an encoder); a render or check asked meanwhile
        waits for it. A JVM that fails to start is started again, and its error raised, by
        the first real call."""
        def start() -> None:
            with self._lock, contextlib.suppress(ClueStudioError):
                self._running_server(None)

        thread = threading.Thread(target=start, name="plantuml-jvm-start", daemon=True)
        thread.start()
        return thread

    def _running_server(self, source: str | None) -> RenderServerProcess:
        if self._server is not None and self._server.alive():
            return self._server
        self._discard()
        self._server = start_server(self.max_memory_mb, self.startup_timeout, source,
                                    jar=self.jar, fast_png=self.fast_png)
        return self._server

    def _discard(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.kill()

    def close(self) -> None:
        """Stop the JVM. A later call starts a fresh one."""
        with self._lock:
            server, self._server = self._server, None
            if server is not None:
                server.close()

    def __enter__(self) -> PlantUMLRenderer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def start_server(max_memory_mb: int, startup_timeout: float,
                 source: str | None = None, *, jar: Path | None = None,
                 fast_png: bool = True) -> RenderServerProcess:
    """A started JVM that has drawn one small diagram (JVM start and class loading paid for
    under ``startup_timeout``, so a caller's diagram gets the whole per-diagram timeout)."""
    try:
        server = RenderServerProcess(jvm_command(max_memory_mb, jar, fast_png=fast_png),
                                     jvm_environment())
    except RuntimeMissing as error:
        raise RendererUnavailable(str(error), source=source) from None
    except ServerDied as error:
        raise RendererUnavailable(f"PlantUML did not start: {error}", source=source) from None
    try:
        answer = server.request("svg", _WARMUP.encode(), startup_timeout)
    except (ServerDied, ServerTimeout) as error:
        server.kill()
        raise RendererUnavailable(f"PlantUML did not start: {error or 'timed out'}",
                                  source=source) from None
    if answer.status != "OK":
        server.kill()
        raise RendererUnavailable(f"PlantUML did not start: {answer.status} "
                                  f"{answer.body[:200]!r}", source=source)
    return server


_shared: PlantUMLRenderer | None = None
_shared_lock = threading.Lock()


def get_renderer() -> PlantUMLRenderer:
    """The process-wide renderer (GUI worker, CLI batches); its JVM is stopped at exit.
    Its memory cap and timeout come from the ``[renderer]`` section of the settings file."""
    global _shared
    with _shared_lock:
        if _shared is None:
            from cluestudio.core.settings import load_settings

            settings = load_settings()[0].renderer
            _shared = PlantUMLRenderer(timeout=float(settings.timeout_s),
                                       max_memory_mb=settings.max_memory_mb)
            atexit.register(_shared.close)
        return _shared


def render_once(text: str, fmt: Format = "png", *, source: str | None = None,
                timeout: float = DEFAULT_TIMEOUT) -> bytes:
    """Render with a JVM of its own (about a second each): the baseline the service beats."""
    _check_format(fmt, source)
    _check_request(text, DEFAULT_MAX_INPUT_BYTES, source)
    prepared = _prepare(text)
    try:
        server = RenderServerProcess(jvm_command(), jvm_environment())
    except RuntimeMissing as error:
        raise RendererUnavailable(str(error), source=source) from None
    except ServerDied as error:
        raise RendererUnavailable(f"cannot start Java: {error}", source=source) from None
    try:
        answer = server.request(fmt, prepared.block.encode("utf-8", "replace"), timeout)
    except ServerTimeout:
        raise RenderTimeout(f"rendering took longer than {timeout:g} s; PlantUML was stopped",
                            source=source) from None
    except ServerDied as died:
        raise RenderError(f"PlantUML stopped while rendering: {died}", source=source) from None
    finally:
        server.close()
    failure = _failure(answer, prepared, source, DEFAULT_MAX_MEMORY_MB)
    if failure is not None:
        raise failure
    return _image(answer, fmt, source)
