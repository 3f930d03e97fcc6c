"""Models in the workbench: VLM convert / probe against a local OpenAI-compatible server,
baseline metrics beside CLUE, and metric plugins that fail without taking the window down.

The VLM server is ``tests/support/openai_stub.py``: real HTTP on 127.0.0.1, scripted answers.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings, updated
from support.openai_stub import OpenAIStub, Reply, user_text

pytestmark = pytest.mark.gui

CONVERTED = ("Here is the diagram:\n```plantuml\n@startuml\nclass Book {\n  isbn : String\n}\n"
             "class Member\nMember --> Book\n@enduml\n```")


class ExplodingMetric:
    """A third-party metric that raises on every pair (loaded through a real entry point)."""

    manifest: ClassVar[Any] = None

    def score(self, reference: Any, candidate: Any) -> Any:
        raise RuntimeError("the tokenizer fell over")


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _open(qtbot, tmp_path: Path, settings: Settings):
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner
    from gui_course import make_course

    path = tmp_path / "course.sqlite"
    ws = open_workspace(path)
    run_job(import_path(ws, make_course(tmp_path / "course", ("library_loans",))))
    runner = JobRunner()
    window = MainWindow(runner, settings)
    window.ask_before_discard = False
    qtbot.addWidget(window)
    window.open(ws)
    window.show()
    return window, runner, path


@pytest.fixture
def make_window(qtbot, tmp_path):
    opened = []

    def make(settings: Settings):
        window, runner, path = _open(qtbot, tmp_path, settings)
        opened.append((window, runner))
        return window, path

    yield make
    for window, runner in opened:
        window.close()
        runner.shutdown()


def _endpoint(stub: OpenAIStub) -> Settings:
    return updated(Settings(), llm={"base_url": stub.url, "model": "stub-vlm"},
                   scoring={"embedder": "exact"})


def _db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def test_convert_stores_the_vlm_answer_as_a_revision_and_shows_it(qtbot, stub,
                                                                   make_window) -> None:
    stub.script(CONVERTED)
    window, path = make_window(_endpoint(stub))
    sid = window.review.view.submission.id
    progress: list[tuple[int, int]] = []
    with qtbot.waitSignal(window.model_actions.outcome, timeout=60_000) as outcome:
        window.menu_actions["convert"].trigger()  # the menu action (F7)
        handle = window.model_actions._job
        handle.progress.connect(lambda done, total, _m: progress.append((done, total)))
        assert window.job_status.busy()  # the job panel tracks it: progress bar and Cancel
    assert outcome.args[0].submission_id == sid and "valid PlantUML" in outcome.args[0].summary
    assert progress
    sent = stub.requests[0]
    assert sent["model"] == "stub-vlm" and any(
        part.get("type") == "image_url" for m in sent["messages"]
        if isinstance(m["content"], list) for part in m["content"])
    rows = _db(path).execute("SELECT * FROM conversions WHERE submission_id = ? ORDER BY id",
                             (sid,)).fetchall()
    assert len(rows) == 2 and rows[-1]["author_kind"] == "model"
    assert rows[-1]["author"] == "stub-vlm" and "isbn : String" in rows[-1]["puml"]
    assert rows[-1]["parent_id"] == rows[0]["id"]
    qtbot.waitUntil(lambda: "isbn : String" in window.review.editor.toPlainText())


def test_probe_flags_a_missing_class_with_reasons_in_both_modes(qtbot, stub,
                                                                make_window) -> None:
    def handler(request: dict[str, Any]) -> str:
        if "List all class names" in user_text(request):
            return '```json\n["Book"]\n```'  # the VLM does not see Member in image A
        return "Unknown"

    stub.handler = handler
    window, path = make_window(_endpoint(stub))
    sid = window.review.view.submission.id
    with qtbot.waitSignal(window.model_actions.outcome, timeout=60_000) as outcome:
        window.menu_actions["probe"].trigger()  # F8
    assert "flagged" in outcome.args[0].summary
    row = _db(path).execute("SELECT * FROM probe_results WHERE submission_id = ?",
                            (sid,)).fetchone()
    assert row["model"] == "stub-vlm" and json.loads(row["result"])["flagged"] is True
    assert "Member" in window.review.probe.toPlainText()
    window.modes.setCurrentIndex(1)  # grading reads the stored probe back from the workspace
    text = window.grading.metrics.extra_label.text()
    assert "flagged" in text and "Member is in the PlantUML but not read from A" in text


def test_convert_without_an_endpoint_says_where_to_set_one(qtbot, make_window) -> None:
    window, _ = make_window(updated(Settings(), llm={"model": ""}))
    window.menu_actions["convert"].trigger()
    assert not window.model_actions.busy()
    assert "Settings → Model endpoint" in window.errors.item(0).text()
    assert window.error_dock.isVisible()


def test_cancel_a_slow_conversion_stores_nothing(qtbot, stub, make_window) -> None:
    stub.script(Reply(CONVERTED, delay=1.0))
    window, path = make_window(_endpoint(stub))
    sid = window.review.view.submission.id
    handle = window.model_actions.convert()
    assert handle is not None
    with qtbot.waitSignal(handle.finished, timeout=60_000):
        window.job_status.cancel()
    assert handle.cancelled and not window.model_actions.busy()
    count = _db(path).execute("SELECT count(*) FROM conversions WHERE submission_id = ?",
                              (sid,)).fetchone()[0]
    assert count == 1


def _install_exploding_metric(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party distribution whose metric raises, installed the way pip would leave it:
    a dist-info with an entry point on sys.path (which the worker process inherits)."""
    info = site / "exploding_metric-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: exploding-metric\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[cluestudio.metrics]\nexploding = test_gui_models:ExplodingMetric\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))


def test_baselines_beside_clue_and_a_failing_plugin_in_the_error_panel(
        qtbot, make_window, monkeypatch, tmp_path) -> None:
    pytest.importorskip("cluestudio.core.plantuml.parser")
    _install_exploding_metric(tmp_path / "site", monkeypatch)
    window, path = make_window(updated(Settings(), scoring={"embedder": "exact"}))
    window.modes.setCurrentIndex(1)
    job = window.score_current()
    qtbot.waitUntil(lambda: job.done, timeout=120_000)
    sid = window.grading.view.submission.id
    baselines = window.grading.view.scores["baselines"]  # the view redrew from the workspace
    assert {"bleu", "rouge-l", "rouge-l-recall"} <= set(baselines)
    assert "codebertscore" not in baselines  # the exact embedder: no neural models
    text = window.grading.metrics.extra_label.text()
    assert "BLEU" in text and "ROUGE-L" in text and "recall" in text
    errors = [window.errors.item(i).text() for i in range(window.errors.count())]
    assert len(errors) == 1 and "metric exploding" in errors[0]
    assert "the tokenizer fell over" in errors[0]
    stored = {r["metric"] for r in _db(path).execute(
        "SELECT metric FROM scores WHERE submission_id = ?", (sid,))}
    assert {"clue", "bleu", "rouge-l"} <= stored
    # Shown again from the workspace (a fresh view), the baselines are still there.
    window.bench.cache.clear()
    window.grading.show_submission(window.bench.session.view(sid))
    assert "ROUGE-L" in window.grading.metrics.extra_label.text()


def test_metric_panel_degenerate_probe_and_baselines(qtbot) -> None:
    from cluestudio.gui.widgets.metric_panel import MetricPanel, baselines_html, probe_html

    panel = MetricPanel()
    qtbot.addWidget(panel)
    panel.set_probe({"em": None, "rel_acc": float("nan"), "reasons": []})
    assert panel.metrics_visible() and "agrees" in panel.extra_label.text()
    panel.set_metrics({"clue": float("nan"), "baselines": {"bleu": None}})
    assert "BLEU" in panel.extra_label.text() and "—" in panel.extra_label.text()
    assert baselines_html({}) == ""
    assert "<script>" not in probe_html({"flagged": True, "reasons": [
        {"kind": "extra-class", "detail": "<script>"}]})
