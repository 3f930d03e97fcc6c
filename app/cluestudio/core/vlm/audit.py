"""The prior-bias audit (seed 003): render each condition's diagrams, ask the VLM, cache.

For each generated instance and scale the backend answers stage 1 (class names) and stage 2
(the instance's one relation question). Answers go to an :class:`AnswerStore` (a JSONL
:class:`ResultCache`, or the workspace) as they arrive, each durable before the next, so an
interrupted audit, re-run with the same settings, only asks what is left.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.vlm.answers import exact_match, parse_class_list, parse_truth
from cluestudio.core.vlm.backend import ImageInput, VLMBackend
from cluestudio.core.vlm.cache import AnswerStore, Key
from cluestudio.core.vlm.chains import vocabulary_digest
from cluestudio.core.vlm.conditions import (
    CONDITIONS,
    SCALES,
    AuditInstance,
    Chain,
    Vocabulary,
    generate,
)
from cluestudio.core.vlm.probe import RelationQuestion, stage1_request, stage2_request
from cluestudio.core.vlm.prompts import RELATIONS, ProbePrompts, load_probe_prompts

log = logging.getLogger("cluestudio.vlm")

Renderer = Callable[[str], bytes]
SCALE_MODES = ("resize", "plantuml")


#: Stage 2's answer budget: enough for "True"/"False"/"Unknown" and a wrapper. Models that
#: reason before answering need more (``stage2_max_tokens``); the last verdict counts.
STAGE2_MAX_TOKENS = 16


@dataclass(frozen=True)
class AuditConfig:
    conditions: tuple[str, ...] = CONDITIONS
    relations: tuple[str, ...] = RELATIONS
    scales: tuple[float, ...] = SCALES
    per_cell: int | None = 10  # base items per (condition, relation); None = all
    seed: int = 0
    # "resize": render once, resize the PNG (seed 003, Appendix C); "plantuml": re-render
    # with PlantUML's `scale` directive (sharper text at larger scales).
    scale_mode: str = "resize"
    prompt_version: str = "v1"
    stage2_max_tokens: int = STAGE2_MAX_TOKENS
    # Chains per relation (e.g. a generated vocabulary file); None: the shipped ones.
    vocabulary: tuple[tuple[str, tuple[Chain, ...]], ...] | None = None

    @classmethod
    def with_vocabulary(cls, vocabulary: Vocabulary | None, **options: Any) -> AuditConfig:
        frozen = (None if vocabulary is None
                  else tuple((r, tuple(c)) for r, c in vocabulary.items()))
        return cls(vocabulary=frozen, **options)

    @property
    def chains(self) -> Vocabulary | None:
        return None if self.vocabulary is None else dict(self.vocabulary)

    def instances(self) -> list[AuditInstance]:
        """The diagrams this audit asks about, conflict items with their twins."""
        return generate(self.conditions, self.relations, self.per_cell, self.seed,
                        self.chains)

    def answer_version(self, prompts: ProbePrompts) -> str:
        """What stored answers are keyed by: the prompts, and stage 2's budget if it is not
        the default (a bigger budget gives other answers, so they are asked again)."""
        if self.stage2_max_tokens == STAGE2_MAX_TOKENS:
            return prompts.version
        return f"{prompts.version}+stage2-max{self.stage2_max_tokens}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        chains = self.chains
        data["vocabulary"] = ("shipped" if chains is None else
                              {"chains": {r: len(c) for r, c in chains.items()},
                               "sha256": vocabulary_digest(chains)})
        return data


@dataclass(frozen=True)
class AuditRun:
    config: AuditConfig
    model: str
    prompt_version: str
    records: tuple[dict[str, Any], ...]
    asked: int  # answered in this run (the rest came from the cache)
    failures: tuple[str, ...] = field(default=())


def scale_png(png: bytes, scale: float) -> bytes:
    """The same rendered diagram at ``scale`` × its size (Lanczos), as PNG."""
    if scale == 1.0:
        return png
    from PIL import Image, PngImagePlugin

    with Image.open(io.BytesIO(png)) as image:
        image.load()
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        resized = image.resize(size, Image.Resampling.LANCZOS)
        # PlantUML stores the diagram source in PNG text chunks; keep it, so every scaled
        # copy can be traced back to the text it shows.
        info = PngImagePlugin.PngInfo()
        for name, value in getattr(image, "text", {}).items():
            info.add_text(name, value)
    out = io.BytesIO()
    resized.save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def _images(instance: AuditInstance, scales: Sequence[float], mode: str,
            render: Renderer) -> Iterator[tuple[float, bytes]]:
    if mode == "plantuml":
        for scale in scales:
            yield scale, render(instance.plantuml(scale))
        return
    base = render(instance.plantuml())
    for scale in scales:
        yield scale, scale_png(base, scale)


def ask_instance(backend: VLMBackend, prompts: ProbePrompts, instance: AuditInstance,
                 scale: float, png: bytes, seed: int, *,
                 stage2_max_tokens: int = STAGE2_MAX_TOKENS,
                 answer_version: str | None = None) -> dict[str, Any]:
    """Both stages for one rendered instance, as a cache record."""
    image = ImageInput.from_bytes(png)
    started = time.perf_counter()
    names = sorted(instance.layout)  # alphabetical: the order must not hint at the hierarchy
    first = backend.complete(stage1_request(prompts, image, instance.relation, len(names)))
    question = RelationQuestion(instance.relation, *instance.question, instance.gold)
    second = backend.complete(stage2_request(prompts, image, question, names,
                                             max_tokens=stage2_max_tokens))
    predicted = parse_class_list(first.text)
    parsed = parse_truth(second.text)
    usage = first.usage + second.usage
    return {
        "instance_id": instance.id, "condition": instance.condition,
        "relation": instance.relation, "scale": scale, "seed": seed,
        "model": backend.model_id, "prompt_version": answer_version or prompts.version,
        "variant": instance.variant, "twin": instance.twin, "classes": list(instance.layout),
        "edges": [list(e) for e in instance.edges], "question": list(instance.question),
        "gold": instance.gold, "image_sha256": image.sha256,
        "class_answer": first.text, "predicted_names": predicted,
        "em": exact_match(predicted, instance.layout),
        "relation_answer": second.text, "parsed": parsed,
        "stage2_max_tokens": stage2_max_tokens,
        "correct": parsed == ("True" if instance.gold else "False"),
        "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
        "seconds": round(time.perf_counter() - started, 3),
        "created_at": datetime.now(UTC).isoformat(),
    }


def audit_keys(config: AuditConfig, model: str, prompt_version: str) -> list[Key]:
    """The store keys of every (instance, scale) the audit ``config`` asks, in order;
    ``prompt_version`` is :meth:`AuditConfig.answer_version`."""
    return [(i.id, i.condition, i.relation, float(s), config.seed, model, prompt_version)
            for i in config.instances() for s in config.scales]


def stored_audit(config: AuditConfig, model: str, store: AnswerStore) -> AuditRun:
    """The audit as far as ``store`` holds it, asking nothing (reports from a workspace).

    ``failures`` lists how many items are still unanswered, so a partial table is visible.
    """
    prompts = load_probe_prompts(config.prompt_version)
    version = config.answer_version(prompts)
    keys = audit_keys(config, model, version)
    records = tuple(r for k in keys if (r := store.get(k)) is not None)
    missing = len(keys) - len(records)
    failures = (f"{missing} of {len(keys)} item(s) not answered yet",) if missing else ()
    return AuditRun(config=config, model=model, prompt_version=version,
                    records=records, asked=0, failures=failures)


@dataclass(frozen=True)
class AuditPlan:
    """What an audit run still has to ask, given what ``cache`` holds."""

    config: AuditConfig
    model: str
    prompts: ProbePrompts
    version: str
    total: int  # (instance, scale) items of the whole audit
    wanted: list[Key]
    todo: list[AuditInstance]  # instances with at least one scale not answered
    done: int  # items already answered

    def key(self, instance: AuditInstance, scale: float) -> Key:
        return (instance.id, instance.condition, instance.relation, float(scale),
                self.config.seed, self.model, self.version)

    def missing(self, instance: AuditInstance, cache: AnswerStore) -> list[float]:
        return [s for s in self.config.scales if self.key(instance, s) not in cache]


def plan_audit(config: AuditConfig, model: str, cache: AnswerStore) -> AuditPlan:
    prompts = load_probe_prompts(config.prompt_version)
    version = config.answer_version(prompts)
    instances = config.instances()
    total = len(instances) * len(config.scales)

    def key(instance: AuditInstance, scale: float) -> Key:
        return (instance.id, instance.condition, instance.relation, float(scale), config.seed,
                model, version)

    wanted = [key(i, s) for i in instances for s in config.scales]
    todo = [i for i in instances if any(key(i, s) not in cache for s in config.scales)]
    done = total - sum(1 for i in todo for s in config.scales if key(i, s) not in cache)
    return AuditPlan(config, model, prompts, version, total, wanted, todo, done)


def run_audit(
    backend: VLMBackend,
    config: AuditConfig,
    cache: AnswerStore,
    render: Renderer,
    cancel: CancelToken | None = None,
) -> Job[AuditRun]:
    """Ask every (instance, scale) not yet in ``cache``; return all records of this config."""
    cancel = cancel or CancelToken()
    if config.scale_mode not in SCALE_MODES:
        raise ClueStudioError(f"scale mode {config.scale_mode!r}: expected one of {SCALE_MODES}")
    if config.stage2_max_tokens < 1:
        raise ClueStudioError("stage 2 needs at least 1 token to answer")
    plan = plan_audit(config, backend.model_id, cache)
    prompts, version, total, key = plan.prompts, plan.version, plan.total, plan.key
    wanted, todo, done = plan.wanted, plan.todo, plan.done
    failures: list[str] = []
    asked = 0
    yield Progress(done, total, f"{done} cached; asking {backend.model_id}", phase="auditing")

    def work() -> Iterator[tuple[AuditInstance, float, bytes]]:
        for instance in todo:
            missing = [s for s in config.scales if key(instance, s) not in cache]
            try:
                for scale, png in _images(instance, missing, config.scale_mode, render):
                    yield instance, scale, png
            except ClueStudioError as error:
                failures.append(f"{instance.id} ({instance.condition}/{instance.relation}): "
                                f"render: {error}")

    workers = max(1, backend.concurrency)
    pending: dict[Future[dict[str, Any]], str] = {}

    def finish(future: Future[dict[str, Any]]) -> None:
        nonlocal asked, done
        label = pending.pop(future)
        done += 1
        try:
            cache.add(future.result())
            asked += 1
        except ClueStudioError as error:  # one failed call must not lose the others
            failures.append(f"{label}: {error}")

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ThreadPoolExecutor-vlm"
                            ) as pool:
        try:
            for instance, scale, png in work():
                cancel.raise_if_cancelled()
                while len(pending) >= 2 * workers:
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        finish(future)
                    yield Progress(done, total, f"{instance.condition}/{instance.relation}",
                                   phase="auditing")
                future = pool.submit(ask_instance, backend, prompts, instance, scale, png,
                                     config.seed, stage2_max_tokens=config.stage2_max_tokens,
                                     answer_version=version)
                pending[future] = f"{instance.id} ({instance.condition}/{instance.relation} " \
                                  f"×{scale:g})"
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    finish(future)
                cancel.raise_if_cancelled()
                yield Progress(done, total, "answers", phase="auditing")
        except BaseException:
            # Keep what already came back (resume starts after it); drop what had not.
            for future in list(pending):
                future.cancel()
            wait(pending)
            for future in list(pending):
                if future.done() and not future.cancelled() and future.exception() is None:
                    finish(future)
            raise
    records = tuple(r for k in wanted if (r := cache.get(k)) is not None)
    yield Progress(total, total, f"{asked} asked, {len(failures)} failed", phase="auditing")
    return AuditRun(config=config, model=backend.model_id, prompt_version=version,
                    records=records, asked=asked, failures=tuple(failures))


# --- on an executor's workers (cluestudio.app.vlm_batches) ---------------------------------

@dataclass
class AuditOutcome:
    """One chunk's records and failures, from a worker."""

    chunk_id: int
    records: list[dict[str, Any]]
    failures: list[str]
    seconds: float
    worker: str


def audit_on_worker(chunk_id: int, units: list[tuple[AuditInstance, list[float]]],
                    backend_options: Any, config: AuditConfig) -> AuditOutcome:
    """Render each instance (this worker's JVM) and ask both stages at each missing scale,
    up to ``backend.concurrency`` at once; the client stores the records."""
    import os
    import socket

    from cluestudio.core.vlm.conversion import default_renderer
    from cluestudio.core.vlm.factory import worker_backend

    started = time.perf_counter()
    backend = worker_backend(backend_options)
    prompts = load_probe_prompts(config.prompt_version)
    version = config.answer_version(prompts)
    records: list[dict[str, Any]] = []
    failures: list[str] = []
    asks = []
    for instance, scales in units:
        try:
            asks += [(instance, scale, png) for scale, png in
                     _images(instance, scales, config.scale_mode, default_renderer)]
        except ClueStudioError as error:
            failures.append(f"{instance.id} ({instance.condition}/{instance.relation}): "
                            f"render: {error}")

    def one(ask: tuple[AuditInstance, float, bytes]) -> dict[str, Any] | str:
        instance, scale, png = ask
        try:
            return ask_instance(backend, prompts, instance, scale, png, config.seed,
                                stage2_max_tokens=config.stage2_max_tokens,
                                answer_version=version)
        except ClueStudioError as error:
            return (f"{instance.id} ({instance.condition}/{instance.relation} ×{scale:g}): "
                    f"{error}")

    with ThreadPoolExecutor(max_workers=max(1, min(backend.concurrency, len(asks) or 1)),
                            thread_name_prefix="ThreadPoolExecutor-vlm-worker") as pool:
        for answer in pool.map(one, asks):
            if isinstance(answer, str):
                failures.append(answer)
            else:
                records.append(answer)
    return AuditOutcome(chunk_id, records, failures, time.perf_counter() - started,
                        f"{socket.gethostname()}:{os.getpid()}")
