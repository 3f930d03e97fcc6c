"""R2ABench's LLM parts (seed 001) against the local OpenAI-compatible stub."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "r2a"
try:
    import cluestudio_r2a  # noqa: F401  (installed once the entry points are registered)
except ImportError:
    sys.path.insert(0, str(ROOT / "plugins"))

from cluestudio.core.metrics import MetricInput  # noqa: E402
from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend  # noqa: E402
from cluestudio_r2a.judge import (  # noqa: E402
    JudgeAnswerError,
    LLMAlignmentJudge,
    R2AJudgeMetric,
    parse_rubric,
)
from cluestudio_r2a.metric import R2AStructureMetric  # noqa: E402
from support.openai_stub import OpenAIStub, user_text  # noqa: E402

RUBRIC = {"rationale": "All layers present; Payment is invented.",
          "scores": {"completeness": 5, "accuracy": {"score": 3, "reason": "Payment"},
                     "rationality": "4", "readability": 4}}


def fake_llm(request: dict[str, Any]) -> str:
    prompt = user_text(request)
    if "Predicted diagram elements:" in prompt:
        left = json.loads(prompt.split("Predicted diagram elements: ")[1].split("\n")[0])
        right = json.loads(prompt.split("Reference diagram elements: ")[1].split("\n")[0])
        pairs = [[p, r] for p in left for r in right
                 if (p, r) in {("Database", "MySQL"), ("Payment Service", "Profile Service")}]
        return json.dumps(pairs[:1])  # a careful judge: MySQL is a Database, nothing else
    if "<PREDICTED_DIAGRAM>" in prompt:
        return "```json\n" + json.dumps(RUBRIC) + "\n```"
    return "?"


@pytest.fixture()
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(fake_llm) as server:
        yield server


def backend(stub: OpenAIStub) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend("judge-llm", base_url=stub.url, api_key="test",
                                   max_retries=0)


def _pair() -> tuple[MetricInput, MetricInput]:
    return (MetricInput((FIXTURES / "reference.puml").read_text()),
            MetricInput((FIXTURES / "candidate.puml").read_text()))


def test_rubric_scores_and_rationale(stub: OpenAIStub) -> None:
    result = R2AJudgeMetric(backend(stub)).score(*_pair())
    assert result.values == {"completeness": 5.0, "accuracy": 3.0, "rationality": 4.0,
                             "readability": 4.0, "judge-average": 4.0}
    assert result.explanation == {"rationale": "All layers present; Payment is invented."}
    assert result.details["model"] == "judge-llm"
    messages = stub.requests[0]["messages"]
    assert messages[0]["role"] == "system"
    assert "Expert Software Architect & Impartial Evaluator." in messages[0]["content"]
    assert "<!--" not in messages[0]["content"]  # provenance comments are not sent
    assert "[Payment Service]" in user_text(stub.requests[0])


def test_llm_alignment_judge_widens_node_matching(stub: OpenAIStub) -> None:
    plain = R2AStructureMetric().score(*_pair())
    judged = R2AStructureMetric(judge=LLMAlignmentJudge(backend(stub))).score(*_pair())
    # The judge adds Database ≙ MySQL: 5 of 6 candidate leaves and 5 of 7 reference leaves,
    # and the edge Course Service → Database now matches Course → MySQL (4 of 4, 4 of 7).
    assert plain.values["node-f1"] == pytest.approx(16 / 26)
    assert judged.values["node-precision"] == pytest.approx(5 / 6)
    assert judged.values["node-recall"] == pytest.approx(5 / 7)
    assert judged.values["edge-precision"] == 1.0
    assert judged.values["edge-recall"] == pytest.approx(4 / 7)
    assert {"candidate": "Database", "reference": "MySQL", "similarity": 1.0,
            "by": "judge"} in judged.explanation["node_alignment"]
    assert judged.details["judge"] is True


@pytest.mark.parametrize(("answer", "message"), [
    ("no idea", "no JSON"),
    ('{"scores": {"completeness": 5, "accuracy": 3, "rationality": 4}}', "no score for "
                                                                         "readability"),
    ('{"scores": {"completeness": 7, "accuracy": 3, "rationality": 4, "readability": 1}}',
     "outside 1-5"),
    ('{"scores": {"completeness": "great", "accuracy": 3, "rationality": 4, '
     '"readability": 1}}', "not a score"),
    ('[1, 2]', "expected a JSON object"),
])
def test_unreadable_rubric_answers_raise(answer: str, message: str) -> None:
    with pytest.raises(JudgeAnswerError, match=message):
        parse_rubric(answer)


def test_flat_rubric_answer_is_accepted() -> None:
    scores, rationale = parse_rubric('Here: {"Completeness": 2, "Accuracy": "3/5", '
                                     '"Rationality": 1, "Readability": 5}')
    assert scores == {"completeness": 2, "accuracy": 3, "rationality": 1, "readability": 5}
    assert rationale == ""
