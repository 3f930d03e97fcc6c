"""Embedders (exact, Hugging Face offline, shipped MiniLM) and the on-disk vector cache."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cluestudio.core.clue import ClueScorer
from cluestudio.core.embed import (
    EmbedderError,
    EmbeddingCache,
    ExactEmbedder,
    default_cache_dir,
    embed_strings,
    get_embedder,
)
from cluestudio.core.jobs import Cancelled, CancelToken, run_job
from support.clue_support import AS, HashEmbedder, build_tiny_bert, cls, diagram, method, rel

REF = diagram([cls("Customer", [("name", "String")], [method("pay", "void", [("a", "int")])]),
               cls("Order", [("id", "int")])], [rel(AS, "Customer", "Order", "1", "*")])
CAND = diagram([cls("Client", [("name", "String")], [method("pay", "bool")]),
                cls("Order", [("number", "int")])], [rel(AS, "Client", "Order", "1", "many")])
DISTINCT = {"Customer", "name", "String", "pay", "void", "a", "int", "Order", "id", "Client",
            "bool", "number"}


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def test_core_import_pulls_in_no_torch() -> None:
    code = ("import sys, cluestudio.core.clue, cluestudio.core.embed, cluestudio.core.metrics, "
            "cluestudio.core.clue.plugin, cluestudio_baselines.bleu, cluestudio_baselines.rouge, "
            "cluestudio_baselines.codebertscore, cluestudio.cli.cmd_score\n"
            "from cluestudio.core.clue import ClueScorer\n"
            "from cluestudio.core.model import ClassDiagram, Class\n"
            "d = ClassDiagram((Class('A'),))\n"
            "ClueScorer('exact', cache=False).score(d, d)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'transformers')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.strip() == "[]"


def test_exact_embedder_is_one_hot() -> None:
    vectors = ExactEmbedder().encode(["a", "b", "a"])
    assert np.allclose(vectors @ vectors.T, [[1, 0, 1], [0, 1, 0], [1, 0, 1]])


def test_cache_dir_follows_env(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CLUESTUDIO_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    with EmbeddingCache() as cache:
        cache.put_many("m", ["x"], np.ones((1, 3), dtype=np.float32))
        assert np.allclose(cache.get_many("m", ["x", "y"])["x"], 1)
        assert cache.count("m") == 1
    assert (tmp_path / "c" / "embeddings.sqlite").exists()


def test_each_string_embedded_once_and_second_run_embeds_nothing() -> None:
    embedder = HashEmbedder()
    first = ClueScorer(embedder)
    one = run_job(first.score_pairs([(REF, CAND), (REF, REF), (CAND, CAND)]))
    first.close()
    assert len(embedder.calls) == 1
    assert sorted(embedder.calls[0]) == sorted(DISTINCT)  # each distinct string once
    embedder.calls.clear()
    second = ClueScorer(embedder)  # a new run, same on-disk cache
    two = run_job(second.score_pairs([(REF, CAND), (REF, REF), (CAND, CAND)]))
    second.close()
    assert embedder.calls == []
    assert [r.scores for r in one] == [r.scores for r in two]


def test_embedding_job_can_be_cancelled() -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        run_job(embed_strings(HashEmbedder(), ["a", "b"], None, token))


def test_hf_model_from_local_folder_offline(tiny_bert) -> None:
    embedder = get_embedder(str(tiny_bert), device="cpu")
    vectors = embedder.encode(["customer", "client order", "customer"])
    assert vectors.shape == (3, 32)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert np.allclose(vectors[0], vectors[2], atol=1e-6)
    cls_embedder = get_embedder(str(tiny_bert), pooling="cls", device="cpu")
    assert cls_embedder.id != embedder.id and ":cls:" in cls_embedder.id
    assert not np.allclose(cls_embedder.encode(["client order"]), vectors[1])
    # same strings in another order and batch size: same vectors (padding is masked)
    embedder.batch_size = 1
    again = embedder.encode(["customer", "customer", "client order"])
    assert np.allclose(again[2], vectors[1], atol=1e-5)


def test_hf_scoring_is_cached_across_runs(tiny_bert) -> None:
    first = ClueScorer(str(tiny_bert), device="cpu")
    a = first.score(REF, CAND)
    assert first.embedder.strings_encoded == len(DISTINCT)
    first.close()
    second = ClueScorer(str(tiny_bert), device="cpu")
    b = second.score(REF, CAND)
    second.close()
    assert second.embedder.encode_calls == 0
    assert a.scores == b.scores
    assert 0 <= a.scores.clue <= 1
    assert second.score(REF, REF).scores.clue == pytest.approx(1, abs=1e-6)


def test_missing_model_says_how_to_get_it(tmp_path) -> None:
    embedder = get_embedder("no-such-org/no-such-model", device="cpu")
    with pytest.raises(EmbedderError, match="huggingface-cli download no-such-org/no-such"):
        embedder.encode(["x"])
    with pytest.raises(EmbedderError, match="huggingface-cli"):
        get_embedder(str(tmp_path / "missing-dir"), device="cpu").encode(["x"])


def test_minilm_ships_offline_and_knows_synonyms() -> None:
    scorer = ClueScorer("minilm", device="cpu", cache=False)
    ref = diagram([cls("Customer")])
    client = scorer.score(ref, diagram([cls("Client")])).scores.clue_class
    engine = scorer.score(ref, diagram([cls("Engine")])).scores.clue_class
    assert client > engine
    vectors = scorer.embedder.encode(["Customer", "Client", "Engine"])
    sims = 0.5 * (vectors @ vectors.T + 1)
    assert sims[0, 1] > sims[0, 2]


def _declare_pooling(folder, **flags) -> None:
    import json

    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"}]), encoding="utf-8")
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": 32, **flags}), encoding="utf-8")
    (folder / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": 16, "do_lower_case": False}), encoding="utf-8")


def test_declared_pooling_follows_the_model_folder(tiny_bert, tmp_path) -> None:
    import shutil

    from cluestudio.core.embed.hf import declared_pooling

    texts = ["client order", "customer", ""]
    # A plain encoder (no sentence-transformers config): [CLS], as the authors' package
    # pools bert-base-uncased and codebert-base; cut at the model's 64 positions.
    declared = get_embedder(str(tiny_bert), pooling="declared", device="cpu")
    assert declared.resolved_pooling.mode == "cls" and declared.resolved_pooling.max_length == 64
    cls_vectors = get_embedder(str(tiny_bert), pooling="cls", device="cpu").encode(texts)
    assert np.allclose(declared.encode(texts), cls_vectors, atol=1e-6)
    # The same weights declaring mean pooling: mean, cut at max_seq_length.
    mean_folder = tmp_path / "st-mean"
    shutil.copytree(tiny_bert, mean_folder)
    _declare_pooling(mean_folder, pooling_mode_mean_tokens=True)
    as_st = get_embedder(str(mean_folder), pooling="declared", device="cpu")
    assert as_st.resolved_pooling.mode == "mean" and as_st.resolved_pooling.max_length == 16
    mean_vectors = get_embedder(str(tiny_bert), pooling="mean", device="cpu").encode(texts)
    assert np.allclose(as_st.encode(texts), mean_vectors, atol=1e-6)
    assert ":mean:" in as_st.id and ":len16" in as_st.id  # its own cache key
    # An empty string is a string like any other here: one [CLS] [SEP] input.
    assert np.isfinite(as_st.encode([""])).all()
    # Pooling the package cannot reproduce is refused with the file named.
    _declare_pooling(mean_folder, pooling_mode_max_tokens=True)
    with pytest.raises(EmbedderError, match=r"st-mean.*only mean or"):
        declared_pooling(mean_folder)


def test_minilm_declares_mean_pooling() -> None:
    from cluestudio.core.embed.hf import declared_pooling, minilm_path

    pooling = declared_pooling(minilm_path())
    assert (pooling.mode, pooling.max_length, pooling.lower_case) == ("mean", 256, False)
