"""A local transformers vision-language model, by Hugging Face name or folder path.

torch and transformers are imported when the model is first used. On CUDA the weights load
in bf16 (fp16 where the GPU lacks bf16); requests are generated in padded batches.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from cluestudio.core.vlm.backend import (
    BackendError,
    BackendManifest,
    Usage,
    VLMRequest,
    VLMResponse,
)

log = logging.getLogger("cluestudio.vlm")


def pick_device(device: str = "auto") -> str:
    """``auto`` → ``cuda`` when a GPU is visible, else ``cpu``."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class TransformersBackend:
    """AutoProcessor + AutoModelForImageTextToText; greedy decoding unless temperature > 0."""

    manifest = BackendManifest(
        name="transformers-local",
        version="1",
        kinds=("converter", "probe"),
        description="local Hugging Face image-text-to-text model (CUDA when present)",
    )

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        dtype: str = "auto",
        max_tokens: int = 1024,
        temperature: float = 0.0,
        batch_size: int = 4,
        trust_remote_code: bool = False,
        seed: int = 0,
    ) -> None:
        self.model_name = model
        self.device_request = device
        self.dtype_request = dtype
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.batch_size = max(1, batch_size)
        self.trust_remote_code = trust_remote_code
        self.seed = seed
        self._model: Any = None
        self._processor: Any = None
        self._device = ""
        # One GPU, one generate() at a time; callers' threads queue here.
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self.model_name

    @property
    def concurrency(self) -> int:
        return 1

    @property
    def device(self) -> str:
        return self._device or self.device_request

    def load(self) -> None:
        """Load processor and weights now (otherwise the first request does it)."""
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> None:
        if self._model is not None:
            return
        try:
            import torch
            import transformers
        except ImportError as error:
            raise BackendError("the local backend needs torch and transformers "
                               "(pip install 'cluestudio[ml]')") from error
        device = pick_device(self.device_request)
        dtype = _torch_dtype(torch, self.dtype_request, device)
        try:
            processor = transformers.AutoProcessor.from_pretrained(
                self.model_name, trust_remote_code=self.trust_remote_code)
            model: Any = transformers.AutoModelForImageTextToText.from_pretrained(
                self.model_name, dtype=dtype, trust_remote_code=self.trust_remote_code)
        except (OSError, ValueError) as error:
            raise BackendError(f"cannot load VLM {self.model_name!r}: {error}") from error
        tokenizer = getattr(processor, "tokenizer", None)
        if tokenizer is not None:
            # Decoder-only generation needs the prompt flush against the new tokens.
            tokenizer.padding_side = "left"
            if tokenizer.pad_token is None:
                tokenizer.pad_token = tokenizer.eos_token
        self._model = model.to(device).eval()
        self._processor = processor
        self._device = device
        log.info("loaded %s on %s (%s)", self.model_name, device, dtype)

    def complete(self, request: VLMRequest) -> VLMResponse:
        return self.complete_batch([request])[0]

    def complete_batch(self, requests: Sequence[VLMRequest]) -> list[VLMResponse]:
        out: list[VLMResponse] = []
        for start in range(0, len(requests), self.batch_size):
            out.extend(self._generate(requests[start:start + self.batch_size]))
        return out

    def _generate(self, requests: Sequence[VLMRequest]) -> list[VLMResponse]:
        import torch

        with self._lock:
            self._load_locked()
            processor, model = self._processor, self._model
            texts = [processor.apply_chat_template(_chat(r), add_generation_prompt=True,
                                                   tokenize=False) for r in requests]
            images = [img.to_pil() for r in requests for img in r.images]
            inputs = processor(text=texts, images=images or None, return_tensors="pt",
                               padding=True)
            inputs = inputs.to(self._device)
            if "pixel_values" in inputs and model.dtype.is_floating_point:
                inputs["pixel_values"] = inputs["pixel_values"].to(model.dtype)
            max_new = max(r.max_tokens or self.max_tokens for r in requests)
            temperature = requests[0].temperature
            temperature = self.temperature if temperature is None else temperature
            sample = temperature > 0
            started = time.perf_counter()
            torch.manual_seed(self.seed)  # reproducible sampling across runs
            with torch.inference_mode():
                generated = model.generate(
                    **inputs, max_new_tokens=max_new, do_sample=sample,
                    **({"temperature": temperature} if sample else {}),
                )
            seconds = time.perf_counter() - started
        prompt_len = inputs["input_ids"].shape[1]
        new_tokens = generated[:, prompt_len:]
        answers = processor.batch_decode(new_tokens, skip_special_tokens=True)
        mask = inputs.get("attention_mask")
        responses = []
        for i, answer in enumerate(answers):
            prompt_tokens = int(mask[i].sum()) if mask is not None else prompt_len
            completion = _count_until_pad(new_tokens[i], processor)
            usage = Usage(prompt_tokens, completion)
            log.info("%s: %d prompt + %d completion tokens (batch of %d, %.2fs)",
                     self.model_name, usage.prompt_tokens, usage.completion_tokens,
                     len(requests), seconds)
            responses.append(VLMResponse(text=answer.strip(), model=self.model_name,
                                         usage=usage, seconds=seconds / len(requests)))
        return responses


def _chat(request: VLMRequest) -> list[dict[str, Any]]:
    """Messages in the processor's chat-template format (typed content parts)."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": [{"type": "text", "text": request.system}]})
    content: list[dict[str, Any]] = [{"type": "image"} for _ in request.images]
    content.append({"type": "text", "text": request.prompt})
    messages.append({"role": "user", "content": content})
    for role, text in request.history:
        messages.append({"role": role, "content": [{"type": "text", "text": text}]})
    return messages


def _torch_dtype(torch: Any, request: str, device: str) -> Any:
    if request != "auto":
        return getattr(torch, request)
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32  # half precision on CPU is slow or unsupported for many ops


def _count_until_pad(tokens: Any, processor: Any) -> int:
    tokenizer = getattr(processor, "tokenizer", processor)
    stop = {tokenizer.pad_token_id, tokenizer.eos_token_id} - {None}
    count = 0
    for token in tokens.tolist():
        if token in stop:
            break
        count += 1
    return count
