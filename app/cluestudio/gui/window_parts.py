"""What the window's helpers may reach of the main window: its parts, named here.

The menu commands (commands.py), the File menu's work (workspace_actions.py), hand-back
(handback_actions.py) and the window's geometry (window_layout.py) act on the window; they
used to name ``MainWindow`` itself, which imports them, so the seven modules stood on one
import circle (issue 26, circle 5). They name this class instead, and nothing here imports
the window. The session (``bench``) is where the dialogs and the quit question reach the
workspace, not the window.

It is the window's base class, not a ``Protocol``: the helpers hand the window to Qt (the
parent of their dialogs, the owner of their timers, the geometry and docks they keep), and a
protocol cannot say "a ``QMainWindow`` with these parts". The parts are declared for the type
checker only; the methods are abstract to it, so a window that lacks one is refused where it
is created. At run time this class adds nothing to ``QMainWindow``.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from cluestudio.gui.qt import QMainWindow

if TYPE_CHECKING:
    from cluestudio.core.workspace import Workspace
    from cluestudio.gui.analysis_view import AnalysisView
    from cluestudio.gui.grading_mode import GradingMode
    from cluestudio.gui.navigator import Navigator
    from cluestudio.gui.operations import Workbench
    from cluestudio.gui.qt import QDockWidget, QTabWidget
    from cluestudio.gui.review_mode import ReviewMode
    from cluestudio.gui.widgets.job_panel import ErrorPanel, JobStatus
    from cluestudio.gui.worker import JobHandle, JobRunner


class WindowParts(QMainWindow):
    """The main window as its helpers see it: a ``QMainWindow`` with these parts."""

    if TYPE_CHECKING:
        bench: Workbench
        runner: JobRunner
        modes: QTabWidget
        review: ReviewMode
        grading: GradingMode
        analysis: AnalysisView
        navigator: Navigator
        navigator_dock: QDockWidget
        error_dock: QDockWidget
        errors: ErrorPanel
        job_status: JobStatus
        files: Any  # WorkspaceActions, which names this class
        groups: Any  # GroupActions
        model_actions: Any  # ModelActions

        @abstractmethod
        def report_error(self, label: str, message: str) -> None: ...
        @abstractmethod
        def refresh_rows(self, reset: bool = False) -> None: ...
        @abstractmethod
        def open(self, ws: Workspace) -> None: ...
        @abstractmethod
        def undo(self) -> None: ...
        @abstractmethod
        def redo(self) -> None: ...
        @abstractmethod
        def focus_panel(self) -> None: ...
        @abstractmethod
        def score_current(self) -> JobHandle | None: ...
        @abstractmethod
        def score_listed(self) -> JobHandle | None: ...
        @abstractmethod
        def check_current(self) -> JobHandle | None: ...
        @abstractmethod
        def check_listed(self) -> JobHandle | None: ...
        @abstractmethod
        def show_analysis(self) -> None: ...
        @abstractmethod
        def sync_diff_action(self) -> None: ...
        @abstractmethod
        def toggle_blind(self) -> None: ...
        @abstractmethod
        def toggle_theme(self) -> None: ...
        @abstractmethod
        def keyboard_shortcuts(self) -> None: ...
        @abstractmethod
        def settings_dialog(self) -> None: ...
        @abstractmethod
        def open_log_folder(self) -> None: ...
        @abstractmethod
        def open_workspace_folder(self) -> None: ...
