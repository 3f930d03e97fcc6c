"""Course workspaces: one SQLite file of tasks, submissions, conversions, reviews, ratings,
scores and probe results (DESIGN §7), with import/export, packs and undoable commands.

    ws = open_workspace("course.sqlite")
    for row in ws.list_submissions(task_id="library_loans"): ...
    changes = ws.execute(SaveRating(row.id, "alice", {"classes": 4, ...}))
    ws.undo()
    ws.close()
"""

from cluestudio.core.workspace.commands import (
    ApplyGroupRating,
    Changes,
    Command,
    CommandError,
    SaveRating,
    SaveRevision,
    SetReviewVerdict,
)
from cluestudio.core.workspace.images import ImageError
from cluestudio.core.workspace.lock import WorkspaceInUse
from cluestudio.core.workspace.queries import SubmissionSummary
from cluestudio.core.workspace.records import Rating, Review, Revision, Submission, Task
from cluestudio.core.workspace.report import ImportFailed, Problem, Report
from cluestudio.core.workspace.sample import (
    data_dir,
    import_path,
    open_sample_workspace,
    sample_course_path,
)
from cluestudio.core.workspace.schema import SCHEMA_VERSION, WorkspaceTooNew
from cluestudio.core.workspace.store import Workspace, WorkspaceError, open_workspace

__all__ = [
    "SCHEMA_VERSION", "ApplyGroupRating", "Changes", "Command", "CommandError", "ImageError",
    "ImportFailed", "Problem", "Rating", "Report", "Review", "Revision", "SaveRating",
    "SaveRevision", "SetReviewVerdict", "Submission", "SubmissionSummary", "Task", "Workspace",
    "WorkspaceError", "WorkspaceInUse", "WorkspaceTooNew", "data_dir", "import_path",
    "open_sample_workspace", "open_workspace", "sample_course_path",
]
