"""``convert --workspace``, ``probe --workspace`` and ``audit`` on an executor
(docs/cluster.md).

The workspace batches of :mod:`cluestudio.core.vlm.workspace_batch`, with the model calls
made by an executor's workers (:mod:`cluestudio.app.executors`): the client plans from the
workspace, sends each submission's image A (and, to probe, its head diagram) in chunks,
and stores each answer as it comes back with the same ``finish_conversion`` /
``finish_probe`` as the in-process batch: it stays the workspace's only writer. Each worker
builds its backend once (a local VLM loads once per worker) and reads its own API key.
Worth it for ``--backend local`` (a VLM on each worker's GPU); against one shared server the
server is the limit, and ``--concurrency`` on the in-process batch is the knob.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from cluestudio.app.executors import ChunkSizer, Executor, run_chunks
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.vlm import workspace_batch as batch

# A model call takes seconds: a chunk is a few submissions, ~30 s of work, once measured.
TARGET_SECONDS = 30.0
ITEM_SIZE = 1000  # every submission counts the same to the chunk sizer


def model_id_of(options: Any) -> str:
    """The model id results are keyed by, without loading a local model here."""
    if options.backend == "local":
        return str(options.model)
    from cluestudio.core.vlm.factory import make_backend

    return make_backend(options).model_id


def convert_on(executor: Executor, ws: Any, options: Any, cancel: CancelToken | None = None,
               *, tasks: Sequence[str] = (), redo: bool = False, max_repairs: int = 2,
               plantuml_check: bool = True, prompts: Any = None
               ) -> Job[batch.BatchSummary]:
    """:func:`~cluestudio.core.vlm.workspace_batch.convert_workspace` on ``executor``."""
    prompts = prompts or batch.load_convert_prompts()
    todo, skipped = batch.plan_conversions(ws, tasks, redo)
    outcomes: list[batch.ItemOutcome] = list(skipped)
    model = model_id_of(options)
    yield Progress(0, len(todo), f"{len(todo)} to convert with {model} on "
                                 f"{executor.describe()}, {len(skipped)} skipped", "converting")
    job = batch.RemoteJob("convert", replace(options, api_key=None), prompts, max_repairs,
                          plantuml_check)
    payloads = ((item, ws.image(item.image_hash), None) for item in todo)
    yield from _run(executor, ws, payloads, job, outcomes, cancel or CancelToken(),
                    len(todo), batch.finish_conversion)
    return batch.BatchSummary("convert", model, prompts.version,
                              tuple(batch._in_order(outcomes)))


def probe_on(executor: Executor, ws: Any, options: Any, cancel: CancelToken | None = None,
             *, tasks: Sequence[str] = (), redo: bool = False, prompts: Any = None
             ) -> Job[batch.BatchSummary]:
    """:func:`~cluestudio.core.vlm.workspace_batch.probe_workspace` on ``executor``."""
    prompts = prompts or batch.load_probe_prompts()
    model = model_id_of(options)
    todo, outcomes = batch.plan_probes(ws, model, tasks, redo, prompts)
    yield Progress(0, len(todo), f"{len(todo)} to probe with {model} on "
                                 f"{executor.describe()}, {len(outcomes)} skipped or failed",
                   "probing")
    job = batch.RemoteJob("probe", replace(options, api_key=None), prompts)
    payloads = ((p.item, ws.image(p.item.image_hash), p.diagram) for p in todo)
    yield from _run(executor, ws, payloads, job, outcomes, cancel or CancelToken(),
                    len(todo), batch.finish_probe)
    return batch.BatchSummary("probe", model, prompts.version, tuple(batch._in_order(outcomes)))


def _run(executor: Executor, ws: Any, payloads: Any, job: batch.RemoteJob,
         outcomes: list[batch.ItemOutcome], cancel: CancelToken, total: int,
         finish: Any) -> Job[int]:
    def on_result(chunk: list[Any], value: batch.RemoteOutcome) -> str:
        lines = []
        for item, result, error in value.answers:
            if result is None:
                outcomes.append(batch.ItemOutcome(item.submission_id, item.task_id,
                                                  item.source_id, batch.FAILED,
                                                  f"no answer: {error}"))
                lines.append(f"{item.label}: failed ({error})")
            else:
                lines.append(f"{item.label}: {finish(ws, item, result, outcomes)}")
        return f"{'; '.join(lines)} [{value.worker}]"

    def on_failure(chunk: list[Any], error: BaseException) -> str:
        for item, _, _ in chunk:
            outcomes.append(batch.ItemOutcome(item.submission_id, item.task_id,
                                              item.source_id, batch.FAILED,
                                              f"no answer: the worker failed: {error}"))
        return f"{len(chunk)} submission(s) failed on the {executor.name} executor: {error}"

    return (yield from run_chunks(
        executor, batch.work_on_worker, payloads, (job,), cancel, on_result=on_result,
        on_failure=on_failure, size_of=lambda payload: ITEM_SIZE,
        sizer=ChunkSizer(TARGET_SECONDS, first=1, largest=64), total=total))


def audit_on(executor: Executor, options: Any, config: Any, store: Any,
             cancel: CancelToken | None = None) -> Job[Any]:
    """:func:`~cluestudio.core.vlm.audit.run_audit` with the rendering and the model calls
    on ``executor``'s workers (each its own JVM and backend); every record is added to
    ``store`` here, as it comes back, so an interrupted audit resumes as before."""
    from cluestudio.core.vlm import audit

    cancel = cancel or CancelToken()
    plan = audit.plan_audit(config, model_id_of(options), store)
    failures: list[str] = []
    asked = 0
    yield Progress(plan.done, plan.total, f"{plan.done} cached; asking {plan.model} on "
                                          f"{executor.describe()}", "auditing")

    def on_result(chunk: list[Any], value: Any) -> str:
        nonlocal asked
        for record in value.records:
            store.add(record)
        asked += len(value.records)
        failures.extend(value.failures)
        return f"{len(value.records)} answers from {value.worker}"

    def on_failure(chunk: list[Any], error: BaseException) -> str:
        failures.extend(f"{i.id} ({i.condition}/{i.relation}): the worker failed: {error}"
                        for i, _ in chunk)
        return f"{len(chunk)} instance(s) failed on the {executor.name} executor"

    units = ((instance, plan.missing(instance, store)) for instance in plan.todo)
    yield from run_chunks(
        executor, audit.audit_on_worker, units, (replace(options, api_key=None), config),
        cancel, on_result=on_result, on_failure=on_failure,
        size_of=lambda unit: ITEM_SIZE * len(unit[1]),
        sizer=ChunkSizer(TARGET_SECONDS, first=1, largest=64),
        total=len(plan.todo))
    records = tuple(r for k in plan.wanted if (r := store.get(k)) is not None)
    return audit.AuditRun(config=config, model=plan.model, prompt_version=plan.version,
                          records=records, asked=asked, failures=tuple(failures))
