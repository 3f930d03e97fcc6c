"""Workbench widgets on their own: editor colours and error marks, synced zoom, compare
overlay/blink, rubric keys, metric panel (incl. degenerate input), settings dialog."""

from __future__ import annotations

import math

import pytest

from cluestudio.core.rubric import get_rubric

pytestmark = pytest.mark.gui

SAMPLE = """@startuml
' a comment
class Book {
  - title : String
  + isbn() : String
}
Book "1" *-- "many" Page : has
@enduml
"""


def _image(width: int, height: int, color: str = "black"):
    from cluestudio.gui.qt import QColor, QImage, QPainter

    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.fillRect(width // 4, height // 4, width // 2, height // 2, QColor(color))
    painter.end()
    return image


def _formats_at(editor, line: int) -> list:
    block = editor.document().findBlockByNumber(line - 1)
    return list(block.layout().formats())


def test_editor_highlights_keywords_arrows_and_comments(qtbot) -> None:
    from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor

    editor = PlantUMLEditor()
    qtbot.addWidget(editor)
    editor.set_text(SAMPLE)
    assert _formats_at(editor, 3)  # "class Book {"
    comment = _formats_at(editor, 2)
    assert comment and comment[-1].format.fontItalic()  # the whole comment line
    arrow_line = _formats_at(editor, 7)
    starts = {f.start for f in arrow_line}
    assert SAMPLE.splitlines()[6].index("*--") in starts


def test_editor_marks_error_lines_from_parser_and_renderer(qtbot) -> None:
    from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor

    editor = PlantUMLEditor()
    qtbot.addWidget(editor)
    editor.set_text(SAMPLE)
    with qtbot.waitSignal(editor.error_changed) as marked:
        editor.set_error("parser", 4, "bad attribute")
    assert marked.args[0] == 4
    editor.set_error("renderer", 7, "syntax error")
    assert editor.error_lines() == [4, 7]
    assert len(editor.extraSelections()) == 2
    assert "bad attribute" in editor.toolTip()
    editor.clear_error("parser")
    assert editor.error_lines() == [7]
    editor.set_text("@startuml\n@enduml\n")  # a new text starts clean
    assert editor.error_lines() == [] and editor.extraSelections() == []


def test_typing_burst_settles_once(qtbot) -> None:
    from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor

    editor = PlantUMLEditor(debounce_ms=50)
    qtbot.addWidget(editor)
    editor.set_text("")
    settled: list[str] = []
    editor.text_settled.connect(settled.append)
    editor.show()
    for char in "class A":
        qtbot.keyClick(editor, char)
    qtbot.waitUntil(lambda: bool(settled), timeout=2000)
    qtbot.wait(120)
    assert settled == ["class A"]
    editor.close()


def test_synced_views_follow_zoom_and_fit(qtbot) -> None:
    from cluestudio.gui.widgets.image_views import DiagramImageView, ZoomSync

    a, b = DiagramImageView(), DiagramImageView()
    for view in (a, b):
        qtbot.addWidget(view)
        view.resize(400, 300)
        view.show()
    a.set_image(_image(800, 600))
    b.set_image(_image(400, 300))  # half the resolution: same *relative* zoom expected
    sync = ZoomSync([a, b])
    a.zoom_by(2.0)
    assert math.isclose(a.relative_zoom(), b.relative_zoom(), rel_tol=0.02)
    a.centerOn(600, 150)  # pan A: B shows the same part of its diagram
    fa, fb = a.center_fraction(), b.center_fraction()
    assert math.isclose(fa[0], fb[0], abs_tol=0.02) and math.isclose(fa[1], fb[1], abs_tol=0.02)
    sync.actual_size_all()
    assert math.isclose(a.zoom(), 1.0) and math.isclose(b.zoom(), 1.0)
    sync.fit_all()  # Fit: each view shows its whole diagram
    for view in (a, b):
        assert math.isclose(view.zoom(), view.whole_zoom(), rel_tol=0.01)
        assert view.horizontalScrollBar().maximum() <= 1 >= view.verticalScrollBar().maximum()
    sync.readable_all()
    assert math.isclose(a.relative_zoom(), 1.0, rel_tol=0.01)
    assert math.isclose(b.relative_zoom(), 1.0, rel_tol=0.01)
    a.close()
    b.close()


def test_wheel_zooms_and_empty_view_ignores_it(qtbot) -> None:
    from cluestudio.gui.qt import QPoint, QPointF, Qt, QWheelEvent
    from cluestudio.gui.widgets.image_views import DiagramImageView

    view = DiagramImageView()
    qtbot.addWidget(view)
    view.resize(300, 300)

    def wheel(delta: int) -> None:
        centre = QPointF(150, 150)
        event = QWheelEvent(centre, centre, QPoint(0, 0), QPoint(0, delta),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                            Qt.ScrollPhase.NoScrollPhase, False)
        view.wheelEvent(event)

    wheel(120)
    assert view.zoom() == 1.0  # nothing shown, nothing zoomed
    view.set_image(_image(600, 600))
    before = view.zoom()
    wheel(120)
    assert view.zoom() > before


def test_compare_overlay_opacity_and_blink(qtbot) -> None:
    from cluestudio.gui.widgets.compare_view import CompareView

    compare = CompareView(blink_ms=30)
    qtbot.addWidget(compare)
    compare.resize(400, 300)
    compare.show()
    compare.set_images(_image(400, 300), _image(200, 150, "red"))
    assert compare.view.overlay_visible()
    compare.opacity_slider.setValue(20)
    assert math.isclose(compare.view.overlay_opacity(), 0.2, abs_tol=0.01)
    toggles: list[bool] = []
    compare.blink_toggled.connect(toggles.append)
    compare.set_mode(CompareView.BLINK)
    qtbot.waitUntil(lambda: len(toggles) >= 2, timeout=2000)
    assert True in toggles and False in toggles
    compare.set_mode(CompareView.OVERLAY)
    assert compare.view.overlay_visible()
    compare.close()


def test_rubric_panel_is_driven_by_keys(qtbot) -> None:
    from cluestudio.gui.qt import Qt
    from cluestudio.gui.widgets.rubric_panel import RubricPanel

    rubric = get_rubric()
    panel = RubricPanel(rubric)
    qtbot.addWidget(panel)
    panel.load()
    assert panel.total() is None
    for key in "4" "3" "2" "4" "2":  # classes..multiplicities, each digit moves on
        qtbot.keyClick(panel, key)
    qtbot.keyClick(panel, "3")
    qtbot.keyClick(panel, ".")  # overall 3.5 (half steps)
    assert panel.scores() == {"classes": 4, "attributes": 3, "methods": 2, "relations": 4,
                              "multiplicities": 2, "overall": 3.5}
    assert panel.total() == pytest.approx(rubric.total(panel.scores()))
    qtbot.keyClick(panel, "m")  # jump to methods by its key
    assert panel.selected_item().id == "methods"
    qtbot.keyClick(panel, "9")  # out of range: ignored
    assert panel.scores()["methods"] == 2
    qtbot.keyClick(panel, "+")
    assert panel.scores()["methods"] == 3
    qtbot.keyClick(panel, Qt.Key.Key_Backspace)
    assert "methods" not in panel.scores() and panel.total() is None
    with qtbot.waitSignal(panel.save_requested):
        qtbot.keyClick(panel, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert panel.seconds() >= 0


def test_metric_panel_shows_explanation_and_blind_mode(qtbot) -> None:
    from cluestudio.gui.widgets.metric_panel import EXAMPLE, MetricPanel

    panel = MetricPanel()
    qtbot.addWidget(panel)
    assert not panel.metrics_visible()  # nothing yet
    panel.set_metrics(EXAMPLE)
    assert panel.metrics_visible() and "0.810" in panel.clue_label.text()
    assert [i.text(0) for i in panel.unmatched_items()] == ["Fine"]
    pair_item = panel.tree.topLevelItem(0).child(0)
    with qtbot.waitSignal(panel.pair_selected) as picked:
        panel.tree.setCurrentItem(pair_item)
    assert picked.args[0]["reference"] == "Book"
    panel.set_blind(True)
    panel.hide_until_rated()
    assert not panel.metrics_visible()
    panel.reveal()
    assert panel.metrics_visible()


@pytest.mark.parametrize("data", [{}, {"clue": float("nan")}, {"clue": None, "explanation": {}},
                                  {"clue": 0.5, "explanation": {"classes": [{}]}}])
def test_metric_panel_degenerate_input(qtbot, data) -> None:
    from cluestudio.gui.widgets.metric_panel import MetricPanel

    panel = MetricPanel()
    qtbot.addWidget(panel)
    panel.set_metrics(data)
    if data.get("clue") is not None and not math.isnan(data["clue"]):
        assert "0.500" in panel.clue_label.text()


def test_editor_and_views_accept_degenerate_input(qtbot) -> None:
    from cluestudio.gui.widgets.image_views import DiagramImageView
    from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor

    editor = PlantUMLEditor()
    qtbot.addWidget(editor)
    editor.set_text("")
    editor.set_error("parser", 99, "beyond the end")  # a line that does not exist
    editor.set_error("renderer", None, "no line")
    assert editor.extraSelections() == []
    view = DiagramImageView()
    qtbot.addWidget(view)
    view.set_image(b"not an image", "Could not read")
    assert view.image is None
    view.fit()
    view.zoom_by(2.0)


def test_typing_burst_gives_one_render_job_and_stale_results_are_dropped(qtbot) -> None:
    import threading

    from cluestudio.gui.preview import LivePreview
    from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor
    from cluestudio.gui.worker import JobRunner

    calls: list[str] = []
    gate = threading.Event()

    def fake_preview(text, cancel):
        calls.append(text)
        if text == "slow":
            gate.wait(5)
        return text

    runner = JobRunner()
    try:
        preview = LivePreview(runner, fake_preview)
        editor = PlantUMLEditor(debounce_ms=40)
        qtbot.addWidget(editor)
        editor.text_settled.connect(preview.request)
        shown: list[str] = []
        preview.ready.connect(shown.append)
        editor.show()
        with qtbot.waitSignal(preview.ready, timeout=3000):
            qtbot.keyClicks(editor, "class Alpha")
        assert preview.requests == 1 and calls == ["class Alpha"] and shown == ["class Alpha"]
        # A slow render overtaken by a newer request: only the newer result is shown.
        preview.request("slow")
        qtbot.waitUntil(lambda: "slow" in calls, timeout=3000)
        preview.request("fresh")
        gate.set()
        qtbot.waitUntil(lambda: shown[-1] == "fresh", timeout=3000)
        qtbot.wait(50)
        assert "slow" not in shown
        editor.close()
    finally:
        gate.set()
        runner.shutdown()


def test_verdict_panel_keys(qtbot) -> None:
    from cluestudio.gui.widgets.verdict_panel import VerdictPanel, tag_keys

    panel = VerdictPanel()
    qtbot.addWidget(panel)
    keys = tag_keys()
    assert len(set(keys.values())) == len(keys) >= 23
    with qtbot.waitSignal(panel.changed):
        qtbot.keyClick(panel, "3")
    assert panel.verdict() == "unusable"
    qtbot.keyClick(panel, "a")
    qtbot.keyClick(panel, "d")
    qtbot.keyClick(panel, "a")  # toggles back off
    assert panel.tags() == [keys["d"]]
    panel.load("accept", ["syntax_error"])
    assert panel.verdict() == "accept" and panel.tags() == ["syntax_error"]
    panel.load(None)
    assert panel.verdict() is None and panel.tags() == []


def test_settings_dialog_round_trip(qtbot, monkeypatch) -> None:
    from cluestudio.core.settings import Settings
    from cluestudio.gui.settings_dialog import SettingsDialog

    monkeypatch.setenv("MY_LLM_KEY", "secret")
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.embedder.setCurrentText("microsoft/codebert-base")
    dialog.theme.setCurrentText("dark")
    dialog.blind.setChecked(True)
    dialog.key_env.setText("MY_LLM_KEY")
    assert dialog.key_state.text() == "API key: found"
    result = dialog.result_settings()
    assert result.scoring.embedder == "microsoft/codebert-base"
    assert result.ui.theme == "dark" and result.ui.blind_grading
    assert result.llm.api_key_env == "MY_LLM_KEY"


def test_navigator_filters_are_pure() -> None:
    from cluestudio.core.workspace import SubmissionSummary
    from cluestudio.gui.navigator import Row, keep

    summary = SubmissionSummary(1, "t1", "s1", "student", True, 3, 1, 0, ("needs_fix",))
    row = Row(summary, None, False, 0.42)
    assert keep(row, "all", "unrated", "low")
    assert not keep(row, "t2", "all", "any")
    assert not keep(row, "all", "rated", "any")
    assert keep(row, "all", "needs_fix", "any") and not keep(row, "all", "unusable", "any")
    assert not keep(row, "all", "all", "high") and not keep(row, "all", "all", "none")


def test_the_readable_zoom_keeps_text_readable_and_never_enlarges_small_diagrams(qtbot) -> None:
    from cluestudio.gui.widgets.image_views import READABLE_ZOOM, DiagramImageView

    view = DiagramImageView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.show()
    width = view.viewport().width()
    view.set_image(_image(80, 60))
    view.readable()
    assert view.zoom() == 1.0  # a 3x blow-up would only blur PlantUML's small text
    wide = int(width / (READABLE_ZOOM + 0.05))
    view.set_image(_image(wide, 200))  # fits whole above the readable scale
    view.readable()
    assert math.isclose(view.zoom(), width / wide, rel_tol=0.01) and view.zoom() > READABLE_ZOOM
    view.set_image(_image(width - 20, 3000))  # tall: full width, scroll down
    view.readable()
    assert view.zoom() == 1.0 and view.verticalScrollBar().maximum() > 0
    view.set_image(_image(1600, 1200))  # big: readable, scroll both ways, from the top
    view.readable()
    assert view.zoom() == READABLE_ZOOM
    assert view.verticalScrollBar().value() == 0
    view.close()


def test_diagrams_below_100_percent_are_smoothed_not_decimated(qtbot) -> None:
    """FastTransformation drops whole pixel rows below 100%: 1-px borders and glyph strokes
    vanished ("Loan" read "Loar"); base and overlay images must be filtered."""
    from cluestudio.gui.qt import QColor, QImage, QPainter, Qt
    from cluestudio.gui.widgets.image_views import DiagramImageView

    view = DiagramImageView()
    qtbot.addWidget(view)
    view.resize(330, 330)
    view.show()
    image = QImage(400, 400, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    for x in range(0, 400, 7):  # 1-px lines a decimating scale partly skips
        painter.fillRect(x, 0, 1, 400, QColor("black"))
    painter.end()
    view.set_image(image)
    view.set_overlay(image)
    modes = {item.transformationMode() for item in (view._base, view._overlay)}
    assert modes == {Qt.TransformationMode.SmoothTransformation}
    view.set_zoom(0.75)
    shot = view.viewport().grab().toImage()
    left = view.mapFromScene(0, 0).x()
    row = [QColor(shot.pixel(x, 20)).lightness() for x in range(max(0, left), 280)]
    gaps = [len(run) for run in "".join("w" if v > 250 else "d" for v in row).split("d") if run]
    assert gaps and max(gaps) < 7  # every line still leaves a trace, none disappears
    view.close()


def test_editor_highlights_title_as_a_keyword_only_where_a_statement_starts(qtbot) -> None:
    """``- title : String`` in a class body is an attribute; ``title Library`` is a title."""
    from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor

    editor = PlantUMLEditor()
    qtbot.addWidget(editor)
    editor.set_text("@startuml\ntitle Library\nclass Book {\n  - title : String\n"
                    "  - left : int\n}\nnote left of Book : a note\n@enduml\n")

    def bold_at(line: int, word: str) -> bool:
        text = editor.document().findBlockByNumber(line - 1).text()
        start = text.index(word)
        return any(f.start <= start < f.start + f.length and f.format.fontWeight() > 500
                   for f in _formats_at(editor, line))

    assert bold_at(2, "title")  # the diagram's title statement
    assert not bold_at(4, "title") and not bold_at(5, "left")  # members of Book
    assert bold_at(7, "note") and bold_at(7, "left")  # after the body: keywords again
    editor.close()


def test_probe_reasons_say_which_side_has_the_class_in_plain_words() -> None:
    """"Librarian … (missing-class)" next to CLUE's "Missing from the candidate" read as if
    the candidate lacked Librarian; the probe compares image A with the PlantUML."""
    from cluestudio.core.vlm.probe import disagreements
    from cluestudio.gui.widgets.metric_panel import probe_html

    reasons = disagreements(["Member", "Librarian"], ["Member", "Fine"], [])
    html = probe_html({"flagged": True, "reasons": [
        {"kind": r.kind, "detail": r.detail} for r in reasons]})
    librarian = next(line for line in html.split("<li") if "Librarian" in line)
    fine = next(line for line in html.split("<li") if "Fine" in line)
    assert "(in the PlantUML, not read from image A: did the conversion invent it?)" in librarian
    assert "(read from image A, not in the PlantUML: did the conversion drop it?)" in fine
    assert "missing-class" not in html and "extra-class" not in html
    hostile = probe_html({"reasons": [{"kind": "extra-class", "detail": "<b>x</b> is y"}]})
    assert "<b>x</b>" not in hostile  # names from a model's answer are escaped
