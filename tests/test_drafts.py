"""Unsaved rubric drafts (app/drafts.py): kept per workspace and grader, never handed to
another student, and a damaged draft file costs the drafts, not the window."""

from __future__ import annotations

from pathlib import Path

from cluestudio.app.drafts import DraftStore, RubricDraft


def _draft(**scores: float) -> RubricDraft:
    return RubricDraft("class-diagram", dict(scores), "", 3.5, "shop/s01")


def test_a_draft_comes_back_from_disk_for_the_same_submission_only(tmp_path: Path) -> None:
    ws = tmp_path / "course.sqlite"
    store = DraftStore(tmp_path / "drafts", ws, "ana")
    store.put(3, _draft(classes=4))
    again = DraftStore(tmp_path / "drafts", ws, "ana")
    assert again.get(3, "class-diagram", "shop/s01") == _draft(classes=4)
    assert again.get(3, "class-diagram", "shop/s02") is None  # same id, another student
    assert again.get(3, "architecture", "shop/s01") is None  # another rubric
    assert again.identities() == {3: "shop/s01"}


def test_drafts_are_per_grader_and_per_workspace(tmp_path: Path) -> None:
    folder = tmp_path / "drafts"
    DraftStore(folder, tmp_path / "a.sqlite", "ana").put(1, _draft(classes=4))
    assert DraftStore(folder, tmp_path / "a.sqlite", "ben").identities() == {}
    assert DraftStore(folder, tmp_path / "b.sqlite", "ana").identities() == {}


def test_an_empty_draft_or_a_dropped_one_is_gone(tmp_path: Path) -> None:
    store = DraftStore(tmp_path / "drafts", tmp_path / "a.sqlite", "ana")
    store.put(1, _draft(classes=4))
    store.put(2, _draft(classes=2))
    store.put(1, _draft())  # every score cleared
    store.drop(2)
    assert DraftStore(tmp_path / "drafts", tmp_path / "a.sqlite", "ana").identities() == {}


def test_a_damaged_draft_file_is_ignored_not_fatal(tmp_path: Path) -> None:
    store = DraftStore(tmp_path / "drafts", tmp_path / "a.sqlite", "ana")
    store.put(1, _draft(classes=4))
    store.path.write_text('{"drafts": {"1": {"scores": "nonsense"}, "x": 5}', encoding="utf-8")
    assert DraftStore(tmp_path / "drafts", tmp_path / "a.sqlite", "ana").identities() == {}
    store.path.write_text('{"drafts": {"1": {"rubric_id": "r", "scores": {"c": "4"}}}}',
                          encoding="utf-8")  # no submission identity: not trusted
    assert DraftStore(tmp_path / "drafts", tmp_path / "a.sqlite", "ana").identities() == {}
