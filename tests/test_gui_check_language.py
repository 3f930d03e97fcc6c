"""A TA grading German drawings tells the offline check their language in the settings
dialog, and is told there which languages OCR reads (issue 29: let a user set the
language)."""

from __future__ import annotations

import shutil
from pathlib import Path


def test_a_ta_with_german_drawings_sets_their_language_and_is_told_what_ocr_reads(
        session, sample_ws: Path, tmp_path: Path) -> None:
    from cluestudio.core.settings import load_settings
    from cluestudio.gui.settings_dialog import SettingsDialog

    path = tmp_path / "course.sqlite"
    shutil.copy(sample_ws, path)
    window = session.open(path)
    dialog = SettingsDialog(window.bench.settings, window)
    assert dialog.ocr_language.currentText() == "auto"
    told = dialog.ocr_reads.text()
    assert "German (ä ö ü ß)" in told and "French" in told and "Spanish" in told
    assert "(Cyrillic, Greek, CJK) are not read" in told
    assert "does not change what OCR reads" in told  # honest: no model is switched
    dialog.ocr_language.setCurrentText("de")
    window.take_settings(dialog.result_settings())
    assert window.bench.settings.ocr.language == "de"
    saved, warnings = load_settings()  # what the next check job reads
    assert saved.ocr.language == "de" and not warnings
