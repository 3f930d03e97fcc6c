"""A TA opens the wrong file with File → Open workspace… (issue 29's hostile inputs): an
empty file (a scan that failed to save, an image placeholder) is refused with a one-line
message naming it, the workspace on screen stays open, and the file is left as it was —
not turned into an SQLite workspace behind the TA's back. The same for the CLI's workspace
batches (``check --workspace``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cluestudio.cli import main


def _errors(window) -> str:
    return "\n".join(window.errors.item(i).text() for i in range(window.errors.count()))


@pytest.mark.gui
def test_a_ta_who_opens_an_empty_image_as_a_workspace_is_told_and_the_file_is_untouched(
        qtbot, window, tmp_path: Path) -> None:
    window.files.new_workspace(tmp_path / "course.sqlite")
    current = window.bench.ws
    empty = tmp_path / "scan of s1.png"
    empty.write_bytes(b"")
    window.files.open_workspace(empty)
    assert window.bench.ws is current
    assert f"{empty}: an empty file, not a workspace" in _errors(window)
    assert empty.stat().st_size == 0


def test_check_workspace_on_an_empty_file_refuses_it_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "course.png"
    empty.write_bytes(b"")
    assert main(["check", "--workspace", str(empty)]) == 2
    err = capsys.readouterr().err
    assert f"{empty}: an empty file, not a workspace" in err and "Traceback" not in err
    assert empty.stat().st_size == 0


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


@needs_fifo
@pytest.mark.gui
def test_a_ta_who_picks_a_named_pipe_in_open_or_import_gets_a_message_not_a_frozen_window(
        qtbot, window, tmp_path: Path) -> None:
    window.files.new_workspace(tmp_path / "course.sqlite")
    current = window.bench.ws
    pipe = tmp_path / "course2.sqlite"
    os.mkfifo(pipe)
    window.files.open_workspace(pipe)  # on the window's thread: a hang would freeze it
    assert window.bench.ws is current
    assert f"{pipe}: not a regular file (a named pipe, device or socket)" in _errors(window)
    window.files.new_workspace(pipe)  # File → New… over it: the same
    assert window.bench.ws is current
    assert _errors(window).count(f"{pipe}: not a regular file") == 2
    jsonl = tmp_path / "course.jsonl"
    os.mkfifo(jsonl)
    assert window.files.import_jsonl(jsonl) is None  # no job left waiting on the pipe
    assert f"{jsonl}: not a regular file" in _errors(window)


@needs_fifo
@pytest.mark.parametrize("command", ["check --workspace", "import", "parse"])
def test_the_cli_refuses_a_named_pipe_as_a_workspace_jsonl_or_plantuml(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    pipe = tmp_path / "given"
    os.mkfifo(pipe)
    args = {"check --workspace": ["check", "--workspace", str(pipe)],
            "import": ["import", str(tmp_path / "new.sqlite"), str(pipe)],
            "parse": ["parse", str(pipe)]}[command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{pipe}: not a regular file (a named pipe, device or socket)" in err
    assert "Traceback" not in err
