"""Where the project's data folders (``resources/``, ``annotations/``) are at run time.

They live at the repository root, beside ``app/``; a frozen installer puts them next to the
executable, and a wheel install copies them to ``<prefix>/share/cluestudio``.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def data_root() -> Path:
    candidates = []
    if os.environ.get("CLUESTUDIO_ROOT"):
        candidates.append(Path(os.environ["CLUESTUDIO_ROOT"]))
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        candidates.append(Path(frozen))
    candidates.append(Path(__file__).resolve().parents[2])  # source checkout / editable
    candidates.append(Path(sys.prefix) / "share" / "cluestudio")
    for root in candidates:
        if (root / "resources").is_dir():
            return root
    return candidates[-1]


def resources_dir() -> Path:
    return data_root() / "resources"


def annotations_dir() -> Path:
    return data_root() / "annotations"
