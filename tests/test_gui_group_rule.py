"""Issue 24, items 1 and 2, as the TA met them on the sample course's hospital task.

Story: rate s001 100, Ctrl+G, Ctrl+Shift+G. Before, the "near-identical" group (CLUE ≥ 0.97)
held s016 (three seeded mistakes) and "Apply to 5" gave it 100. Now the group holds only
submissions with the same diagram (here two retyped copies of s001); s016 and the other
near ones are listed apart with their differences, not ticked; the grader takes a member out
and it is not written. And with blind grading on, the group panel showed "s020 (0.998)…"
before the grader had rated: no CLUE value may show until then.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import ScoringSettings, Settings, UISettings
from cluestudio.resources_path import annotations_dir
from test_gui_kinds_groups import _ratings
from test_gui_stories import Session, _ctrl, _keys, _rate_by_keys

HOSPITAL = annotations_dir() / "sample" / "tasks" / "hospital_appointments"
CLUE_VALUE = re.compile(r"\b[01]\.\d{3}\b")


def _hospital_workspace(tmp_path: Path) -> Path:
    """The sample's hospital task (22 submissions) and two retyped copies of s001: s101 in
    another order and spacing, s102 in another case and style."""
    from cluestudio.core.workspace import import_path, open_workspace

    course = tmp_path / "course"
    shutil.copytree(HOSPITAL, course / "tasks" / HOSPITAL.name)
    submissions = course / "tasks" / HOSPITAL.name / "submissions"
    for path in submissions.glob("*.json"):
        path.unlink()
    s001 = (submissions / "s001.puml").read_text(encoding="utf-8")
    lines = s001.splitlines()
    relations = [line for line in lines if "--" in line or ".." in line]
    others = [line for line in lines[1:-1] if line not in relations]
    (submissions / "s101.puml").write_text(
        "\n".join(["@startuml", *reversed(relations), *others, "@enduml"]) + "\n",
        encoding="utf-8")
    (submissions / "s102.puml").write_text(
        s001.replace("@startuml", "@startuml\nskinparam monochrome true\n' retyped")
        .replace("String", "string").replace(" : ", ":"), encoding="utf-8")
    path = tmp_path / "hospital.sqlite"
    ws = open_workspace(path)
    try:
        run_job(import_path(ws, course))
    finally:
        ws.close()
    return path


def _open_on(session: Session, path: Path, source: str):
    window = session.open(path)
    session.press(_keys().Key_F3)
    listed = window.bench.session.require().list_submissions(HOSPITAL.name)
    ids = {s.source_id: s.id for s in listed}
    assert window.navigator.select(ids[source], reveal=True)
    assert window.grading.view is not None and window.grading.view.submission.id == ids[source]
    return window, ids


def _find_groups(session: Session, window) -> None:
    session.press(_keys().Key_G, modifier=_ctrl())
    session.qtbot.waitUntil(lambda: HOSPITAL.name in window.groups.groupings, timeout=90_000)
    # The grouping lands before the panel redraws from it: wait for the panel too.
    label = window.grading.group_panel.text
    session.qtbot.waitUntil(lambda: "Finding this task" not in label.text(), timeout=30_000)


@pytest.mark.gui
def test_ta_rates_s001_100_applies_to_its_group_and_s016_with_three_mistakes_gets_nothing(
        qtbot, tmp_path) -> None:
    from cluestudio.gui.qt import Qt

    path = _hospital_workspace(tmp_path)
    session = Session(qtbot)
    try:
        window, ids = _open_on(session, path, "s001")
        _rate_by_keys(session, "444424")  # every item full: 100
        assert _ratings(path)["s001"]["total"] == 100
        _find_groups(session, window)
        group = window.groups.group_of(window.grading.view)
        assert group is not None
        assert set(group.submission_ids) == {ids["s001"], ids["s101"], ids["s102"]}
        assert ids["s016"] in group.near_ids and ids["s005"] in group.near_ids
        label = window.grading.group_panel.text
        assert "Group of <b>3</b>, same diagram: <b>s001</b>, s101, s102." in label.text()
        assert "+9 near, differs</i>: not ticked" in label.text()
        assert "near, differs: s016 (0.99" in label.toolTip()

        seen: dict[str, object] = {}

        def preview(dialog) -> str:
            # The preview lists every member; each near one with its differences, unticked.
            chosen = dialog.chosen()
            assert set(chosen) == set(group.submission_ids)
            for member in group.near:
                row = dialog.row_text(member.submission_id).splitlines()
                assert "near, differs" in row[0] and len(row) == 1 + len(member.differences)
            s016 = dialog.row_text(ids["s016"])
            assert "Room ..|> Schedulable — realization → dependency" in s016
            assert '"1" Doctor : head — multiplicity at Doctor 1 → 0..*' in s016
            assert "ConsultationNote : results in — composition → aggregation" in s016
            assert dialog.apply_button.text() == "Apply to 2"
            # The grader takes s102 out: the preview follows.
            dialog.set_included(ids["s102"], False)
            seen["question"] = dialog.question
            assert dialog.apply_button.text() == "Apply to 1"
            assert "Taken out: s102" in dialog.question
            return "apply"

        window.groups.confirm = preview
        session.press(_keys().Key_G, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)
        assert "This writes 1 rating(s): s101" in str(seen["question"])
        rated = _ratings(path)
        assert set(rated) == {"s001", "s101"}  # not s016, s005, nor s102 taken out
        assert rated["s101"]["total"] == 100 and rated["s101"]["group_from"] == "s001"

        # Including a near one is the grader's act, after seeing what differs.
        def include_s020(dialog) -> str:
            assert "extra attribute Person: -id : int" in dialog.row_text(ids["s020"])
            dialog.set_included(ids["s020"], True)
            return "apply"

        window.groups.confirm = include_s020
        session.press(_keys().Key_G, modifier=_ctrl() | Qt.KeyboardModifier.ShiftModifier)
        rated = _ratings(path)
        assert set(rated) == {"s001", "s101", "s102", "s020"}
        assert "s016" not in rated
    finally:
        session.close()


@pytest.mark.gui
def test_blind_grading_shows_no_clue_value_in_the_group_panel_before_the_rating(
        qtbot, tmp_path) -> None:
    path = _hospital_workspace(tmp_path)
    settings = Settings(ui=UISettings(grader="ta", blind_grading=True),
                        scoring=ScoringSettings(embedder="exact"))
    session = Session(qtbot, settings)
    try:
        window, ids = _open_on(session, path, "s001")
        assert window.bench.settings.ui.blind_grading
        _find_groups(session, window)
        label = window.grading.group_panel.text
        assert "+9 near, differs</i>: not ticked" in label.text()
        assert "near, differs: s016\n" in label.toolTip()
        for shown in (label.text(), label.toolTip()):
            assert not CLUE_VALUE.search(shown) and "difference" not in shown, shown
        # Not ordered by CLUE either: by name.
        near = re.findall(r"near, differs: (s0\d\d)", label.toolTip())
        assert len(near) == 9 and near == sorted(near)
        # Another unrated member of the group: still hidden.
        assert window.navigator.select(ids["s101"], reveal=True)
        assert not CLUE_VALUE.search(label.text() + label.toolTip())
        assert "s016" in label.toolTip()
        # Rated: the values appear.
        assert window.navigator.select(ids["s001"], reveal=True)
        _rate_by_keys(session, "444424")
        qtbot.waitUntil(lambda: bool(CLUE_VALUE.search(label.toolTip())), timeout=5000)
        assert "s016 (0.99" in label.toolTip()
    finally:
        session.close()


@pytest.mark.gui
def test_a_submission_named_like_markup_reads_as_its_name_in_the_group_preview(qtbot) -> None:
    # A pack may name a submission anything (`<img src=…>`): the preview's question is
    # plain text, never rendered as HTML that could load a local file.
    from cluestudio.app.groups import GroupPreview
    from cluestudio.core.groups import GroupMember, SubmissionGroup
    from cluestudio.gui.qt import Qt
    from cluestudio.gui.widgets.group_apply_dialog import GroupApplyDialog

    hostile = '<img src="file:///etc/passwd">'
    group = SubmissionGroup("k", "t", (GroupMember(1, "s1", 1.0, True),
                                       GroupMember(2, hostile, 1.0, True)))

    def preview(chosen: tuple[int, ...], overwrite: bool) -> GroupPreview:
        return GroupPreview(1, 100.0, tuple(c for c in chosen if c != 1), (), overwrite)

    dialog = GroupApplyDialog(group, 1, preview,
                              lambda chosen, keep, _: f"Apply to {hostile}?\nmore")
    qtbot.addWidget(dialog)
    assert dialog.text.textFormat() == Qt.TextFormat.PlainText
    assert hostile in dialog.text.text()
