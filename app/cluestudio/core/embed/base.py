"""The embedder protocol, the torch-free ``exact`` embedder and a run's table of vectors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cluestudio.core.errors import ClueStudioError

#: ``declared``: what the model's sentence-transformers config declares (modules.json and
#: its Pooling module), else [CLS] — how the authors' CLUE package pools (docs/adr/0003).
POOLINGS: tuple[str, ...] = ("mean", "cls", "declared")


class EmbedderError(ClueStudioError):
    """An embedder that cannot be built or loaded (missing model, device, package)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns strings into L2-normalised vectors, so that cosine = dot product.

    ``id`` names the model, its pooling and precision: the on-disk cache is keyed by it, so
    two embedders with the same id must give the same vector for the same string.
    """

    @property
    def id(self) -> str: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array of shape (len(texts), dim), one unit-length row per text."""
        ...


class ExactEmbedder:
    """One-hot vectors: σ = 1 for equal strings and cos = 0 otherwise (an oracle for tests).

    The one-hot dimension is the number of distinct strings in one ``encode`` call, so only
    vectors from the same call are comparable; :func:`cluestudio.core.embed.embed_strings`
    never materialises them and compares string identities instead (``one_hot = True``).
    """

    id = "exact"
    one_hot = True
    cacheable = False

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        index: dict[str, int] = {}
        ids = [index.setdefault(t, len(index)) for t in texts]
        out = np.zeros((len(texts), max(1, len(index))), dtype=np.float32)
        out[np.arange(len(texts)), ids] = 1.0
        return out


class StringVectors:
    """The embedded distinct strings of one run, compared by row index.

    ``matrix`` holds unit rows (cos = dot); ``None`` means one-hot vectors (cos = 1 for the
    same string, else 0) without building a len(strings)² identity matrix.
    """

    # Up to this many strings, all cosines are computed once (one matrix product, at most
    # 64 MB of float32) and pairs just index them: many small products cost far more.
    GRAM_LIMIT = 4096

    def __init__(self, strings: Sequence[str], matrix: np.ndarray | None) -> None:
        self.strings = list(strings)
        self.index = {s: i for i, s in enumerate(self.strings)}
        self.matrix = matrix
        self._gram: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.strings)

    def ids(self, texts: Iterable[str]) -> np.ndarray:
        index = self.index
        return np.fromiter((index[t] for t in texts), dtype=np.intp)

    def cos(self, ids_a: np.ndarray, ids_b: np.ndarray) -> np.ndarray:
        """Cosine matrix len(ids_a)×len(ids_b), clipped to [-1, 1]."""
        if self.matrix is None:
            return (ids_a[:, None] == ids_b[None, :]).astype(float)
        if self._gram is None and len(self.strings) <= self.GRAM_LIMIT:
            self._gram = self.matrix @ self.matrix.T
        if self._gram is not None:
            out = self._gram[np.ix_(ids_a, ids_b)]
        else:
            out = self.matrix[ids_a] @ self.matrix[ids_b].T
        return np.clip(out.astype(float), -1.0, 1.0)


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    # A zero vector (e.g. a model that maps some input to 0) stays 0 rather than NaN.
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


_trim: Any = None


def release_freed_memory() -> None:
    """Hand the heap pages freed by encoding (or a finished chunk) back to the OS.

    Encoding texts of many different lengths leaves glibc's heap fragmented: measured with
    MiniLM, RSS grew ~0.8 MB per encoded text (240 texts: 396 → 592 MB) although nothing
    was kept, and stayed at 465 MB with a trim after each batch. A no-op off glibc."""
    global _trim
    if _trim is None:
        try:
            import ctypes

            _trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)
