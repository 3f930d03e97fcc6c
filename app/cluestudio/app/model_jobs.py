"""The window's side of the VLM job for one submission: Tools → Convert / Probe (F7, F8).

The job itself is :mod:`cluestudio.app.vlm_batches`' (ADR 0014, "VLM: one job"): the window
plans the current submission with the batch's plan (``submission_ids=[id]``, ``redo``: the
window always asks the model again), its worker process asks with the batch's step
(:func:`~cluestudio.app.vlm_batch_step.asking`) and the window's process stores with the
batch's store (:func:`~cluestudio.app.vlm_batches.finish_conversion`,
:func:`~cluestudio.app.vlm_batches.finish_probe`), so ``cluestudio convert --workspace
--submission ID --redo`` leaves the same records behind. What is the window's own: the
backend from the ``[llm]`` settings (the key from the environment or keyring, never the
file), the one-line outcome for the status bar, the probe in the metric panel's shape, and
image B put into the preview's cache for the stored text.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cluestudio.app import preview, submissions
from cluestudio.app.vlm_batch_records import BatchItem, ItemOutcome, Question
from cluestudio.app.vlm_batch_step import asking, image_input
from cluestudio.app.vlm_batches import (
    finish_conversion,
    finish_probe,
    image_of,
    plan_conversions,
    plan_probes,
)
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job
from cluestudio.core.settings import Settings
from cluestudio.core.workspace import Workspace

NO_ENDPOINT = ("no endpoint configured — Settings → Model endpoint (base URL and model); "
               "without a model: Tools → Draft image A offline (Shift+F7)")


@dataclass(frozen=True)
class ModelOutcome:
    """What a finished convert or probe job tells the view (already stored)."""

    action: str  # "convert" | "probe"
    submission_id: int
    summary: str  # one line for the status bar
    revision_ids: tuple[int, ...] = ()
    probe: dict[str, Any] | None = None  # the metric panel's "probe" shape


@dataclass(frozen=True)
class ModelRequest:
    """One planned item and what the worker process needs to ask about it."""

    question: Question
    item: BatchItem
    image: bytes  # image A
    diagram: Any = None  # probe: the head revision's diagram


def make_backend(settings: Settings, offline: bool = False) -> Any:
    """The VLM backend of the ``[llm]`` settings; ClueStudioError if none is configured.
    ``offline``: the draft converter (boxes + OCR, no model), whatever the settings say."""
    from cluestudio.core.vlm.factory import BackendOptions, endpoint_limits
    from cluestudio.core.vlm.factory import make_backend as build

    if offline:
        return build(BackendOptions(backend="offline", model=""))
    llm = settings.llm
    if not llm.base_url.strip() or not llm.model.strip():
        raise ClueStudioError(NO_ENDPOINT)
    # Fewer retries than the CLI: someone is watching, and Cancel is a click away.
    return build(BackendOptions(backend="openai", model=llm.model.strip(),
                                base_url=llm.base_url.strip(), api_key=settings.api_key(),
                                timeout_s=120.0, retries=2, **endpoint_limits(llm)))


def plan_request(ws: Workspace, action: str, submission_id: int, model_id: str
                 ) -> ModelRequest:
    """The batch's plan for this one submission, asked again whatever is stored; a
    ClueStudioError with the plan's reason when it cannot be asked (no image A, nothing to
    probe against, a task that is not a class diagram, a head that does not parse)."""
    from cluestudio.core.vlm.prompts import load_convert_prompts, load_probe_prompts

    ids = [submission_id]
    outcomes: list[ItemOutcome]
    if action == "convert":
        # Image B too: the check draws it anyway, and the window shows it next.
        question = Question("convert", load_convert_prompts(), image_b=True)
        todo, outcomes = plan_conversions(ws, redo=True, submission_ids=ids)
        if todo:
            return ModelRequest(question, todo[0], image_of(ws, todo[0]))
    else:
        question = Question("probe", load_probe_prompts())
        probes, outcomes = plan_probes(ws, model_id, (), True, question.prompts,
                                       submission_ids=ids)
        if probes:
            item = probes[0].item
            return ModelRequest(question, item, image_of(ws, item), probes[0].diagram)
    why = outcomes[0]
    raise ClueStudioError(f"{why.task_id}/{why.source_id}: {why.reason}")


def ask_job(request: ModelRequest, settings: Settings, offline: bool = False, *,
            cancel: CancelToken, emit: Any) -> Job[str]:
    """In the worker process: the batch's model call for the one item (nothing stored);
    ``offline``: the draft converter answers instead of the settings' model."""
    backend = make_backend(settings, offline)
    steps = asking(request.question, backend, request.item,
                   image_input(request.item, request.image), request.diagram, cancel)
    if offline:  # OCR of a large page is a long wait on one progress line: say so on it
        from cluestudio.app.input_files import image_size, large_image_note

        steps = _noted(steps, large_image_note(*image_size(request.image)))
    result = yield from steps
    # The window stores it on arrival: an answer is kept even if the job is cancelled
    # between the answer and the result.
    emit("answer", (backend.model_id, result))
    return str(backend.model_id)


def _noted(job: Job[Any], note: str) -> Job[Any]:
    """``job`` with ``note`` added to each progress message while it runs (``job`` itself
    when there is no note)."""
    if not note:
        return (yield from job)
    while True:
        try:
            step = next(job)
        except StopIteration as stop:
            return stop.value
        # not on the last step: "ok — this takes a while" once it is over
        running = step.total is None or step.done < step.total
        yield replace(step, message=f"{step.message}{note}") if running else step


def store_answer(ws: Workspace, request: ModelRequest, model_id: str, result: Any
                 ) -> ModelOutcome:
    """In the window's process: the batch's store, then what the window shows of it."""
    outcomes: list[ItemOutcome] = []
    sid = request.item.submission_id
    if request.question.action == "probe":
        finish_probe(ws, request.item, result, outcomes)
        rel = "n/a" if result.rel_acc is None else f"{100 * result.rel_acc:.0f}%"
        verdict = f"flagged ({len(result.flag.reasons)} reason(s))" if result.flag else "agrees"
        return ModelOutcome("probe", sid,
                            f"{model_id}: EM {'yes' if result.em else 'no'}, RelAcc {rel}, "
                            f"{verdict}", probe=submissions.latest_probe(ws, sid))
    finish_conversion(ws, request.item, result, outcomes)
    final = result.attempts[-1].puml if result.attempts else None
    if final is not None and result.image_b is not None:
        preview.remember_png(final, result.image_b)  # the stored head: shown without a render
    from cluestudio.core.vlm.conversion import attempts_text

    error = result.attempts[-1].error if result.attempts else "no answer"
    if result.deterministic and not result.ok:  # "the offline draft found no class box…"
        return ModelOutcome("convert", sid, f"{error[:1].upper()}{error[1:]}",
                            revision_ids=outcomes[0].revision_ids)
    state = "valid PlantUML" if result.ok else f"still invalid: {error}"
    # the offline draft answers once: no attempts to count
    after = "" if result.deterministic else f" after {attempts_text(len(result.attempts))}"
    doubts = ""
    if result.ok and final is not None and model_id.startswith("offline-draft"):
        from cluestudio.app.draft_doubts import doubts_summary
        from cluestudio.core.draft.convert import DRAFTED_FROM_SOURCE

        # the draft of an image that carries its diagram is that diagram: no doubts to
        # count; its note says which (PlantUML's source, draw.io's model)
        note = next((line.lstrip("' ").strip()
                     for line in result.attempts[-1].answer.splitlines()
                     if DRAFTED_FROM_SOURCE in line), "")
        doubts = f"; {note}" if note else f"; {doubts_summary(final)}"
    return ModelOutcome("convert", sid, f"{model_id}: {state}{after}{doubts}",
                        revision_ids=outcomes[0].revision_ids)
