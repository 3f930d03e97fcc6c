"""Image A → PlantUML with a VLM, a syntax-repair loop, and image B rendered from the result.

Every attempt (model, prompt version, tokens, raw answer, extracted PlantUML, error) is kept
as a :class:`ConversionAttempt`, so a reviewer, or the workspace's revision history, can see
how the final text came about (seed 000 §3.2.1: generate, render B, compare with A).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.vlm.backend import ImageInput, Usage, VLMBackend, VLMRequest
from cluestudio.core.vlm.prompts import ConvertPrompts, load_convert_prompts

log = logging.getLogger("cluestudio.vlm")

#: ``check(text)`` → ``None`` when the PlantUML is usable, else an error message for the model.
SyntaxChecker = Callable[[str], str | None]
#: ``render(text)`` → PNG bytes (raises :class:`ClueStudioError` on failure).
Renderer = Callable[[str], bytes]

_BLOCK = re.compile(r"@startuml\b.*?@enduml\b", re.DOTALL | re.IGNORECASE)
_OPEN = re.compile(r"@startuml\b.*", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:plantuml|puml|uml)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_plantuml(answer: str) -> str | None:
    """The ``@startuml … @enduml`` block of an answer (fenced or not), or ``None``.

    A block cut off by the token limit gets its ``@enduml`` back, so the parser can say
    what is actually wrong with it rather than "no diagram".
    """
    text = re.sub(r"<think>.*?</think>", "", answer or "", flags=re.DOTALL | re.IGNORECASE)
    match = _BLOCK.search(text)
    if match:
        return match.group(0).strip()
    match = _OPEN.search(text)
    if match:
        body = match.group(0).split("```")[0].rstrip()
        return body + "\n@enduml"
    fence = _FENCE.search(text)
    if fence and re.search(r"^\s*(class|interface|enum|abstract)\b", fence.group(1), re.M):
        return "@startuml\n" + fence.group(1).strip() + "\n@enduml"
    return None


def parser_checker(text: str) -> str | None:
    """Our PlantUML parser as the syntax check; a diagram without classes counts as wrong."""
    try:
        from cluestudio.core.plantuml import parse_plantuml
    except ImportError:  # the parser is optional only while the package is being assembled
        log.warning("PlantUML parser unavailable; only the @startuml block is checked")
        return None
    try:
        result = parse_plantuml(text, source="answer")
    except ClueStudioError as error:
        return str(error)
    if not result.diagram.classes:
        return "the diagram has no classes"
    return None


def plantuml_checker(text: str) -> str | None:
    """The real PlantUML jar's ``-syntax`` check (needs Java); only class diagrams pass."""
    from cluestudio.core.plantuml.syntax import check_syntax

    try:
        report = check_syntax(text)
    except ClueStudioError as error:
        return str(error)
    if not report.ok:
        where = f"line {report.error_line}: " if report.error_line else ""
        return f"PlantUML: {where}{report.message or report.diagram_type}"
    if report.diagram_type != "CLASS":
        return f"PlantUML reads a {report.diagram_type.lower()} diagram, not a class diagram"
    return None


class PlantUMLCheck:
    """PlantUML's own verdict through the warm renderer: a text passes when PlantUML draws it.

    One long-lived JVM serves every check (the ``-syntax`` check of :func:`plantuml_checker`
    starts a JVM per call), and the PNG of the last text that passed is kept, so rendering
    image B from the final attempt costs nothing more (:meth:`render`). PlantUML's error
    message and line go back to the model. When no PlantUML can run at all (no Java or jar,
    the JVM does not start) the check logs a warning once and passes everything from then
    on, leaving the parser's verdict; a render timeout skips the check for that text only.
    """

    def __init__(self, render: Renderer | None = None) -> None:
        self._render = render
        self.available: bool | None = None  # None: not tried yet; False: fell back
        self.skipped = 0  # texts not checked (renderer missing or too slow)
        self._last: tuple[str, bytes] | None = None

    def _renderer(self) -> Renderer:
        return self._render or default_renderer  # looked up late, so tests can swap it

    def __call__(self, text: str) -> str | None:
        from cluestudio.core.errors import RenderError, RendererUnavailable, RenderTimeout

        if self.available is False:
            self.skipped += 1
            return None
        try:
            png = self._renderer()(text)
        except RendererUnavailable as error:
            self._fall_back(str(error))
            return None
        except RenderTimeout as error:
            self.skipped += 1
            log.warning("PlantUML check skipped for this answer (%s); only our parser "
                        "checked it", error.message)
            return None
        except RenderError as error:
            self.available = True
            where = f" line {error.line}" if error.line is not None else ""
            quoted = f" ({error.text.strip()!r})" if error.text.strip() else ""
            return f"PlantUML rejects{where}{quoted}: {error.message}"
        except ClueStudioError as error:  # RuntimeMissing: no Java or no jar
            self._fall_back(str(error))
            return None
        self.available = True
        self._last = (text, png)
        return None

    def _fall_back(self, reason: str) -> None:
        self.available = False
        self.skipped += 1
        log.warning("PlantUML is not available (%s); conversions are checked with our "
                    "parser only", reason)

    def render(self, text: str) -> bytes:
        """Image B: the PNG the check already drew for ``text``, else a fresh render."""
        if self._last is not None and self._last[0] == text:
            return self._last[1]
        return self._renderer()(text)


def default_checker(render: Renderer | None = None) -> SyntaxChecker:
    """Our parser, then PlantUML itself (:class:`PlantUMLCheck`): the conversion default."""
    return combined_checker(parser_checker, PlantUMLCheck(render))


def combined_checker(*checkers: SyntaxChecker) -> SyntaxChecker:
    def check(text: str) -> str | None:
        for checker in checkers:
            error = checker(text)
            if error:
                return error
        return None

    return check


def default_renderer(text: str) -> bytes:
    """PNG from the shared PlantUML renderer service (sandboxed, size- and time-limited)."""
    try:
        from cluestudio.core.plantuml.renderer import (
            get_renderer,
        )
    except ImportError as error:
        raise ClueStudioError("the PlantUML renderer is not available") from error
    return bytes(get_renderer().render(text, fmt="png"))


@dataclass(frozen=True)
class ConversionAttempt:
    """One model answer in the repair loop; what the workspace stores as a revision."""

    index: int  # 0 = first answer, 1.. = repairs
    model: str
    prompt_version: str
    answer: str
    puml: str | None  # the extracted block, None when the answer had none
    error: str | None  # None: passed the syntax check
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    created_at: str = ""

    @property
    def ok(self) -> bool:
        return self.puml is not None and self.error is None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "model": self.model, "prompt_version": self.prompt_version,
                "answer": self.answer, "puml": self.puml, "error": self.error,
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "seconds": round(self.seconds, 3), "created_at": self.created_at}


@dataclass(frozen=True)
class ConversionResult:
    source: str  # file name or submission id of image A
    image_sha256: str
    model: str
    prompt_version: str
    attempts: tuple[ConversionAttempt, ...]
    image_b: bytes | None = None  # PNG rendered from the final PlantUML
    render_error: str | None = None
    deterministic: bool = False  # the backend's one answer: no repairs, no "attempts"

    @property
    def ok(self) -> bool:
        return bool(self.attempts) and self.attempts[-1].ok

    @property
    def puml(self) -> str | None:
        """The final PlantUML: the last attempt's block (valid or not)."""
        for attempt in reversed(self.attempts):
            if attempt.puml is not None:
                return attempt.puml
        return None

    @property
    def usage(self) -> Usage:
        total = Usage()
        for attempt in self.attempts:
            total = total + attempt.usage
        return total

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "image_sha256": self.image_sha256, "model": self.model,
                "prompt_version": self.prompt_version, "ok": self.ok, "puml": self.puml,
                "rendered": self.image_b is not None, "render_error": self.render_error,
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "attempts": [a.to_dict() for a in self.attempts]}


def convert_image(
    image: ImageInput,
    backend: VLMBackend,
    cancel: CancelToken | None = None,
    *,
    source: str = "",
    max_repairs: int = 2,
    prompts: ConvertPrompts | None = None,
    check: SyntaxChecker | None = None,
    render: Renderer | None = None,
) -> Job[ConversionResult]:
    """Ask for PlantUML, check it, feed errors back up to ``max_repairs`` times, render B.

    ``check=None`` (the default) checks with our parser and then with PlantUML itself
    (:func:`default_checker`; parser only, with a warning, where PlantUML cannot run); pass
    :func:`parser_checker` to skip PlantUML. ``render`` draws image B (none when ``None``);
    the default check draws with it too, so B is the image PlantUML accepted.
    """
    cancel = cancel or CancelToken()
    if check is None:
        plantuml = PlantUMLCheck(render)
        check = combined_checker(parser_checker, plantuml)
        render = plantuml.render if render is not None else None
    prompts = prompts or load_convert_prompts()
    deterministic = is_deterministic(backend)
    if deterministic:
        max_repairs = 0  # it would give the same answer again
    name = backend.manifest.name.replace("-", " ")  # "offline draft"
    total = max_repairs + 2  # answers + render
    history: list[tuple[str, str]] = []
    attempts: list[ConversionAttempt] = []
    for index in range(max_repairs + 1):
        cancel.raise_if_cancelled()
        yield Progress(index, total, f"{source}: {name} of image A" if deterministic else
                       f"{source}: asking {backend.model_id}"
                       + (f" (repair {index})" if index else ""), phase="converting")
        response = backend.complete(VLMRequest(
            prompt=prompts.instruction.fill(), images=(image,), system=prompts.system.fill(),
            history=tuple(history)))
        puml = extract_plantuml(response.text)
        refusal = response.refusal and (f"the {name} {response.refusal}" if deterministic
                                        else response.refusal)
        error = refusal or ("the answer has no @startuml ... @enduml block"
                            if puml is None else check(puml))
        attempts.append(ConversionAttempt(
            index=index, model=response.model, prompt_version=prompts.version,
            answer=response.text, puml=puml, error=error, usage=response.usage,
            seconds=response.seconds, created_at=datetime.now(UTC).isoformat()))
        if error is None:
            break
        history += [("assistant", response.text), ("user", prompts.repair.fill(error=error))]
    image_b, render_error = None, None
    final = attempts[-1]
    if render is not None and final.puml is not None:
        cancel.raise_if_cancelled()
        yield Progress(total - 1, total, f"{source}: rendering image B", phase="converting")
        try:
            image_b = render(final.puml)
        except ClueStudioError as error:
            render_error = str(error)
    yield Progress(total, total, f"{source}: {'ok' if final.ok else 'failed'}", phase="converting")
    return ConversionResult(source=source, image_sha256=image.sha256, model=backend.model_id,
                            prompt_version=prompts.version, attempts=tuple(attempts),
                            image_b=image_b, render_error=render_error,
                            deterministic=deterministic)


def is_deterministic(backend: VLMBackend) -> bool:
    """Whether ``backend`` gives the same answer to the same request (its manifest says)."""
    manifest = getattr(backend, "manifest", None)
    return bool(getattr(manifest, "deterministic", False))


def attempts_text(count: int) -> str:
    """"1 attempt", "3 attempts"."""
    return f"{count} attempt" + ("" if count == 1 else "s")


def convert_images(
    items: Iterable[tuple[str, ImageInput]],
    backend: VLMBackend,
    cancel: CancelToken | None = None,
    **options: Any,
) -> Job[list[ConversionResult]]:
    """:func:`convert_image` over many images, one progress step per image."""
    cancel = cancel or CancelToken()
    todo = list(items)
    results: list[ConversionResult] = []
    for number, (source, image) in enumerate(todo):
        cancel.raise_if_cancelled()
        yield Progress(number, len(todo), source, phase="converting")
        job = convert_image(image, backend, cancel, source=source, **options)
        while True:
            try:
                next(job)
            except StopIteration as stop:
                results.append(stop.value)
                break
    yield Progress(len(todo), len(todo), "done", phase="converting")
    return results
