"""Issue 24, item 8: "OCR check noise in the window". On a clean conversion the review pane
does not box a correct name because the check read it inside another class's box, and does
not list multiplicities ("1", "*") as "in the PlantUML, not in image A"; a real drop is
still listed and boxed."""

from __future__ import annotations

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def _report():
    from cluestudio.core.check.report import CheckReport, InventedName, MissingName
    from cluestudio.core.ocr.result import Box

    def box(x: int):
        return Box.from_rect(x, 40, x + 90, 60)

    return CheckReport(
        image_sha256="0" * 64, engine="test", width=520, height=360, image_tokens=9,
        image_found=7, names=8, names_found=6,
        missing=(
            # Book's attribute, read inside Member's box (a tight layout): no drop.
            MissingName("title : String", "attribute", box(30), 0.9, owner="Member"),
            MissingName("Librarian", "class", box(200), 0.95),  # really dropped
        ),
        invented=(
            InventedName("1", "multiplicity", 6, owner=""),
            InventedName("*", "multiplicity", 6, owner=""),
            InventedName("0..1", "label", 6, owner=""),  # a multiplicity, however read
            InventedName("Fine", "class", 7, owner="", nearest=""),  # really invented
        ))


def _listed(tree) -> list[str]:
    return [tree.topLevelItem(g).child(c).text(0).split(" (")[0]
            for g in range(tree.topLevelItemCount())
            for c in range(tree.topLevelItem(g).childCount())]


def test_a_clean_conversion_is_not_cried_wolf_on_in_the_review_pane(session,
                                                                    tmp_path) -> None:
    window = session.open(_course_workspace(tmp_path))
    review = window.review
    assert "title : String" in review.view.head_puml  # s01: Book has the title
    review.check.show_report(_report(), True, review.view.head_puml)
    listed = _listed(review.check.tree)
    assert listed == ["Librarian", "Fine"], listed
    assert "4 doubtful not listed" in review.check.summary.text()

    from cluestudio.app.check_display import shown_findings

    shown = shown_findings(_report(), review.view.head_puml)
    assert [f.text for f in shown.missing] == ["Librarian"]  # the only box drawn on A
