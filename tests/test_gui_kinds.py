"""The workbench for tasks that are not class diagrams (issue 9, item 5): the metric panel
shows the metrics of the task's kind, review and grading render component diagrams without
class-parser complaints and show SysML v2 text with a note instead of a render error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings
from cluestudio.resources_path import annotations_dir

pytestmark = pytest.mark.gui

EXAMPLE = annotations_dir() / "examples" / "architecture"
SYSML_REF = "package Car {\n  part def Vehicle;\n  part def Engine;\n}\n"

COMPONENT_PANEL = {
    "diagram_kind": "component",
    "metrics": {"node-f1": 0.7778, "edge-f1": 0.7059, "layer-accuracy": 1.0,
                "ged-accuracy": 83.33, "orphan-ratio": 0.0, "god-ratio": 0.1111,
                "syntactic-validity": 1.0},
    "plugin_explanations": {"r2a-structure": {
        "node_alignment": [{"reference": "Web Shop", "candidate": "Web Shop Frontend",
                            "similarity": 0.82, "by": "string"}],
        "edge_matches": [], "orphans": ["Admin"], "god_components": []}},
    "notes": ["R2ABench LLM-judge rubric: skipped: no LLM endpoint configured"],
}


def test_metric_panel_shows_the_component_metrics_and_no_clue(qtbot) -> None:
    from cluestudio.gui.widgets.metric_panel import EXAMPLE as CLASS_PANEL
    from cluestudio.gui.widgets.metric_panel import MetricPanel

    panel = MetricPanel()
    qtbot.addWidget(panel)
    panel.set_kind("component")
    panel.set_metrics(COMPONENT_PANEL)
    assert panel.metrics_visible()
    assert panel.clue_label.isHidden() and all(b.isHidden() for b in panel.bars.values())
    text = panel.extra_label.text()
    for row in ("Metrics", "Node F1", "Edge F1", "Layer accuracy", "GED accuracy",
                "Orphan ratio", "God-component ratio", "Syntactic validity", "0.778",
                "no LLM endpoint"):
        assert row in text, row
    assert "CLUE" not in text and "Baselines" not in text
    rows = panel.tree_texts()
    assert "Web Shop  ↔  Web Shop Frontend | 0.820" in rows
    assert "Orphan components (1)" in rows
    panel.set_probe({"em": 1.0, "rel_acc": 1.0, "reasons": []})  # class tasks only
    assert "VLM probe" not in panel.extra_label.text()
    # The next task is a class diagram: CLUE and its bars are back.
    panel.set_kind("class")
    panel.set_metrics(CLASS_PANEL)
    assert not panel.clue_label.isHidden() and "CLUE 0.810" in panel.clue_label.text()
    assert "VLM probe" in panel.extra_label.text()


def test_metric_panel_shows_sysmeval_claims_and_verdicts(qtbot) -> None:
    from cluestudio.gui.widgets.metric_panel import MetricPanel

    panel = MetricPanel()
    qtbot.addWidget(panel)
    panel.set_metrics({"diagram_kind": "sysml",
                       "metrics": {"sysm-precision": 0.5, "sysm-recall": 1 / 3,
                                   "sysm-f1": 0.4},
                       "plugin_explanations": {"sysmeval": {
                           "candidate_claims": [
                               {"claim": "part def Vehicle", "supported": True, "id": 1,
                                "evidence": "same line"},
                               {"claim": "part def Wheel", "supported": False, "id": 2,
                                "evidence": "absent"}],
                           "reference_claims": []}}})
    text = panel.extra_label.text()
    assert "SysM-P" in text and "SysM-R" in text and "SysM-F1" in text and "0.400" in text
    rows = panel.tree_texts()
    assert "part def Vehicle | ✓ supported" in rows and "part def Wheel | ✗ not" in rows
    assert "Reference claims recovered by the candidate (0)" in rows


@pytest.fixture
def modes(qtbot, tmp_path: Path):
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.grading_mode import GradingMode
    from cluestudio.gui.operations import Workbench
    from cluestudio.gui.review_mode import ReviewMode
    from cluestudio.gui.worker import JobRunner

    course = tmp_path / "course"
    shutil.copytree(EXAMPLE, course)
    sysml = course / "tasks" / "car_model"
    (sysml / "submissions").mkdir(parents=True)
    (sysml / "requirement.md").write_text("# Car model\n", encoding="utf-8")
    (sysml / "reference.sysml").write_text(SYSML_REF, encoding="utf-8")
    (sysml / "submissions" / "s1.sysml").write_text(SYSML_REF, encoding="utf-8")
    ws = open_workspace(tmp_path / "w.sqlite")
    run_job(import_path(ws, course))
    runner = JobRunner()
    bench = Workbench(runner, Settings())
    bench.ws = ws  # opened without the start-up warm-up job (24 renders)
    review, grading = ReviewMode(bench), GradingMode(bench)
    qtbot.addWidget(review)
    qtbot.addWidget(grading)
    try:
        yield bench, review, grading
    finally:
        runner.shutdown()
        bench.shutdown()


def _sid(bench, task_id: str, source_id: str) -> int:
    found = bench.session.require().find_submission(task_id, source_id)
    assert found is not None
    return found.id


def test_review_and_grading_of_sysml_and_component_tasks(qtbot, modes) -> None:
    from cluestudio.app.scoring import ScoringOptions, score_workspace

    bench, review, grading = modes
    sysml = bench.session.view(_sid(bench, "car_model", "s1"))
    with qtbot.waitSignal(review.preview_shown, timeout=30_000) as shown:
        review.show_submission(sysml)
    assert shown.args[0].note == "SysML v2 text: no diagram rendering"
    assert review.image_b._message.toPlainText() == "SysML v2 text: no diagram rendering"
    assert review.editor.error_message() == "" and "no diagram rendering" in \
        review.summary.toPlainText()
    assert not review.compare_button.isEnabled()
    grading.show_submission(sysml)
    assert grading.reference_image._message.toPlainText() == \
        "SysML v2 text: no diagram rendering"
    assert grading.reference_tabs.currentWidget() is grading.reference_text

    component = bench.session.view(_sid(bench, "shop_architecture", "s01"))
    with qtbot.waitSignal(review.preview_shown, timeout=60_000) as shown:
        review.show_submission(component)
    result = shown.args[0]
    assert result.parse_error is None and result.warnings == ()  # no class-parser warnings
    assert result.png is not None and result.render_error is None  # rendered as usual
    assert review.editor.error_message() == "" and review.image_b.image is not None
    assert "does not parse" not in review.summary.toPlainText()
    assert "⚠ parse" not in review.history.item(0).text()
    sid = component.submission.id
    run_job(score_workspace(bench.session.require(), ScoringOptions("exact", "cpu",
                                                            settings=Settings()),
                            submission_ids=[sid]))
    bench.cache.drop({sid})
    grading.show_submission(bench.session.view(sid))  # scores read back from the workspace
    assert grading.metrics.kind() == "component" and grading.metrics.clue_label.isHidden()
    assert "Node F1" in grading.metrics.extra_label.text()
    assert "no LLM endpoint" in grading.metrics.extra_label.text()
