"""Check an image and a PlantUML text or file: the CLI's and tests' entry points.

Where image A carries the diagram it was rendered from (PlantUML's source chunk:
core/embedded), the conversion is compared with that, model to model, and OCR is not run;
``pixels=True`` reads the pixels all the same. When image A carries a diagram that cannot
be used (it does not parse, the file was saved again by another program, its pixels do not
look like it: core/embedded/trust.py), the pixels are read and the report's
``evidence_note`` says why.
"""

from __future__ import annotations

import os
from pathlib import Path

from cluestudio.core.check.check import check_conversion
from cluestudio.core.check.doubtful import drawn_outside_model
from cluestudio.core.check.report import CheckReport
from cluestudio.core.model import ClassDiagram
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine


def _check(image: bytes, image_source: str, diagram: ClassDiagram, puml: str, *,
           engine: OcrEngine | None, cache: OcrCache | None, language: str,
           pixels: bool) -> CheckReport:
    from dataclasses import replace

    from cluestudio.core.ocr.image import load_image_bytes
    from cluestudio.core.ocr.service import read_loaded

    note = ""
    # decoded once: the embedded diagram's box count and, failing it, OCR read these pixels
    loaded = load_image_bytes(image, image_source)
    if not pixels:
        from cluestudio.core.embedded.compare import compare_with_embedded
        from cluestudio.core.embedded.trust import trusted_embedded

        embedded = trusted_embedded(image, image_source, loaded)
        if embedded.diagram is not None:
            return compare_with_embedded(embedded.diagram, diagram, image=image)
        note = f"{embedded.reason}; read from the pixels" if embedded.reason else ""
    ocr = read_loaded(loaded, engine=engine, cache=cache)
    report = check_conversion(ocr, diagram, language=language,
                              also_drawn=drawn_outside_model(puml, diagram))
    # OCR read a photo taken from the side squared; its marks go over the photo as taken
    report = report.with_boxes(loaded.in_photo, loaded.photo_size)
    return replace(report, evidence_note=note) if note else report


def check_image_and_text(image: bytes, puml: str, *, image_source: str = "<image>",
                         puml_source: str = "<plantuml>", engine: OcrEngine | None = None,
                         cache: OcrCache | None = None, language: str = "auto",
                         pixels: bool = False) -> CheckReport:
    """Parse ``puml`` (errors name ``puml_source`` and the line), compare it with the
    diagram ``image`` carries or, failing that or with ``pixels``, with what OCR reads in
    ``image`` (errors name ``image_source``)."""
    from cluestudio.core.plantuml import parse_plantuml

    diagram = parse_plantuml(puml, source=puml_source).diagram
    return _check(image, image_source, diagram, puml, engine=engine, cache=cache,
                  language=language, pixels=pixels)


def check_files(image_path: str | os.PathLike[str], puml_path: str | os.PathLike[str], *,
                engine: OcrEngine | None = None, cache: OcrCache | None = None,
                language: str = "auto", pixels: bool = False) -> CheckReport:
    from cluestudio.core.plantuml import parse_file
    from cluestudio.core.workspace.images import read_image_file

    diagram = parse_file(puml_path).diagram  # names the file on any error
    text = Path(puml_path).read_text(encoding="utf-8")  # read as UTF-8 just now
    checked = read_image_file(Path(image_path))  # a pipe refused, the size checked first
    return _check(checked.data, os.fspath(image_path), diagram, text, engine=engine,
                  cache=cache, language=language, pixels=pixels)
