"""VLM jobs for one submission: convert image A to PlantUML, or probe it against the PlantUML.
 The backend comes from the ``[llm]`` settings (an OpenAI-compatible endpoint;
the key from the environment or keyring, never the file); results are stored through the
VLM workspace adapter, so the CLI and the GUI leave the same records behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cluestudio.app import preview, submissions
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.settings import Settings
from cluestudio.core.workspace import Workspace

NO_ENDPOINT = "no endpoint configured — Settings → Model endpoint (base URL and model)"


@dataclass(frozen=True)
class ModelOutcome:
    """What a finished convert or probe job tells the view (already stored)."""

    action: str  # "convert" | "probe"
    submission_id: int
    summary: str  # one line for the status bar
    revision_ids: tuple[int, ...] = ()
    probe: dict[str, Any] | None = None  # the metric panel's "probe" shape


def make_backend(settings: Settings) -> Any:
    """The VLM backend of the ``[llm]`` settings; ClueStudioError if none is configured."""
    from cluestudio.core.vlm.factory import BackendOptions, endpoint_limits
    from cluestudio.core.vlm.factory import make_backend as build

    llm = settings.llm
    if not llm.base_url.strip() or not llm.model.strip():
        raise ClueStudioError(NO_ENDPOINT)
    # Fewer retries than the CLI: someone is watching, and Cancel is a click away.
    return build(BackendOptions(backend="openai", model=llm.model.strip(),
                                base_url=llm.base_url.strip(), api_key=settings.api_key(),
                                timeout_s=120.0, retries=2, **endpoint_limits(llm)))


def convert(ws: Workspace, submission_id: int, backend: Any, cancel: CancelToken, *,
            plantuml_check: bool = True) -> Job[ModelOutcome]:
    """Ask the VLM for PlantUML of image A (with repairs) and store each attempt as a revision.

    Each answer is checked by our parser and then by PlantUML through the shared renderer
    (whose cache then serves image B); ``plantuml_check=False`` or a machine where PlantUML
    cannot run leaves the parser's verdict alone (the latter with a logged warning).
    """
    image, source = image_a(ws, submission_id)
    result = yield from _conversion(image, source, backend, cancel, plantuml_check)
    cancel.raise_if_cancelled()
    yield Progress(1, 1, "saving the conversion", phase="saving")
    return store_converted(ws, submission_id, backend.model_id, result)


def probe(ws: Workspace, submission_id: int, backend: Any, cancel: CancelToken
          ) -> Job[ModelOutcome]:
    """Ask the VLM what image A shows and compare with the head PlantUML; store the result."""
    image, source = image_a(ws, submission_id)
    result = yield from _probing(image, source, head_text(ws, submission_id), backend, cancel)
    cancel.raise_if_cancelled()
    return store_probed(ws, submission_id, backend.model_id, result)


def head_text(ws: Workspace, submission_id: int) -> str:
    """The head PlantUML to probe against; ClueStudioError when there is none."""
    head = ws.head_revision(submission_id)
    if head is None or not head.puml.strip():
        raise ClueStudioError("there is no PlantUML to probe against; convert or type it first")
    return head.puml


def _conversion(image: bytes, source: str, backend: Any, cancel: CancelToken,
                plantuml_check: bool) -> Job[Any]:
    from cluestudio.core.vlm.backend import ImageInput
    from cluestudio.core.vlm.conversion import convert_image, parser_checker

    return (yield from convert_image(ImageInput.from_bytes(image, source), backend, cancel,
                                     source=source,
                                     check=None if plantuml_check else parser_checker,
                                     render=preview.render_png))


def _probing(image: bytes, source: str, puml: str, backend: Any, cancel: CancelToken
             ) -> Job[Any]:
    from cluestudio.core.vlm.backend import ImageInput
    from cluestudio.core.vlm.probe import probe_submission

    diagram = preview.parse(puml).diagram
    return (yield from probe_submission(ImageInput.from_bytes(image, source), diagram,
                                        backend, cancel, source=source))


# --- the same jobs split for the worker process: the model call there, the store here ------


def convert_job(image: bytes, source: str, settings: Settings, plantuml_check: bool = True, *,
                cancel: CancelToken, emit: Any) -> Job[Any]:
    """In the worker process: the conversion of image A (nothing stored)."""
    backend = make_backend(settings)
    result = yield from _conversion(image, source, backend, cancel, plantuml_check)
    # The caller stores it on arrival: a conversion is kept even if the window's job is
    # cancelled between the answer and the result.
    emit("answer", (backend.model_id, result))
    return backend.model_id


def store_converted(ws: Workspace, submission_id: int, model_id: str, result: Any
                    ) -> ModelOutcome:
    """In the window's process: keep a conversion's attempts as revisions."""
    from cluestudio.core.vlm.workspace_adapter import store_conversion

    head = ws.head_revision(submission_id)
    ids = store_conversion(ws, submission_id, result, parent_id=head.id if head else None)
    state = "valid PlantUML" if result.ok else (
        f"still invalid: {result.attempts[-1].error}" if result.attempts else "no answer")
    return ModelOutcome("convert", submission_id,
                        f"{model_id}: {state} after {len(result.attempts)} attempt(s)",
                        revision_ids=tuple(ids))


def probe_job(image: bytes, source: str, puml: str, settings: Settings, *,
              cancel: CancelToken, emit: Any) -> Job[Any]:
    """In the worker process: what the VLM reads in image A against the PlantUML."""
    backend = make_backend(settings)
    result = yield from _probing(image, source, puml, backend, cancel)
    emit("answer", (backend.model_id, result))
    return backend.model_id


def store_probed(ws: Workspace, submission_id: int, model_id: str, result: Any
                 ) -> ModelOutcome:
    from cluestudio.core.vlm.workspace_adapter import store_probe

    store_probe(ws, submission_id, result)
    rel = "n/a" if result.rel_acc is None else f"{100 * result.rel_acc:.0f}%"
    verdict = f"flagged ({len(result.flag.reasons)} reason(s))" if result.flag else "agrees"
    return ModelOutcome("probe", submission_id,
                        f"{model_id}: EM {'yes' if result.em else 'no'}, RelAcc {rel}, "
                        f"{verdict}", probe=submissions.latest_probe(ws, submission_id))


def image_a(ws: Workspace, submission_id: int) -> tuple[bytes, str]:
    """Image A's bytes and a name for messages; ClueStudioError when there is none."""
    submission = ws.submission(submission_id)
    if submission is None:
        raise ClueStudioError(f"no submission {submission_id}")
    data = ws.image(submission.image_hash) if submission.image_hash else None
    if not data:
        raise ClueStudioError(f"submission {submission.source_id} has no image A to read")
    return data, f"image A of {submission.task_id} · {submission.source_id}"
