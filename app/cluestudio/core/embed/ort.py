"""The default encoder (MiniLM) on ONNX Runtime: no torch, no transformers
(docs/adr/0015-onnx-default-encoder.md).

The packaged safetensors weights are written once as an ONNX graph
(:mod:`cluestudio.core.embed.onnx_bert`) into the user cache dir, keyed by the weights'
fingerprint; the tokenizer is the model folder's ``tokenizer.json`` run by the ``tokenizers``
library, the same Rust tokenizer transformers' fast BERT tokenizer wraps. Pooling,
batching, ids and the token-vector windows are :class:`TransformerEmbedder`'s, so a vector
agrees with the torch path to float rounding (tests/test_embed_onnx.py) and both share the
cache of vectors.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import numpy as np

from cluestudio.core.embed.base import EmbedderError
from cluestudio.core.embed.hf import TransformerEmbedder, _fingerprint
from cluestudio.core.threads import quiet_session_options

# Bump when onnx_bert writes a different graph, so cached exports are made again.
GRAPH_VERSION = 1


def onnx_cache_path(folder: Path) -> Path:
    from cluestudio.core.embed.cache import default_cache_dir

    return default_cache_dir() / "onnx" / f"bert-v{GRAPH_VERSION}-{_fingerprint(folder)}.onnx"


def exported_model(folder: Path) -> Path:
    """The ONNX file of the BERT encoder in ``folder``, written on first use (about a
    second) and reused after; written to a temporary name first so a crash leaves none."""
    path = onnx_cache_path(folder)
    if path.is_file():
        return path
    from cluestudio.core.embed.onnx_bert import bert_onnx

    data = bert_onnx(folder)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.part")
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError as error:
        raise EmbedderError(f"cannot write the ONNX model to {path}: {error}") from error
    return path


class OnnxEmbedder(TransformerEmbedder):
    """A BERT encoder folder (safetensors) run by ONNX Runtime on the CPU."""

    runtime = "onnx"

    def _resolve_device(self) -> str:
        if self.requested_device == "cuda":
            raise EmbedderError("the ONNX encoder runs on the CPU; --device cuda needs "
                                "torch (pip install 'cluestudio[ml]')")
        return "cpu"

    def _load_weights(self, source: str | Path) -> tuple[Any, Any]:
        folder = Path(source)
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise EmbedderError(f"the ONNX encoder needs onnxruntime and tokenizers: "
                                f"pip install cluestudio ({error})") from error
        try:
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as error:  # tokenizers raises its own Exception type
            raise EmbedderError(f"cannot read {folder / 'tokenizer.json'}: {error}") from error
        tokenizer.no_padding()
        tokenizer.no_truncation()
        # Idle workers that spin keep a core busy after each batch and starve the matching
        # that follows (the same reason torch runs with OMP_WAIT_POLICY=PASSIVE).
        options = quiet_session_options(log_level=3)
        for attempt in (1, 2):
            path = exported_model(folder)
            try:
                session = onnxruntime.InferenceSession(
                    str(path), options, providers=["CPUExecutionProvider"])
                return tokenizer, session
            except Exception as error:  # onnxruntime's own error types
                if attempt == 2:
                    raise EmbedderError(f"ONNX Runtime cannot load the encoder from {folder} "
                                        f"({path}): {error}") from error
                path.unlink(missing_ok=True)  # a damaged cached export: write it again
        raise AssertionError("unreachable")

    def _inference(self) -> Any:
        return contextlib.nullcontext()

    @property
    def dimension(self) -> int:
        return int(self.model.get_outputs()[0].shape[-1])

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        output = self._model.run(["last_hidden_state"],
                                 {"input_ids": ids, "attention_mask": mask})[0]
        return np.asarray(output, dtype=np.float32)

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        pooling = self.resolved_pooling
        if pooling.lower_case:
            texts = [t.lower() for t in texts]
        chunks = []
        for encoding in self._tokenizer.encode_batch(texts):
            ids = encoding.ids
            if len(ids) > pooling.max_length:  # as transformers truncates: keep [SEP]
                ids = [*ids[:pooling.max_length - 1], ids[-1]]
            chunks.append(ids)
        ids, mask = _padded(chunks, self._pad_id())
        hidden = self._run(ids, mask)
        if pooling.mode == "cls":
            return hidden[:, 0]
        weights = mask[:, :, None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)

    def token_embeddings(self, text: str, window: int = 510) -> tuple[list[str], np.ndarray]:
        self.load()
        tokens = self._tokenizer.encode(text, add_special_tokens=False).tokens
        return list(tokens), self.token_embeddings_many([text], window)[text]

    def _token_ids(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def _special_ids(self) -> tuple[int, int]:
        ids = [self._tokenizer.token_to_id(token) for token in ("[CLS]", "[SEP]")]
        if None in ids:
            raise EmbedderError(f"{self.model_name}: the tokenizer has no [CLS]/[SEP] tokens")
        return int(ids[0]), int(ids[1])

    def _pad_id(self) -> int:
        pad = self._tokenizer.token_to_id("[PAD]")
        return int(pad) if pad is not None else 0

    def _hidden_of_chunks(self, chunks: list[list[int]]) -> list[np.ndarray]:
        ids, mask = _padded(chunks, self._pad_id())
        hidden = self._run(ids, mask)
        return [hidden[row, :len(chunk)] for row, chunk in enumerate(chunks)]


def _padded(chunks: list[list[int]], pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-padded int64 ids and the attention mask (1 on real tokens)."""
    width = max(len(chunk) for chunk in chunks)
    ids = np.full((len(chunks), width), pad, dtype=np.int64)
    mask = np.zeros((len(chunks), width), dtype=np.int64)
    for row, chunk in enumerate(chunks):
        ids[row, :len(chunk)] = chunk
        mask[row, :len(chunk)] = 1
    return ids, mask
