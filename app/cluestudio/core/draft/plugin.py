"""The offline draft converter as a ``cluestudio.converters`` plugin: a backend that answers
every conversion request with the draft of its image, so the VLM conversion job
(:func:`~cluestudio.core.vlm.conversion.convert_image`, ``convert --workspace``) runs
unchanged where no VLM is configured. It reads no prompt; a repair request gets the same
draft again (it always parses)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

from cluestudio.core.draft.convert import DRAFT_VERSION, draft_from_image
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine
from cluestudio.core.vlm.backend import (
    BackendError,
    BackendManifest,
    Usage,
    VLMRequest,
    VLMResponse,
)

NAME = "offline-draft"


class OfflineDraftConverter:
    """Image A → PlantUML from class boxes, OCR and traced lines; no model, no network."""

    manifest = BackendManifest(
        name=NAME, version=DRAFT_VERSION, kinds=("converter",),
        # the same draft however often it is asked: a repair round would only run it again
        deterministic=True,
        description="First-draft conversion without a VLM: class boxes and compartments "
                    "from the image, their text by OCR, relations traced along the lines.")

    def __init__(self, *, engine: OcrEngine | None = None, cache: OcrCache | None = None,
                 shared_cache: bool = True) -> None:
        self._engine = engine
        self._cache = cache
        # Without a cache of its own the converter reads through the user's OCR cache, the
        # one the check writes: an image the check has read is not read again.
        self._shared_cache = shared_cache and cache is None

    def _ocr_cache(self) -> OcrCache | None:
        if self._cache is None and self._shared_cache:
            try:
                self._cache = OcrCache()
            except (OSError, sqlite3.Error):
                self._shared_cache = False  # a read-only home: read without a cache
        return self._cache

    @property
    def model_id(self) -> str:
        return f"{NAME}-{DRAFT_VERSION}"

    @property
    def concurrency(self) -> int:
        return 1  # OCR already uses every core

    def complete(self, request: VLMRequest) -> VLMResponse:
        if not request.images:
            raise BackendError("the offline draft converter needs image A in the request")
        started = time.perf_counter()
        draft = draft_from_image(request.images[0].data, "image A", engine=self._engine,
                                 cache=self._ocr_cache())
        notes = "".join(f"' {w}\n" for w in draft.warnings)
        text = f"```plantuml\n{draft.puml.rstrip()}\n```\n{notes}"
        refusal = None if draft.classes else "found no class box in image A"
        return VLMResponse(text, self.model_id, Usage(), time.perf_counter() - started,
                           refusal=refusal)

    def complete_batch(self, requests: Sequence[VLMRequest]) -> list[VLMResponse]:
        return [self.complete(r) for r in requests]
