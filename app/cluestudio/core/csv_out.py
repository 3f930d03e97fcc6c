"""The one place hand-back tables (gradebooks, rosters) are written as CSV.

Written to a temporary file beside the target and renamed, so an LMS or a spreadsheet never
reads half a file. Kept in one function so that cell neutralising (formula injection, issue
25) applies to every hand-back table at once.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]], *,
              quote_all: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL)
            writer.writerow(list(header))
            for row in rows:
                writer.writerow(["" if v is None else v for v in row])
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
