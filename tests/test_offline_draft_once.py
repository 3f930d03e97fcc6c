"""Issue 29: the offline draft (boxes + OCR, no model) gives the same draft however often it
is asked, yet the repair loop asked it again after "no class box": three identical OCR runs
of the same image, then "still invalid after 3 attempt(s)" and a progress line "asking
offline-draft-1". It is asked once, says what it did, and says plainly what it found."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from cluestudio.core.jobs import CancelToken, Progress, run_job
from cluestudio.core.vlm.backend import ImageInput
from cluestudio.core.vlm.conversion import attempts_text, convert_image, parser_checker
from cluestudio.core.vlm.factory import BackendOptions, make_backend

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.xdist_group("ocr")]


def test_a_blank_scan_is_drafted_once_and_the_draft_says_it_found_no_class_box(
        tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    Image.new("RGB", (400, 300), "white").save(blank)
    backend = make_backend(BackendOptions(backend="offline"))
    seen: list[Progress] = []
    result = run_job(convert_image(ImageInput.from_file(blank), backend, CancelToken(),
                                   source="s02", max_repairs=2, check=parser_checker,
                                   render=None), on_progress=seen.append)
    assert len(result.attempts) == 1 and result.deterministic and not result.ok
    assert result.attempts[0].error == "the offline draft found no class box in image A"
    messages = [step.message for step in seen]
    assert "s02: offline draft of image A" in messages
    assert not any("asking" in message for message in messages), messages


def test_attempts_are_counted_in_english() -> None:
    assert attempts_text(1) == "1 attempt" and attempts_text(3) == "3 attempts"
