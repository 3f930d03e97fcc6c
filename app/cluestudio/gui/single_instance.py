"""A second ClueStudio on a workspace that is already open (issue 24, item 6).

One window writes to a workspace (core/workspace/lock.py). A second instance, typically
started from a launcher with no terminal to print to, used to fail silently. Now it asks,
in a dialog: bring the running window forward, open the workspace read-only, or pick
another workspace.

The running window listens on a local socket named after its workspace (a "beacon"); the
second instance connects, asks it to come forward and gets "ok" back. The socket is a
convenience only: a window that does not answer (another user, an old version) still
leaves read-only and another workspace to choose.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace.ops import text_hash
from cluestudio.gui.qt import QMessageBox, QObject, QtNetwork, QWidget, Signal

if TYPE_CHECKING:
    from cluestudio.core.workspace import Workspace
    from cluestudio.gui.qt import QPushButton

_RAISE, _OK = b"raise\n", b"ok\n"
_ANSWER_MS = 1500

SHOW_RUNNING, READ_ONLY, OTHER, QUIT = "show", "read-only", "other", "quit"


def server_name(path: Path) -> str:
    """The local socket name of the window that has ``path`` open (per user)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no user name in a container: the path alone
        user = ""
    return "cluestudio-" + text_hash(f"{user}\0{Path(path).resolve()}")[:20]


class WorkspaceBeacon(QObject):
    """Listens while a window has a workspace open for writing; ``raise_requested`` when a
    second instance asks for the window."""

    raise_requested = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._server: QtNetwork.QLocalServer | None = None

    def listen(self, path: Path) -> bool:
        self.stop()
        server = QtNetwork.QLocalServer(self)
        name = server_name(path)
        if not server.listen(name):
            # We hold the workspace's lock, so a socket of that name is a crashed
            # instance's leftover: remove it and listen again.
            QtNetwork.QLocalServer.removeServer(name)
            if not server.listen(name):
                server.deleteLater()
                return False
        server.newConnection.connect(self._on_connection)
        self._server = server
        return True

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server.deleteLater()
            self._server = None

    def _on_connection(self) -> None:
        server = self._server
        while server is not None and server.hasPendingConnections():
            socket = server.nextPendingConnection()
            socket.readyRead.connect(lambda socket=socket: self._answer(socket))
            socket.disconnected.connect(socket.deleteLater)

    def _answer(self, socket: QtNetwork.QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(_RAISE.strip()):
            self.raise_requested.emit()
            socket.write(_OK)
            socket.flush()
        socket.disconnectFromServer()


def ask_running_window(path: Path, timeout_ms: int = _ANSWER_MS) -> bool:
    """Ask the window that has ``path`` open to come forward; whether it said it did.

    Waits in a local event loop (not the socket's blocking waits): the window may live in
    this very process, and it answers from the event loop."""
    from cluestudio.gui.qt import QEventLoop, QTimer

    socket = QtNetwork.QLocalSocket()
    answer = bytearray()
    loop = QEventLoop()

    def read() -> None:
        answer.extend(bytes(socket.readAll().data()))
        if _OK in answer:
            loop.quit()

    socket.connected.connect(lambda: (socket.write(_RAISE), socket.flush()))
    socket.readyRead.connect(read)
    socket.disconnected.connect(loop.quit)
    socket.errorOccurred.connect(lambda _error: loop.quit())
    QTimer.singleShot(timeout_ms, loop, loop.quit)
    socket.connectToServer(server_name(path))
    if socket.state() != QtNetwork.QLocalSocket.LocalSocketState.UnconnectedState:
        loop.exec()
    socket.abort()
    return _OK in answer


def bring_forward(window: QWidget) -> None:
    """Show ``window`` on top (un-minimised); the window manager may only flash it."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


def ask_what_to_do(error: ClueStudioError, parent: QWidget | None = None) -> str:
    """The dialog: :data:`SHOW_RUNNING`, :data:`READ_ONLY`, :data:`OTHER` or :data:`QUIT`."""
    box = QMessageBox(parent)
    box.setObjectName("workspaceInUse")
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("Workspace in use")
    box.setText("This workspace is open in another ClueStudio window.")
    box.setInformativeText(
        f"{error}.\n\nOnly one window can write to a workspace. You can show that window, "
        "open the workspace here read-only (to look, not to save), or open another one.")
    choices: dict[QPushButton, str] = {}
    for choice, text, role in (
            (SHOW_RUNNING, "Show the open window", QMessageBox.ButtonRole.AcceptRole),
            (READ_ONLY, "Open read-only", QMessageBox.ButtonRole.AcceptRole),
            (OTHER, "Open another workspace…", QMessageBox.ButtonRole.AcceptRole),
            (QUIT, "Quit", QMessageBox.ButtonRole.RejectRole)):
        button = box.addButton(text, role)
        button.setObjectName(f"choice-{choice}")
        choices[button] = choice
    box.setDefaultButton(next(b for b, c in choices.items() if c == SHOW_RUNNING))
    box.exec()
    clicked = box.clickedButton()  # None: the box was closed without a choice
    return next((choice for button, choice in choices.items() if button is clicked), QUIT)


def resolve_in_use(error: ClueStudioError, *, pick_other: Callable[[], Path | None],
                   parent: QWidget | None = None,
                   ask: Callable[[ClueStudioError, QWidget | None], str] = ask_what_to_do,
                   ) -> Workspace | None:
    """What a window opens instead of a workspace in use: the same one read-only, another
    one picked by the user (asked again should that be in use too), or None when the
    running window came forward or the user quit."""
    from cluestudio.core.workspace import WorkspaceInUse, open_workspace

    while True:
        path = getattr(error, "path", None)
        choice = ask(error, parent)
        if choice == SHOW_RUNNING:
            if path is not None and ask_running_window(path):
                return None
            QMessageBox.information(parent, "Workspace in use",
                                    "The other window did not answer (it may belong to an "
                                    "older ClueStudio or another user). Choose again.")
            continue
        try:
            if choice == READ_ONLY and path is not None:
                return open_workspace(path, create=False, readonly=True)
            if choice == OTHER and (other := pick_other()) is not None:
                return open_workspace(other, create=False)
        except WorkspaceInUse as again:
            error = again
            continue
        except ClueStudioError as failed:
            QMessageBox.warning(parent, "Open workspace", str(failed))
            continue
        if choice == QUIT:
            return None
