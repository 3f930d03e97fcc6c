"""The GUI's scoring job (Qt-free): what it stores, and what it hands back to the window."""

from __future__ import annotations

from pathlib import Path

from cluestudio.core.jobs import run_job


def test_a_big_batch_stores_every_score_but_returns_only_the_focused_panel(tmp_path: Path
                                                                          ) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.scoring import STORE_CHUNK, score_submissions
    from gui_course import make_course

    ws = open_workspace(tmp_path / "course.sqlite")
    try:
        run_job(import_path(ws, make_course(tmp_path / "course")))
        ids = [s.id for s in ws.list_submissions()]
        assert len(ids) == 6 and STORE_CHUNK > 1
        out = run_job(score_submissions(ws, ids, "exact", "cpu", "paper", _never_cancelled(),
                                        focus={ids[2]}))
        assert set(k for k in out if k != "plugin_errors") == {ids[2]}
        assert 0.0 <= out[ids[2]]["clue"] <= 1.0 and out[ids[2]]["explanation"]
        stored = ws.metric_values("clue")
        assert set(stored) == set(ids)
        assert stored[ids[2]] == out[ids[2]]["clue"]
        everything = run_job(score_submissions(ws, ids[:2], "exact", "cpu", "paper",
                                               _never_cancelled()))
        assert {ids[0], ids[1]} <= set(everything)
    finally:
        ws.close()


def _never_cancelled():
    from cluestudio.core.jobs import CancelToken

    return CancelToken()
