"""Reading the text of image A offline, on the CPU: lines of text with boxes and confidences.

    from cluestudio.core.ocr import read_image_file
    result = read_image_file("alice.png")          # cached per image hash and engine
    for word in result.words(): print(word.text, word.box, word.confidence)

The engine (PP-OCR models run by the optional ``rapidocr`` package, ``pip install
'cluestudio[ocr]'``) is imported on first use only; importing this package is cheap.
"""

from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import (
    OcrEngine,
    OcrUnavailable,
    get_engine,
    installed_engine_id,
    ocr_available,
)
from cluestudio.core.ocr.image import load_image_bytes, load_image_file
from cluestudio.core.ocr.result import Box, ClassBox, Layout, OcrResult, TextLine, Word
from cluestudio.core.ocr.service import read_image, read_image_file

__all__ = [
    "Box", "ClassBox", "Layout", "OcrCache", "OcrEngine", "OcrResult", "OcrUnavailable",
    "TextLine", "Word", "get_engine", "installed_engine_id", "load_image_bytes",
    "load_image_file", "ocr_available", "read_image", "read_image_file",
]
