"""Opening a workspace the user says already exists (File → Open, ``--workspace``).

The core's :func:`~cluestudio.core.workspace.open_workspace` treats an empty file as a new
workspace only when creating one (File → New on a file the save dialog made); with
``create=False`` it refuses it, so a zero-byte file the TA picked by mistake (a failed scan,
an image placeholder) never silently becomes an SQLite database. Here a pipe or device is
refused too, before it is opened.
"""

from __future__ import annotations

from pathlib import Path

from cluestudio.core.workspace import Workspace, WorkspaceError, open_workspace


def open_existing_workspace(path: Path, *, readonly: bool = False) -> Workspace:
    """Open the workspace at ``path``; :class:`WorkspaceError` if it is missing or empty,
    a SourceError for a pipe or device (opening one would hang)."""
    from cluestudio.app.input_files import refuse_special_files

    refuse_special_files([path])
    if path.is_file() and path.stat().st_size == 0:
        raise WorkspaceError(f"{path}: an empty file, not a workspace")
    return open_workspace(path, create=False, readonly=readonly)
