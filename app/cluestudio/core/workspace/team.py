"""Grading as a team: split a course into graders' packs, merge them back, and see at once
how far the graders agree on the submissions they both rated (issue 27).

The split is recorded in the workspace (``assignments``), so the lead can see who grades
what; each grader's pack (core/workspace/pack.py) holds only their submissions, with the
tasks, images and the comment bank. After the merge, :func:`overlap_agreement` measures
agreement on the overlap with core/agreement.py, and the adjudication queue
(core/workspace/adjudication.py) lists the overlapping ratings that differ by more than the
threshold.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from cluestudio.core.agreement import AgreementReport, Ratings, agreement_report
from cluestudio.core.team_split import plan_split
from cluestudio.core.workspace.finals import final_grades
from cluestudio.core.workspace.ops import rows
from cluestudio.core.workspace.pack import export_pack, merge_packs
from cluestudio.core.workspace.records import now_iso
from cluestudio.core.workspace.report import Report
from cluestudio.core.workspace.store import Workspace


@dataclass(frozen=True)
class Split:
    packs: dict[str, Path]  # grader → pack
    assigned: dict[str, int]  # grader → how many submissions
    overlap: int  # submissions given to two graders
    idle: tuple[str, ...] = ()  # graders the split gave nothing (more graders than work)


def split_course(ws: Workspace, out_dir: Path, graders: list[str], *, overlap: float = 0.1,
                 by: str = "submission", seed: int = 0, origin: str | None = None) -> Split:
    """Plan the split, record it, and write ``out_dir/<grader>.zip`` for each grader."""
    subs = [(s.id, s.task_id) for s in ws.list_submissions(origin=origin)]
    plan = plan_split(subs, graders, overlap=overlap, by=by, seed=seed)

    def record(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM assignments")
        now = now_iso()
        conn.executemany("INSERT INTO assignments(submission_id, grader, created_at)"
                         " VALUES (?,?,?)",
                         [(sid, grader, now) for sid, who in plan.items() for grader in who])

    ws.write(record)
    names = sorted({g for who in plan.values() for g in who})
    packs = {}
    for grader in names:
        mine = {sid for sid, who in plan.items() if grader in who}
        packs[grader] = out_dir / f"{grader}.zip"
        # the grader's own ratings only (none yet, or earlier work of theirs)
        export_pack(ws, packs[grader], grader=grader, submissions=mine)
    asked = dict.fromkeys(g.strip() for g in graders if g.strip())
    return Split(packs, {g: sum(g in who for who in plan.values()) for g in names},
                 sum(len(who) > 1 for who in plan.values()),
                 tuple(g for g in asked if g not in packs))


def assignments(ws: Workspace) -> dict[int, tuple[str, ...]]:
    """submission id → the graders it was assigned to (empty when never split)."""
    out: dict[int, list[str]] = {}
    for r in rows(ws._reader(), "SELECT submission_id, grader FROM assignments"
                                " ORDER BY submission_id, grader"):
        out.setdefault(int(r["submission_id"]), []).append(r["grader"])
    return {sid: tuple(g) for sid, g in out.items()}


def overlap_agreement(ws: Workspace) -> AgreementReport | None:
    """Agreement of the graders on the submissions two or more of them rated (their totals
    with bank adjustments); None when no submission has two human ratings."""
    records = [(str(sid), r.grader, r.adjusted) for sid, grade in final_grades(ws).items()
               if len(grade.ratings) >= 2 for r in grade.ratings]
    if not records:
        return None
    return agreement_report(Ratings.from_records(records))


def merge_team(ws: Workspace, packs: list[Path]) -> tuple[Report, AgreementReport | None]:
    """Merge graders' packs (all or nothing), then the agreement on the overlap."""
    report = merge_packs(ws, packs)
    return report, overlap_agreement(ws)
