"""SysMEval (seed 002) against the local OpenAI-compatible stub: claims, verdicts, P/R/F1."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
try:
    import cluestudio_sysmeval  # noqa: F401  (installed once the entry points are registered)
except ImportError:
    sys.path.insert(0, str(ROOT / "plugins"))

from cluestudio.core.metrics import MetricInput  # noqa: E402
from cluestudio.core.plugins import ERROR, PluginRegistry  # noqa: E402
from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend  # noqa: E402
from cluestudio_sysmeval.metric import (  # noqa: E402
    SysMEvalAnswerError,
    SysMEvalMetric,
    parse_claims,
    parse_verdicts,
)
from support.openai_stub import OpenAIStub, user_text  # noqa: E402

REFERENCE = """package Car {
  part def Vehicle;
  part def Engine;
  attribute mass : Real;
  port fuelIn;
}"""
CANDIDATE = """package Car {
  part def Vehicle;
  part def Engine;
  part def Wheel;
}"""


def _model_in(prompt: str) -> str:
    return prompt.split("```sysml\n", 1)[1].rsplit("\n```", 1)[0]


def _facts(model: str) -> list[str]:
    """The fake model's 'atomic claims': one per statement line."""
    return [line.strip().rstrip(";") for line in model.splitlines()
            if line.strip().endswith(";")]


def fake_llm(request: dict[str, Any]) -> str:
    """Decomposes by lines and supports a claim iff the other model has that line."""
    prompt = user_text(request)
    model = _model_in(prompt)
    if prompt.startswith("Decompose"):
        return "<think>lines are facts</think>\n```json\n" + json.dumps(
            {"claims": _facts(model)}) + "\n```"
    claims = re.findall(r"^(\d+)\. (.+)$", prompt.split("Claims:", 1)[1].split("SysML v2")[0],
                        flags=re.MULTILINE)
    facts = set(_facts(model))
    return json.dumps({"verdicts": [{"id": int(n), "supported": c in facts,
                                     "evidence": "same line" if c in facts else "absent"}
                                    for n, c in claims]})


@pytest.fixture()
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(fake_llm) as server:
        yield server


def backend(stub: OpenAIStub) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend("stub-llm", base_url=stub.url, api_key="test",
                                   max_retries=0, concurrency=2)


def test_sysmeval_precision_recall_f1_by_hand(stub: OpenAIStub) -> None:
    result = SysMEvalMetric(backend(stub)).score(MetricInput(REFERENCE), MetricInput(CANDIDATE))
    # Candidate claims: Vehicle, Engine, Wheel → 2 of 3 supported by the reference.
    # Reference claims: Vehicle, Engine, mass, fuelIn → 2 of 4 recovered by the candidate.
    assert result.values["sysm-precision"] == pytest.approx(2 / 3)
    assert result.values["sysm-recall"] == pytest.approx(1 / 2)
    assert result.values["sysm-f1"] == pytest.approx(4 / 7)
    cand = result.explanation["candidate_claims"]
    assert [(c["claim"], c["supported"]) for c in cand] == [
        ("part def Vehicle", True), ("part def Engine", True), ("part def Wheel", False)]
    assert result.explanation["reference_claims"][2] == {
        "claim": "attribute mass : Real", "id": 3, "supported": False, "evidence": "absent"}
    assert result.details["model"] == "stub-llm"
    assert result.details["prompt"].startswith("sysmeval_system_v1@")
    assert len(stub.requests) == 4  # two decompositions, two checks
    system = stub.requests[0]["messages"][0]
    assert system["role"] == "system" and "SysML v2" in system["content"]


def test_identical_and_empty_models(stub: OpenAIStub) -> None:
    metric = SysMEvalMetric(backend(stub))
    same = metric.score(MetricInput(REFERENCE), MetricInput(REFERENCE)).values
    assert same == {"sysm-precision": 1.0, "sysm-recall": 1.0, "sysm-f1": 1.0}
    empty = metric.score(MetricInput(REFERENCE), MetricInput("")).values
    assert empty == {"sysm-precision": 0.0, "sysm-recall": 0.0, "sysm-f1": 0.0}
    before = len(stub.requests)
    nothing = metric.score(MetricInput(""), MetricInput("")).values
    assert nothing == {"sysm-precision": 1.0, "sysm-recall": 1.0, "sysm-f1": 1.0}
    assert len(stub.requests) == before  # no model, no claims, no calls


def test_answer_parsing() -> None:
    assert parse_claims('Sure!\n{"claims": ["a  b", "a b", "", {"claim": "c"}]}') == ["a b", "c"]
    assert parse_claims('["x", "y"]') == ["x", "y"]
    with pytest.raises(SysMEvalAnswerError, match="no JSON"):
        parse_claims("I cannot do that.")
    with pytest.raises(SysMEvalAnswerError, match="list of claims"):
        parse_claims('{"facts": 3}')
    verdicts = parse_verdicts('{"verdicts": [{"id": 2, "supported": "yes"}, '
                              '{"id": 1, "supported": false, "evidence": "no"}]}', 3)
    assert verdicts == [{"id": 1, "supported": False, "evidence": "no"},
                        {"id": 2, "supported": True, "evidence": ""},
                        {"id": 3, "supported": False, "evidence": "no verdict given"}]


def test_unreadable_llm_answer_is_isolated_by_the_registry(stub: OpenAIStub,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    stub.script("no json here, sorry")
    monkeypatch.setattr("cluestudio_sysmeval.backend.default_backend", lambda: backend(stub))
    registry = PluginRegistry([EntryPoint("sysmeval", "cluestudio_sysmeval.metric:SysMEvalMetric",
                                          "cluestudio.metrics")])
    pair = (MetricInput(REFERENCE), MetricInput(CANDIDATE))
    assert registry.score("sysmeval", *pair) is None
    status = registry.status("metric", "sysmeval")
    assert status.state == ERROR and "SysMEvalAnswerError: no JSON" in status.error
    assert registry.score("sysmeval", *pair).values["sysm-f1"] == pytest.approx(4 / 7)


def test_without_a_configured_model_the_error_says_what_to_set() -> None:
    registry = PluginRegistry([EntryPoint("sysmeval", "cluestudio_sysmeval.metric:SysMEvalMetric",
                                          "cluestudio.metrics")])
    assert registry.score("sysmeval", MetricInput(REFERENCE), MetricInput(CANDIDATE)) is None
    assert "no model" in registry.status("metric", "sysmeval").error
