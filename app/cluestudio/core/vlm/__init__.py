"""Vision-language models: image → PlantUML conversion, seed-003 probes and the prior-bias audit.

Backends (:mod:`.openai_backend`, :mod:`.local_backend`) import ``openai`` / ``torch`` /
``transformers`` only when first used; everything else here is plain Python.
"""

from cluestudio.core.vlm.backend import (
    BackendError,
    BackendManifest,
    ImageInput,
    Usage,
    VLMBackend,
    VLMRequest,
    VLMResponse,
)

__all__ = [
    "BackendError",
    "BackendManifest",
    "ImageInput",
    "Usage",
    "VLMBackend",
    "VLMRequest",
    "VLMResponse",
]
