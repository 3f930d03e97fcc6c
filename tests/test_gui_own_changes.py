"""A view does not reload itself for the change it made; the other views redraw (issue 26).

Each change the session announces carries its initiator (app/session.py, as Anki's
``OpChanges``): the grading panel that saved a rating already shows it, so saving reads
nothing of the submission back (no image bytes, no revisions), while the list's row takes
the new total; an undo comes from the window, not the panel, and the panel redraws. The
review editor that saved a revision is not shown anew (no second preview of the same text).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_gui_stories import FULL, _course_workspace

pytestmark = pytest.mark.gui


def _reads(window) -> list[str]:
    """Every statement the window's thread sends to the workspace from now on."""
    seen: list[str] = []
    window.bench.session.require()._reader().set_trace_callback(seen.append)
    return seen


def test_ta_saves_a_rating_and_the_panel_keeps_it_without_reading_the_submission_again(
        session, tmp_path: Path) -> None:
    window = session.open(_course_workspace(tmp_path))
    keys = session_keys()
    session.press(keys.Key_F3)
    grading = window.grading
    sid = grading.view.submission.id
    assert window.navigator.row(sid).total is None
    session.press(keys.Key_F4)
    for item, score in enumerate(FULL.values()):
        grading.rubric.handle_key(item, str(score))
    reads = _reads(window)
    with session.qtbot.waitSignal(grading.rating_saved):
        grading.save_rating()
    window.bench.session.require()._reader().set_trace_callback(None)
    # The panel that saved is not reloaded: nothing of the submission is read back ...
    assert not [q for q in reads if "FROM blobs" in q
                or ("FROM conversions WHERE" in q and "ORDER BY id" in q)], reads
    assert grading.view.rating is not None and grading.view.rating.scores == {
        k: float(v) for k, v in FULL.items()}
    # ... while the list, another view, shows the new total at once.
    assert window.navigator.row(sid).total == pytest.approx(grading.rubric.total())
    # An undo is the window's: the panel is redrawn from the record (no rating now).
    session.press(keys.Key_Z, modifier=ctrl())
    assert grading.view.rating is None and grading.rubric.scores() == {}
    assert window.navigator.row(sid).total is None


def test_reviewer_saves_a_revision_and_the_editor_is_not_shown_anew(
        session, tmp_path: Path) -> None:
    window = session.open(_course_workspace(tmp_path))
    keys = session_keys()
    session.press(keys.Key_F2)
    review = window.review
    sid = review.view.submission.id
    text = review.view.head_puml.replace("@enduml", "class Extra\n@enduml")
    with session.qtbot.waitSignal(review.preview_shown, timeout=60_000,
                                  check_params_cb=lambda r: r.text == text):
        review.editor.setPlainText(text)
        review.preview.request(text)
    requests = review.preview.requests
    assert review.save_revision()
    assert review.preview.requests == requests  # no second parse and render of the text
    assert review.view.head_puml == text and not review.has_unsaved_text()
    assert review.history.count() == 2  # the new revision is in the history
    assert len(window.bench.session.require().revisions(sid)) == 2
    # Undo comes from the window: the editor shows the stored head again.
    session.press(keys.Key_Z, modifier=ctrl())
    session.qtbot.waitUntil(lambda: review.editor.toPlainText() != text, timeout=5000)
    assert review.history.count() == 1


def session_keys():
    from cluestudio.gui.qt import Qt

    return Qt.Key


def ctrl():
    from cluestudio.gui.qt import Qt

    return Qt.KeyboardModifier.ControlModifier


def test_reviewer_edits_with_the_element_diff_on_and_the_text_is_rendered_once(
        session, tmp_path: Path) -> None:
    """With the diff on, B shows the coloured copy: the preview parses the edit and leaves
    rendering to the diff (the plain text is not rendered too); switched off, plain B of
    the edited text comes back."""
    from cluestudio.app import preview as previews
    from test_gui_kinds_groups import _shows_png_of

    window = session.open(_course_workspace(tmp_path))
    keys = session_keys()
    session.press(keys.Key_F2)
    review = window.review
    with session.qtbot.waitSignal(review.diff_shown, timeout=60_000):
        session.press(keys.Key_D, modifier=ctrl())
    edited = review.view.head_puml.replace("@enduml", "class Shelf\n@enduml")
    with session.qtbot.waitSignal(review.diff_shown, timeout=60_000):
        review.editor.setPlainText(edited)
    assert review.diff_picture.candidate_text == edited
    assert _shows_png_of(review.image_b, review.diff_picture.annotated_text)
    assert previews.cached_png(edited) is None  # the plain text was not rendered as well
    with session.qtbot.waitSignal(review.preview_shown, timeout=60_000,
                                  check_params_cb=lambda r: r.text == edited):
        session.press(keys.Key_D, modifier=ctrl())
    assert not review.diff_on() and _shows_png_of(review.image_b, edited)


def test_ta_resaves_a_rating_applied_from_its_group_and_the_panel_drops_the_mark(
        session, tmp_path: Path) -> None:
    """The grading panel is not reloaded after its own save, yet the group panel beside it
    (another view) shows the saved record: the rating is this submission's own now."""
    from cluestudio.gui.qt import Qt
    from test_gui_kinds_groups import _find_groups, _group_workspace, _rate_by_keys, _show, _sid

    keys = session_keys()
    window = session.open(_group_workspace(tmp_path))
    session.press(keys.Key_F3)
    source, copy = (_sid(window, "library_loans", s) for s in ("s03", "s05"))
    _show(window, source)
    _find_groups(window, session)
    _rate_by_keys(session, "432423")
    window.groups.confirm = lambda dialog: "apply"
    session.press(keys.Key_G, modifier=ctrl() | Qt.KeyboardModifier.ShiftModifier)
    _show(window, copy)
    panel = window.grading.group_panel
    assert "applied from s03" in panel.text.text()
    session.press(keys.Key_F4)
    session.press(keys.Key_Up, keys.Key_Up, keys.Key_Up, keys.Key_Up, keys.Key_Up,
                  keys.Key_Up, "0")
    with session.qtbot.waitSignal(window.grading.rating_saved):
        session.press(keys.Key_Return, modifier=ctrl())
    assert window.grading.view.rating is not None
    assert not window.grading.view.rating.group_applied
    assert "applied from" not in panel.text.text()
