"""``cluestudio audit`` on an executor (docs/cluster.md): the rendering and the model calls
on the workers, each its own JVM and backend; the records are stored here, by the client."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cluestudio.app.executors import ChunkSizer, Executor, run_chunks
from cluestudio.app.vlm_batch_step import ITEM_SIZE, TARGET_SECONDS
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.vlm.factory import model_id_of


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
