"""The metric panel: CLUE and its sub-scores, baselines, probe flags and the explanation.

It shows the metrics that apply to the task's diagram kind (:meth:`MetricPanel.set_kind`, or
``"diagram_kind"`` in the data): class diagrams get CLUE's bars, the baselines, the VLM probe
and the matching tree; other kinds (component, SysML, …) get a "Metrics" list of their plugin
values (R2ABench, SysMEval, …), notes on metrics that were skipped, and each plugin's
explanation in the tree (SysMEval's claims and verdicts, R2A's node alignment).

It takes a plain dict (see :data:`EXAMPLE`) so it does not depend on the scoring engine's
classes; ``gui.services`` turns engine results into this shape. Clicking a matched pair emits
``pair_selected`` so the views can highlight both elements. In blind grading the numbers stay
hidden until :meth:`MetricPanel.reveal` (after the rating is saved), so they cannot anchor the
grader's judgement. While image B shows the element diff (:meth:`MetricPanel.set_element_diff`)
the tree lists that diff's missing, partly matched and extra elements: exactly what B shows.
"""

from __future__ import annotations

from html import escape
from typing import Any

from cluestudio.app.plugin_explanations import (
    as_number,
    explanation_groups,
    metrics_html,
    value_text,
)
from cluestudio.gui.qt import (
    QBrush,
    QGridLayout,
    QLabel,
    QProgressBar,
    QScrollArea,
    QStackedWidget,
    Qt,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.widgets.metric_texts import (
    AMBER,
    RED,
    baselines_html,
    diff_lists,
    probe_html,
)

# The explanation list keeps at least this many rows on screen (header included): a short
# panel scrolls as a whole rather than squeezing the list to one row.
TREE_MIN_ROWS = 6
SUB_SCORES = (("clue_class", "Class"), ("clue_attribute", "Attribute"),
              ("clue_method", "Method"), ("clue_relation", "Relation"))

EXAMPLE: dict[str, Any] = {
    "clue": 0.81, "clue_class": 0.9, "clue_attribute": 0.7, "clue_method": 0.6,
    "clue_relation": 0.5,
    "baselines": {"bleu": 0.42, "rouge-l": 0.55, "rouge-l-precision": 0.6,
                  "rouge-l-recall": 0.5},
    "probe": {"em": 1.0, "rel_acc": 0.67, "model": "qwen2.5-vl", "flagged": True,
              "reasons": [{"kind": "relation-mismatch",
                           "detail": "association Loan → Book: PlantUML says True, "
                                     "the VLM reads False"}]},
    "explanation": {
        "classes": [{"reference": "Book", "candidate": "Book", "similarity": 0.98,
                     "reference_line": 3, "candidate_line": 2}],
        "relations": [{"reference": "Loan → Book (AS)", "candidate": "Loan → Book (AS)",
                       "similarity": 0.95}],
        "unmatched_reference": ["Fine"],
    },
}

class MetricPanel(QWidget):
    """Shows one submission's scores; ``pair_selected`` carries the clicked pair's dict."""

    pair_selected = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("metricPanel")
        self._blind = False
        self._revealed = True
        self._data: dict[str, Any] = {}
        self._diff: dict[str, Any] | None = None  # the element diff image B shows, if any
        self._kind = "class"

        self.clue_label = QLabel()
        self.clue_label.setObjectName("clueScore")
        self.bars: dict[str, QProgressBar] = {}
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Reference ↔ candidate", "Similarity"])
        self.tree.setColumnWidth(0, 230)
        self.tree.itemClicked.connect(self._on_item_clicked)
        self.tree.currentItemChanged.connect(lambda item, _prev: self._on_item_clicked(item))
        self.extra_label = QLabel()
        self.extra_label.setWordWrap(True)
        self.extra_label.setTextFormat(Qt.TextFormat.RichText)

        row_height = self.tree.fontMetrics().height() + 4
        self.tree.setMinimumHeight(TREE_MIN_ROWS * row_height + 6)
        shown = QWidget()
        shown_layout = QVBoxLayout(shown)
        shown_layout.setContentsMargins(0, 0, 0, 0)
        shown_layout.setSpacing(3)
        shown_layout.addWidget(self.clue_label)
        bars = QGridLayout()  # two by two: half the height of a column of four
        bars.setSpacing(2)
        for index, (key, label) in enumerate(SUB_SCORES):
            bar = QProgressBar()
            bar.setRange(0, 1000)
            bar.setFormat(f"{label}: %v")
            bar.setTextVisible(True)
            bar.setMaximumHeight(row_height + 2)
            self.bars[key] = bar
            bars.addWidget(bar, index // 2, index % 2)
        shown_layout.addLayout(bars)
        shown_layout.addWidget(self.extra_label)
        shown_layout.addWidget(self.tree, 1)
        # A short panel (1366×768) scrolls down as a whole instead of clipping the probe or
        # squeezing the list.
        self.shown_scroll = QScrollArea()
        self.shown_scroll.setWidget(shown)
        self.shown_scroll.setWidgetResizable(True)
        self.shown_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.shown_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.hidden_label = QLabel("Metrics are hidden until you save your rating "
                                   "(blind grading).")
        self.hidden_label.setWordWrap(True)
        self.hidden_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label = QLabel("No scores yet.")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.stack = QStackedWidget()
        for page in (self.shown_scroll, self.hidden_label, self.empty_label):
            self.stack.addWidget(page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.stack)
        self._refresh_page()

    # --- public API ---------------------------------------------------------------------

    def set_blind(self, blind: bool) -> None:
        self._blind = blind
        self._revealed = not blind
        self._refresh_page()

    def reveal(self) -> None:
        self._revealed = True
        self._refresh_page()

    def hide_until_rated(self) -> None:
        """Called for each new submission: in blind mode its metrics start hidden."""
        self._revealed = not self._blind
        self._refresh_page()

    def metrics_visible(self) -> bool:
        return self.stack.currentIndex() == 0

    def show_message(self, text: str) -> None:
        self._data = {}
        self._diff = None
        self.empty_label.setText(text)
        self._refresh_page()

    def set_kind(self, kind: str) -> None:
        """The diagram kind of the task on screen (decides which metrics are shown)."""
        self._kind = kind or "class"

    def kind(self) -> str:
        return str(self._data.get("diagram_kind") or self._kind)

    def set_metrics(self, data: dict[str, Any] | None) -> None:
        """Show ``data`` (shape of :data:`EXAMPLE`; any key may be missing or NaN)."""
        self._data = dict(data or {})
        if not self._data:
            self.empty_label.setText("No scores yet.")
        is_class = self.kind() == "class"
        self.clue_label.setVisible(is_class)
        for bar in self.bars.values():
            bar.setVisible(is_class)
        if not is_class:
            self.extra_label.setText(self._extra_html())
            self._fill_plugin_tree(self._data.get("plugin_explanations") or {})
            self._refresh_page()
            return
        clue = as_number(self._data.get("clue"))
        self.clue_label.setText(
            f"<span style='font-size:17pt'><b>CLUE {value_text(clue)}</b></span>")
        for key, bar in self.bars.items():
            value = as_number(self._data.get(key))
            bar.setValue(0 if value is None else round(1000 * max(0.0, min(1.0, value))))
            label = dict(SUB_SCORES)[key]
            bar.setFormat(f"{label}: {value_text(value)}")
        self.extra_label.setText(self._extra_html())
        self._fill_tree(self._data.get("explanation") or {})
        self._refresh_page()

    def set_element_diff(self, diff: dict[str, Any] | None) -> None:
        """List the element diff ``diff`` (``DiagramDiff.to_dict()``) that image B shows, or
        the explanation's lists again (None). Without scores the panel shows the diff
        alone; blind grading still hides it until the rating is saved."""
        self._diff = diff
        if self.kind() != "class":
            return
        if not self._data and diff is not None:
            self.clue_label.setText("<b>Element diff</b> <small>(not scored yet: computed "
                                    "with the exact embedder)</small>")
            self.clue_label.setVisible(True)
            for bar in self.bars.values():
                bar.setVisible(False)
            self.extra_label.setText("")
        self._fill_tree(self._data.get("explanation") or {})
        self._refresh_page()

    def element_diff(self) -> dict[str, Any] | None:
        return self._diff

    def set_probe(self, probe: dict[str, Any] | None) -> None:
        """Show a new VLM probe result beside whatever scores are shown (class tasks only:
        the probe compares image A with a class model)."""
        if self.kind() != "class":
            return
        if not self._data:
            self.set_metrics({"probe": probe} if probe else None)
            return
        self._data["probe"] = probe
        self.extra_label.setText(self._extra_html())
        self._refresh_page()

    def unmatched_items(self) -> list[QTreeWidgetItem]:
        found = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            for j in range(group.childCount() if group is not None else 0):
                child = group.child(j) if group is not None else None
                if child is not None and child.data(0, Qt.ItemDataRole.UserRole) is None:
                    found.append(child)
        return found

    # --- building -----------------------------------------------------------------------

    def _refresh_page(self) -> None:
        if not self._data and self._diff is None:
            self.stack.setCurrentIndex(2)
        elif self._blind and not self._revealed:
            self.stack.setCurrentIndex(1)
        else:
            self.stack.setCurrentIndex(0)

    def _extra_html(self) -> str:
        if self.kind() != "class":  # no CLUE, no baselines block, no VLM probe of image A
            values = dict(self._data.get("metrics") or self._data.get("baselines") or {})
            title = f"<p><b>{escape(self.kind().capitalize())} diagram</b></p>"
            return title + metrics_html(values, list(self._data.get("notes") or ()))
        parts = [baselines_html(self._data.get("baselines") or {})]
        probe = self._data.get("probe")
        if probe:
            parts.append(probe_html(probe))
        return "".join(p for p in parts if p)

    def _fill_plugin_tree(self, explanations: dict[str, Any]) -> None:
        self.tree.clear()
        self.tree.setHeaderLabels(["Explanation", "Verdict / value"])
        for title, rows in explanation_groups(explanations):
            group = QTreeWidgetItem([title, ""])
            for row in rows:
                child = QTreeWidgetItem([row.text, row.value])
                child.setToolTip(0, row.tooltip or row.text)
                if row.tooltip:
                    child.setToolTip(1, row.tooltip)
                if row.bad:
                    child.setForeground(0, QBrush(RED))
                    child.setForeground(1, QBrush(RED))
                group.addChild(child)
            self.tree.addTopLevelItem(group)
            group.setExpanded(True)

    def tree_texts(self) -> list[str]:
        """Every row of the explanation tree as "text | value" (for tests and copy)."""
        found = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            if group is None:
                continue
            found.append(group.text(0))
            for j in range(group.childCount()):
                child = group.child(j)
                if child is not None:
                    found.append(f"{child.text(0)} | {child.text(1)}")
        return found

    def _fill_tree(self, explanation: dict[str, Any]) -> None:
        self.tree.clear()
        self.tree.setHeaderLabels(["Reference ↔ candidate", "Similarity"])
        groups = (("classes", "Matched classes"), ("relations", "Matched relations"))
        lists = diff_lists(self._diff) if self._diff is not None else None
        for key, title in groups if explanation or lists is None else ():
            pairs = explanation.get(key) or []
            group = QTreeWidgetItem([f"{title} ({len(pairs)})", ""])
            for pair in pairs:
                text = f"{pair.get('reference', '')}  ↔  {pair.get('candidate', '')}"
                child = QTreeWidgetItem([text, value_text(pair.get("similarity"))])
                child.setData(0, Qt.ItemDataRole.UserRole, dict(pair, kind=key))
                group.addChild(child)
            self.tree.addTopLevelItem(group)
            group.setExpanded(True)
        if lists is None:
            missing = explanation.get("missing")
            if missing is None:  # an explanation from before extras were kept: classes only
                missing = [{"text": name, "kind": "class", "line": None}
                           for name in explanation.get("unmatched_reference") or []]
            lists = {"missing": missing, "extra": explanation.get("extra") or []}
        sides = [("missing", "Missing from the candidate", RED),
                 ("partly", "Partly matched", AMBER), ("extra", "Extra in the candidate",
                                                        AMBER)]
        for side, title, colour in sides:
            if side not in lists:
                continue
            found = lists[side]
            group = QTreeWidgetItem([f"{title} ({len(found)})", ""])
            for element in found:
                child = QTreeWidgetItem([str(element.get("text", "")),
                                         str(element.get("kind", ""))])
                if element.get("why"):
                    child.setToolTip(0, str(element["why"]))
                child.setForeground(0, QBrush(colour))
                if side != "missing" and element.get("line"):
                    # Clicking an extra element marks its line in the candidate's PlantUML.
                    child.setData(0, Qt.ItemDataRole.UserRole,
                                  {"kind": "classes", "reference": "",
                                   "candidate": element.get("text", ""),
                                   "candidate_line": element.get("line"),
                                   "reference_line": None, "similarity": float("nan")})
                group.addChild(child)
            if found:
                group.setForeground(0, QBrush(colour))
            self.tree.addTopLevelItem(group)
            group.setExpanded(True)

    def _on_item_clicked(self, item: QTreeWidgetItem | None, *_: object) -> None:
        if item is None:
            return
        pair = item.data(0, Qt.ItemDataRole.UserRole)
        if isinstance(pair, dict):
            self.pair_selected.emit(pair)
