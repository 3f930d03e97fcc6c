"""The offline conversion check: does the PlantUML say what image A shows? (issue 18)

OCR reads image A (:mod:`cluestudio.core.ocr`); every word is paired with a name of the
PlantUML where it can be; what is left are the names the conversion dropped (with their
boxes in image A) and the names it invented (with their PlantUML lines), and a triage
score that orders submissions for review. Qt-free; the OCR engine loads on first use.
"""

from cluestudio.core.check.check import CHECK_VERSION, check_conversion
from cluestudio.core.check.files import check_files, check_image_and_text
from cluestudio.core.check.names import ModelName, diagram_names
from cluestudio.core.check.report import CheckReport, InventedName, MissingName
from cluestudio.core.check.tokens import ImageToken, image_tokens

__all__ = [
    "CHECK_VERSION", "CheckReport", "ImageToken", "InventedName", "MissingName", "ModelName",
    "check_conversion", "check_files", "check_image_and_text", "diagram_names",
    "image_tokens",
]
