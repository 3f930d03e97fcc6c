"""The offline first-draft converter: image A → PlantUML without a VLM (issue 18).

Class boxes and their compartments come from the image (:mod:`cluestudio.core.ocr.layout`),
their text from OCR; relations are traced along the remaining strokes. The result is a
draft for a reviewer to correct, offered as the ``offline-draft`` converter plugin where no
VLM is configured.
"""

from cluestudio.core.draft.convert import (
    DRAFT_VERSION,
    DraftResult,
    draft_from_image,
    draft_from_ocr,
)

__all__ = ["DRAFT_VERSION", "DraftResult", "draft_from_image", "draft_from_ocr"]
