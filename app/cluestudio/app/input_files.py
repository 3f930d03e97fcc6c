"""Paths a user gives where a file belongs (an image, a PlantUML, a workspace, a JSONL).

A named pipe, a device or a socket there would hang the reader: opening a pipe waits for a
writer that never comes, and /dev/zero never ends. The course importer refuses them while
it walks the folder; these are the checks for the paths typed or picked one by one (CLI
arguments, File → Open, File → Import JSONL).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def refuse_special_files(paths: Iterable[Path]) -> None:
    """A pipe, device or socket given where a file belongs is refused before it is opened:
    opening a pipe waits for a writer, and /dev/zero never ends (the importer refuses them
    the same way). Missing files are left to the reader, whose message names them."""
    import os
    import stat

    from cluestudio.core.errors import SourceError

    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise SourceError("not a regular file (a named pipe, device or socket)",
                              source=str(path))
