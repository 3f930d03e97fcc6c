"""Grade → Find groups / Apply my rating to the group (Gradescope's answer groups, for
diagrams; app/groups.py).

"Find groups" clusters the current task's near-identical submissions in the worker process
(:func:`cluestudio.app.groups.group_job`, progress and Cancel in the status bar; one job at a
time, STYLE 7). The grouping is kept per task until a diagram of that task changes. "Apply"
copies the grader's *saved* rating of the submission on screen to the rest of its group after
saying how many ratings it writes (and, on request, overwrites), as one undoable command: one
Ctrl+Z takes every copy back, and each copy stays an ordinary rating, editable on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from cluestudio.app.groups import (
    DEFAULT_THRESHOLD,
    Grouping,
    GroupPreview,
    SubmissionGroup,
    preview_group_rating,
)
from cluestudio.app.submissions import SubmissionView
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import Changes
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import QObject, QWidget, Signal
from cluestudio.gui.widgets.group_panel import GroupPanel
from cluestudio.gui.worker import JobHandle

#: (question, preview keeping my ratings, preview overwriting them) -> "apply", "overwrite" or
#: None (cancelled). Tests put a function here instead of the modal dialog.
Confirm = Callable[[str, GroupPreview, GroupPreview], str | None]
SHOWN_MEMBERS = 8


def _names(group: SubmissionGroup, ids: tuple[int, ...] | list[int]) -> str:
    by_id = {m.submission_id: m.source_id for m in group.members}
    shown = [by_id.get(sid, str(sid)) for sid in ids]
    return ", ".join(shown[:SHOWN_MEMBERS]) + (" …" if len(shown) > SHOWN_MEMBERS else "")


def apply_question(view: SubmissionView, group: SubmissionGroup, keep: GroupPreview,
                   overwrite: GroupPreview) -> str:
    """What the confirmation says: how many ratings are written, which are kept."""
    source = view.submission.source_id
    total = f"{keep.total:.1f}" if keep.total is not None else "no total"
    lines = [f"Apply your rating of {view.submission.task_id} · {source} (total {total}) to "
             f"its group of {group.size} near-identical submissions?", ""]
    if keep.count:
        lines.append(f"This writes {keep.count} rating(s): {_names(group, keep.would_write)}. "
                     f"Each is marked as applied from {source}, stays editable on its own, and "
                     "one Undo (Ctrl+Z) takes them all back.")
    else:
        lines.append("Every other member already has a rating of yours: nothing is written "
                     "unless you overwrite them.")
    if keep.already_rated:
        lines.append(f"{len(keep.already_rated)} member(s) you already rated keep their "
                     f"rating ({_names(group, keep.already_rated)}) unless you choose to "
                     f"overwrite: then {overwrite.count} rating(s) are written.")
    return "\n".join(lines)


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
        self.confirm: Confirm = self._ask
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
        ws = self.bench.require()
        if self._job is not None:
            self._job.cancel()
        task_id = view.submission.task_id
        job = self.bench.processes.submit("cluestudio.app.groups:group_job",
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
        grouped = sum(g.size for g in value.groups)
        self.status.emit(f"Task {value.task_id}: {len(value.groups)} group(s) holding "
                         f"{grouped} of {grouped + len(value.singletons)} submissions "
                         f"({value.pairs_scored} diagram pairs compared, "
                         f"{value.seconds:.1f} s)")

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
        rubric_id = self.bench.rubric_for(view).id
        try:
            ws = self.bench.require()
            keep = preview_group_rating(ws, view.submission.id, group.submission_ids,
                                        self.bench.grader, rubric_id)
            overwrite = preview_group_rating(ws, view.submission.id, group.submission_ids,
                                             self.bench.grader, rubric_id, overwrite=True)
        except ClueStudioError as error:
            self.status.emit(str(error))
            return None
        choice = self.confirm(apply_question(view, group, keep, overwrite), keep, overwrite)
        if choice not in ("apply", "overwrite") or (choice == "apply" and not keep.count):
            self.status.emit("Nothing was applied to the group.")
            return None
        try:
            changes = self.bench.apply_group_rating(view, group,
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
                    "submissions near-identical to this one are known.")
        group = self.group_of(view)
        if group is None:
            return (f"No other submission of task {task} is near-identical to "
                    f"{view.submission.source_id}: there is no group to apply to.")
        if view.rating is None:
            return (f"Rate {view.submission.source_id} first and save (Ctrl+Enter): its saved "
                    f"rating is what is applied to the other {group.size - 1} member(s) of "
                    "its group. Nothing was applied.")
        drafts = self.bench.drafts
        key = f"{view.submission.task_id}/{view.submission.source_id}"
        if drafts is not None and drafts.get(view.submission.id,
                                             self.bench.rubric_for(view).id, key) is not None:
            return ("Your rubric for this submission has unsaved changes: save them "
                    "(Ctrl+Enter) first, so the group gets what is on screen. Nothing was "
                    "applied.")
        return None

    def _ask(self, question: str, keep: GroupPreview, overwrite: GroupPreview) -> str | None:
        from cluestudio.gui.qt import QMessageBox

        parent = self.parent()
        box = QMessageBox(parent if isinstance(parent, QWidget) else None)
        box.setWindowTitle("Apply my rating to the group")
        box.setText(question)
        choices = {}
        if keep.count:
            choices[box.addButton(f"Apply to {keep.count}",
                                  QMessageBox.ButtonRole.AcceptRole)] = "apply"
        if keep.already_rated:
            choices[box.addButton(f"Apply to {overwrite.count}, overwriting my "
                                  f"{len(keep.already_rated)}",
                                  QMessageBox.ButtonRole.DestructiveRole)] = "overwrite"
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return choices.get(box.clickedButton())

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
            self.panel.describe("<i>Finding this task's groups… (progress and Cancel in the "
                                "status bar)</i>", can_find=True)
            return
        if grouping is None:
            stale = (" A diagram of this task changed since they were found."
                     if task in self._stale else "")
            self.panel.describe(
                f"<i>Not grouped yet.{stale} Find groups compares this task's submissions "
                f"by CLUE (≥ {DEFAULT_THRESHOLD:g} both ways) and groups the near-identical "
                "ones, so one rating can serve them all.</i>", can_find=True)
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
                    f"No other submission of this task is near-identical to {escape(source)}"
                    f" ({len(grouping.groups)} group(s) in the task).")
            self.panel.describe(text + origin, can_find=True)
            return
        members = []
        for member in group.members:
            what = ("representative" if member.submission_id == group.representative
                    else "identical" if member.identical else f"{member.similarity:.3f}")
            name = escape(member.source_id)
            if member.submission_id == view.submission.id:
                name = f"<b>{name}</b>"
            members.append(f"{name} ({what})")
        shown = ", ".join(members[:SHOWN_MEMBERS])
        more = f", … {len(members) - SHOWN_MEMBERS} more" if len(members) > SHOWN_MEMBERS else ""
        self.panel.describe(f"Group of <b>{group.size}</b>: {shown}{more}.{origin}",
                            "\n".join(m.replace("<b>", "").replace("</b>", "")
                                      for m in members),
                            can_find=True, can_apply=True)

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
