"""Hostile course folders and JSONL files (issue 14): no import reads outside the imported
folder, follows a link out of it, blocks on a special file, or reads a huge file whole."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import ImportFailed, import_path, open_workspace

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_TASK = ROOT / "annotations" / "sample" / "tasks" / "online_shop"
SECRET = "root:x:0:0:TOPSECRET-7f3a:/root:/bin/bash"


@pytest.fixture()
def course(tmp_path: Path) -> Path:
    """A small valid course folder, and beside it (outside) a secret file and folder."""
    root = tmp_path / "course"
    task = root / "tasks" / "shop"
    (task / "submissions").mkdir(parents=True)
    shutil.copy(SAMPLE_TASK / "requirement.md", task / "requirement.md")
    shutil.copy(SAMPLE_TASK / "reference.puml", task / "reference.puml")
    (task / "submissions" / "s1.puml").write_text("@startuml\nclass Customer\n@enduml\n")
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "passwd").write_text(SECRET + "\n")
    (outside / "reference.puml").write_text(f"@startuml\nclass Secret\nnote as N\n{SECRET}\n"
                                            "end note\n@enduml\n")
    (outside / "requirement.md").write_text(f"# {SECRET}\n")
    return root


def import_into(tmp_path: Path, source: Path, **options: bool) -> tuple[object, object]:
    ws_path = tmp_path / "ws.sqlite"
    with open_workspace(ws_path) as ws:
        try:
            report = run_job(import_path(ws, source, **options))
        except ImportFailed as failed:
            report = failed
        dump = ws._reader().execute("SELECT group_concat(requirement) || group_concat("
                                    "reference_puml) FROM tasks").fetchone()[0] or ""
        revisions = ws._reader().execute(
            "SELECT group_concat(puml) FROM conversions").fetchone()[0] or ""
    return report, dump + revisions


def assert_refused(report: object, name: str, stored: object) -> None:
    assert isinstance(report, ImportFailed), report
    assert any(name in p.source for p in report.report.errors), report.report.errors
    assert "TOPSECRET" not in str(stored)
    assert stored == ""  # all or nothing: not even the good files were written


@pytest.mark.parametrize("link", ["reference.puml", "requirement.md"])
def test_a_file_linked_out_of_the_course_is_not_read(course: Path, tmp_path: Path,
                                                     link: str) -> None:
    target = course / "tasks" / "shop" / link
    target.unlink()
    target.symlink_to(tmp_path / "private" / link)
    report, stored = import_into(tmp_path, course)
    assert_refused(report, link, stored)
    assert "outside the imported folder" in str(report)


def test_a_task_folder_linked_out_of_the_course_is_not_read(course: Path,
                                                            tmp_path: Path) -> None:
    (course / "tasks" / "leak").symlink_to(tmp_path / "private", target_is_directory=True)
    report, stored = import_into(tmp_path, course)
    assert_refused(report, "leak", stored)


@pytest.mark.parametrize("name", ["s2.puml", "ratings.csv", "course.toml"])
def test_other_linked_files_are_not_read(course: Path, tmp_path: Path, name: str) -> None:
    place = course / name if name != "s2.puml" else course / "tasks/shop/submissions" / name
    place.symlink_to(tmp_path / "private" / "passwd")
    report, stored = import_into(tmp_path, course)
    assert_refused(report, name, stored)


def test_links_that_stay_inside_the_course_are_followed(course: Path, tmp_path: Path) -> None:
    shared = course / "shared"
    shared.mkdir()
    reference = course / "tasks" / "shop" / "reference.puml"
    shutil.move(reference, shared / "reference.puml")
    reference.symlink_to(Path("..") / ".." / "shared" / "reference.puml")
    report, stored = import_into(tmp_path, course)
    assert not isinstance(report, ImportFailed), report
    assert "class" in str(stored)


def test_allow_outside_is_the_explicit_way_to_follow_links(course: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    target = course / "tasks" / "shop" / "requirement.md"
    target.unlink()
    target.symlink_to(tmp_path / "private" / "requirement.md")
    ws = tmp_path / "cli.sqlite"
    assert main(["import", str(ws), str(course)]) == 2
    assert "outside the imported folder" in capsys.readouterr().err
    assert main(["import", str(ws), str(course), "--allow-outside"]) == 0
    with open_workspace(ws) as opened:
        assert "TOPSECRET" in opened.tasks()[0].requirement


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")
@pytest.mark.timeout(30)
def test_a_named_pipe_is_refused_not_waited_on(course: Path, tmp_path: Path) -> None:
    reference = course / "tasks" / "shop" / "reference.puml"
    reference.unlink()
    os.mkfifo(reference)
    report, stored = import_into(tmp_path, course)
    assert_refused(report, "reference.puml", stored)
    assert "not a regular file" in str(report.report.errors)  # type: ignore[attr-defined]


def test_huge_files_are_refused_before_they_are_read(course: Path, tmp_path: Path) -> None:
    # Sparse files: 8 GB on paper, nothing on disk. Reading one whole would take minutes.
    for name, size in (("reference.puml", 8 << 30), ("submissions/s9.png", 8 << 30)):
        with open(course / "tasks" / "shop" / name, "wb") as handle:
            handle.truncate(size)
    report, stored = import_into(tmp_path, course)
    assert_refused(report, "reference.puml", stored)
    messages = [p.message for p in report.report.errors]  # type: ignore[attr-defined]
    assert sum("over the" in m and "limit" in m for m in messages) == 2


def write_jsonl(path: Path, records: list[dict[str, object] | str]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records)
                    + "\n")
    return path


RECORD = {"task_id": "t1", "requirement": "Shop", "reference": "class Customer",
          "candidate": "class Customer"}


@pytest.mark.parametrize("image", ["ABSOLUTE", "../private/leak.png"])
def test_jsonl_images_outside_its_folder_are_refused(course: Path, tmp_path: Path,
                                                     image: str) -> None:
    folder = tmp_path / "jsonl"
    folder.mkdir()
    shutil.copy(next(SAMPLE_TASK.glob("submissions/*.png")), tmp_path / "private" / "leak.png")
    image = str(tmp_path / "private" / "leak.png") if image == "ABSOLUTE" else image
    source = write_jsonl(folder / "data.jsonl", [{**RECORD, "image": image}])
    report, _ = import_into(tmp_path, source)
    assert isinstance(report, ImportFailed)
    assert "outside the JSONL file's folder" in str(report)
    report, _ = import_into(tmp_path, source, allow_outside=True)
    assert not isinstance(report, ImportFailed), report


def test_jsonl_oversized_and_deeply_nested_records_are_errors_with_their_line(
        tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", [
        RECORD,
        "[" * 200_000 + "]" * 200_000,
        json.dumps({**RECORD, "source_id": "big", "candidate": "class A\n" * 200_000}),
        "x" * (5 << 20),
        {**RECORD, "source_id": "last"},
    ])
    report, stored = import_into(tmp_path, source)
    assert isinstance(report, ImportFailed)
    lines = {p.line: p.message for p in report.report.errors}
    assert "nested too deeply" in lines[2]
    assert "over the" in lines[3]
    assert "record longer than" in lines[4]
    assert stored == ""
