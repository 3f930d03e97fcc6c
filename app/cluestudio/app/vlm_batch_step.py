"""The model call of the VLM workspace batches, one item at a time: :func:`ask`, the one
function that converts or probes an image A, whether a thread of this process calls it
(:func:`in_pool`, ``convert --workspace``) or an executor's worker does
(:func:`work_on_worker`, ``--executor``). Nothing is stored here: the client stores each
answer as it comes back (:mod:`cluestudio.app.vlm_batches`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

from cluestudio.app.vlm_batch_records import (
    FAILED,
    BatchItem,
    ItemOutcome,
    Question,
    RemoteJob,
    RemoteOutcome,
)
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import Cancelled, CancelToken, Job, Progress, run_job
from cluestudio.core.vlm.backend import ImageInput, VLMBackend
from cluestudio.core.vlm.factory import worker_backend

T = TypeVar("T")

# A model call takes seconds: a chunk is a few submissions, ~30 s of work, once measured.
TARGET_SECONDS = 30.0
ITEM_SIZE = 1000  # every submission (or audit scale) counts the same to the chunk sizer


def asking(question: Question, backend: VLMBackend, item: BatchItem, image: ImageInput,
           diagram: Any, cancel: CancelToken) -> Job[Any]:
    """The model's answer about one item, as a job (its progress: asking, repairs, image B):
    a ConversionResult (convert: the repair loop of
    :func:`~cluestudio.core.vlm.conversion.convert_image`, our parser then PlantUML through
    the process's shared warm renderer unless ``plantuml_check`` is off; image B only when
    ``question.image_b``, which the check has already drawn) or a ProbeResult (probe: image
    A against ``diagram``, the head revision's); ClueStudioError when the backend gives no
    answer. The batches, their workers and the window's worker process all ask here."""
    from cluestudio.core.vlm.conversion import convert_image, default_renderer, parser_checker
    from cluestudio.core.vlm.probe import probe_submission

    if question.action == "convert":
        return (yield from convert_image(
            image, backend, cancel, source=item.label, max_repairs=question.max_repairs,
            prompts=question.prompts,
            check=None if question.plantuml_check else parser_checker,
            render=default_renderer if question.image_b else None))
    return (yield from probe_submission(image, diagram, backend, cancel, source=item.label,
                                        prompts=question.prompts))


def ask(question: Question, backend: VLMBackend, item: BatchItem, image: ImageInput,
        diagram: Any, cancel: CancelToken) -> Any:
    """:func:`asking`, run to its answer (a thread of the pool, an executor's worker)."""
    return run_job(asking(question, backend, item, image, diagram, cancel))


def image_input(item: BatchItem, data: bytes) -> ImageInput:
    """Image A of ``item`` from its bytes, as the model is sent it (checked: size, format)."""
    return ImageInput.from_bytes(data, f"image A ({item.image_hash[:12]})")


# --- in this process: a few items at a time on a thread pool ---------------------------------


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


def in_pool(
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


# --- on an executor's workers (cluestudio.app.vlm_batches.convert_on / probe_on) -------------


def work_on_worker(chunk_id: int, payloads: list[tuple[BatchItem, bytes, Any]],
                   job: RemoteJob) -> RemoteOutcome:
    """Convert or probe each (item, image A bytes, head diagram) where this runs; up to
    ``backend.concurrency`` at once. Nothing is stored here: the client stores."""
    import os
    import socket
    import time

    started = time.perf_counter()
    backend = worker_backend(job.backend)

    def one(payload: tuple[BatchItem, bytes, Any]) -> tuple[BatchItem, Any, str]:
        item, data, diagram = payload
        try:
            return item, ask(job.question, backend, item, image_input(item, data), diagram,
                             CancelToken()), ""
        except ClueStudioError as error:
            return item, None, str(error)

    with ThreadPoolExecutor(max_workers=max(1, min(backend.concurrency, len(payloads))),
                            thread_name_prefix="ThreadPoolExecutor-vlm-worker") as pool:
        answers = list(pool.map(one, payloads))
    return RemoteOutcome(chunk_id, answers, time.perf_counter() - started,
                         f"{socket.gethostname()}:{os.getpid()}")
