"""The records of the VLM workspace batches (:mod:`cluestudio.app.vlm_batches`): what is
planned, what the model is asked, what comes back from a worker and what is reported.

Their own module, as the scoring job's are (ADR 0014): the plan and the store
(:mod:`~cluestudio.app.vlm_batches`) and the model call (:mod:`~cluestudio.app.vlm_batch_step`)
import them from below; a worker unpickles them from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.jobs import SubmissionOutcome

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
        """The submission as the window's list names it (its progress lines and the
        conversion's messages say this): a database id ("#2") means nothing to a TA."""
        return f"{self.task_id} · {self.source_id}"


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


@dataclass(frozen=True)
class ProbeItem:
    item: BatchItem
    diagram: Any
    input_hash: str


@dataclass(frozen=True)
class Question:
    """What the model is asked of each item, in this process or on a worker."""

    action: str  # "convert" | "probe"
    prompts: Any  # ConvertPrompts | ProbePrompts
    max_repairs: int = 2  # convert: repairs after an invalid answer
    plantuml_check: bool = True  # convert: PlantUML checks each answer after our parser
    image_b: bool = False  # convert: keep image B, the PNG PlantUML drew of the final answer


@dataclass(frozen=True)
class RemoteJob:
    """What a worker needs to convert or probe a chunk of submissions.

    ``backend`` says how to build the model backend on the worker, once per process; it
    never carries an API key: a worker reads its own (``CLUESTUDIO_API_KEY`` or its
    keyring), so no key travels through a scheduler."""

    question: Question
    backend: Any  # core.vlm.factory.BackendOptions


@dataclass
class RemoteOutcome:
    """A chunk's answers: (item, result, "") or (item, None, why there is no answer)."""

    chunk_id: int
    answers: list[tuple[BatchItem, Any, str]]
    seconds: float
    worker: str
