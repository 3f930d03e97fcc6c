"""Convert or probe a whole workspace with a VLM: the batch jobs behind
``cluestudio convert --workspace`` and ``cluestudio probe --workspace`` (DESIGN §6, §7, §10).

Both are plain jobs (generators yielding :class:`~cluestudio.core.jobs.Progress`, honouring
a :class:`~cluestudio.core.jobs.CancelToken`), so the GUI can run them on its worker lane
as the CLI does with :func:`~cluestudio.core.jobs.run_job`. Model requests for up to
``backend.concurrency`` submissions run at once on a small thread pool (the backend's own
limit still caps the requests in flight); every write goes through the workspace writer
(``workspace.write``), one transaction per submission as soon as it finishes, so an
interrupted run (Ctrl+C, cancel, ``kill -9``) keeps what was stored and a rerun skips it.

What "stored" means:

- **convert**: the submission has a revision written by a model (``author_kind="model"``),
  a failed conversion included, since each attempt is kept as a revision. ``redo=True``
  converts again on top of the head revision.
- **probe**: ``probe_results`` already holds a row for this probe, model and probe input
  hash (:func:`~cluestudio.core.vlm.workspace_adapter.probe_input_hash_of`: image A, the
  head revision's class names and relation questions, prompt version). Editing the
  PlantUML or switching model therefore asks again; ``redo=True`` always asks.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import (
    Cancelled,
    CancelToken,
    Job,
    Progress,
    SubmissionOutcome,
    run_job,
)
from cluestudio.core.vlm.backend import ImageInput, VLMBackend
from cluestudio.core.vlm.prompts import (
    ConvertPrompts,
    ProbePrompts,
    load_convert_prompts,
    load_probe_prompts,
)

T = TypeVar("T")

CONVERTED, PROBED, FAILED, SKIPPED = "converted", "probed", "failed", "skipped"


@dataclass(frozen=True)
class BatchItem:
    """One submission the batch will ask the model about."""

    submission_id: int
    task_id: str
    source_id: str
    image_hash: str
    head_id: int | None = None  # the head revision when the batch planned this item

    @property
    def label(self) -> str:
        return f"#{self.submission_id} {self.task_id}/{self.source_id}"


@dataclass(frozen=True)
class ItemOutcome(SubmissionOutcome):
    """What happened to one submission; ``status`` is converted | probed | failed | skipped."""

    attempts: int = 0
    revision_ids: tuple[int, ...] = ()
    tokens: int = 0
    em: bool | None = None
    rel_acc: float | None = None
    flagged: bool = False
    reasons: tuple[dict[str, str], ...] = ()  # probe disagreements, as the reviewer sees them
    stored: bool = False  # probe: the flag comes from an earlier run's stored result

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.attempts:
            out["attempts"] = self.attempts
        if self.revision_ids:
            out["revision_ids"] = list(self.revision_ids)
        if self.tokens:
            out["tokens"] = self.tokens
        if self.status == PROBED or self.stored:
            out.update(em=self.em, rel_acc=self.rel_acc, flagged=self.flagged,
                       reasons=list(self.reasons), stored=self.stored)
        return out


@dataclass(frozen=True)
class BatchSummary:
    """The outcome of a workspace batch, one :class:`ItemOutcome` per submission looked at."""

    action: str  # "convert" | "probe"
    model: str
    prompt_version: str
    outcomes: tuple[ItemOutcome, ...] = field(default_factory=tuple)

    def having(self, status: str) -> list[ItemOutcome]:
        return [o for o in self.outcomes if o.status == status]

    @property
    def done(self) -> list[ItemOutcome]:
        return self.having(CONVERTED if self.action == "convert" else PROBED)

    @property
    def failed(self) -> list[ItemOutcome]:
        return self.having(FAILED)

    @property
    def skipped(self) -> list[ItemOutcome]:
        return self.having(SKIPPED)

    @property
    def flagged(self) -> list[ItemOutcome]:
        """Probe: submissions whose current probe result (new or stored) raises the flag."""
        return [o for o in self.outcomes if o.flagged]

    @property
    def tokens(self) -> int:
        return sum(o.tokens for o in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        done = "converted" if self.action == "convert" else "probed"
        out: dict[str, Any] = {
            "action": self.action, "model": self.model, "prompt_version": self.prompt_version,
            "counts": {done: len(self.done), "failed": len(self.failed),
                       "skipped": len(self.skipped)},
            "tokens": self.tokens,
            done: [o.to_dict() for o in self.done],
            "failed": [o.to_dict() for o in self.failed],
            "skipped": [o.to_dict() for o in self.skipped],
        }
        if self.action == "probe":
            out["counts"]["flagged"] = len(self.flagged)
            out["flagged"] = [o.to_dict() for o in self.flagged]
        return out


# --- selection ---------------------------------------------------------------------------

def _summaries(ws: Any, tasks: Sequence[str]) -> list[Any]:
    known = {t.id for t in ws.tasks()}
    unknown = [t for t in tasks if t not in known]
    if unknown:
        raise ClueStudioError(f"{ws.path}: no task {', '.join(map(repr, unknown))} "
                              f"(tasks: {', '.join(sorted(known)) or 'none'})")
    if not tasks:
        return list(ws.list_submissions())
    return [s for task in dict.fromkeys(tasks) for s in ws.list_submissions(task_id=task)]


def _skip(summary: Any, reason: str, **extra: Any) -> ItemOutcome:
    return ItemOutcome(summary.id, summary.task_id, summary.source_id, SKIPPED, reason, **extra)


def plan_conversions(ws: Any, tasks: Sequence[str] = (), redo: bool = False
                     ) -> tuple[list[BatchItem], list[ItemOutcome]]:
    """(submissions to convert, the skipped ones with why)."""
    todo: list[BatchItem] = []
    skipped: list[ItemOutcome] = []
    for summary in _summaries(ws, tasks):
        submission = ws.submission(summary.id)
        if submission is None or not submission.image_hash:
            skipped.append(_skip(summary, "no image A"))
            continue
        revisions = ws.revisions(summary.id)
        by_model = [r for r in revisions if r.author_kind == "model"]
        if by_model and not redo:
            skipped.append(_skip(summary, "already converted by a model (--redo asks again)",
                                 revision_ids=tuple(r.id for r in by_model)))
            continue
        head = revisions[-1] if revisions else None
        todo.append(BatchItem(summary.id, summary.task_id, summary.source_id,
                              submission.image_hash, head.id if head else None))
    return todo, skipped


# --- the pool ------------------------------------------------------------------------------

class _LinkedToken(CancelToken):
    """Cancelled when the batch is, or when its own :meth:`cancel` is called (on errors)."""

    def __init__(self, parent: CancelToken) -> None:
        super().__init__()
        self._parent = parent

    @property
    def cancelled(self) -> bool:
        return super().cancelled or self._parent.cancelled

    def raise_if_cancelled(self) -> None:
        if self.cancelled:
            raise Cancelled("cancelled")


def _finish_one(item: BatchItem, future: Future[T], finish: Callable[[BatchItem, T], str],
                outcomes: list[ItemOutcome]) -> str:
    try:
        result = future.result()
    except Cancelled:
        raise
    except ClueStudioError as error:
        outcomes.append(ItemOutcome(item.submission_id, item.task_id, item.source_id,
                                    FAILED, f"no answer: {error}"))
        return f"failed ({error})"
    return finish(item, result)


def _in_pool(
    items: Sequence[BatchItem],
    work: Callable[[BatchItem, CancelToken], T],
    finish: Callable[[BatchItem, T], str],
    outcomes: list[ItemOutcome],
    workers: int,
    cancel: CancelToken,
) -> Job[None]:
    """Run ``work`` for up to ``workers`` items at a time; ``finish`` each on this thread.

    ``finish`` stores one item's result (one transaction) and returns a progress line; an
    item whose ``work`` raised a ClueStudioError (no answer) is added to ``outcomes`` as
    failed here, so every kind of batch reports it the same way. On
    cancel, Ctrl+C or an error, the items still in flight are told to stop, those already
    answered are stored, and the rest are left for a rerun.
    """
    inner = _LinkedToken(cancel)
    pool = ThreadPoolExecutor(max_workers=max(1, workers),
                              thread_name_prefix="ThreadPoolExecutor-vlm-batch")
    pending: dict[Future[T], BatchItem] = {}
    queue = iter(items)
    done = 0
    try:
        while True:
            while len(pending) < max(1, workers):
                item = next(queue, None)
                if item is None:
                    break
                pending[pool.submit(work, item, inner)] = item
            if not pending:
                break
            finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            cancel.raise_if_cancelled()
            for future in finished:
                item = pending.pop(future)
                message = _finish_one(item, future, finish, outcomes)
                done += 1
                yield Progress(done, len(items), f"{item.label}: {message}")
    except BaseException:
        inner.cancel()
        for future in pending:
            future.cancel()
        for future, item in list(pending.items()):
            if future.done() and not future.cancelled() and future.exception() is None:
                with contextlib.suppress(Exception):  # keep the original error
                    finish(item, future.result())
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _image(ws: Any, item: BatchItem) -> ImageInput:
    data = ws.image(item.image_hash)
    if not data:
        raise ClueStudioError(f"image A ({item.image_hash[:12]}) is missing from the workspace")
    return ImageInput.from_bytes(data, f"image A ({item.image_hash[:12]})")


# --- convert -------------------------------------------------------------------------------

def convert_workspace(
    ws: Any,
    backend: VLMBackend,
    cancel: CancelToken | None = None,
    *,
    tasks: Sequence[str] = (),
    redo: bool = False,
    max_repairs: int = 2,
    plantuml_check: bool = True,
    prompts: ConvertPrompts | None = None,
) -> Job[BatchSummary]:
    """Convert image A of every submission not converted by a model yet (all with ``redo``).

    The repair loop is :func:`~cluestudio.core.vlm.conversion.convert_image`'s (our parser,
    then PlantUML unless ``plantuml_check=False``); every attempt is stored as a revision
    with :func:`~cluestudio.core.vlm.workspace_adapter.store_conversion`, valid or not, so
    a conversion that still fails after its repairs is listed as failed and kept for the
    reviewer. A backend error (after its retries) stores nothing; a rerun asks again.
    """
    from cluestudio.core.vlm.conversion import convert_image, parser_checker

    cancel = cancel or CancelToken()
    prompts = prompts or load_convert_prompts()
    todo, skipped = plan_conversions(ws, tasks, redo)
    outcomes: list[ItemOutcome] = list(skipped)
    yield Progress(0, len(todo), f"{len(todo)} to convert with {backend.model_id}, "
                                 f"{len(skipped)} skipped", phase="converting")

    def work(item: BatchItem, token: CancelToken) -> Any:
        return run_job(convert_image(
            _image(ws, item), backend, token, source=item.label, max_repairs=max_repairs,
            prompts=prompts, check=None if plantuml_check else parser_checker, render=None))

    def finish(item: BatchItem, result: Any) -> str:
        return finish_conversion(ws, item, result, outcomes)

    yield from _in_pool(todo, work, finish, outcomes, backend.concurrency, cancel)
    return BatchSummary("convert", backend.model_id, prompts.version,
                        tuple(_in_order(outcomes)))


def finish_conversion(ws: Any, item: BatchItem, result: Any, outcomes: list[ItemOutcome]
                      ) -> str:
    """Store one conversion (every attempt a revision) and record its outcome (client)."""
    from cluestudio.core.vlm.workspace_adapter import store_conversion

    ids = store_conversion(ws, item.submission_id, result, parent_id=item.head_id)
    attempts = len(result.attempts)
    tokens = result.usage.total_tokens
    if result.ok:
        outcomes.append(ItemOutcome(item.submission_id, item.task_id, item.source_id,
                                    CONVERTED, attempts=attempts,
                                    revision_ids=tuple(ids), tokens=tokens))
        return f"converted after {attempts} attempt(s)"
    last = result.attempts[-1].error if result.attempts else "no answer"
    outcomes.append(ItemOutcome(
        item.submission_id, item.task_id, item.source_id, FAILED,
        f"still invalid after {attempts} attempt(s): {last} (attempts kept as revisions)",
        attempts=attempts, revision_ids=tuple(ids), tokens=tokens))
    return f"failed after {attempts} attempt(s)"


def _in_order(outcomes: Iterable[ItemOutcome]) -> list[ItemOutcome]:
    return sorted(outcomes, key=lambda o: (o.task_id, o.source_id, o.submission_id))


# --- probe ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ProbeItem:
    item: BatchItem
    diagram: Any
    input_hash: str


def _stored_probe(ws: Any, submission_id: int, model: str, input_hash: str
                  ) -> dict[str, Any] | None:
    from cluestudio.core.vlm.workspace_adapter import PROBE_NAME

    for found in reversed(ws.probe_results(submission_id)):
        if (found["probe"], found["model"], found["input_hash"]) == (PROBE_NAME, model,
                                                                      input_hash):
            return dict(found)
    return None


def _reasons(result: dict[str, Any]) -> tuple[dict[str, str], ...]:
    return tuple({"kind": str(r.get("kind", "")), "detail": str(r.get("detail", ""))}
                 for r in result.get("reasons") or [] if isinstance(r, dict))


def plan_probes(ws: Any, model_id: str, tasks: Sequence[str], redo: bool,
                prompts: ProbePrompts) -> tuple[list[ProbeItem], list[ItemOutcome]]:
    """(submissions to probe with their head diagram and probe input hash, the skipped and
    failed ones with why); see :func:`probe_workspace`."""
    from cluestudio.core.plantuml import parse_plantuml
    from cluestudio.core.vlm.probe import relation_questions
    from cluestudio.core.vlm.workspace_adapter import probe_input_hash_of

    kinds = {t.id: t.diagram_kind for t in ws.tasks()}
    outcomes: list[ItemOutcome] = []
    todo: list[ProbeItem] = []
    for summary in _summaries(ws, tasks):
        submission = ws.submission(summary.id)
        head = ws.head_revision(summary.id)
        if kinds.get(summary.task_id, "class") != "class":
            outcomes.append(_skip(summary, f"a {kinds[summary.task_id]} task, not a class "
                                           "diagram"))
            continue
        if submission is None or not submission.image_hash:
            outcomes.append(_skip(summary, "no image A"))
            continue
        if head is None or not head.puml.strip():
            outcomes.append(_skip(summary, "no PlantUML to probe against; convert first"))
            continue
        item = BatchItem(summary.id, summary.task_id, summary.source_id,
                         submission.image_hash, head.id)
        try:
            diagram = parse_plantuml(head.puml, source=f"revision {head.id}").diagram
        except ClueStudioError as error:
            outcomes.append(ItemOutcome(summary.id, summary.task_id, summary.source_id,
                                        FAILED, f"head revision {head.id} does not parse: "
                                                f"{error}"))
            continue
        if not diagram.classes:
            outcomes.append(ItemOutcome(summary.id, summary.task_id, summary.source_id,
                                        FAILED, f"head revision {head.id} has no classes to "
                                                "compare with; fix the conversion first"))
            continue
        # Blobs are stored by the SHA-256 of their bytes: the hash of the image sent.
        digest = probe_input_hash_of(submission.image_hash, diagram.class_names,
                                     relation_questions(diagram), prompts.version)
        stored = None if redo else _stored_probe(ws, summary.id, model_id, digest)
        if stored is not None:
            result = json.loads(stored.get("result") or "{}")
            flagged = bool(result.get("flagged"))
            outcomes.append(_skip(
                summary, "already probed (same image, PlantUML, model and prompts)",
                em=None if stored["em"] is None else bool(stored["em"]),
                rel_acc=stored["rel_acc"], flagged=flagged, stored=True,
                reasons=_reasons(result)))
            continue
        todo.append(ProbeItem(item, diagram, digest))
    return todo, outcomes


def finish_probe(ws: Any, item: BatchItem, result: Any, outcomes: list[ItemOutcome]) -> str:
    """Store one probe result and record its outcome (client)."""
    from cluestudio.core.vlm.workspace_adapter import store_probe

    store_probe(ws, item.submission_id, result)
    data = result.to_dict()
    outcomes.append(ItemOutcome(
        item.submission_id, item.task_id, item.source_id, PROBED,
        tokens=result.usage.total_tokens, em=bool(result.em), rel_acc=result.rel_acc,
        flagged=bool(result.flag), reasons=_reasons(data)))
    return "flagged" if result.flag else "agrees"


def probe_workspace(
    ws: Any,
    backend: VLMBackend,
    cancel: CancelToken | None = None,
    *,
    tasks: Sequence[str] = (),
    redo: bool = False,
    prompts: ProbePrompts | None = None,
) -> Job[BatchSummary]:
    """Probe image A against each submission's head revision; store with ``store_probe``.

    Skipped: no image A, no PlantUML yet, a task that is not a class diagram, and (unless
    ``redo``) a submission whose probe input already has a stored result for this model,
    whose flag is still reported. A head revision that does not parse, or has no classes
    (e.g. a failed conversion's answer), is a failure: nothing to compare image A with.
    """
    from cluestudio.core.vlm.probe import probe_submission

    cancel = cancel or CancelToken()
    prompts = prompts or load_probe_prompts()
    todo, outcomes = plan_probes(ws, backend.model_id, tasks, redo, prompts)
    by_id = {p.item.submission_id: p for p in todo}
    yield Progress(0, len(todo), f"{len(todo)} to probe with {backend.model_id}, "
                                 f"{len(outcomes)} skipped or failed", phase="probing")

    def work(item: BatchItem, token: CancelToken) -> Any:
        return run_job(probe_submission(_image(ws, item), by_id[item.submission_id].diagram,
                                        backend, token, source=item.label, prompts=prompts))

    def finish(item: BatchItem, result: Any) -> str:
        return finish_probe(ws, item, result, outcomes)

    yield from _in_pool([p.item for p in todo], work, finish, outcomes, backend.concurrency,
                          cancel)
    return BatchSummary("probe", backend.model_id, prompts.version,
                        tuple(_in_order(outcomes)))



# --- on an executor's workers (cluestudio.app.vlm_batches) ---------------------------------

@dataclass(frozen=True)
class RemoteJob:
    """What a worker needs to convert or probe a chunk of submissions.

    ``backend`` says how to build the model backend on the worker, once per process; it
    never carries an API key: a worker reads its own (``CLUESTUDIO_API_KEY`` or its
    keyring), so no key travels through a scheduler."""

    action: str  # "convert" | "probe"
    backend: Any  # core.vlm.factory.BackendOptions
    prompts: Any  # ConvertPrompts | ProbePrompts
    max_repairs: int = 2
    plantuml_check: bool = True


@dataclass
class RemoteOutcome:
    """A chunk's answers: (item, result, "") or (item, None, why there is no answer)."""

    chunk_id: int
    answers: list[tuple[BatchItem, Any, str]]
    seconds: float
    worker: str


_WORKER_BACKENDS: dict[str, VLMBackend] = {}


def worker_backend(options: Any) -> VLMBackend:
    """This process's backend for ``options`` (a local VLM loads once per worker)."""
    from cluestudio.core.vlm.factory import make_backend

    key = repr(options)
    if key not in _WORKER_BACKENDS:
        _WORKER_BACKENDS[key] = make_backend(options)
    return _WORKER_BACKENDS[key]


def work_on_worker(chunk_id: int, payloads: list[tuple[BatchItem, bytes, Any]],
                   job: RemoteJob) -> RemoteOutcome:
    """Convert or probe each (item, image A bytes, head diagram) where this runs; up to
    ``backend.concurrency`` at once. Nothing is stored here: the client stores."""
    import os
    import socket
    import time

    from cluestudio.core.vlm.conversion import convert_image, parser_checker
    from cluestudio.core.vlm.probe import probe_submission

    started = time.perf_counter()
    backend = worker_backend(job.backend)

    def one(payload: tuple[BatchItem, bytes, Any]) -> tuple[BatchItem, Any, str]:
        item, data, diagram = payload
        token = CancelToken()
        try:
            image = ImageInput.from_bytes(data, f"image A ({item.image_hash[:12]})")
            if job.action == "convert":
                return item, run_job(convert_image(
                    image, backend, token, source=item.label, max_repairs=job.max_repairs,
                    prompts=job.prompts, check=None if job.plantuml_check else parser_checker,
                    render=None)), ""
            return item, run_job(probe_submission(image, diagram, backend, token,
                                                  source=item.label, prompts=job.prompts)), ""
        except ClueStudioError as error:
            return item, None, str(error)

    with ThreadPoolExecutor(max_workers=max(1, min(backend.concurrency, len(payloads))),
                            thread_name_prefix="ThreadPoolExecutor-vlm-worker") as pool:
        answers = list(pool.map(one, payloads))
    return RemoteOutcome(chunk_id, answers, time.perf_counter() - started,
                         f"{socket.gethostname()}:{os.getpid()}")
