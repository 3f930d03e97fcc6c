"""The live preview and rendering for the views: parse, render, diff, warm-up.

Parsing, rendering and scoring are imported lazily (the parser, renderer and embedders are
heavy or may be missing), and every slow function is meant to be run off the UI thread.
PNGs are cached by text hash, so showing a submission again is a dict lookup.
"""

from __future__ import annotations

import difflib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from cluestudio.core.errors import ClueStudioError, SourceError
from cluestudio.core.jobs import CancelToken
from cluestudio.core.workspace.ops import text_hash


@dataclass(frozen=True)
class PreviewResult:
    """One live-preview round: the picture (if any), what the parser found, and errors."""

    text: str
    png: bytes | None
    summary: dict[str, Any] | None
    parse_error: tuple[int | None, str] | None
    render_error: tuple[int | None, str] | None
    warnings: tuple[tuple[int | None, str], ...] = ()
    note: str = ""  # for texts that are not class diagrams: what the views show instead


_parse_cache: OrderedDict[str, Any] = OrderedDict()
_parse_lock = threading.Lock()


def parse(text: str, source: str | None = None) -> Any:
    """The parser's ParseResult, kept by text for a few texts: the live preview, the
    element diff and its annotation read the same text, and the reference stays the same
    while a submission is edited (issue 26: each was parsed again). ``source`` names the
    text in an error (errors are not kept). Raises ClueStudioError when there is no parser."""
    key = text_hash(text)
    with _parse_lock:
        if key in _parse_cache:
            _parse_cache.move_to_end(key)
            return _parse_cache[key]
    try:
        from cluestudio.core.plantuml import parse_plantuml
    except ImportError as error:
        raise ClueStudioError("the PlantUML parser is not installed") from error
    result = parse_plantuml(text, source=source)
    with _parse_lock:
        _parse_cache[key] = result
        while len(_parse_cache) > 32:
            _parse_cache.popitem(last=False)
    return result


def model_summary(diagram: Any) -> dict[str, Any]:
    """Counts and names of what a parsed diagram contains, for the summary pane."""
    classes = []
    for cls in diagram.classes:
        classes.append({"name": cls.name, "kind": getattr(cls.kind, "value", str(cls.kind)),
                        "attributes": len(cls.attributes), "methods": len(cls.methods),
                        "line": cls.line})
    relations = [{"type": getattr(r.type, "value", str(r.type)), "begin": r.begin,
                  "end": r.end, "line": r.line} for r in diagram.relations]
    return {"classes": classes, "relations": relations,
            "attributes": sum(c["attributes"] for c in classes),
            "methods": sum(c["methods"] for c in classes)}


_render_cache: OrderedDict[str, bytes] = OrderedDict()
_render_lock = threading.Lock()


def render_png(text: str) -> bytes:
    """PNG of ``text`` from the shared renderer, cached by content (RenderError on failure)."""
    key = text_hash(text)
    with _render_lock:
        if key in _render_cache:
            _render_cache.move_to_end(key)
            return _render_cache[key]
    png = get_renderer_png(text)
    remember_png(text, png)
    return png


def try_render(text: str) -> tuple[str, bytes | None, str]:
    """(text, png or None, error message) — for jobs that render several texts."""
    try:
        return text, render_png(text), ""
    except ClueStudioError as error:
        return text, None, str(error)


def cached_png(text: str) -> bytes | None:
    with _render_lock:
        return _render_cache.get(text_hash(text))


def remember_png(text: str, png: bytes) -> None:
    """Keep a PNG of ``text`` drawn elsewhere (image B from the worker process's check)."""
    key = text_hash(text)
    with _render_lock:
        _render_cache[key] = png
        _render_cache.move_to_end(key)
        while len(_render_cache) > 256:
            _render_cache.popitem(last=False)


def _where(error: BaseException) -> tuple[int | None, str]:
    if isinstance(error, SourceError):
        return error.line, error.message
    return None, str(error)


def preview(text: str, cancel: CancelToken, kind: str = "class", *,
            render: bool = True) -> PreviewResult:
    """Parse then render ``text`` (a job): errors become data, so the editor can mark them.

    Only class diagrams are parsed (a component diagram is rendered, never flagged by the
    class parser); a SysML v2 or code text is neither parsed nor rendered, and ``note`` says so.
    ``render`` False: parse only (B shows the element diff's rendering instead).
    """
    from cluestudio.core.workspace import kinds

    if not kinds.uses_class_parser(kind):
        if not kinds.renders_with_plantuml(kind):
            return PreviewResult(text, None, None, None, None, (),
                                 kinds.no_rendering_note(kind))
        png, render_error = None, None
        try:
            png = render_png(text)
        except ClueStudioError as error:
            render_error = _where(error)
        return PreviewResult(text, png, None, None, render_error, (),
                             f"{kind.capitalize()} diagram: rendered by PlantUML; the "
                             "class-diagram checks do not apply.")
    summary = parse_error = render_error = None
    warnings: tuple[tuple[int | None, str], ...] = ()
    try:
        result = parse(text)
        summary = model_summary(result.diagram)
        warnings = tuple((w.line, w.message) for w in getattr(result, "warnings", ()))
    except ClueStudioError as error:
        parse_error = _where(error)
    cancel.raise_if_cancelled()  # a newer keystroke already made this render stale
    png = None
    if not render:
        return PreviewResult(text, png, summary, parse_error, render_error, warnings)
    try:
        png = render_png(text)
    except ClueStudioError as error:
        render_error = _where(error)
    return PreviewResult(text, png, summary, parse_error, render_error, warnings)


def unified_diff(before: str, after: str, before_name: str = "model output",
                 after_name: str = "this revision") -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        before_name, after_name))


def warm_up(cancel: CancelToken) -> list[str]:
    """Import the parser and start the renderer in the window's process (a start-up job).

    The JVM's JIT needs a few dozen diagrams before a render takes ~70 ms instead of ~200 ms;
    paying that here, in the background, keeps it out of the first minutes of typing. The
    scoring engine is not loaded here: scoring runs in the worker process (:func:`warm_worker`).
    """
    ready = []
    try:
        __import__("cluestudio.core.plantuml")
        ready.append("cluestudio.core.plantuml")
    except ImportError:
        pass
    cancel.raise_if_cancelled()
    try:
        render_png("@startuml\nclass Warm\n@enduml\n")
        ready.append("renderer")
    except ClueStudioError:
        return ready
    global _jit_warm
    while _jit_warm < _JIT_WARM_RENDERS:  # once per process: the JVM is shared
        cancel.raise_if_cancelled()
        try:
            get_renderer_png(_warm_diagram(_jit_warm))
        except ClueStudioError:
            break
        _jit_warm += 1
    return ready


def warm_worker(*, cancel: CancelToken, emit: Any) -> list[str]:
    """In the worker process, right after it starts: import the scoring engine and the
    plugins and run the light baselines once (sacrebleu alone holds the GIL ~200 ms), so the
    first scoring job does not pay for them."""
    ready = []
    for name in ("cluestudio.core.plantuml", "cluestudio.core.clue", "cluestudio.core.plugins"):
        cancel.raise_if_cancelled()
        try:
            __import__(name)
            ready.append(name)
        except ImportError:
            pass
    try:
        from cluestudio.app.scoring import warm_baselines

        ready += warm_baselines()
    except Exception:  # a broken plugin is reported when scoring, not at start-up
        pass
    return ready


_JIT_WARM_RENDERS = 24
_jit_warm = 0  # warm-up diagrams rendered so far in this process


def _warm_diagram(number: int) -> str:
    lines = ["@startuml", f"abstract class Base{number} {{", "  - id : int",
             "  + name() : String", "}"]
    for i in range(1 + number % 4):
        lines += [f"class Part{i} {{", f"  - value{i} : double", "}",
                  f"Base{number} \"1\" *-- \"*\" Part{i} : has >"]
    lines += [f"interface Named{number}", f"Base{number} ..|> Named{number}", "@enduml"]
    return "\n".join(lines) + "\n"


def get_renderer_png(text: str) -> bytes:
    """A PNG straight from the renderer, bypassing (and not filling) the preview cache."""
    try:
        from cluestudio.core.plantuml.renderer import get_renderer
    except ImportError as error:
        raise ClueStudioError("the PlantUML renderer is not installed") from error
    return bytes(get_renderer().render(text, "png"))
