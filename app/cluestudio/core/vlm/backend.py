"""What every vision-language backend offers: one chat turn with images in, text out.

Converters and probes talk to a :class:`VLMBackend` only, so the same job runs against an
OpenAI-compatible server (OpenAI, vLLM, Ollama) or a local transformers model.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from cluestudio.core.errors import ClueStudioError

BackendKind = Literal["converter", "probe"]


class BackendError(ClueStudioError):
    """A backend call failed for good (after its retries), or the backend is misconfigured."""


@dataclass(frozen=True)
class BackendManifest:
    """Static description of a backend class, readable without calling the model."""

    name: str
    version: str
    kinds: tuple[BackendKind, ...] = ("converter", "probe")
    description: str = ""
    # The same request always gets the same answer (no sampling, no prompt read): asking
    # again to repair an answer only repeats it, so the repair loop does not.
    deterministic: bool = False


@dataclass(frozen=True)
class ImageInput:
    """An encoded image (PNG/JPEG bytes) with its MIME type."""

    data: bytes
    mime: str = "image/png"

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<image>") -> ImageInput:
        """A checked image: no model ever sees a bomb, a truncated file, SVG or text
        (:class:`~cluestudio.core.workspace.images.ImageError` naming ``source``)."""
        from cluestudio.core.workspace.images import check_image

        return cls(data, check_image(data, source).mime)

    @classmethod
    def from_file(cls, path: Path) -> ImageInput:
        """The checked image in ``path`` (size checked before reading)."""
        from cluestudio.core.workspace.images import read_image_file

        checked = read_image_file(path)
        return cls(checked.data, checked.mime)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def data_url(self) -> str:
        """``data:<mime>;base64,...``: how OpenAI, vLLM and Ollama all accept inline images."""
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"

    def to_pil(self):  # -> PIL.Image.Image; Pillow keeps its decompression-bomb guard on
        """The image for a local model: a JPEG photo over 40 MP decoded reduced, as OCR
        decodes it (a model's vision encoder works at a few megapixels at most)."""
        from PIL import Image

        from cluestudio.core.workspace.images import draft_reduced

        image = Image.open(io.BytesIO(self.data))
        draft_reduced(image)  # a 48 MP phone JPEG: decoded at 1/2, not whole
        image.load()
        return image.convert("RGB")


@dataclass(frozen=True)
class VLMRequest:
    """One chat turn: an optional system prompt, images, then the user's text."""

    prompt: str
    images: tuple[ImageInput, ...] = ()
    system: str = ""
    # Turns after this first user message, as (role, text): e.g. the repair loop's
    # earlier answer ("assistant") and the syntax error fed back to the model ("user").
    history: tuple[tuple[str, str], ...] = ()
    max_tokens: int | None = None  # None: the backend's default
    temperature: float | None = None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens)


@dataclass(frozen=True)
class VLMResponse:
    text: str
    model: str
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    attempts: int = 1  # HTTP attempts it took (retries included)
    # A backend's own reason its answer is no diagram, said instead of the syntax check's
    # (the offline draft on a blank scan: "found no class box in image A")
    refusal: str | None = None


@runtime_checkable
class VLMBackend(Protocol):
    """A chat model that sees images. Implementations must be safe to call from threads."""

    manifest: BackendManifest

    @property
    def model_id(self) -> str:
        """The model name results are keyed by (e.g. ``Qwen/Qwen3-VL-8B-Instruct``)."""
        ...

    @property
    def concurrency(self) -> int:
        """How many requests a caller may usefully have in flight at once."""
        ...

    def complete(self, request: VLMRequest) -> VLMResponse: ...

    def complete_batch(self, requests: Sequence[VLMRequest]) -> list[VLMResponse]: ...


def openai_messages(request: VLMRequest) -> list[dict[str, object]]:
    """The OpenAI chat ``messages`` for a request (images first, as base64 data URLs)."""
    messages: list[dict[str, object]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    content: list[dict[str, object]] = [
        {"type": "image_url", "image_url": {"url": image.data_url()}} for image in request.images
    ]
    content.append({"type": "text", "text": request.prompt})
    # The images belong to the first user turn; repair turns follow as plain text.
    if request.history:
        messages.append({"role": "user", "content": content})
        for role, text in request.history:
            messages.append({"role": role, "content": text})
    else:
        messages.append({"role": "user", "content": content})
    return messages
