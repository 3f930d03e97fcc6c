"""Check an image and a PlantUML text or file: the CLI's and tests' entry points."""

from __future__ import annotations

import os
from pathlib import Path

from cluestudio.core.check.check import check_conversion
from cluestudio.core.check.doubtful import drawn_outside_model
from cluestudio.core.check.report import CheckReport
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine


def check_image_and_text(image: bytes, puml: str, *, image_source: str = "<image>",
                         puml_source: str = "<plantuml>", engine: OcrEngine | None = None,
                         cache: OcrCache | None = None, language: str = "auto"
                         ) -> CheckReport:
    """Parse ``puml`` (errors name ``puml_source`` and the line), read ``image`` (errors
    name ``image_source``), compare."""
    from cluestudio.core.ocr.service import read_image
    from cluestudio.core.plantuml import parse_plantuml

    diagram = parse_plantuml(puml, source=puml_source).diagram
    ocr = read_image(image, image_source, engine=engine, cache=cache)
    return check_conversion(ocr, diagram, language=language,
                            also_drawn=drawn_outside_model(puml, diagram))


def check_files(image_path: str | os.PathLike[str], puml_path: str | os.PathLike[str], *,
                engine: OcrEngine | None = None, cache: OcrCache | None = None,
                language: str = "auto") -> CheckReport:
    from cluestudio.core.ocr.image import load_image_file
    from cluestudio.core.ocr.service import read_loaded
    from cluestudio.core.plantuml import parse_file

    diagram = parse_file(puml_path).diagram  # names the file on any error
    text = Path(puml_path).read_text(encoding="utf-8")  # read as UTF-8 just now
    ocr = read_loaded(load_image_file(image_path), engine=engine, cache=cache)
    return check_conversion(ocr, diagram, language=language,
                            also_drawn=drawn_outside_model(text, diagram))
