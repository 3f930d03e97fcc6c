"""Embedders for CLUE's string similarity σ, and the on-disk cache of their vectors.

``get_embedder("exact" | "minilm" | NAME_OR_FOLDER)`` builds one; :func:`embed_strings` is
the job that embeds each distinct string of a run once, taking what it can from the cache;
:class:`TokenVectors` does the same for the per-token vectors of whole texts (CodeBERTScore).
Nothing here imports torch until a torch encoder actually encodes something; the default
``minilm`` runs on ONNX Runtime and never does.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from cluestudio.core.embed.base import (
    POOLINGS,
    Embedder,
    EmbedderError,
    ExactEmbedder,
    StringVectors,
    l2_normalise,
)
from cluestudio.core.embed.cache import CACHE_ENV, EmbeddingCache, default_cache_dir
from cluestudio.core.embed.hf import DEVICES, TransformerEmbedder, minilm_path
from cluestudio.core.embed.tokens import TokenVectors
from cluestudio.core.jobs import CancelToken, Job, Progress

__all__ = [
    "CACHE_ENV", "DEVICES", "POOLINGS", "Embedder", "EmbedderError", "EmbeddingCache",
    "ExactEmbedder", "StringVectors", "TokenVectors", "TransformerEmbedder",
    "default_cache_dir", "embed_strings", "get_embedder", "l2_normalise",
]

# Strings per encoder call between progress reports and cancel checks.
_CHUNK = 1024


def get_embedder(name: str = "minilm", *, pooling: str = "mean",
                 device: str = "auto") -> Embedder:
    """``exact``, ``minilm`` (shipped weights; ONNX Runtime unless ``device="cuda"``), or a
    Hugging Face model name / local folder (torch, the ``ml`` extra)."""
    if name == "exact":
        return ExactEmbedder()
    if name == "minilm":
        if device == "cuda":  # a GPU: torch (the ml extra)
            return TransformerEmbedder(minilm_path(), pooling=pooling, device=device,
                                       label="minilm")
        # The CPU runs the shipped weights on ONNX Runtime, torch-free (docs/adr/0015).
        from cluestudio.core.embed.ort import OnnxEmbedder

        return OnnxEmbedder(minilm_path(), pooling=pooling, device="cpu", label="minilm")
    return TransformerEmbedder(name, pooling=pooling, device=device)


def embed_strings(embedder: Embedder, strings: Iterable[str],
                  cache: EmbeddingCache | None = None,
                  cancel: CancelToken | None = None, *,
                  keep_empty: bool = False) -> Job[StringVectors]:
    """Embed each distinct string once; cached vectors are reused, new ones stored.

    The empty string is dropped unless ``keep_empty`` (profiles that embed it like any
    other string, as the authors' package does).
    """
    distinct = sorted({s for s in strings if s or keep_empty})
    if getattr(embedder, "one_hot", False):
        yield Progress(len(distinct), len(distinct), "strings compared exactly", phase="embedding")
        return StringVectors(distinct, None)
    use_cache = cache is not None and getattr(embedder, "cacheable", True)
    found = cache.get_many(embedder.id, distinct) if use_cache and cache is not None else {}
    missing = [s for s in distinct if s not in found]
    # Similar lengths in one call means less padding inside the encoder's batches.
    missing.sort(key=len)
    total = len(distinct)
    done = len(found)
    yield Progress(done, total, f"embedding strings ({done} cached)", phase="embedding")
    new: dict[str, np.ndarray] = {}
    for start in range(0, len(missing), _CHUNK):
        if cancel is not None:
            cancel.raise_if_cancelled()
        chunk = missing[start:start + _CHUNK]
        vectors = np.asarray(embedder.encode(chunk), dtype=np.float32)
        if use_cache and cache is not None:
            cache.put_many(embedder.id, chunk, vectors)
        new.update(zip(chunk, vectors, strict=True))
        done += len(chunk)
        yield Progress(done, total, "embedding strings", phase="embedding")
    if not distinct:
        return StringVectors([], np.zeros((0, 1), dtype=np.float32))
    matrix = np.stack([found[s] if s in found else new[s] for s in distinct])
    return StringVectors(distinct, l2_normalise(matrix))
