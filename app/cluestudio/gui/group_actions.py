"""Grade → Find groups / Apply my rating to the group (Gradescope's answer groups, for
diagrams; app/groups.py).

"Find groups" groups the current task's submissions whose diagrams say the same in the
worker process (:func:`cluestudio.app.groups.group_job`, progress and Cancel in the status
bar; one job at a time, STYLE 7), with CLUE's "near, differs" suggestions kept apart. The
grouping is kept per task until a diagram of that task changes. "Apply" copies the grader's
*saved* rating of the submission on screen to the submissions ticked in a preview
(:class:`~cluestudio.gui.widgets.group_apply_dialog.GroupApplyDialog`: the members ticked,
the near ones not, each with its differences) after saying how many ratings it writes (and,
on request, overwrites), as one undoable command: one Ctrl+Z takes every copy back, and each
copy stays an ordinary rating, editable on its own. With blind grading on, the panel shows no
CLUE value until the submission on screen is rated.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from cluestudio.app.groups import GroupPreview, group_job, preview_group_rating
from cluestudio.app.submissions import SubmissionView
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.groups import Grouping, GroupMember, SubmissionGroup
from cluestudio.core.workspace import Changes
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import QObject, QWidget, Signal
from cluestudio.gui.widgets.group_apply_dialog import GroupApplyDialog
from cluestudio.gui.widgets.group_panel import GroupPanel
from cluestudio.gui.worker import JobHandle

#: The preview (who is ticked, what it writes) -> "apply", "overwrite" or None (cancelled).
#: Tests put a function here that ticks and answers instead of showing the modal dialog.
Confirm = Callable[[GroupApplyDialog], str | None]
SHOWN_MEMBERS = 8


def _names(group: SubmissionGroup, ids: tuple[int, ...] | list[int]) -> str:
    by_id = {m.submission_id: m.source_id for m in (*group.members, *group.near)}
    shown = [by_id.get(sid, str(sid)) for sid in ids]
    return ", ".join(shown[:SHOWN_MEMBERS]) + (" …" if len(shown) > SHOWN_MEMBERS else "")


def apply_question(view: SubmissionView, group: SubmissionGroup, keep: GroupPreview,
                   overwrite: GroupPreview, chosen: tuple[int, ...] | None = None) -> str:
    """What the confirmation says: how many ratings are written, which are kept."""
    source = view.submission.source_id
    total = f"{keep.total:.1f}" if keep.total is not None else "no total"
    chosen = group.submission_ids if chosen is None else chosen
    near = [sid for sid in chosen if sid in group.near_ids]
    out = [sid for sid in group.submission_ids if sid not in chosen]
    lines = [f"Apply your rating of {view.submission.task_id} · {source} (total {total}) to "
             f"its group of {group.size} submission(s) with the same diagram?", ""]
    if near:
        lines.append(f"Included although their diagrams differ (you saw the differences): "
                     f"{_names(group, near)}.")
    if out:
        lines.append(f"Taken out: {_names(group, out)}.")
    if keep.count:
        lines.append(f"This writes {keep.count} rating(s): {_names(group, keep.would_write)}. "
                     f"Each is marked as applied from {source}, stays editable on its own, and "
                     "one Undo (Ctrl+Z) takes them all back.")
    elif len(chosen) < 2:
        lines.append("No one is ticked: tick the members (and any near submission whose "
                     "differences you accept) that get this rating.")
    else:
        lines.append("Every other member already has a rating of yours: nothing is written "
                     "unless you overwrite them.")
    if keep.already_rated:
        lines.append(f"{len(keep.already_rated)} member(s) you already rated keep their "
                     f"rating ({_names(group, keep.already_rated)}) unless you choose to "
                     f"overwrite: then {overwrite.count} rating(s) are written.")
    return "\n".join(lines)


def group_description(group: SubmissionGroup, current: int, hidden: bool) -> tuple[str, str]:
    """(the panel's text, its tooltip) for ``group`` seen from submission ``current``;
    ``hidden``: no CLUE value nor count of differences, near members by name only and in
    name order (blind grading, not yet rated)."""
    def name(member: GroupMember) -> str:
        text = escape(member.source_id)
        return f"<b>{text}</b>" if member.submission_id == current else text

    same = [name(m) for m in group.members]
    near_members = (sorted(group.near, key=lambda m: m.source_id) if hidden
                    else list(group.near))
    near = []
    for member in near_members:
        count = len(member.differences)
        what = f"{count} difference{'s' * (count != 1)}"
        # Blind: not even how many differences (a distance too), only who.
        near.append(name(member) if hidden
                    else f"{name(member)} ({member.similarity:.3f}, {what})")

    def listed(items: list[str], shown: int) -> str:
        more = f", … {len(items) - shown} more" if len(items) > shown else ""
        return ", ".join(items[:shown]) + more

    # Short lines: the box has room for three at 1024×700; the tooltip names everything,
    # the preview shows every difference.
    head = (f"Group of <b>{group.size}</b>, same diagram: {listed(same, SHOWN_MEMBERS)}."
            if group.size > 1 else f"No other has the same diagram as {same[0]}.")
    html = head + (f"<br><i>+{len(near)} near, differs</i>: not ticked (hover for who)"
                   if near else "")
    plain = [s.replace("<b>", "").replace("</b>", "") for s in same]
    tooltip = "\n".join([f"{plain[0]} (representative)", *plain[1:],
                         *(f"near, differs: {n.replace('<b>', '').replace('</b>', '')}"
                           for n in near)])
    return html, tooltip


class GroupActions(QObject):
    """The current task's groups and the two actions on them; ``job_started`` hands the
    grouping job to the status bar, ``status`` says what happened or why not."""

    job_started = Signal(object)  # JobHandle
    status = Signal(str)

    def __init__(self, bench: Workbench, current_view: Callable[[], SubmissionView | None],
                 panel: GroupPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bench = bench
        self._current_view = current_view
        self.panel = panel
        self.groupings: dict[str, Grouping] = {}  # task id -> its groups, while current
        self._stale: set[str] = set()  # tasks whose groups went when a diagram changed
        self._job: JobHandle | None = None
        self._job_task: str | None = None
        self.confirm: Confirm = GroupApplyDialog.ask
        panel.find_requested.connect(self.find_groups)
        panel.apply_requested.connect(self.apply_to_group)
        bench.workspace_opened.connect(self._forget)
        bench.changed.connect(self._on_changed)

    # --- finding ------------------------------------------------------------------------

    def find_groups(self) -> JobHandle | None:
        """Group the submissions of the task on screen, in the worker process."""
        view = self._current_view()
        if view is None:
            self.status.emit("Finding groups is done in grading mode (F3), for the task of "
                             "the submission on screen.")
            return None
        ws = self.bench.session.require()
        if self._job is not None:
            self._job.cancel()
        task_id = view.submission.task_id
        job = self.bench.processes.submit(group_job,
                                          (str(ws.path), task_id),
                                          label=f"find groups in task {task_id}")
        path = str(ws.path)
        job.result.connect(lambda value, h=job: self._on_grouped(h, path, value))
        job.finished.connect(lambda h=job: self._on_finished(h))
        self._job, self._job_task = job, task_id
        self.job_started.emit(job)
        self.show(view)
        return job

    def busy(self) -> bool:
        return self._job is not None

    def _on_grouped(self, job: JobHandle, path: str, value: object) -> None:
        ws = self.bench.ws
        if (job is not self._job or job.cancelled or not isinstance(value, Grouping)
                or ws is None or str(ws.path) != path):
            return  # cancelled, superseded, or of a workspace that is no longer open
        self.groupings[value.task_id] = value
        self._stale.discard(value.task_id)
        # Done as soon as the result is here: the panel must not say "Finding…" over groups
        # the list already uses until the job's finished signal comes round.
        self._job, self._job_task = None, None
        self.show(self._current_view())
        same = [g for g in value.groups if g.size > 1]
        grouped = sum(g.size for g in same)
        total = sum(g.size for g in value.groups) + len(value.singletons)
        self.status.emit(f"{value.task_id}: {len(same)} same-diagram group(s), {grouped} of "
                         f"{total} submissions; near ones suggested for "
                         f"{sum(bool(g.near) for g in value.groups)} ({value.seconds:.1f} s)")

    def _on_finished(self, job: JobHandle) -> None:
        if job is self._job:
            self._job, self._job_task = None, None
            self.show(self._current_view())

    def group_of(self, view: SubmissionView) -> SubmissionGroup | None:
        grouping = self.groupings.get(view.submission.task_id)
        return grouping.group_of(view.submission.id) if grouping is not None else None

    # --- applying -----------------------------------------------------------------------

    def apply_to_group(self) -> Changes | None:
        """Copy my saved rating of the submission on screen to the rest of its group, after
        the confirmation says how many ratings that writes; None when nothing was written."""
        view = self._current_view()
        refusal = self._apply_refusal(view)
        if refusal is not None or view is None:
            self.status.emit(refusal or "")
            return None
        group = self.group_of(view)
        assert group is not None
        rubric_id = self.bench.session.rubric_for(view).id
        try:
            ws = self.bench.session.require()

            def preview(chosen: tuple[int, ...], overwrite: bool) -> GroupPreview:
                return preview_group_rating(ws, view.submission.id, chosen,
                                            self.bench.grader, rubric_id, overwrite=overwrite)

            parent = self.parent()
            dialog = GroupApplyDialog(
                group, view.submission.id, preview,
                lambda chosen, keep, over: apply_question(view, group, keep, over, chosen),
                parent if isinstance(parent, QWidget) else None)
        except ClueStudioError as error:
            self.status.emit(str(error))
            return None
        try:
            choice = self.confirm(dialog)
            chosen, keep = dialog.chosen(), dialog.keep
        finally:
            dialog.deleteLater()
        if (choice not in ("apply", "overwrite") or keep is None
                or (choice == "apply" and not keep.count)):
            self.status.emit("Nothing was applied to the group.")
            return None
        try:
            changes = self.bench.session.apply_group_rating(view, group, member_ids=chosen,
                                                    overwrite=choice == "overwrite")
        except ClueStudioError as error:
            self.status.emit(str(error))
            return None
        written = len(changes.ratings)
        self.status.emit(f"Applied your rating of {view.submission.source_id} to {written} "
                         "submission(s) of its group; Ctrl+Z undoes all of them.")
        return changes

    def _apply_refusal(self, view: SubmissionView | None) -> str | None:
        """Why "apply" cannot run now, in words a grader acts on; None when it can."""
        if view is None:
            return "Applying a rating to a group is done in grading mode (F3)."
        task = view.submission.task_id
        if task not in self.groupings:
            return (f"Find the groups of task {task} first (Grade → Find groups): then the "
                    "submissions with the same diagram as this one are known.")
        group = self.group_of(view)
        if group is None:
            return (f"No other submission of task {task} has the same diagram as "
                    f"{view.submission.source_id}, and none is near it: there is no group "
                    "to apply to.")
        if view.rating is None:
            return (f"Rate {view.submission.source_id} first and save (Ctrl+Enter): its saved "
                    f"rating is what is applied to the other {group.size - 1} member(s) of "
                    "its group. Nothing was applied.")
        drafts = self.bench.drafts
        key = f"{view.submission.task_id}/{view.submission.source_id}"
        rubric_id = self.bench.session.rubric_for(view).id
        if drafts is not None and drafts.get(view.submission.id, rubric_id, key) is not None:
            return ("Your rubric for this submission has unsaved changes: save them "
                    "(Ctrl+Enter) first, so the group gets what is on screen. Nothing was "
                    "applied.")
        return None

    # --- what the panel says ------------------------------------------------------------

    def show(self, view: SubmissionView | None) -> None:
        """Describe ``view``'s group (the submission on screen in grading mode)."""
        if view is None:
            self.panel.describe("")
            return
        task = view.submission.task_id
        source = view.submission.source_id
        grouping = self.groupings.get(task)
        if self._job is not None and self._job_task == task:
            self.panel.describe("<b>Grade by group</b> · <i>Finding this task's groups… "
                                "(progress and Cancel in the status bar)</i>", can_find=True)
            return
        if grouping is None:
            stale = (" A diagram changed since the last grouping."
                     if task in self._stale else "")
            # short: the box has room for three lines at 1024×700 (the whole explanation,
            # cut there and at 1366 mid-sentence, is the tooltip)
            self.panel.describe(
                f"<b>Grade by group</b> · <i>Not grouped yet.{stale} “Find groups”: one "
                "rating for the same diagrams.</i>",
                "“Find groups” puts together this task's submissions whose diagrams say the "
                "same (layout, order, whitespace and case aside), so one rating can serve "
                "them all; CLUE suggests near ones, apart, with what differs.", can_find=True)
            return
        origin = ""
        if view.rating is not None and view.rating.group_applied:
            origin = ("<br>Your rating here was applied from "
                      f"{escape(view.rating.group_from or '?')}'s (its group); saving here "
                      "makes it this submission's own.")
        group = grouping.group_of(view.submission.id)
        if group is None:
            why = grouping.unreadable.get(view.submission.id)
            text = (f"{escape(source)} could not be compared ({escape(why)})." if why else
                    f"No other submission of this task has the same diagram as "
                    f"{escape(source)}, and none is near it ({len(grouping.groups)} "
                    "group(s) in the task).")
            self.panel.describe(text + origin, can_find=True)
            return
        # Blind grading: no CLUE value (nor an order by it) before this grader's rating.
        hidden = self.bench.settings.ui.blind_grading and view.rating is None
        html, plain = group_description(group, view.submission.id, hidden)
        self.panel.describe(html + origin, plain, can_find=True, can_apply=True)

    def _forget(self) -> None:
        """Another workspace: no grouping of the old one applies."""
        if self._job is not None:
            self._job.cancel()
        self._job, self._job_task = None, None
        self.groupings.clear()
        self._stale.clear()

    def _on_changed(self, changes: Changes) -> None:
        """A changed diagram may leave or join a group: that task is grouped again on ask."""
        if not changes.revisions:
            return
        for task, grouping in list(self.groupings.items()):
            members = {sid for g in grouping.groups for sid in g.submission_ids}
            members |= set(grouping.singletons) | set(grouping.unreadable)
            if changes.revisions & members:
                del self.groupings[task]
                self._stale.add(task)
                self.show(self._current_view())
