"""Read image A: check it, look in the cache, else run the engine and remember the answer."""

from __future__ import annotations

import os
import time

from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine, get_engine
from cluestudio.core.ocr.image import LoadedImage, load_image_bytes, load_image_file
from cluestudio.core.ocr.result import OcrResult


def read_loaded(image: LoadedImage, *, engine: OcrEngine | None = None,
                cache: OcrCache | None = None) -> OcrResult:
    engine = engine or get_engine()
    if cache is not None:
        found = cache.get(engine.engine_id, image.sha256)
        if found is not None:
            return found
    from cluestudio.core.ocr.layout import find_layout

    started = time.perf_counter()
    lines = engine.read(image.pixels)
    layout = find_layout(image.pixels, text=[line.box for line in lines])
    height, width = image.pixels.shape[:2]  # the boxes' frame: a big photo is reduced
    result = OcrResult(image.sha256, engine.engine_id, width, height,
                       tuple(lines), time.perf_counter() - started,
                       layout=layout)
    if cache is not None:
        cache.put(result)
    return result


def read_image(data: bytes, source: str = "<image>", *, engine: OcrEngine | None = None,
               cache: OcrCache | None = None) -> OcrResult:
    """OCR of an encoded image; bad images raise ``ImageError`` naming ``source``."""
    return read_loaded(load_image_bytes(data, source), engine=engine, cache=cache)


def read_image_file(path: str | os.PathLike[str], *, engine: OcrEngine | None = None,
                    cache: OcrCache | None = None) -> OcrResult:
    return read_loaded(load_image_file(path), engine=engine, cache=cache)
