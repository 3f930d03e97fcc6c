"""Issue 26, VLM: one job. A TA who converts or probes the current submission from the Tools
menu (F7, F8) gets what ``cluestudio convert|probe --workspace --submission ID --redo`` gives
for it: the same planned item, stored by the same store, leaving the same revisions (text,
parent, model) and the same probe record. Against the local OpenAI-compatible stub server."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app import model_jobs, vlm_batches
from cluestudio.cli import main
from support.openai_stub import OpenAIStub, question_of, user_text
from test_gui_models import CONVERTED, _endpoint, _open

pytestmark = pytest.mark.gui


def _answers(request: dict[str, Any]) -> str:
    prompt = user_text(request)
    if "List all class names" in prompt:
        return '```json\n["Book"]\n```'  # Member is not read from image A: a flag
    if question_of(prompt):
        return "Unknown"
    return CONVERTED


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(_answers) as server:
        yield server


@pytest.fixture
def stores(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Every item that reaches the VLM job's one store, by action (the real store runs)."""
    seen: dict[str, list[Any]] = {"convert": [], "probe": []}
    for action, name in (("convert", "finish_conversion"), ("probe", "finish_probe")):
        real = getattr(vlm_batches, name)

        def recorded(ws: Any, item: Any, result: Any, outcomes: list[Any], *,
                     _real: Any = real, _action: str = action) -> str:
            seen[_action].append(item)
            return str(_real(ws, item, result, outcomes))

        monkeypatch.setattr(vlm_batches, name, recorded)  # the CLI's batch
        monkeypatch.setattr(model_jobs, name, recorded)  # the window's
    return seen


def _in_window(qtbot: Any, tmp_path: Path, stub: OpenAIStub, action: str
               ) -> tuple[int, Path, Path]:
    """Run the menu action on the first submission; (its id, the window's workspace, a copy
    of the workspace as it was before, for the CLI)."""
    window, runner, path = _open(qtbot, tmp_path, _endpoint(stub))
    try:
        before = tmp_path / "cli.sqlite"
        _copy(path, before)
        sid = window.review.view.submission.id
        with qtbot.waitSignal(window.model_actions.outcome, timeout=60_000):
            window.actions[action].trigger()
        qtbot.waitUntil(lambda: not window.model_actions.busy(), timeout=60_000)
    finally:
        window.close()
        runner.shutdown()
    return sid, path, before


def _copy(path: Path, to: Path) -> None:
    """A consistent copy of a live WAL workspace (SQLite's online backup)."""
    with sqlite3.connect(path) as source, sqlite3.connect(to) as target:
        source.backup(target)


def _by_cli(stub: OpenAIStub, action: str, path: Path, sid: int) -> None:
    assert main([action, "--workspace", str(path), "--submission", str(sid), "--redo",
                 "--model", "stub-vlm", "--base-url", stub.url, "--json"]) in (0, 1)


def _rows(path: Path, sql: str, sid: int) -> list[dict[str, Any]]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, (sid,))]
    finally:
        conn.close()


def _revisions(path: Path, sid: int) -> list[tuple[Any, ...]]:
    return [(r["id"], r["parent_id"], r["puml"], r["author"], r["author_kind"], r["parse_ok"])
            for r in _rows(path, "SELECT * FROM conversions WHERE submission_id = ? "
                                 "ORDER BY id", sid)]


def _attempts(path: Path, sid: int) -> list[dict[str, Any]]:
    """The audit entries of the conversion attempts, without times and token counts."""
    keep = ("index", "model", "prompt_version", "error", "image_sha256")
    rows = _rows(path, "SELECT a.* FROM audit_log a JOIN conversions c ON c.id = a.entity_id "
                       "WHERE a.action = 'vlm-convert' AND c.submission_id = ? ORDER BY a.id",
                 sid)
    return [{k: json.loads(r["after"]).get(k) for k in keep} for r in rows]


def _probes(path: Path, sid: int) -> list[tuple[Any, ...]]:
    out = []
    for r in _rows(path, "SELECT * FROM probe_results WHERE submission_id = ?", sid):
        result = json.loads(r["result"])
        out.append((r["probe"], r["model"], r["input_hash"], r["em"], r["rel_acc"],
                    result["flagged"], json.dumps(result["reasons"], sort_keys=True)))
    return out


def test_converting_one_submission_in_the_window_is_cluestudio_convert_for_it(
        qtbot, tmp_path: Path, stub: OpenAIStub, stores: dict[str, list[Any]]) -> None:
    sid, in_window, for_cli = _in_window(qtbot, tmp_path, stub, "convert")
    _by_cli(stub, "convert", for_cli, sid)

    window_item, cli_item = stores["convert"]
    assert window_item == cli_item and window_item.submission_id == sid
    assert window_item.head_id is not None  # the imported revision: the conversion's parent
    window_revisions, cli_revisions = _revisions(in_window, sid), _revisions(for_cli, sid)
    assert window_revisions == cli_revisions and len(window_revisions) == 2
    _, parent, text, author, kind, _ = window_revisions[-1]
    assert (parent, author, kind) == (window_item.head_id, "stub-vlm", "model")
    assert "isbn : String" in text
    assert _attempts(in_window, sid) == _attempts(for_cli, sid) != []


def test_probing_one_submission_in_the_window_is_cluestudio_probe_for_it(
        qtbot, tmp_path: Path, stub: OpenAIStub, stores: dict[str, list[Any]]) -> None:
    sid, in_window, for_cli = _in_window(qtbot, tmp_path, stub, "probe")
    _by_cli(stub, "probe", for_cli, sid)

    window_item, cli_item = stores["probe"]
    assert window_item == cli_item and window_item.submission_id == sid
    window_probe = _probes(in_window, sid)
    assert window_probe == _probes(for_cli, sid) and len(window_probe) == 1
    assert window_probe[0][1] == "stub-vlm" and window_probe[0][5] is True  # flagged


def test_the_window_asks_again_and_says_why_a_submission_cannot_be_probed(
        tmp_path: Path) -> None:
    """The window's plan is the batch's with ``redo``: a stored answer is asked again, and a
    submission the batch would skip is refused with the batch's reason."""
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import SaveRevision, import_path, open_workspace, ops
    from gui_course import make_course

    with open_workspace(tmp_path / "c.sqlite") as ws:
        run_job(import_path(ws, make_course(tmp_path / "course", ("library_loans",))))
        sid = ws.list_submissions()[0].id
        imported = ws.head_revision(sid).id  # type: ignore[union-attr]
        by_model = ws.write(lambda conn: ops.add_revision(
            conn, sid, CONVERTED, "stub-vlm", "model", imported)[0])
        assert vlm_batches.plan_conversions(ws, submission_ids=[sid])[0] == []  # the batch: done
        request = model_jobs.plan_request(ws, "convert", sid, "stub-vlm")
        assert request.item.submission_id == sid and request.item.head_id == by_model
        assert request.question.image_b and request.image == ws.image(request.item.image_hash)
        ws.execute(SaveRevision(sid, "@startuml\n@enduml\n", "reviewer"))
        with pytest.raises(ClueStudioError, match="has no classes to compare with"):
            model_jobs.plan_request(ws, "probe", sid, "stub-vlm")


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_the_converted_diagram_shows_as_image_b_without_a_render_in_the_window(
        qtbot, tmp_path: Path, stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> None:
    """PlantUML drew the answer in the worker process to check it; that picture is image B."""
    from cluestudio.app import preview

    rendered: list[str] = []
    render = preview.get_renderer_png

    def recorded(text: str) -> bytes:  # the window's own renders (the worker is another process)
        rendered.append(text)
        return render(text)

    monkeypatch.setattr(preview, "get_renderer_png", recorded)
    window, runner, _ = _open(qtbot, tmp_path, _endpoint(stub))
    try:
        with qtbot.waitSignal(window.model_actions.outcome, timeout=60_000):
            window.actions["convert"].trigger()
        qtbot.waitUntil(lambda: "isbn : String" in window.review.editor.toPlainText())
        head = window.review.view.head_puml
        assert window.review._last_b == preview.cached_png(head) is not None
        assert head not in rendered
    finally:
        window.close()
        runner.shutdown()
