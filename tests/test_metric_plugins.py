"""The metric contract and the built-in metrics (CLUE, BLEU, ROUGE-L, CodeBERTScore)."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

import pytest

from cluestudio.core.metrics import METRICS_GROUP, MetricInput, MetricManifest, MetricResult
from cluestudio_baselines.bleu import BleuMetric
from cluestudio_baselines.codebertscore import CodeBertScoreMetric
from cluestudio_baselines.rouge import RougeLMetric, lcs_length
from cluestudio_baselines.tokens import plantuml_tokens
from support.clue_support import build_tiny_bert, cls, diagram

REF_TEXT = "@startuml\nclass Customer {\n  name : String\n}\nCustomer --> Order\n@enduml\n"
CAND_TEXT = "@startuml\nclass Client {\n  name : String\n}\nClient --> Order\n@enduml\n"


def metric_classes() -> dict[str, type]:
    return {ep.name: ep.load() for ep in entry_points(group=METRICS_GROUP)
            if ep.name in {"clue", "bleu", "rouge-l", "codebertscore"}}


def test_entry_points_load_and_have_manifests() -> None:
    classes = metric_classes()
    assert set(classes) == {"clue", "bleu", "rouge-l", "codebertscore"}
    for name, metric_cls in classes.items():
        manifest = metric_cls.manifest
        assert isinstance(manifest, MetricManifest)
        assert manifest.name == name and manifest.kind == "metric" and manifest.version
        assert manifest.values


def test_tokens() -> None:
    assert plantuml_tokens(REF_TEXT) == [
        "class", "Customer", "{", "name", ":", "String", "}", "Customer", "-->", "Order"]
    assert plantuml_tokens('A "1" *-- "0..*" B') == ["A", '"1"', "*--", '"0..*"', "B"]


def test_rouge_l_by_hand() -> None:
    # tokens differ only in Customer→Client (twice): LCS = 10 - 2 = 8 of 10 tokens each side
    result = RougeLMetric().score(MetricInput(REF_TEXT), MetricInput(CAND_TEXT))
    assert result.values == pytest.approx(
        {"rouge-l": 0.8, "rouge-l-precision": 0.8, "rouge-l-recall": 0.8})
    assert lcs_length(list("abcbdab"), list("bdcaba")) == 4
    empty = RougeLMetric().score(MetricInput(""), MetricInput(""))
    assert empty.values["rouge-l"] == 1.0


def test_bleu_by_hand() -> None:
    same = BleuMetric().score(MetricInput(REF_TEXT), MetricInput(REF_TEXT))
    assert same.values["bleu"] == pytest.approx(1.0)
    # 10 tokens each (no brevity penalty); Customer→Client at positions 2 and 8 kills the
    # n-grams through them. Matching n-grams / all:
    #   1-grams 8/10; 2-grams 5/9 ({ name, name :, : String, String }, --> Order);
    #   3-grams 3/8 ({ name :, name : String, : String }); 4-grams 2/7 ({ name : String,
    #   name : String }). BLEU = exp(mean(log p_n)).
    import math

    expected = math.exp((math.log(0.8) + math.log(5 / 9) + math.log(3 / 8)
                         + math.log(2 / 7)) / 4)
    result = BleuMetric().score(MetricInput(REF_TEXT), MetricInput(CAND_TEXT))
    assert result.values["bleu"] == pytest.approx(expected, rel=1e-6)
    assert BleuMetric().score(MetricInput(REF_TEXT), MetricInput("")).values["bleu"] == 0.0


def test_codebertscore_with_local_encoder(tmp_path) -> None:
    folder = build_tiny_bert(tmp_path / "bert")
    metric = CodeBertScoreMetric(encoder=str(folder), device="cpu")
    same = metric.score(MetricInput(REF_TEXT), MetricInput(REF_TEXT)).values
    assert same["codebertscore"] == pytest.approx(1.0, abs=1e-5)
    other = metric.score(MetricInput(REF_TEXT), MetricInput(CAND_TEXT)).values
    assert 0 < other["codebertscore"] < 1
    f1 = 2 * other["codebertscore-precision"] * other["codebertscore-recall"] / (
        other["codebertscore-precision"] + other["codebertscore-recall"])
    assert other["codebertscore"] == pytest.approx(f1)
    # texts longer than one 512-token window are split, not truncated
    long_text = "class customer { }\n" * 200
    tokens, vectors = metric.encoder.token_embeddings(long_text, window=60)
    assert len(tokens) == len(vectors) > 60


def test_clue_metric_plugin_with_diagrams() -> None:
    from cluestudio.core.clue.plugin import ClueMetric

    metric = ClueMetric(embedder="exact", cache=False)
    ref = MetricInput(diagram=diagram([cls("A", [("x", "int")])]))
    cand = MetricInput(diagram=diagram([cls("A", [("x", "int")]), cls("B")]))
    result = metric.score(ref, cand)
    assert isinstance(result, MetricResult)
    assert result.values["clue"] == pytest.approx(1.0)
    assert set(result.values) == set(ClueMetric.manifest.values)
    json.dumps(result.to_dict())
