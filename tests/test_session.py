"""The session in the application layer (app/session.py), driven without Qt: it owns the
workspace, the grader, the settings, drafts and review texts, undo and the view cache, and
every change it announces carries the view that asked for it (issue 26)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cluestudio.app.drafts import RubricDraft
from cluestudio.app.session import Session
from cluestudio.app.submissions import load_submission
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.settings import Settings, UISettings
from cluestudio.core.workspace import Changes, open_workspace


@pytest.fixture
def opened(sample_ws: Path, tmp_path: Path):
    path = tmp_path / "course.sqlite"
    shutil.copy(sample_ws, path)
    opened = Session(Settings(ui=UISettings(grader="ana")), drafts_folder=tmp_path / "drafts")
    opened.open(open_workspace(path))
    yield opened
    opened.close()


def _full_scores(session: Session, sid: int) -> dict[str, float]:
    rubric = session.rubric_for(session.view(sid))
    return {item.id: 1.0 for item in rubric.items}


def test_the_session_module_imports_no_qt() -> None:
    code = ("import sys, cluestudio.app.session; "
            "print(any(m.split('.')[0] in {'PySide6', 'shiboken6'} for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.strip()
    assert out == "False"


def test_a_saved_rating_is_written_once_and_the_view_is_not_read_again(
        opened: Session) -> None:
    """Save-and-advance: one transaction, and the cached view takes the saved rating from
    the command — the same record a fresh read gives — without another query."""
    ws = opened.require()
    sid = ws.list_submissions()[0].id
    view = opened.view(sid)
    assert view.rating is None
    opened.drafts.put(sid, RubricDraft("class-diagram", {"classes": 1.0}, "",
                                        1.0, f"{view.submission.task_id}/"
                                        f"{view.submission.source_id}"))
    writer, reader = [], []
    ws._db.conn.set_trace_callback(writer.append)  # idle between writes: safe to hook
    ws._reader().set_trace_callback(reader.append)
    heard: list[Changes] = []
    opened.subscribe(heard.append)
    grading = object()
    changes = opened.save_rating(view, _full_scores(opened, sid), "fine", 12.34,
                                  initiator=grading)
    after = opened.view(sid)  # from the cache
    ws._db.conn.set_trace_callback(None)
    ws._reader().set_trace_callback(None)
    assert [s for s in writer if s.split()[0].upper() in {"BEGIN", "COMMIT"}] == [
        "BEGIN", "COMMIT"]  # one transaction
    assert reader == []  # nothing read back on this thread
    assert heard == [changes] and heard[0].made_by(grading) and not heard[0].made_by(object())
    assert changes.ratings == {sid}
    fresh = load_submission(ws, sid, "ana")
    assert after.rating == fresh.rating  # the record, exactly as stored
    assert after.rating is not None and after.rating.comment == "fine"
    assert opened.drafts.identities() == {}  # the draft went with the save


def test_undo_is_announced_without_an_initiator_and_drops_the_cached_view(
        opened: Session) -> None:
    sid = opened.require().list_submissions()[0].id
    opened.save_rating(opened.view(sid), _full_scores(opened, sid), "", 1.0,
                        initiator="grading")
    heard: list[Changes] = []
    opened.subscribe(heard.append)
    assert opened.undo_label() is not None and "Rate submission" in opened.undo_label()
    undone = opened.undo()
    assert undone is not None and heard == [undone] and undone.initiator is None
    assert opened.view(sid).rating is None  # read again: the rating is gone
    assert opened.redo() is not None and opened.view(sid).rating is not None


def test_settings_change_in_one_place_and_a_new_grader_gets_their_own_drafts(
        opened: Session) -> None:
    sid = opened.require().list_submissions()[0].id
    opened.drafts.put(sid, RubricDraft("class-diagram", {"classes": 2.0}, "", 1.0, "t/s"))
    opened.view(sid)
    assert opened.update_settings(ui={"theme": "dark"}) is False  # same grader
    assert opened.settings.ui.theme == "dark" and opened.drafts.identities() == {sid: "t/s"}
    assert opened.update_settings(ui={"grader": "ben"}) is True
    assert opened.grader == "ben" and opened.drafts.identities() == {}
    assert opened.cache.get(sid) is None  # "mine" is ben's now: every view read anew


def test_review_texts_are_handed_back_once_and_go_with_the_workspace(
        opened: Session, sample_ws: Path) -> None:
    opened.keep_review_text(3, "@startuml\nclass Kept\n@enduml\n")
    assert opened.take_review_text(3) == "@startuml\nclass Kept\n@enduml\n"
    assert opened.take_review_text(3) is None
    opened.keep_review_text(4, "unsaved")
    opened.open(open_workspace(sample_ws, readonly=True))
    assert opened.review_texts == {}


def test_a_view_of_another_workspace_is_refused_and_nothing_is_written(
        opened: Session, sample_ws: Path, tmp_path: Path) -> None:
    sid = opened.require().list_submissions()[0].id
    view = opened.view(sid)
    other = tmp_path / "other.sqlite"
    shutil.copy(sample_ws, other)

    def count() -> int:
        with sqlite3.connect(other) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0])

    before = count()
    opened.open(open_workspace(other))
    with pytest.raises(ClueStudioError, match="no longer open"):
        opened.save_rating(view, _full_scores(opened, sid), "", 1.0)
    opened.close()
    assert count() == before


def test_a_stored_score_chunk_updates_the_cached_view_without_reading_it_again(
        opened: Session) -> None:
    """A scoring chunk changes only scores: the cached views of its submissions take
    them from one query (no image, no revisions read), the same a fresh read shows; a
    stored check changes no view, so none is dropped."""
    from cluestudio.core.workspace import ops

    ws = opened.require()
    first, second = (s.id for s in ws.list_submissions()[:2])
    shown = opened.view(first)
    opened.view(second)
    head = ops.text_hash(shown.head_puml)
    ws.write(lambda conn: ops.put_score(conn, first, head, "clue", 0.42,
                                        explanation={"clue": 0.42}))
    reads: list[str] = []
    ws._reader().set_trace_callback(reads.append)
    opened.note_changes(Changes(scores=frozenset({first, second})))
    ws._reader().set_trace_callback(None)
    assert len(reads) == 1 and "FROM blobs" not in reads[0]
    after = opened.cache.get(first)
    assert after is not None and after.image_a == shown.image_a
    assert after.scores == load_submission(ws, first, "ana").scores
    assert after.scores["clue"] == 0.42
    opened.note_changes(Changes(checks=frozenset({first})))
    assert opened.cache.get(first) is after
