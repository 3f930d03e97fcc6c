"""The open session: workspace, grader, settings, drafts, undo and the cache of views.

Like Anki's collection-plus-``mw`` split, without Qt: the window (gui/operations.py's
``Workbench``) is a thin adapter that turns :meth:`Session.subscribe` calls into a Qt signal
and runs the background jobs; everything a view reads or writes about the session lives
here, so it can be driven and tested without a display.

Every write goes through a core command (one transaction, undo in core) and is announced to
the subscribers as a :class:`Changes` that carries its ``initiator`` (as Anki's
``OpChanges`` reach ``operation_did_execute(changes, handler)``): the view that made a
change already shows it and does not reload itself; the others redraw what it names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from cluestudio.app.drafts import DraftStore, RubricDraft
from cluestudio.app.submissions import (
    SubmissionView,
    ViewCache,
    load_submission,
    ratings_by_task_rubric,
    with_current_scores,
)
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.rubric import Rubric, get_rubric, rubric_for_kind
from cluestudio.core.settings import Settings, save_settings, updated
from cluestudio.core.workspace import (
    Changes,
    SaveRating,
    SaveRevision,
    SetReviewVerdict,
    SubmissionSummary,
    Workspace,
)
from cluestudio.core.workspace.records import Rating, Task
from cluestudio.core.workspace.sample import data_dir

Listener = Callable[[Changes], None]


def _draft_key(view: SubmissionView) -> str:
    """What a draft is matched on besides the id (see :class:`RubricDraft`)."""
    return f"{view.submission.task_id}/{view.submission.source_id}"


class Session:
    """One grader's session on one workspace at a time (none open: ``ws`` is None).

    ``drafts`` are the grader's unsaved rubrics (on disk, app/drafts.py); ``review_texts``
    the review editor's unsaved texts of submissions not on screen (in memory, gone with
    the workspace). Each submission is graded with the rubric of its task's diagram kind
    (:meth:`rubric_for`); ``default_rubric`` is the class-diagram one the analysis compares
    graders on."""

    def __init__(self, settings: Settings, *, drafts_folder: Path | None = None) -> None:
        self.settings = settings
        self.ws: Workspace | None = None
        self.default_rubric: Rubric = get_rubric()
        self.cache = ViewCache()
        self.drafts: DraftStore | None = None
        self.review_texts: dict[int, str] = {}
        self._drafts_folder = drafts_folder
        self._listeners: list[Listener] = []

    # --- settings (changed here only) ---------------------------------------------------

    @property
    def grader(self) -> str:
        return self.settings.grader_name()

    def apply_settings(self, settings: Settings) -> bool:
        """Take new settings; True when the grader changed (every view of "mine" — ratings,
        drafts, blind grading — is then another person's and must be redrawn)."""
        changed = settings.grader_name() != self.grader
        self.settings = settings
        if changed:
            self.cache.clear()
            if self.ws is not None:
                self.drafts = self._draft_store(self.ws)
        return changed

    def update_settings(self, **sections: dict[str, Any]) -> bool:
        """Change some fields of some sections (``ui={"theme": "dark"}``); True when the
        grader changed (see :meth:`apply_settings`)."""
        return self.apply_settings(updated(self.settings, **sections))

    def save_settings(self) -> None:
        """Write the settings file (ClueStudioError naming it when that fails)."""
        save_settings(self.settings)

    # --- the workspace ------------------------------------------------------------------

    def _draft_store(self, ws: Workspace) -> DraftStore:
        return DraftStore(self._drafts_folder or data_dir() / "drafts", ws.path, self.grader)

    def open(self, ws: Workspace) -> None:
        self.close()
        self.ws = ws
        self.drafts = self._draft_store(ws)

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None
        self.drafts = None
        self.review_texts.clear()
        self.cache.clear()

    def require(self) -> Workspace:
        if self.ws is None:
            raise ClueStudioError("no workspace is open")
        return self.ws

    def belongs(self, view: SubmissionView) -> bool:
        """Whether ``view`` shows a submission of the open workspace (ids are per file)."""
        return self.ws is not None and view.workspace == str(self.ws.path.resolve())

    def submissions(self) -> list[SubmissionSummary]:
        return self.ws.list_submissions() if self.ws is not None else []

    @staticmethod
    def rubric_for(view: SubmissionView) -> Rubric:
        """The rubric ``view``'s submission is graded with: its task kind's."""
        return rubric_for_kind(view.task.diagram_kind)

    def totals(self) -> dict[int, float | None]:
        """This grader's rating total per rated submission (each under its task's rubric)."""
        ws = self.require()
        mine = ratings_by_task_rubric(ws, self.grader, ws.list_submissions(),
                                      narrowed=False)
        return {sid: rating.total for sid, rating in mine.items()}

    def rated_by_me(self) -> set[int]:
        """The submissions this grader has rated (under their task's rubric)."""
        return set(self.totals()) if self.ws is not None else set()

    def clue_scores(self) -> dict[int, float]:
        return self.require().metric_values("clue")

    def task(self, task_id: str) -> Task | None:
        """A task of the open workspace: a cached view's when one has it (no query)."""
        for view in self.cache.views():
            if view.task.id == task_id:
                return view.task
        return self.ws.task(task_id) if self.ws is not None else None

    def view(self, submission_id: int) -> SubmissionView:
        """The submission's view data: from the cache when possible (next/previous is instant)."""
        found = self.cache.get(submission_id)
        if found is None:
            llm = bool(self.settings.llm.base_url.strip() and self.settings.llm.model.strip())
            found = load_submission(self.require(), submission_id, self.grader, llm=llm)
            self.cache.put(found)
        return found

    # --- unsaved work: rubric drafts (on disk) and review texts (in memory) ----------------

    def rubric_draft(self, view: SubmissionView) -> RubricDraft | None:
        """This grader's unsaved rubric of ``view``'s submission, under its task's rubric."""
        if self.drafts is None:
            return None
        return self.drafts.get(view.submission.id, self.rubric_for(view).id, _draft_key(view))

    def keep_rubric_draft(self, view: SubmissionView, scores: dict[str, float], comment: str,
                          seconds: float) -> bool:
        """Keep the rubric as typed until it is saved; False (and no draft) when it says
        what the saved rating says."""
        if self.drafts is None:
            return False
        rating, sid = view.rating, view.submission.id
        if rating is not None and rating.scores == scores and rating.comment == comment:
            self.drafts.drop(sid)
            return False
        self.drafts.put(sid, RubricDraft(self.rubric_for(view).id, scores, comment,
                                         round(seconds, 1), _draft_key(view)))
        return True


    def keep_review_text(self, submission_id: int, text: str) -> None:
        self.review_texts[submission_id] = text

    def take_review_text(self, submission_id: int) -> str | None:
        """The unsaved text kept for this submission, handed back once."""
        return self.review_texts.pop(submission_id, None)

    # --- changes and their subscribers --------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(changes)`` after every command, undo, redo and noted change."""
        self._listeners.append(listener)

    def note_changes(self, changes: Changes, *,
                     fresh: Sequence[SubmissionView] = ()) -> None:
        """Announce ``changes`` after bringing the cache up to date: ``fresh`` views (made
        current by who made the change) are kept; a view whose submission only got new
        scores takes them from one query for all of them (a scoring chunk: no image or
        revision is read again); the others touched go, to be read when shown. A stored
        check changes no view."""
        kept = {view.submission.id: view for view in fresh}
        edited = changes.ratings | changes.revisions | changes.reviews
        rescored = {view.submission.id: view for view in self.cache.views()
                    if view.submission.id in changes.scores - edited - kept.keys()}
        if rescored and self.ws is not None:
            current = self.ws.current_scores(list(rescored), explanations=True)
            kept.update((sid, with_current_scores(view, current.get(sid, {})))
                        for sid, view in rescored.items())
        self.cache.drop((edited | changes.scores) - kept.keys())
        for view in kept.values():
            self.cache.put(view)
        for listener in list(self._listeners):
            listener(changes)

    def run(self, command: Any, initiator: object = None) -> Changes:
        """Execute a core command (one transaction, undoable) and announce what changed."""
        changes = replace(self.require().execute(command), initiator=initiator)
        self.note_changes(changes)
        return changes

    # --- commands (one transaction each, undo in core) ----------------------------------

    def save_rating(self, view: SubmissionView, scores: dict[str, float],
                    comment: str, seconds: float, *, initiator: object = None) -> Changes:
        """Save this grader's rating of exactly the submission ``view`` shows, under the
        rubric of its task's kind; refused when the view is of another workspace than the
        open one. One write: the cached view takes the saved rating from the command
        itself instead of reading the submission again."""
        self._require_own(view)
        command = SaveRating(view.submission.id, self.grader, scores,
                             rubric=self.rubric_for(view), comment=comment,
                             seconds=round(seconds, 1))
        changes = replace(self.require().execute(command), initiator=initiator)
        if self.drafts is not None:
            self.drafts.drop(view.submission.id)
        values = command.values
        saved = Rating(view.submission.id, self.grader, command.rubric.id,
                       dict(command.scores), values["total"], comment, values["seconds"],
                       False, values["created_at"], values["uid"])
        self.note_changes(changes, fresh=[replace(view, rating=saved)])
        return changes

    def apply_group_rating(self, view: SubmissionView, group: Any, *,
                           overwrite: bool = False, member_ids: Sequence[int] | None = None,
                           initiator: object = None) -> Changes:
        """Copy this grader's saved rating of ``view``'s submission to the rest of ``group``
        (app/groups.py ``SubmissionGroup``), or to ``member_ids`` (the grader's choice among
        its members and near suggestions), in one undoable command; members already rated
        by the grader are kept unless ``overwrite``."""
        from cluestudio.app.groups import group_rating_command

        self._require_own(view)
        return self.run(group_rating_command(group, view.submission.id, self.grader,
                                             rubric_id=self.rubric_for(view).id,
                                             overwrite=overwrite, member_ids=member_ids),
                        initiator)

    def save_revision(self, view: SubmissionView, puml: str, *,
                      initiator: object = None) -> Changes:
        self._require_own(view)
        return self.run(SaveRevision(view.submission.id, puml, self.grader), initiator)

    def set_verdict(self, view: SubmissionView, verdict: str, tags: list[str],
                    comment: str = "", *, initiator: object = None) -> Changes:
        self._require_own(view)
        return self.run(SetReviewVerdict(view.submission.id, self.grader, verdict, tags,
                                         comment=comment), initiator)

    def _require_own(self, view: SubmissionView) -> None:
        if not self.belongs(view):
            raise ClueStudioError("this submission belongs to a workspace that is no longer "
                                  "open; nothing was saved")

    # --- undo ----------------------------------------------------------------------------

    def undo(self) -> Changes | None:
        changes = self.require().undo()
        if changes is not None:
            self.note_changes(changes)
        return changes

    def redo(self) -> Changes | None:
        changes = self.require().redo()
        if changes is not None:
            self.note_changes(changes)
        return changes

    def undo_label(self) -> str | None:
        return self.named(self.ws.undo_stack.undo_label) if self.ws is not None else None

    def redo_label(self) -> str | None:
        return self.named(self.ws.undo_stack.redo_label) if self.ws is not None else None

    def named(self, label: str | None) -> str | None:
        """A command's label with each "submission 12" (a database id, meaningless to a
        grader) written as the submission's name, "submission s002"."""
        ws = self.ws
        if not label or ws is None:
            return label

        def name(match: re.Match[str]) -> str:
            sid = int(match.group(1))
            cached = self.cache.get(sid)  # the submission just saved usually is
            found = cached.submission if cached is not None else ws.submission(sid)
            return f"submission {found.source_id}" if found is not None else match.group(0)

        return re.sub(r"\bsubmission (\d+)\b", name, label)
