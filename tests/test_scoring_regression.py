"""Faster scoring must not move a score (issue 21): every metric on the bundled courses gives
the values the code gave before the speed-ups (tests/fixtures/sample_scores_before.json, made
by support/sample_scores.py from the code as it was), and each encoder input is encoded once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.sample_scores import COURSES, FIXTURE, course_scores

pytestmark = [pytest.mark.java, pytest.mark.xdist_group("java")]

BEFORE = json.loads(FIXTURE.read_text(encoding="utf-8"))


def _assert_same(key: str, now: dict[str, dict[str, Any]], tolerance: float) -> None:
    before = BEFORE[key]
    assert sorted(now) == sorted(before), f"{key}: other submissions scored"
    for submission, values in before.items():
        assert sorted(now[submission]) == sorted(values), f"{key} {submission}: other metrics"
        for metric, value in values.items():
            if value is None:
                assert now[submission][metric] is None, (key, submission, metric)
            else:
                assert now[submission][metric] == pytest.approx(value, abs=tolerance), (
                    key, submission, metric)


@pytest.mark.parametrize("course", sorted(COURSES))
def test_exact_embedder_scores_are_unchanged(course: str, tmp_path: Path) -> None:
    # No neural model: every value must be the very same float.
    _assert_same(f"{course}:exact", course_scores(COURSES[course], "exact", tmp_path), 0.0)


def test_minilm_scores_are_unchanged_and_each_text_is_encoded_once(tmp_path: Path) -> None:
    """All default metrics with MiniLM, cold then warm. The encoder is float32 on the CPU
    and the token vectors are encoded one text at a time as before, so the values are in
    fact bit-identical; 1e-6 leaves room for another BLAS on another machine."""
    from cluestudio.core.embed import hf
    from cluestudio.core.plugins import PluginRegistry

    course = COURSES["sample"]
    registry = PluginRegistry()  # fresh plugin instances: counts of this test only
    models = hf.loaded_models()
    _assert_same("sample:minilm", course_scores(course, "minilm", tmp_path / "cold",
                                                registry=registry), 1e-6)
    codebert = registry.instance("metric", "codebertscore")
    references = {p.read_text(encoding="utf-8") for p in course.glob("tasks/*/reference.puml")}
    candidates = {p.read_text(encoding="utf-8")
                  for p in course.glob("tasks/*/submissions/*.puml")}
    vectors = codebert.vectors
    # 66 candidates and 3 shared references, each encoded once (before: 132 encodes).
    assert vectors.encoded == len(candidates | references) == 69
    assert hf.loaded_models() - models <= 1  # CLUE and CodeBERTScore share one MiniLM
    encoded = vectors.encoded
    strings = codebert.encoder.strings_encoded
    _assert_same("sample:minilm", course_scores(course, "minilm", tmp_path / "warm",
                                                registry=registry), 1e-6)
    assert vectors.encoded == encoded  # the second run encodes no text …
    assert codebert.encoder.strings_encoded == strings  # … and no string


def test_token_vectors_persist_across_processes(tmp_path: Path) -> None:
    """A fresh metric (a new run, a new process) takes every text from the disk cache."""
    from cluestudio.core.metrics import MetricInput
    from cluestudio_baselines.codebertscore import CodeBertScoreMetric

    reference = (COURSES["sample"] / "tasks" / "online_shop" / "reference.puml").read_text()
    candidate = reference.replace("Customer", "Client")
    first = CodeBertScoreMetric(device="cpu")
    one = first.score(MetricInput(reference), MetricInput(candidate)).values
    assert first.vectors.encoded == 2
    second = CodeBertScoreMetric(device="cpu")
    two = second.score(MetricInput(reference), MetricInput(candidate)).values
    assert second.vectors.encoded == 0 and second.vectors.from_disk == 2
    assert one == two
