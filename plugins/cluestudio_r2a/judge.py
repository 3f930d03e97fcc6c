"""The LLM parts of R2ABench (seed 001): the semantic alignment judge and the 4-dimension rubric.

Both talk to any OpenAI-compatible chat model through ``cluestudio.core.vlm`` (text only),
with versioned prompts from ``resources/prompts/r2a_*_v1.md``. Answers are parsed
deterministically; an answer that cannot be parsed raises :class:`JudgeAnswerError` with
the model's text, so the plugin registry reports it instead of inventing a score.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest

DIMENSIONS = ("completeness", "accuracy", "rationality", "readability")


class JudgeAnswerError(ClueStudioError):
    """The judge model answered something we cannot read as the requested JSON."""


def default_backend() -> Any:
    """The chat backend of the user's settings (``[llm]`` in settings.toml)."""
    from cluestudio.core.settings import load_settings
    from cluestudio.core.vlm.factory import BackendOptions, make_backend

    settings, _ = load_settings()
    return make_backend(BackendOptions(model=settings.llm.model,
                                       base_url=settings.llm.base_url or None,
                                       api_key=settings.api_key()))


def first_json(text: str) -> Any:
    """The first JSON value in a judge's reply."""
    from cluestudio.core.vlm.answers import first_json as first_json_value

    try:
        return first_json_value(text)
    except ValueError as error:
        raise JudgeAnswerError(f"judge: {error}") from error


def _ask(backend: Any, system: str, prompt: str) -> str:
    from cluestudio.core.vlm.backend import VLMRequest

    return str(backend.complete(VLMRequest(prompt=prompt, system=system, temperature=0.0)).text)


class LLMAlignmentJudge:
    """An :data:`~cluestudio_r2a.structure.AlignmentJudge` backed by a chat model."""

    def __init__(self, backend: Any, version: str = "v1") -> None:
        from cluestudio.core.vlm.prompts import load_prompt

        self.backend = backend
        self.prompt = load_prompt(f"r2a_align_{version}")

    def __call__(self, predicted: Sequence[str], reference: Sequence[str]
                 ) -> list[tuple[str, str]]:
        answer = _ask(self.backend, "", self.prompt.fill(
            predicted=json.dumps(list(predicted), ensure_ascii=False),
            reference=json.dumps(list(reference), ensure_ascii=False)))
        value = first_json(answer)
        if not isinstance(value, list):
            raise JudgeAnswerError(f"alignment judge: expected a list of pairs: {answer[:300]!r}")
        return [(str(pair[0]), str(pair[1])) for pair in value
                if isinstance(pair, list | tuple) and len(pair) == 2]


@dataclass(frozen=True)
class RubricVerdict:
    scores: dict[str, int]
    rationale: str
    prompt_version: str
    model: str


def _score(value: Any, dimension: str) -> int:
    if isinstance(value, dict):  # {"score": 4, "reason": ...}, as the paper's figure hints
        value = value.get("score", value.get("value"))
    try:
        score = int(str(value).strip().split("/")[0])
    except (TypeError, ValueError):
        raise JudgeAnswerError(f"rubric: {dimension} is not a score: {value!r}") from None
    if not 1 <= score <= 5:
        raise JudgeAnswerError(f"rubric: {dimension} = {score} is outside 1-5")
    return score


def parse_rubric(answer: str) -> tuple[dict[str, int], str]:
    """Scores of the four dimensions and the rationale from the judge's JSON answer."""
    value = first_json(answer)
    if not isinstance(value, dict):
        raise JudgeAnswerError(f"rubric: expected a JSON object: {answer[:300]!r}")
    scores = value.get("scores", value)
    if not isinstance(scores, dict):
        raise JudgeAnswerError(f"rubric: 'scores' is not an object: {answer[:300]!r}")
    lowered = {str(k).lower(): v for k, v in scores.items()}
    missing = [d for d in DIMENSIONS if d not in lowered]
    if missing:
        raise JudgeAnswerError(f"rubric: no score for {', '.join(missing)}: {answer[:300]!r}")
    rationale = value.get("rationale", "")
    return ({d: _score(lowered[d], d) for d in DIMENSIONS},
            rationale if isinstance(rationale, str) else json.dumps(rationale))


def judge_rubric(backend: Any, reference: str, candidate: str, version: str = "v1"
                 ) -> RubricVerdict:
    """One judge call: the PRD or reference diagram and the predicted diagram → 4 scores."""
    from cluestudio.core.vlm.prompts import load_prompt

    system = load_prompt(f"r2a_judge_system_{version}")
    user = load_prompt(f"r2a_judge_{version}")
    answer = _ask(backend, system.text, user.fill(reference=reference, candidate=candidate))
    scores, rationale = parse_rubric(answer)
    return RubricVerdict(scores, rationale, f"{system.version}+{user.version}",
                         str(backend.model_id))


class R2AJudgeMetric:
    """The four-dimension LLM-judge rubric (seed 001 §3.3.2), 1-5 each, with the rationale.

    The reference may be the PRD text or the reference PlantUML (``MetricInput.plantuml``).
    """

    manifest: ClassVar[MetricManifest] = metric_manifest(__name__, "r2a-judge")

    def __init__(self, backend: Any | None = None, version: str = "v1") -> None:
        self._backend = backend
        self.version = version

    @property
    def backend(self) -> Any:
        if self._backend is None:
            self._backend = default_backend()
        return self._backend

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        verdict = judge_rubric(self.backend, reference.plantuml, candidate.plantuml,
                               self.version)
        values = {d: float(s) for d, s in verdict.scores.items()}
        values["judge-average"] = sum(verdict.scores.values()) / len(DIMENSIONS)
        return MetricResult(values, {"rationale": verdict.rationale},
                            {"prompt": verdict.prompt_version, "model": verdict.model})
