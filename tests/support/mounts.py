"""A real full disk for tests: a small tmpfs mounted inside a user and mount namespace."""

from __future__ import annotations

import shutil
import subprocess
import sys


def tmpfs_runner() -> list[str] | None:
    """The command prefix that lets ``mount -t tmpfs`` run unprivileged (``unshare -rm``),
    or None where this system cannot (not Linux, no unshare, namespaces disabled)."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return None
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs tmpfs /mnt"],
                           capture_output=True, timeout=30, check=False)
    return ["unshare", "-rm"] if probe.returncode == 0 else None
