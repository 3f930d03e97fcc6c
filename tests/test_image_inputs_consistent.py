"""One image reader for every path a TA feeds images through (issue 29: screenshots and
photos arrive in whatever format the tool or phone saved): the course import, `check` and
`convert` accept the same image types and refuse a bad file with the same one-line
message naming it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PIL import Image

from cluestudio.cli import main
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import ImportFailed, import_path, open_workspace
from cluestudio.core.workspace.images import ImageError, read_image_file

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_TASK = ROOT / "annotations" / "sample" / "tasks" / "online_shop"


def _course(tmp_path: Path) -> Path:
    task = tmp_path / "course" / "tasks" / "shop"
    (task / "submissions").mkdir(parents=True)
    shutil.copy(SAMPLE_TASK / "requirement.md", task / "requirement.md")
    shutil.copy(SAMPLE_TASK / "reference.puml", task / "reference.puml")
    return task / "submissions"


def _import(tmp_path: Path, course: Path) -> object:
    with open_workspace(tmp_path / "ws.sqlite") as ws:
        try:
            return run_job(import_path(ws, course))
        except ImportFailed as failed:
            return failed


@pytest.mark.parametrize("fmt,suffix", [("GIF", ".gif"), ("WEBP", ".webp"), ("BMP", ".bmp")])
def test_a_screenshot_saved_as_gif_webp_or_bmp_is_imported_like_a_png(
        tmp_path: Path, fmt: str, suffix: str) -> None:
    submissions = _course(tmp_path)
    Image.new("RGB", (120, 80), "white").save(submissions / f"s1{suffix}", format=fmt)
    report = _import(tmp_path, tmp_path / "course")
    assert not isinstance(report, ImportFailed), report
    assert "unknown file type" not in str(report)
    with open_workspace(tmp_path / "ws.sqlite") as ws:
        stored = ws._reader().execute("SELECT count(*) FROM submissions WHERE image_hash "
                                      "IS NOT NULL").fetchone()[0]
    assert stored == 1


@pytest.mark.parametrize("content,message", [
    (b"", "empty file, not an image"),
    (b"hello, this is my diagram\n", "a text file, not an image"),
    (b"@startuml\nclass A\n@enduml\n", "PlantUML text, not an image"),
])
def test_a_bad_png_is_named_the_same_by_import_and_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes,
        message: str) -> None:
    submissions = _course(tmp_path)
    bad = submissions / "s1.png"
    bad.write_bytes(content)
    report = _import(tmp_path, tmp_path / "course")
    assert isinstance(report, ImportFailed), report
    errors = [(p.source, p.message) for p in report.report.errors]
    assert any(source == str(bad) and message in text for source, text in errors), errors
    assert not any("cannot identify" in text for _, text in errors), errors
    puml = tmp_path / "s1.puml"
    puml.write_text("@startuml\nclass A\n@enduml\n", encoding="utf-8")
    assert main(["check", str(bad), str(puml), "--no-cache"]) != 0
    err = capsys.readouterr().err.strip()
    assert err == f"error: {bad}: {message}" or err.startswith(f"error: {bad}: {message};"), err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")
@pytest.mark.timeout(30)
def test_a_named_pipe_given_as_an_image_is_refused_before_it_is_opened(
        tmp_path: Path) -> None:
    pipe = tmp_path / "photo.jpg"
    os.mkfifo(pipe)  # opening it for reading would wait for a writer that never comes
    with pytest.raises(ImageError, match="not a regular file") as refused:
        read_image_file(pipe)
    assert refused.value.source == str(pipe)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")
@pytest.mark.timeout(30)
def test_the_ocr_reader_refuses_a_pipe_and_names_a_missing_file_like_convert(
        tmp_path: Path) -> None:
    from cluestudio.core.ocr.image import load_image_file

    pipe = tmp_path / "scan.png"
    os.mkfifo(pipe)
    with pytest.raises(ImageError, match="not a regular file"):
        load_image_file(pipe)
    missing = tmp_path / "gone.png"
    with pytest.raises(ImageError) as by_ocr:
        load_image_file(missing)
    with pytest.raises(ImageError) as by_convert:
        read_image_file(missing)
    assert str(by_ocr.value) == str(by_convert.value)
    assert str(by_ocr.value).startswith(f"{missing}: cannot read: No such file")


def _heic_head() -> bytes:
    """The first box of an iPhone's HEIC photo (Pillow cannot read HEIC)."""
    return (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64)


def test_an_iphone_heic_photo_is_named_and_told_how_to_export_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "IMG_0042.HEIC"
    photo.write_bytes(_heic_head())
    with pytest.raises(ImageError, match=r"HEIC.*export it as JPEG") as refused:
        read_image_file(photo)
    assert refused.value.source == str(photo)
    submissions = _course(tmp_path)
    (submissions / "s1.heic").write_bytes(_heic_head())
    (submissions / "s1.puml").write_text("@startuml\nclass A\n@enduml\n", encoding="utf-8")
    report = _import(tmp_path, tmp_path / "course")
    warnings = [(p.source, p.message) for p in report.problems]  # type: ignore[attr-defined]
    assert any(source.endswith("s1.heic") and "HEIC" in text and "JPEG" in text
               for source, text in warnings), warnings
