"""VLM jobs for the GUI: convert image A to PlantUML, or probe it against the PlantUML.

No Qt here. The backend comes from the ``[llm]`` settings (an OpenAI-compatible endpoint;
the key from the environment or keyring, never the file); results are stored through the
VLM workspace adapter, so the CLI and the GUI leave the same records behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.settings import Settings
from cluestudio.core.workspace import Workspace
from cluestudio.gui import services

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
    from cluestudio.core.vlm.factory import BackendOptions
    from cluestudio.core.vlm.factory import make_backend as build

    llm = settings.llm
    if not llm.base_url.strip() or not llm.model.strip():
        raise ClueStudioError(NO_ENDPOINT)
    # Fewer retries than the CLI: someone is watching, and Cancel is a click away.
    return build(BackendOptions(backend="openai", model=llm.model.strip(),
                                base_url=llm.base_url.strip(), api_key=settings.api_key(),
                                timeout_s=120.0, retries=2))


def _image_a(ws: Workspace, submission_id: int) -> Any:
    from cluestudio.core.vlm.backend import ImageInput

    submission = ws.submission(submission_id)
    if submission is None:
        raise ClueStudioError(f"no submission {submission_id}")
    data = ws.image(submission.image_hash) if submission.image_hash else None
    if not data:
        raise ClueStudioError(f"submission {submission.source_id} has no image A to read")
    return ImageInput.from_bytes(data, f"image A of {submission.source_id}")


def convert(ws: Workspace, submission_id: int, backend: Any, cancel: CancelToken, *,
            plantuml_check: bool = True) -> Job[ModelOutcome]:
    """Ask the VLM for PlantUML of image A (with repairs) and store each attempt as a revision.

    Each answer is checked by our parser and then by PlantUML through the shared renderer
    (whose cache then serves image B); ``plantuml_check=False`` or a machine where PlantUML
    cannot run leaves the parser's verdict alone (the latter with a logged warning).
    """
    from cluestudio.core.vlm.conversion import convert_image, parser_checker
    from cluestudio.core.vlm.workspace_adapter import store_conversion

    image = _image_a(ws, submission_id)
    head = ws.head_revision(submission_id)
    result = yield from convert_image(image, backend, cancel, source=f"submission {submission_id}",
                                      check=None if plantuml_check else parser_checker,
                                      render=services.render_png)
    cancel.raise_if_cancelled()
    yield Progress(1, 1, "saving the conversion")
    ids = store_conversion(ws, submission_id, result, parent_id=head.id if head else None)
    attempts = len(result.attempts)
    state = "valid PlantUML" if result.ok else (
        f"still invalid: {result.attempts[-1].error}" if result.attempts else "no answer")
    return ModelOutcome("convert", submission_id,
                        f"{backend.model_id}: {state} after {attempts} attempt(s)",
                        revision_ids=tuple(ids))


def probe(ws: Workspace, submission_id: int, backend: Any, cancel: CancelToken
          ) -> Job[ModelOutcome]:
    """Ask the VLM what image A shows and compare with the head PlantUML; store the result."""
    from cluestudio.core.vlm.probe import probe_submission
    from cluestudio.core.vlm.workspace_adapter import store_probe

    image = _image_a(ws, submission_id)
    head = ws.head_revision(submission_id)
    if head is None or not head.puml.strip():
        raise ClueStudioError("there is no PlantUML to probe against; convert or type it first")
    diagram = services.parse(head.puml).diagram
    result = yield from probe_submission(image, diagram, backend, cancel,
                                         source=f"submission {submission_id}")
    cancel.raise_if_cancelled()
    store_probe(ws, submission_id, result)
    panel = services.latest_probe(ws, submission_id)
    rel = "n/a" if result.rel_acc is None else f"{100 * result.rel_acc:.0f}%"
    verdict = f"flagged ({len(result.flag.reasons)} reason(s))" if result.flag else "agrees"
    return ModelOutcome("probe", submission_id,
                        f"{backend.model_id}: EM {'yes' if result.em else 'no'}, RelAcc {rel}, "
                        f"{verdict}", probe=panel)
