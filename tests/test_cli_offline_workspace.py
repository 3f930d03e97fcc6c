"""A TA drafts a whole course offline (``convert --workspace --backend offline``): the
closing line names the drafter, not a model's token count that is always 0 for it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.jobs import run_job

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = pytest.mark.xdist_group("ocr")


def test_a_ta_drafting_a_course_offline_is_not_told_of_tokens(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from gui_course import make_course

    path = tmp_path / "course.sqlite"
    with open_workspace(path) as ws:
        run_job(import_path(ws, make_course(tmp_path / "course", ("library_loans",))))
    capsys.readouterr()
    assert main(["convert", "--workspace", str(path), "--backend", "offline",
                 "--no-plantuml-check", "--submission", "1"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[0]
    assert last.startswith(f"{path}: 1 converted, 0 failed"), last
    assert re.search(r"\(offline-draft-\d+\)$", last) and "tokens" not in last, last
