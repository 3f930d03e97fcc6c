"""The default encoder on ONNX Runtime: the shipped MiniLM without torch (docs/adr/0015).

The ONNX graph is written from the safetensors weights by our own code, so it is checked
against the torch model it replaces — vectors, tokenisation and the token vectors of
CodeBERTScore — with the real MiniLM; the CLUE scores against the authors' package run on
this path too (tests/test_clue_oracle.py builds ``ClueScorer("minilm", device="cpu")``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cluestudio.core.embed import EmbedderError, TokenVectors, get_embedder
from cluestudio.core.embed.hf import TransformerEmbedder, _length_batches, minilm_path
from cluestudio.core.embed.onnx_bert import _Proto
from cluestudio.core.embed.ort import OnnxEmbedder, exported_model, onnx_cache_path
from support.clue_support import build_tiny_bert

ROOT = Path(__file__).resolve().parents[1]

# Identifiers as diagrams have them, text cut at max_length, empty, non-ASCII, one long line.
TEXTS = ["Library", "lend", "lendBook", "get_total_price", "ISBN", "", "a", "Kunde",
         "Bestellung größe", "numberOfCopies : int", "x" * 700,
         "the quick brown fox jumps over the lazy dog " * 30, "<<interface>>", "0..*"]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # One export per test session (the file is keyed by the weights), never the user's cache.
    monkeypatch.setenv("CLUESTUDIO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def test_default_minilm_runs_on_onnx_runtime_without_importing_torch() -> None:
    code = ("import sys\n"
            "from cluestudio.core.embed import get_embedder\n"
            "e = get_embedder('minilm')\n"
            "v = e.encode(['Customer', 'Client'])\n"
            "print(type(e).__name__, round(float(v[0] @ v[1]), 3),"
            " sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers')))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "app"), str(ROOT / "plugins"), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, timeout=120).stdout.split(" ", 2)
    assert out[0] == "OnnxEmbedder"
    assert 0.5 < float(out[1]) < 1.0  # synonyms are close, not equal
    assert out[2].strip() == "[]"


@pytest.mark.parametrize("pooling", ["mean", "cls", "declared"])
def test_minilm_on_onnx_equals_minilm_on_torch(pooling: str) -> None:
    pytest.importorskip("transformers")
    ours = get_embedder("minilm", pooling=pooling, device="cpu")
    torch_path = TransformerEmbedder(minilm_path(), pooling=pooling, device="cpu",
                                     label="minilm")
    assert isinstance(ours, OnnxEmbedder)
    assert ours.id == torch_path.id  # one cache of vectors for both runtimes
    np.testing.assert_allclose(ours.encode(TEXTS), torch_path.encode(TEXTS), rtol=0, atol=1e-6)


def test_tokenizer_without_transformers_gives_transformers_ids() -> None:
    transformers = pytest.importorskip("transformers")
    theirs = transformers.AutoTokenizer.from_pretrained(str(minilm_path()))
    ours = get_embedder("minilm")
    assert isinstance(ours, OnnxEmbedder)
    ours.load()
    for text in TEXTS:
        assert ours._token_ids(text) == theirs(text, add_special_tokens=False)["input_ids"]
    assert ours._special_ids() == (theirs.cls_token_id, theirs.sep_token_id)


@pytest.mark.parametrize("window", [510, 40])
def test_token_vectors_on_onnx_equal_torch_one_text_at_a_time(window: int) -> None:
    pytest.importorskip("transformers")
    texts = ["@startuml\nclass Library {\n  +name: String\n}\n" * 12, "class Book", "",
             "Library o-- Book : holds"]
    onnx = get_embedder("minilm", device="cpu")
    torch_path = TransformerEmbedder(minilm_path(), device="cpu", label="minilm")
    batched = onnx.token_embeddings_many(texts, window=window)
    for text in texts:
        _, alone = torch_path.token_embeddings(text, window=window)
        assert batched[text].shape == alone.shape
        np.testing.assert_allclose(batched[text], alone, rtol=0, atol=1e-6)


def test_tiny_bert_folder_runs_on_onnx_like_torch(tiny_bert: Path) -> None:
    words = ["customer", "order", "pay", "name"]
    onnx = OnnxEmbedder(tiny_bert, device="cpu")
    torch_path = TransformerEmbedder(tiny_bert, device="cpu")
    np.testing.assert_allclose(onnx.encode(words), torch_path.encode(words), rtol=0, atol=1e-6)
    batched = torch_path.token_embeddings_many(["customer order pay", "name"], window=2)
    _, alone = torch_path.token_embeddings("customer order pay", window=2)
    np.testing.assert_allclose(batched["customer order pay"], alone, rtol=0, atol=1e-6)


def test_export_is_written_once_and_reused() -> None:
    path = exported_model(minilm_path())
    written = path.stat().st_mtime_ns
    assert path == onnx_cache_path(minilm_path())
    assert exported_model(minilm_path()).stat().st_mtime_ns == written
    assert not list(path.parent.glob("*.part"))


def test_a_damaged_cached_export_is_written_again(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from cluestudio.core.embed import hf

    monkeypatch.setenv("CLUESTUDIO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(hf, "_LOADED", {})  # load the weights again, as a new process does
    path = onnx_cache_path(minilm_path())
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not an onnx model, a file cut short by a full disk")
    vectors = get_embedder("minilm").encode(["Library", "Book"])
    assert vectors.shape == (2, 384)
    assert path.stat().st_size > 1_000_000


def test_codebertscore_encodes_each_text_once_in_batches(tmp_path: Path) -> None:
    encoder = get_embedder("minilm")
    vectors = TokenVectors(encoder, None)
    reference = "class Library {\n +name: String\n}\nLibrary o-- Book"
    candidates = [f"class Library{n} {{\n +name: String\n}}" for n in range(5)]
    found = vectors.get_many([reference, *candidates, reference])
    assert vectors.encoded == 6 and encoder.texts_token_encoded == 6
    vectors.get_many([reference, candidates[0]])
    assert vectors.encoded == 6  # from the memo
    assert all(np.allclose(np.linalg.norm(m, axis=1), 1) for m in found.values())


def test_a_torch_model_without_torch_says_which_extra(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    monkeypatch.setitem(sys.modules, "transformers", None)
    (tmp_path / "model").mkdir()
    embedder = TransformerEmbedder(tmp_path / "model", device="auto")
    with pytest.raises(EmbedderError, match=r"pip install 'cluestudio\[ml\]'") as error:
        embedder.encode(["x"])
    assert "\n" not in str(error.value)
    with pytest.raises(EmbedderError, match="needs torch"):
        get_embedder("minilm", device="cuda").encode(["x"])
    # CodeBERTScore with a Hugging Face encoder says the same; with MiniLM it runs.
    from cluestudio.core.metrics import MetricInput
    from cluestudio_baselines.codebertscore import CodeBertScoreMetric

    pair = (MetricInput("class Library"), MetricInput("class Library\nclass Book"))
    with pytest.raises(EmbedderError, match=r"pip install 'cluestudio\[ml\]'"):
        CodeBertScoreMetric(encoder=str(tmp_path / "model"), cache=False).score(*pair)
    assert 0 < CodeBertScoreMetric(cache=False).score(*pair).values["codebertscore"] <= 1


def test_protobuf_varints_as_the_wire_format_defines_them() -> None:
    assert _Proto.varint(1) == b"\x01"
    assert _Proto.varint(300) == b"\xac\x02"  # the protobuf documentation's example
    assert len(_Proto.varint(-1)) == 10  # negative int64: two's complement, ten bytes


@given(st.lists(st.integers(1, 600), max_size=80), st.integers(1, 8),
       st.integers(1, 1_000_000))
def test_length_batches_cover_every_piece_once_within_limits(lengths: list[int], rows: int,
                                                             cells: int) -> None:
    batches = _length_batches(lengths, max_rows=rows, max_cells=cells)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= rows
        assert len(batch) == 1 or max(lengths[i] for i in batch) ** 2 * len(batch) <= cells
