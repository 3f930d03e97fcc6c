"""The one place hand-back tables (gradebooks, rosters) are written as CSV.

Through the shared safe writer (core/safe_output.py): a temporary file beside the target,
renamed, so an LMS or a spreadsheet never reads half a file and a planted symlink is replaced,
not written through; and with every cell neutralised (a cell starting with ``=``, ``+``,
``-``, ``@``, tab or CR gets a leading ``'``; numbers stay numbers: issue 25).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from cluestudio.core.safe_output import atomic_open, csv_writer


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]], *,
              quote_all: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as handle:
        writer = csv_writer(handle, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL)
        writer.writerow(list(header))
        for row in rows:
            writer.writerow(["" if v is None else v for v in row])
    return path
