"""Convert or probe a whole workspace with a VLM, one job: plan, run, store. The jobs behind
``cluestudio convert --workspace``, ``probe --workspace`` (DESIGN §6, §7, §10) and their
``--executor`` runs (docs/cluster.md).

Both are plain jobs (generators yielding :class:`~cluestudio.core.jobs.Progress`, honouring
a :class:`~cluestudio.core.jobs.CancelToken`), so the GUI can run them on its worker lane
as the CLI does with :func:`~cluestudio.core.jobs.run_job`. The model call is one function,
:func:`cluestudio.app.vlm_batch_step.ask`, whoever makes it: in this process up to
``backend.concurrency`` submissions are asked at once on a small thread pool (the backend's
own limit still caps the requests in flight); on an executor (:func:`convert_on`,
:func:`probe_on`) the client sends each submission's image A (and, to probe, its head
diagram) in chunks to workers that each build their backend once (a local VLM loads once
per worker) and read their own API key. Worth it for ``--backend local`` (a VLM on each
worker's GPU); against one shared server the server is the limit, and ``--concurrency`` on
the in-process batch is the knob.

Either way every write goes through the workspace writer here (``workspace.write``), with
the same :func:`finish_conversion` / :func:`finish_probe`, one transaction per submission
as soon as it comes back, so an interrupted run (Ctrl+C, cancel, ``kill -9``) keeps what
was stored and a rerun skips it.

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

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from typing import Any

from cluestudio.app.executors import ChunkSizer, Executor, run_chunks
from cluestudio.app.vlm_batch_records import (
    CONVERTED,
    FAILED,
    PROBED,
    SKIPPED,
    BatchItem,
    BatchSummary,
    ItemOutcome,
    ProbeItem,
    Question,
    RemoteJob,
    RemoteOutcome,
)
from cluestudio.app.vlm_batch_step import (
    ITEM_SIZE,
    TARGET_SECONDS,
    ask,
    image_input,
    in_pool,
    work_on_worker,
)
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.vlm.backend import ImageInput, VLMBackend
from cluestudio.core.vlm.factory import model_id_of
from cluestudio.core.vlm.prompts import (
    ConvertPrompts,
    ProbePrompts,
    load_convert_prompts,
    load_probe_prompts,
)

# --- plan (client) ---------------------------------------------------------------------------


def _summaries(ws: Any, tasks: Sequence[str], submission_ids: Collection[int] | None = None
               ) -> list[Any]:
    known = {t.id for t in ws.tasks()}
    unknown = [t for t in tasks if t not in known]
    if unknown:
        raise ClueStudioError(f"{ws.path}: no task {', '.join(map(repr, unknown))} "
                              f"(tasks: {', '.join(sorted(known)) or 'none'})")
    if submission_ids is not None:
        listed = ws.list_submissions(submission_ids=submission_ids)
        missing = sorted(set(submission_ids) - {s.id for s in listed})
        if missing:
            raise ClueStudioError(f"{ws.path}: no submission "
                                  f"{', '.join(f'#{i}' for i in missing)}")
        return [s for s in listed if not tasks or s.task_id in tasks]
    if not tasks:
        return list(ws.list_submissions())
    return [s for task in dict.fromkeys(tasks) for s in ws.list_submissions(task_id=task)]


def _skip(summary: Any, reason: str, **extra: Any) -> ItemOutcome:
    return ItemOutcome(summary.id, summary.task_id, summary.source_id, SKIPPED, reason, **extra)


def plan_conversions(ws: Any, tasks: Sequence[str] = (), redo: bool = False, *,
                     submission_ids: Collection[int] | None = None
                     ) -> tuple[list[BatchItem], list[ItemOutcome]]:
    """(submissions to convert, the skipped ones with why), among ``submission_ids``
    (default: all) of ``tasks`` (default: all)."""
    todo: list[BatchItem] = []
    skipped: list[ItemOutcome] = []
    for summary in _summaries(ws, tasks, submission_ids):
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
                prompts: ProbePrompts, *, submission_ids: Collection[int] | None = None
                ) -> tuple[list[ProbeItem], list[ItemOutcome]]:
    """(submissions to probe with their head diagram and probe input hash, the skipped and
    failed ones with why), among ``submission_ids`` (default: all) of ``tasks`` (default:
    all); see :func:`probe_workspace`."""
    from cluestudio.core.plantuml import parse_plantuml
    from cluestudio.core.vlm.probe import relation_questions
    from cluestudio.core.vlm.workspace_adapter import probe_input_hash_of

    kinds = {t.id: t.diagram_kind for t in ws.tasks()}
    outcomes: list[ItemOutcome] = []
    todo: list[ProbeItem] = []
    for summary in _summaries(ws, tasks, submission_ids):
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


# --- run in this process ---------------------------------------------------------------------


def image_of(ws: Any, item: BatchItem) -> bytes:
    """Image A's bytes of a planned item; ClueStudioError when the blob is gone."""
    data = ws.image(item.image_hash)
    if not data:
        raise ClueStudioError(f"image A ({item.image_hash[:12]}) is missing from the workspace")
    return bytes(data)


def _image(ws: Any, item: BatchItem) -> ImageInput:
    return image_input(item, image_of(ws, item))


def convert_workspace(
    ws: Any,
    backend: VLMBackend,
    cancel: CancelToken | None = None,
    *,
    tasks: Sequence[str] = (),
    redo: bool = False,
    submission_ids: Collection[int] | None = None,
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
    cancel = cancel or CancelToken()
    prompts = prompts or load_convert_prompts()
    todo, skipped = plan_conversions(ws, tasks, redo, submission_ids=submission_ids)
    outcomes: list[ItemOutcome] = list(skipped)
    yield Progress(0, len(todo), f"{len(todo)} to convert with {backend.model_id}, "
                                 f"{len(skipped)} skipped", phase="converting")

    question = Question("convert", prompts, max_repairs, plantuml_check)

    def work(item: BatchItem, token: CancelToken) -> Any:
        return ask(question, backend, item, _image(ws, item), None, token)

    def finish(item: BatchItem, result: Any) -> str:
        return finish_conversion(ws, item, result, outcomes)

    yield from in_pool(todo, work, finish, outcomes, backend.concurrency, cancel)
    return BatchSummary("convert", backend.model_id, prompts.version,
                        tuple(_in_order(outcomes)))


def probe_workspace(
    ws: Any,
    backend: VLMBackend,
    cancel: CancelToken | None = None,
    *,
    tasks: Sequence[str] = (),
    redo: bool = False,
    submission_ids: Collection[int] | None = None,
    prompts: ProbePrompts | None = None,
) -> Job[BatchSummary]:
    """Probe image A against each submission's head revision; store with ``store_probe``.

    Skipped: no image A, no PlantUML yet, a task that is not a class diagram, and (unless
    ``redo``) a submission whose probe input already has a stored result for this model,
    whose flag is still reported. A head revision that does not parse, or has no classes
    (e.g. a failed conversion's answer), is a failure: nothing to compare image A with.
    """
    cancel = cancel or CancelToken()
    prompts = prompts or load_probe_prompts()
    todo, outcomes = plan_probes(ws, backend.model_id, tasks, redo, prompts,
                                 submission_ids=submission_ids)
    by_id = {p.item.submission_id: p for p in todo}
    yield Progress(0, len(todo), f"{len(todo)} to probe with {backend.model_id}, "
                                 f"{len(outcomes)} skipped or failed", phase="probing")

    question = Question("probe", prompts)

    def work(item: BatchItem, token: CancelToken) -> Any:
        return ask(question, backend, item, _image(ws, item), by_id[item.submission_id].diagram,
                   token)

    def finish(item: BatchItem, result: Any) -> str:
        return finish_probe(ws, item, result, outcomes)

    yield from in_pool([p.item for p in todo], work, finish, outcomes, backend.concurrency,
                       cancel)
    return BatchSummary("probe", backend.model_id, prompts.version,
                        tuple(_in_order(outcomes)))


# --- run on an executor's workers ------------------------------------------------------------


def convert_on(executor: Executor, ws: Any, options: Any, cancel: CancelToken | None = None,
               *, tasks: Sequence[str] = (), redo: bool = False,
               submission_ids: Collection[int] | None = None, max_repairs: int = 2,
               plantuml_check: bool = True, prompts: Any = None
               ) -> Job[BatchSummary]:
    """:func:`convert_workspace` on ``executor``."""
    prompts = prompts or load_convert_prompts()
    todo, skipped = plan_conversions(ws, tasks, redo, submission_ids=submission_ids)
    outcomes: list[ItemOutcome] = list(skipped)
    model = model_id_of(options)
    yield Progress(0, len(todo), f"{len(todo)} to convert with {model} on "
                                 f"{executor.describe()}, {len(skipped)} skipped", "converting")
    job = RemoteJob(Question("convert", prompts, max_repairs, plantuml_check),
                    replace(options, api_key=None))
    payloads = ((item, ws.image(item.image_hash), None) for item in todo)
    yield from _run(executor, ws, payloads, job, outcomes, cancel or CancelToken(),
                    len(todo), finish_conversion)
    return BatchSummary("convert", model, prompts.version, tuple(_in_order(outcomes)))


def probe_on(executor: Executor, ws: Any, options: Any, cancel: CancelToken | None = None,
             *, tasks: Sequence[str] = (), redo: bool = False,
             submission_ids: Collection[int] | None = None, prompts: Any = None
             ) -> Job[BatchSummary]:
    """:func:`probe_workspace` on ``executor``."""
    prompts = prompts or load_probe_prompts()
    model = model_id_of(options)
    todo, outcomes = plan_probes(ws, model, tasks, redo, prompts,
                                 submission_ids=submission_ids)
    yield Progress(0, len(todo), f"{len(todo)} to probe with {model} on "
                                 f"{executor.describe()}, {len(outcomes)} skipped or failed",
                   "probing")
    job = RemoteJob(Question("probe", prompts), replace(options, api_key=None))
    payloads = ((p.item, ws.image(p.item.image_hash), p.diagram) for p in todo)
    yield from _run(executor, ws, payloads, job, outcomes, cancel or CancelToken(),
                    len(todo), finish_probe)
    return BatchSummary("probe", model, prompts.version, tuple(_in_order(outcomes)))


def _run(executor: Executor, ws: Any, payloads: Any, job: RemoteJob,
         outcomes: list[ItemOutcome], cancel: CancelToken, total: int,
         finish: Any) -> Job[int]:
    def on_result(chunk: list[Any], value: RemoteOutcome) -> str:
        lines = []
        for item, result, error in value.answers:
            if result is None:
                outcomes.append(ItemOutcome(item.submission_id, item.task_id, item.source_id,
                                            FAILED, f"no answer: {error}"))
                lines.append(f"{item.label}: failed ({error})")
            else:
                lines.append(f"{item.label}: {finish(ws, item, result, outcomes)}")
        return f"{'; '.join(lines)} [{value.worker}]"

    def on_failure(chunk: list[Any], error: BaseException) -> str:
        for item, _, _ in chunk:
            outcomes.append(ItemOutcome(item.submission_id, item.task_id, item.source_id,
                                        FAILED, f"no answer: the worker failed: {error}"))
        return f"{len(chunk)} submission(s) failed on the {executor.name} executor: {error}"

    return (yield from run_chunks(
        executor, work_on_worker, payloads, (job,), cancel, on_result=on_result,
        on_failure=on_failure, size_of=lambda payload: ITEM_SIZE,
        sizer=ChunkSizer(TARGET_SECONDS, first=1, largest=64), total=total))


# --- store (client) --------------------------------------------------------------------------


def finish_conversion(ws: Any, item: BatchItem, result: Any, outcomes: list[ItemOutcome]
                      ) -> str:
    """Store one conversion (every attempt a revision) and record its outcome (client)."""
    from cluestudio.core.vlm.conversion import attempts_text
    from cluestudio.core.vlm.workspace_adapter import store_conversion

    ids = store_conversion(ws, item.submission_id, result, parent_id=item.head_id)
    attempts = len(result.attempts)
    tokens = result.usage.total_tokens
    # A deterministic backend (the offline draft) answers once: no attempts to count.
    after = "" if result.deterministic else f" after {attempts_text(attempts)}"
    if result.ok:
        outcomes.append(ItemOutcome(item.submission_id, item.task_id, item.source_id,
                                    CONVERTED, attempts=attempts,
                                    revision_ids=tuple(ids), tokens=tokens))
        return f"converted{after}"
    last = result.attempts[-1].error if result.attempts else "no answer"
    outcomes.append(ItemOutcome(
        item.submission_id, item.task_id, item.source_id, FAILED,
        f"{last} (kept as a revision)" if result.deterministic else
        f"still invalid{after}: {last} (attempts kept as revisions)",
        attempts=attempts, revision_ids=tuple(ids), tokens=tokens))
    return f"failed: {last}" if result.deterministic else f"failed{after}"


def _in_order(outcomes: Iterable[ItemOutcome]) -> list[ItemOutcome]:
    return sorted(outcomes, key=lambda o: (o.task_id, o.source_id, o.submission_id))


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
