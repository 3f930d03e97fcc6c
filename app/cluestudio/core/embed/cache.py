"""Persistent embedding cache: one SQLite file, vectors keyed by (embedder id, string).

Re-scoring a course after a weight change or a reviewer's small edit must not re-run the
encoder, so every vector is kept on disk. The embedder id already carries the model, its
pooling and its precision. SQLite (WAL) lets several processes, e.g. the GUI and a CLI
batch, share one cache safely; vectors are float32 blobs.

Token-level metrics (CodeBERTScore) keep one matrix per text (a vector per token) in a second
table, keyed by the text's SHA-256. Those matrices are large (a 400-token PlantUML file with
MiniLM is 600 KB), so that table is capped (:data:`TOKEN_CACHE_ENV`, default 2 GiB) and the
oldest matrices go first when it is full.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

CACHE_ENV = "CLUESTUDIO_CACHE_DIR"
TOKEN_CACHE_ENV = "CLUESTUDIO_TOKEN_CACHE_MB"
DEFAULT_TOKEN_CACHE_MB = 2048
_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    embedder TEXT NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (embedder, text)
) WITHOUT ROWID
"""
# A rowid table: eviction drops the oldest rows first (smallest rowid).
_TOKEN_SCHEMA = """
CREATE TABLE IF NOT EXISTS token_vectors (
    embedder TEXT NOT NULL,
    digest TEXT NOT NULL,
    rows INTEGER NOT NULL,
    size INTEGER NOT NULL,
    matrix BLOB NOT NULL,
    UNIQUE (embedder, digest)
)
"""
_CHUNK = 500  # host parameters per query, well under SQLite's limit


def text_digest(text: str) -> str:
    """The key of a text's token matrix (texts can be long; the key stays short)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def token_cache_limit() -> int:
    """Bytes the token matrices may take on disk (``$CLUESTUDIO_TOKEN_CACHE_MB``)."""
    raw = os.environ.get(TOKEN_CACHE_ENV, "").strip()
    try:
        megabytes = float(raw) if raw else DEFAULT_TOKEN_CACHE_MB
    except ValueError:
        megabytes = DEFAULT_TOKEN_CACHE_MB
    return max(0, int(megabytes * 1024 * 1024))


def default_cache_dir() -> Path:
    """``$CLUESTUDIO_CACHE_DIR`` or the platform's user cache dir for ClueStudio."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir("cluestudio", appauthor=False))


class EmbeddingCache:
    """get_many/put_many of float32 vectors.

    One connection per instance, guarded by a lock: the GUI builds the scorer on the UI
    thread and runs the job on its worker thread.
    """

    def __init__(self, path: str | Path | None = None, *,
                 token_limit_bytes: int | None = None) -> None:
        if path is None:
            path = default_cache_dir() / "embeddings.sqlite"
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.token_limit_bytes = (token_cache_limit() if token_limit_bytes is None
                                  else token_limit_bytes)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.execute(_TOKEN_SCHEMA)
        self._db.commit()
        self._token_bytes: int | None = None  # what the token table holds, counted lazily

    def get_many(self, embedder_id: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            self._get_into(found, embedder_id, texts)
        return found

    def _get_into(self, found: dict[str, np.ndarray], embedder_id: str,
                  texts: Sequence[str]) -> None:
        for start in range(0, len(texts), _CHUNK):
            chunk = list(texts[start:start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT text, vector FROM vectors WHERE embedder = ? AND text IN ({marks})",
                [embedder_id, *chunk])
            for text, blob in rows:
                found[text] = np.frombuffer(blob, dtype=np.float32)

    def put_many(self, embedder_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        rows = [(embedder_id, t, np.ascontiguousarray(v, dtype=np.float32).tobytes())
                for t, v in zip(texts, vectors, strict=True)]
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (embedder, text, vector) VALUES (?, ?, ?)", rows)

    # -- token matrices (one per text) ----------------------------------------------------
    def get_token_matrices(self, embedder_id: str, texts: Sequence[str]
                           ) -> dict[str, np.ndarray]:
        """The stored matrix (rows = tokens) of each text that has one."""
        by_digest: dict[str, list[str]] = {}
        for text in texts:
            by_digest.setdefault(text_digest(text), []).append(text)
        found: dict[str, np.ndarray] = {}
        digests = list(by_digest)
        with self._lock:
            for start in range(0, len(digests), _CHUNK):
                chunk = digests[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT digest, rows, matrix FROM token_vectors WHERE embedder = ? "
                    f"AND digest IN ({marks})", [embedder_id, *chunk])
                for digest, count, blob in rows:
                    matrix = np.frombuffer(blob, dtype=np.float32).reshape(count, -1)
                    for text in by_digest[digest]:
                        found[text] = matrix
        return found

    def put_token_matrices(self, embedder_id: str, matrices: dict[str, np.ndarray]) -> None:
        """Store each text's matrix; past the size cap the oldest matrices are dropped."""
        if self.token_limit_bytes <= 0:
            return
        rows = []
        for text, matrix in matrices.items():
            blob = np.ascontiguousarray(matrix, dtype=np.float32).tobytes()
            # An empty matrix has no width to restore; it costs no encoder call anyway.
            if 0 < len(blob) <= self.token_limit_bytes:
                rows.append((embedder_id, text_digest(text), int(matrix.shape[0]), len(blob),
                             blob))
        if not rows:
            return
        with self._lock, self._db:
            used = self._token_usage()
            self._db.executemany(
                "INSERT OR REPLACE INTO token_vectors (embedder, digest, rows, size, matrix) "
                "VALUES (?, ?, ?, ?, ?)", rows)
            used += sum(r[3] for r in rows)
            if used > self.token_limit_bytes:
                used = self._evict_tokens()
            self._token_bytes = used

    def _token_usage(self) -> int:
        if self._token_bytes is None:
            self._token_bytes = int(self._db.execute(
                "SELECT COALESCE(SUM(size), 0) FROM token_vectors").fetchone()[0])
        return self._token_bytes

    def _evict_tokens(self) -> int:
        """Drop the oldest matrices until the table is at 90 % of its cap; the bytes left.

        Counted afresh here, as another process may have added or evicted meanwhile."""
        used = int(self._db.execute(
            "SELECT COALESCE(SUM(size), 0) FROM token_vectors").fetchone()[0])
        target = int(self.token_limit_bytes * 0.9)
        if used <= self.token_limit_bytes:
            return used
        freed, cut = 0, None
        for rowid, size in self._db.execute(
                "SELECT rowid, size FROM token_vectors ORDER BY rowid").fetchall():
            freed += size
            cut = rowid
            if used - freed <= target:
                break
        if cut is not None:
            self._db.execute("DELETE FROM token_vectors WHERE rowid <= ?", (cut,))
        return used - freed

    def token_bytes(self) -> int:
        with self._lock:
            return int(self._db.execute(
                "SELECT COALESCE(SUM(size), 0) FROM token_vectors").fetchone()[0])

    def count(self, embedder_id: str | None = None) -> int:
        with self._lock:
            return self._count(embedder_id)

    def _count(self, embedder_id: str | None) -> int:
        if embedder_id is None:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
        return int(self._db.execute(
            "SELECT COUNT(*) FROM vectors WHERE embedder = ?", (embedder_id,)).fetchone()[0])

    def clear(self, embedder_id: str | None = None) -> None:
        with self._lock, self._db:
            if embedder_id is None:
                self._db.execute("DELETE FROM vectors")
                self._db.execute("DELETE FROM token_vectors")
            else:
                self._db.execute("DELETE FROM vectors WHERE embedder = ?", (embedder_id,))
                self._db.execute("DELETE FROM token_vectors WHERE embedder = ?",
                                 (embedder_id,))
            self._token_bytes = None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
