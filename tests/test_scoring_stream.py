"""Scoring in constant memory (issue 21): token vectors through a bounded memo and a capped
disk cache, chunks that are dropped once handed over, progress that names the metric
running, and metric seconds that leave start-ups out."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cluestudio.app.scoring import ScoreItem, ScoringOptions, score_items
from cluestudio.core.embed import EmbeddingCache, TokenVectors
from cluestudio.core.jobs import CancelToken, Progress

EXACT = ScoringOptions(embedder="exact", device="cpu")
ROOT = Path(__file__).resolve().parents[1]


class CountingTokens:
    """A token encoder stand-in: one row per character, each row a one-hot of that char."""

    id = "counting"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def token_embeddings(self, text: str, window: int = 510) -> tuple[list[str], np.ndarray]:
        self.calls.append(text)
        out = np.zeros((len(text), 256), dtype=np.float32)
        out[np.arange(len(text)), [min(ord(c), 255) for c in text]] = 1
        return list(text), out


def test_each_text_is_encoded_once_then_comes_from_memo_or_disk(tmp_path: Path) -> None:
    encoder = CountingTokens()
    with EmbeddingCache(tmp_path / "c.sqlite") as cache:
        vectors = TokenVectors(encoder, cache, memo_bytes=6 * 256 * 4)  # six characters
        first = vectors.get_many(["abcd", "efgh", "abcd", ""])
        assert encoder.calls == ["abcd", "efgh", ""]  # each distinct text once
        assert first[""].shape == (0, 256)
        assert vectors.memo_size() <= vectors.memo_bytes
        vectors.get_many(["efgh", "abcd"])  # "abcd" fell out of the memo: from disk
        assert encoder.calls == ["abcd", "efgh", ""] and vectors.from_disk == 1
        fresh = TokenVectors(encoder, cache)  # another run: everything from disk
        again = fresh.get("efgh")
        assert np.array_equal(again, first["efgh"]) and fresh.encoded == 0
        other = TokenVectors(encoder, cache, window=4)  # another window: other vectors
        other.get("efgh")
        assert fresh.key != other.key and encoder.calls[-1] == "efgh"


def test_the_token_cache_keeps_within_its_cap_dropping_the_oldest(tmp_path: Path) -> None:
    size = 100 * 256 * 4  # one 100-character text
    with EmbeddingCache(tmp_path / "c.sqlite", token_limit_bytes=3 * size) as cache:
        vectors = TokenVectors(CountingTokens(), cache, memo_bytes=0)
        texts = [chr(ord("a") + i) * 100 for i in range(6)]
        for text in texts:
            vectors.get(text)
            assert cache.token_bytes() <= 3 * size
        kept = cache.get_token_matrices(vectors.key, texts)
        assert texts[-1] in kept and texts[0] not in kept
    with EmbeddingCache(tmp_path / "off.sqlite", token_limit_bytes=0) as off:
        TokenVectors(CountingTokens(), off).get("abc")
        assert off.token_bytes() == 0


def test_a_bad_cache_size_setting_falls_back_to_the_default(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    from cluestudio.core.embed.cache import DEFAULT_TOKEN_CACHE_MB, token_cache_limit

    monkeypatch.setenv("CLUESTUDIO_TOKEN_CACHE_MB", "lots")
    assert token_cache_limit() == DEFAULT_TOKEN_CACHE_MB * 1024 * 1024
    monkeypatch.setenv("CLUESTUDIO_TOKEN_CACHE_MB", "0.5")
    assert token_cache_limit() == 512 * 1024


def _pairs(n: int) -> Iterator[ScoreItem]:
    reference = (ROOT / "annotations/sample/tasks/library_loans/reference.puml").read_text()
    for i in range(n):
        candidate = f"@startuml\nclass Book\nclass Member{i % 7}\nMember{i % 7} --> Book\n@enduml\n"
        yield ScoreItem(i, f"pair {i}", "class", reference, candidate, f"h{i}")


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_a_generator_of_pairs_streams_and_finished_chunks_are_let_go() -> None:
    handed: list[Any] = []
    alive: list[weakref.ref[Any]] = []

    def sink(chunk: list[Any]) -> None:
        handed.append(len(chunk))
        gc.collect()
        # Nothing of the chunks before this one is still held by the scorer.
        assert all(ref() is None for ref in alive), "an earlier chunk is still in memory"
        alive.extend(weakref.ref(item) for item in chunk)
        alive.extend(weakref.ref(row) for item in chunk for row in item.rows)

    messages: list[str] = []
    job = score_items(_pairs(23), EXACT, CancelToken(), sink, chunk_size=5, total=23)
    while True:
        try:
            step = next(job)
        except StopIteration as stop:
            summary = stop.value
            break
        assert isinstance(step, Progress)
        messages.append(step.message)
    assert handed == [5, 5, 5, 5, 3] and len(summary.scored) == 23
    # The job panel can tell which metric is running.
    for title in ("CLUE: ", "BLEU: ", "ROUGE-L: ", "R2ABench syntactic validity: "):
        assert any(m.startswith(title) for m in messages), (title, messages[:20])
    # Metrics are timed without their start-ups (the JVM, imports), which are listed apart.
    assert {"clue", "bleu", "rouge-l", "r2a-validity"} <= set(summary.metric_seconds)
    assert "parse" not in summary.metric_seconds
    assert {"parse", "r2a-validity start-up", "bleu start-up"} <= set(summary.stage_seconds)
    assert summary.to_dict()["stage_seconds"]["parse"] >= 0


def test_profile_metrics_prints_per_metric_and_stage_figures(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    from cluestudio.cli import main

    ws_path = tmp_path / "sample.sqlite"
    assert main(["import", str(ws_path), str(ROOT / "annotations" / "sample"), "--json"]) == 0
    capsys.readouterr()
    assert main(["score", "--workspace", str(ws_path), "--embedder", "exact", "--task",
                 "library_loans", "--profile-metrics"]) == 0
    out = capsys.readouterr().out
    assert "seconds per metric: (22 pairs)" in out and "ms/pair" in out
    assert "start-ups and other stages:" in out and "store" in out
    assert "r2a-validity start-up" in out
