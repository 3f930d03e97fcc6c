"""SysMEval (seed 002): SysM-P, SysM-R and SysM-F1 from LLM-extracted atomic claims.

Four chat calls per pair: decompose the reference and the candidate model into atomic
modelling claims, then check the candidate's claims against the reference model (precision:
the share supported) and the reference's claims against the candidate model (recall: the
share recovered). Claims and verdicts go into the explanation, so a grader sees which facts
were missing or made up. The model texts travel in ``MetricInput.plantuml`` (the contract's
one text field).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest


class SysMEvalAnswerError(ClueStudioError):
    """The LLM answered something we cannot read as the requested claims or verdicts."""


def _first_json(text: str) -> Any:
    from cluestudio.core.vlm.answers import first_json

    try:
        return first_json(text)
    except ValueError as error:
        raise SysMEvalAnswerError(str(error)) from error


def parse_claims(answer: str) -> list[str]:
    """``{"claims": [...]}`` (or a bare list) → claim strings, blanks and duplicates dropped."""
    value = _first_json(answer)
    if isinstance(value, dict):
        value = value.get("claims")
    if not isinstance(value, list):
        raise SysMEvalAnswerError(f"expected a list of claims: {answer[:300]!r}")
    claims: list[str] = []
    for item in value:
        text = item.get("claim", item.get("text", "")) if isinstance(item, dict) else item
        text = " ".join(str(text).split())
        if text and text not in claims:
            claims.append(text)
    return claims


def parse_verdicts(answer: str, count: int) -> list[dict[str, Any]]:
    """One ``{"id", "supported", "evidence"}`` per claim, in claim order.

    A claim the model skipped counts as unsupported (and says so), as an unreadable verdict
    would; a reply with no verdicts at all is an error rather than a score of zero.
    """
    value = _first_json(answer)
    if isinstance(value, dict):
        value = value.get("verdicts")
    if not isinstance(value, list):
        raise SysMEvalAnswerError(f"expected a list of verdicts: {answer[:300]!r}")
    by_id: dict[int, dict[str, Any]] = {}
    for position, item in enumerate(value, 1):
        if not isinstance(item, dict):
            continue
        try:
            claim_id = int(item.get("id", position))
        except (TypeError, ValueError):
            claim_id = position
        supported = item.get("supported")
        if isinstance(supported, str):
            supported = supported.strip().lower() in ("true", "yes", "supported")
        by_id.setdefault(claim_id, {"supported": supported is True,
                                    "evidence": str(item.get("evidence", ""))})
    return [{"id": i, **by_id.get(i, {"supported": False, "evidence": "no verdict given"})}
            for i in range(1, count + 1)]


@dataclass(frozen=True)
class ClaimCheck:
    claims: list[str]
    verdicts: list[dict[str, Any]]

    @property
    def share_supported(self) -> float | None:
        if not self.claims:
            return None
        return sum(v["supported"] for v in self.verdicts) / len(self.claims)


class SysMEval:
    """The four-step evaluation against one chat backend, with versioned prompts."""

    def __init__(self, backend: Any, version: str = "v1") -> None:
        from cluestudio.core.vlm.prompts import load_prompt

        self.backend = backend
        self.system = load_prompt(f"sysmeval_system_{version}")
        self.decompose_prompt = load_prompt(f"sysmeval_decompose_{version}")
        self.verify_prompt = load_prompt(f"sysmeval_verify_{version}")

    @property
    def prompt_version(self) -> str:
        return "+".join(p.version for p in (self.system, self.decompose_prompt,
                                             self.verify_prompt))

    def _ask(self, prompts: Sequence[str]) -> list[str]:
        from cluestudio.core.vlm.backend import VLMRequest

        requests = [VLMRequest(prompt=p, system=self.system.text, temperature=0.0)
                    for p in prompts]
        return [str(r.text) for r in self.backend.complete_batch(requests)]

    def decompose(self, *models: str) -> list[list[str]]:
        """Claims of each model; an empty model has none and costs no call."""
        asked = [m for m in models if m.strip()]
        answers = iter(self._ask([self.decompose_prompt.fill(model=m) for m in asked]))
        return [parse_claims(next(answers)) if m.strip() else [] for m in models]

    def check(self, pairs: Sequence[tuple[list[str], str]]) -> list[ClaimCheck]:
        """Each (claims, model) → which claims the model supports (no call for no claims)."""
        asked = [(i, claims, model) for i, (claims, model) in enumerate(pairs) if claims]
        answers = self._ask([
            self.verify_prompt.fill(
                claims="\n".join(f"{n}. {c}" for n, c in enumerate(claims, 1)), model=model)
            for _, claims, model in asked])
        out = [ClaimCheck([], []) for _ in pairs]
        for (i, claims, _), answer in zip(asked, answers, strict=True):
            out[i] = ClaimCheck(claims, parse_verdicts(answer, len(claims)))
        return out


class SysMEvalMetric:
    """SysM-P, SysM-R, SysM-F1 of a candidate SysML v2 model against the reference."""

    manifest: ClassVar[MetricManifest] = metric_manifest(__name__, "sysmeval")

    def __init__(self, backend: Any | None = None, version: str = "v1") -> None:
        self._backend = backend
        self.version = version

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        backend = self._backend
        if backend is None:
            from cluestudio_sysmeval.backend import default_backend

            backend = self._backend = default_backend()
        evaluator = SysMEval(backend, self.version)
        ref_claims, cand_claims = evaluator.decompose(reference.plantuml, candidate.plantuml)
        precision_check, recall_check = evaluator.check(
            [(cand_claims, reference.plantuml), (ref_claims, candidate.plantuml)])
        p, r = precision_check.share_supported, recall_check.share_supported
        # Empty sides: nothing claimed and nothing required is perfect; otherwise nothing
        # claimed (or nothing to recover against) scores 0 on the undefined side.
        precision = p if p is not None else (1.0 if not ref_claims else 0.0)
        recall = r if r is not None else (1.0 if not cand_claims else 0.0)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        explanation = {
            "candidate_claims": [
                {"claim": c, **v} for c, v in zip(cand_claims, precision_check.verdicts,
                                                  strict=False)],
            "reference_claims": [
                {"claim": c, **v} for c, v in zip(ref_claims, recall_check.verdicts,
                                                  strict=False)],
        }
        return MetricResult({"sysm-precision": precision, "sysm-recall": recall,
                             "sysm-f1": f1}, explanation,
                            {"prompt": evaluator.prompt_version,
                             "model": str(backend.model_id)})
