"""Seed-003 probes on a submission: what does a VLM read from image A, versus the PlantUML?

Stage 1 asks for the class names (EM), stage 2 asks True/False/Unknown relation-direction
questions generated from the reviewed PlantUML's model (RelAcc). Where the VLM and the
PlantUML disagree, a :class:`ProbeFlag` says why, so a reviewer re-checks that conversion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.model import ClassDiagram, RelationType
from cluestudio.core.vlm.answers import (
    FALSE,
    TRUE,
    UNKNOWN,
    Truth,
    exact_match,
    normalize_name,
    parse_class_list,
    parse_truth,
    resolve_names,
)
from cluestudio.core.vlm.backend import ImageInput, Usage, VLMBackend, VLMRequest
from cluestudio.core.vlm.prompts import ProbePrompts, count_word, load_probe_prompts

#: Model relation types the paper's four direction-sensitive relations stand for.
PROBED: dict[RelationType, str] = {
    RelationType.GENERALIZATION: "inheritance",
    RelationType.AGGREGATION: "aggregation",
    RelationType.COMPOSITION: "composition",
    RelationType.DEPENDENCY: "dependency",
}


@dataclass(frozen=True)
class RelationQuestion:
    """Does ``relation`` hold from ``a`` to ``b``? (canonical begin → end, DESIGN §2)"""

    relation: str
    a: str
    b: str
    gold: bool


def relation_questions(diagram: ClassDiagram) -> list[RelationQuestion]:
    """Each probed relation asked both ways: as drawn (True) and reversed (False, unless
    the diagram also draws it that way)."""
    drawn = {(PROBED[r.type], r.begin, r.end) for r in diagram.relations if r.type in PROBED}
    questions: list[RelationQuestion] = []
    seen: set[tuple[str, str, str]] = set()
    for relation in diagram.relations:
        kind = PROBED.get(relation.type)
        if kind is None or relation.begin == relation.end:
            continue
        for a, b in ((relation.begin, relation.end), (relation.end, relation.begin)):
            if (kind, a, b) not in seen:
                seen.add((kind, a, b))
                questions.append(RelationQuestion(kind, a, b, (kind, a, b) in drawn))
    return questions


def relation_phrase(kinds: Sequence[str]) -> str:
    unique = list(dict.fromkeys(kinds)) or ["class"]
    return unique[0] if len(unique) == 1 else ", ".join(unique[:-1]) + " and " + unique[-1]


def stage1_request(prompts: ProbePrompts, image: ImageInput, relation: str,
                   number: int) -> VLMRequest:
    return VLMRequest(prompt=prompts.stage1.fill(relation=relation, number=number),
                      images=(image,), system=prompts.system.fill(), max_tokens=256)


def stage2_request(prompts: ProbePrompts, image: ImageInput, question: RelationQuestion,
                   class_names: Sequence[str], max_tokens: int = 16) -> VLMRequest:
    """The relation question; ``max_tokens`` 16 fits the bare verdict the prompt asks for,
    a model that reasons first needs more (its last verdict is parsed)."""
    rule = prompts.rules[question.relation]
    text = prompts.stage2.fill(
        relation=question.relation, count_word=count_word(len(class_names)),
        class_names=", ".join(class_names), rule=rule.rule,
        question=rule.ask(question.a, question.b))
    return VLMRequest(prompt=text, images=(image,), system=prompts.system.fill(),
                      max_tokens=max_tokens)


@dataclass(frozen=True)
class QuestionAnswer:
    question: RelationQuestion
    answer: str
    parsed: Truth

    @property
    def correct(self) -> bool:
        return self.parsed == (TRUE if self.question.gold else FALSE)


@dataclass(frozen=True)
class FlagReason:
    kind: str  # missing-class | extra-class | unreadable-class-list | relation-mismatch | ...
    detail: str


@dataclass(frozen=True)
class ProbeFlag:
    """Why the VLM's reading of image A disagrees with the PlantUML (empty: it agrees)."""

    reasons: tuple[FlagReason, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.reasons)


@dataclass(frozen=True)
class FlagPolicy:
    """Which disagreements raise the flag; Unknown answers are reported but tolerated."""

    kinds: frozenset[str] = frozenset({"missing-class", "extra-class",
                                       "unreadable-class-list", "relation-mismatch"})


@dataclass(frozen=True)
class ProbeResult:
    source: str
    model: str
    prompt_version: str
    image_sha256: str
    gold_names: tuple[str, ...]
    class_answer: str
    predicted_names: tuple[str, ...] | None
    answers: tuple[QuestionAnswer, ...]
    flag: ProbeFlag
    reasons: tuple[FlagReason, ...] = ()  # every disagreement, flagged or not
    usage: Usage = field(default_factory=Usage)

    @property
    def em(self) -> bool:
        return exact_match(self.predicted_names, self.gold_names)

    @property
    def rel_acc(self) -> float | None:
        if not self.answers:
            return None
        return sum(a.correct for a in self.answers) / len(self.answers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "model": self.model, "prompt_version": self.prompt_version,
            "image_sha256": self.image_sha256, "em": self.em, "rel_acc": self.rel_acc,
            "gold_names": list(self.gold_names), "class_answer": self.class_answer,
            "predicted_names": None if self.predicted_names is None
            else list(self.predicted_names),
            "answers": [{"relation": a.question.relation, "a": a.question.a, "b": a.question.b,
                         "gold": a.question.gold, "answer": a.answer, "parsed": a.parsed,
                         "correct": a.correct} for a in self.answers],
            "flagged": bool(self.flag),
            "reasons": [{"kind": r.kind, "detail": r.detail} for r in self.reasons],
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
        }


def disagreements(gold_names: Sequence[str], predicted: Sequence[str] | None,
                  answers: Sequence[QuestionAnswer]) -> list[FlagReason]:
    reasons: list[FlagReason] = []
    if predicted is None:
        reasons.append(FlagReason("unreadable-class-list", "no class list in the answer"))
    else:
        seen = resolve_names(predicted, gold_names)
        expected = {normalize_name(n): n for n in gold_names}
        for key, name in expected.items():
            if key and key not in seen:
                reasons.append(FlagReason("missing-class",
                                          f"{name} is in the PlantUML but not read from A"))
        for name in predicted:
            key = next(iter(resolve_names([name], gold_names)), "")
            if key and key not in expected:
                reasons.append(FlagReason("extra-class",
                                          f"{name} is read from A but not in the PlantUML"))
    for answer in answers:
        q = answer.question
        stated = f"{q.relation} {q.a} → {q.b}"
        if answer.parsed == UNKNOWN:
            reasons.append(FlagReason("relation-unknown", f"{stated}: the VLM cannot tell"))
        elif not answer.correct:
            reasons.append(FlagReason(
                "relation-mismatch",
                f"{stated}: PlantUML says {q.gold}, the VLM reads {answer.parsed}"))
    return reasons


def probe_submission(
    image: ImageInput,
    diagram: ClassDiagram,
    backend: VLMBackend,
    cancel: CancelToken | None = None,
    *,
    source: str = "",
    prompts: ProbePrompts | None = None,
    policy: FlagPolicy | None = None,
) -> Job[ProbeResult]:
    """Run stage 1 and stage 2 on image A against ``diagram`` (the reviewed PlantUML)."""
    cancel = cancel or CancelToken()
    prompts = prompts or load_probe_prompts()
    policy = policy or FlagPolicy()
    questions = relation_questions(diagram)
    names = list(diagram.class_names)
    total = 1 + len(questions)
    kinds = [PROBED[r.type] for r in diagram.relations if r.type in PROBED]
    cancel.raise_if_cancelled()
    yield Progress(0, total, f"{source}: class names", phase="probing")
    first = backend.complete(stage1_request(prompts, image, relation_phrase(kinds), len(names)))
    usage = first.usage
    predicted = parse_class_list(first.text)
    answers: list[QuestionAnswer] = []
    step = max(1, backend.concurrency)
    for start in range(0, len(questions), step):
        cancel.raise_if_cancelled()
        yield Progress(1 + start, total, f"{source}: relation questions", phase="probing")
        chunk = questions[start:start + step]
        replies = backend.complete_batch(
            [stage2_request(prompts, image, q, names) for q in chunk])
        for question, reply in zip(chunk, replies, strict=True):
            usage = usage + reply.usage
            answers.append(QuestionAnswer(question, reply.text, parse_truth(reply.text)))
    reasons = disagreements(names, predicted, answers)
    flag = ProbeFlag(tuple(r for r in reasons if r.kind in policy.kinds))
    yield Progress(total, total, f"{source}: {'flagged' if flag else 'agrees'}", phase="probing")
    return ProbeResult(
        source=source, model=backend.model_id, prompt_version=prompts.version,
        image_sha256=image.sha256, gold_names=tuple(names), class_answer=first.text,
        predicted_names=None if predicted is None else tuple(predicted),
        answers=tuple(answers), flag=flag, reasons=tuple(reasons), usage=usage)
