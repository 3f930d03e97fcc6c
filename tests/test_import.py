"""Importing course folders and JSONL: all or nothing, every bad file named, idempotent."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from cluestudio.cli import main
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import (
    ImportFailed,
    import_path,
    open_sample_workspace,
    open_workspace,
    sample_course_path,
)

PUML = "@startuml\nclass Book {\n  - title : String\n}\nclass Member\nMember -- Book\n@enduml\n"


def png_bytes(size: tuple[int, int] = (40, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "white").save(buffer, format="PNG")
    return buffer.getvalue()


def bomb_png(width: int = 10_000, height: int = 10_000) -> bytes:
    """A valid 100-megapixel 1-bit PNG: ~12 KB on disk, gigabytes once decoded as RGB."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = zlib.compress(b"\x00" * ((width // 8 + 1) * height), 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0,
                                                              0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def make_course(root: Path, *, ratings: str | None = None) -> Path:
    task = root / "tasks" / "library"
    (task / "submissions").mkdir(parents=True)
    (task / "requirement.md").write_text("# Library\n\nBooks and members.\n")
    (task / "reference.puml").write_text(PUML)
    (task / "submissions" / "alice.png").write_bytes(png_bytes())
    (task / "submissions" / "alice.puml").write_text(PUML)
    (task / "submissions" / "bob.jpg").write_bytes(png_bytes())  # wrong suffix: content wins
    if ratings is not None:
        (root / "ratings.csv").write_text(ratings, encoding="utf-8")
    return root


def do_import(ws, path: Path):
    return run_job(import_path(ws, path))


def test_course_folder_import_then_reimport_changes_nothing(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", ratings=(
        "task_id,source_id,grader,total,comment\nlibrary,alice,t1,80,good\n"))
    with open_workspace(tmp_path / "w.sqlite") as ws:
        report = do_import(ws, course)
        assert report.counts["submissions_added"] == 2 and report.counts["ratings_added"] == 1
        assert ws.tasks()[0].title == "Library"
        alice = ws.find_submission("library", "alice")
        assert alice is not None and ws.image(alice.image_hash or "") == png_bytes()
        assert ws.head_revision(alice.id).author_kind == "import"
        before = ws.counts()
        again = do_import(ws, course)
        assert ws.counts() == before
        assert again.counts["submissions_unchanged"] == 2
        assert again.counts["ratings_unchanged"] == 1


@pytest.mark.parametrize(("name", "content", "message"), [
    ("carol.png", png_bytes()[:60], "corrupt or truncated"),
    ("dave.png", bomb_png(), "decompression bomb"),
    ("erin.png", b"not an image at all", "a text file, not an image"),
])
def test_bad_image_names_the_file_and_writes_nothing(tmp_path: Path, name: str,
                                                     content: bytes, message: str) -> None:
    course = make_course(tmp_path / "course")
    bad = course / "tasks" / "library" / "submissions" / name
    bad.write_bytes(content)
    with open_workspace(tmp_path / "w.sqlite") as ws:
        with pytest.raises(ImportFailed, match=message) as failed:
            do_import(ws, course)
        assert [p.source for p in failed.value.report.errors] == [str(bad)]
        assert ws.counts()["tasks"] == 0 and ws.counts()["blobs"] == 0


def test_missing_reference_and_duplicate_ids_are_reported_together(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    (course / "tasks" / "library" / "reference.puml").unlink()
    (course / "tasks" / "library" / "submissions" / "alice.jpg").write_bytes(png_bytes())
    with open_workspace(tmp_path / "w.sqlite") as ws:
        with pytest.raises(ImportFailed) as failed:
            do_import(ws, course)
        messages = " | ".join(p.message for p in failed.value.report.errors)
        assert "missing reference" in messages and "duplicate id" in messages
        assert ws.counts()["submissions"] == 0


def test_non_utf8_csv_names_file_and_line(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    (course / "ratings.csv").write_bytes(
        b"task_id,source_id,grader,total,comment\nlibrary,alice,t1,80,tr\xe8s bien\n")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        with pytest.raises(ImportFailed, match=r"ratings\.csv:2: error: not UTF-8"):
            do_import(ws, course)
        assert ws.counts()["tasks"] == 0


def test_rating_out_of_range_or_for_unknown_submission(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", ratings=(
        "task_id,source_id,grader,classes,attributes,methods,relations,multiplicities,overall\n"
        "library,alice,t1,9,1,1,1,1,1\nlibrary,zed,t1,1,1,1,1,1,1\n"))
    with open_workspace(tmp_path / "w.sqlite") as ws:
        with pytest.raises(ImportFailed) as failed:
            do_import(ws, course)
        errors = failed.value.report.errors
        assert [(p.line, "out of range" in p.message or "unknown submission" in p.message)
                for p in errors] == [(2, True), (3, True)]


def write_jsonl(path: Path, records: list[object], broken: str | None = None) -> Path:
    lines = [json.dumps(r) for r in records]
    if broken is not None:
        lines.insert(1, broken)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_jsonl_import_with_image_and_rating(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png_bytes())
    records = [
        {"task_id": "t1", "requirement": "R", "reference": PUML, "candidate": PUML,
         "source_id": "llm-1", "origin": "llm", "rating": 72},
        {"task_id": "t1", "requirement": "R", "reference": PUML, "image": "a.png",
         "student": "s1"},
    ]
    path = write_jsonl(tmp_path / "data.jsonl", records)
    with open_workspace(tmp_path / "w.sqlite") as ws:
        do_import(ws, path)
        assert {s.source_id: s.origin for s in ws.list_submissions()} == {"llm-1": "llm",
                                                                          "s1": "student"}
        assert ws.ratings()[0].total == 72
        before = ws.counts()
        do_import(ws, path)
        assert ws.counts() == before


def test_jsonl_with_a_broken_line_writes_nothing(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [
        {"task_id": "t1", "reference": PUML, "candidate": PUML, "source_id": "a"},
        {"task_id": "t1", "reference": PUML, "candidate": PUML, "source_id": "a"},
    ], broken='{"task_id": "t1", "candidate": ')
    with open_workspace(tmp_path / "w.sqlite") as ws:
        with pytest.raises(ImportFailed) as failed:
            do_import(ws, path)
        assert [(p.line, p.message.split(":")[0]) for p in failed.value.report.errors] == [
            (2, "broken JSON line"), (3, "duplicate id")]
        assert ws.counts()["submissions"] == 0


def test_cli_import_json_report_and_exit_status(tmp_path: Path, capsys) -> None:
    course = make_course(tmp_path / "course")
    assert main(["import", str(tmp_path / "w.sqlite"), str(course), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["submissions_added"] == 2
    (course / "tasks" / "library" / "submissions" / "x.png").write_bytes(b"\x89PNG broken")
    assert main(["import", str(tmp_path / "w.sqlite"), str(course), "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["errors"][0]["source"].endswith("x.png")


def test_sample_workspace_lives_in_the_data_dir_and_imports_once(tmp_path: Path,
                                                                  monkeypatch) -> None:
    monkeypatch.setenv("CLUESTUDIO_DATA_DIR", str(tmp_path / "data"))
    with open_sample_workspace() as ws:
        assert len(ws.tasks()) >= 3
        assert ws.path.parent == tmp_path / "data"
        counts = ws.counts()
    with open_sample_workspace() as ws:
        assert ws.counts() == counts
    assert (sample_course_path() / "tasks").is_dir()


def test_unparsable_plantuml_is_kept_as_text_and_flagged(tmp_path: Path, monkeypatch) -> None:
    from cluestudio.core.workspace import ops

    def fake_status(puml: str) -> tuple[bool | None, str | None]:
        return (False, "line 2: broken") if "oops" in puml else (True, None)

    monkeypatch.setattr(ops, "parse_status", fake_status)
    course = make_course(tmp_path / "course")
    bad = course / "tasks" / "library" / "submissions" / "zoe.puml"
    bad.write_text("@startuml\nclass oops {\n@enduml\n")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        report = do_import(ws, course)
        assert [(p.source, p.severity) for p in report.problems] == [(str(bad), "warning")]
        zoe = ws.find_submission("library", "zoe")
        assert zoe is not None
        head = ws.head_revision(zoe.id)
        assert head.puml.startswith("@startuml\nclass oops") and head.parse_ok is False
        assert head.parse_error == "line 2: broken"
