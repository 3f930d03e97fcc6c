"""A TA opening a submission from the analysis queue that the list does not show (yet) read
"Submission 9 is not listed": a database number the window shows nowhere. It names the
submission as the list does."""

from __future__ import annotations

import re

import pytest

from cluestudio.core.jobs import run_job
from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def test_a_ta_told_a_submission_is_not_listed_reads_its_name_not_its_db_id(session,
                                                                           tmp_path) -> None:
    from cluestudio.core.workspace import import_path
    from gui_course import make_course

    window = session.open(_course_workspace(tmp_path, tasks=("library_loans",)))
    listed = set(window.navigator.ids())
    ws = window.bench.session.require()  # stored, the list not refreshed
    run_job(import_path(ws, make_course(tmp_path / "more", ("online_shop",))))
    new = next(s for s in ws.list_submissions() if s.id not in listed)
    window.open_in_grading(new.id)
    message = window.statusBar().currentMessage()
    assert message == f"online_shop · {new.source_id} is not listed", message
    assert not re.search(rf"\b{new.id}\b", message.replace(new.source_id, ""))
