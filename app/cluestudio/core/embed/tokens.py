"""Token vectors of whole texts (CodeBERTScore and other token-level metrics), each distinct
text encoded once per run and once per machine.

A course's submissions share a handful of reference texts; before, every pair re-encoded its
reference. :class:`TokenVectors` answers from a memo bounded in bytes (the references stay in
it), then from the on-disk cache (:class:`~cluestudio.core.embed.cache.EmbeddingCache`), and
only then runs the encoder: the windows of all missing texts at once, in batches of similar
length (:meth:`~cluestudio.core.embed.hf.TransformerEmbedder.token_embeddings_many`); a
padded batch agrees with one text at a time to float rounding (tests/test_embed_onnx.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import numpy as np

from cluestudio.core.embed.base import release_freed_memory
from cluestudio.core.embed.cache import EmbeddingCache

DEFAULT_WINDOW = 510  # tokens per encoder call; 512 positions less [CLS] and [SEP]
DEFAULT_MEMO_BYTES = 64 * 1024 * 1024  # ~100 texts of 400 tokens with a 384-wide encoder


class TokenVectors:
    """Unit vectors of each token of a text, by text, through a memo and the disk cache."""

    def __init__(self, embedder: Any, cache: EmbeddingCache | None = None, *,
                 window: int = DEFAULT_WINDOW, memo_bytes: int = DEFAULT_MEMO_BYTES) -> None:
        self.embedder = embedder
        self.cache = cache
        self.window = window
        self.memo_bytes = memo_bytes
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo_used = 0
        self.encoded = 0  # texts that went through the encoder
        self.from_disk = 0
        self.from_memo = 0

    @property
    def key(self) -> str:
        """The cache key: the embedder's id (model, pooling, precision) and the window."""
        return f"{self.embedder.id}|tokens:w{self.window}"

    def get(self, text: str) -> np.ndarray:
        return self.get_many([text])[text]

    def get_many(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """Each distinct text's matrix (tokens × dimension, unit rows)."""
        wanted = list(dict.fromkeys(texts))
        out: dict[str, np.ndarray] = {}
        for text in wanted:
            found = self._memo.get(text)
            if found is not None:
                self._memo.move_to_end(text)
                out[text] = found
                self.from_memo += 1
        missing = [t for t in wanted if t not in out]
        if missing and self.cache is not None:
            stored = self.cache.get_token_matrices(self.key, missing)
            self.from_disk += len(stored)
            for text, matrix in stored.items():
                out[text] = matrix
                self._remember(text, matrix)
            missing = [t for t in missing if t not in stored]
        new: dict[str, np.ndarray] = {}
        many = getattr(self.embedder, "token_embeddings_many", None)
        if missing and many is not None:  # all windows in length-bucketed batches
            new = many(missing, window=self.window)
        else:
            for text in missing:
                _, new[text] = self.embedder.token_embeddings(text, window=self.window)
        for text, matrix in new.items():
            out[text] = matrix
            self._remember(text, matrix)
        self.encoded += len(new)
        if new:
            release_freed_memory()
            if self.cache is not None:
                self.cache.put_token_matrices(self.key, new)
        return out

    def _remember(self, text: str, matrix: np.ndarray) -> None:
        size = matrix.nbytes
        if size > self.memo_bytes:
            return
        self._memo[text] = matrix
        self._memo_used += size
        while self._memo_used > self.memo_bytes:
            _, dropped = self._memo.popitem(last=False)
            self._memo_used -= dropped.nbytes

    def memo_size(self) -> int:
        """Bytes the memo holds now (never above ``memo_bytes``)."""
        return self._memo_used
