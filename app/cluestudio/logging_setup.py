"""Logging to a rotating file in the user's log folder, so staff can send it with a bug report.

Qt-free and cheap: the ``cluestudio`` command calls :func:`setup_logging` once per run, after
parsing its arguments (so ``--help`` and ``--version`` write nothing). The folder is
``platformdirs.user_log_dir("ClueStudio")`` - ``~/.local/state/ClueStudio/log`` on Linux,
``~/Library/Logs/ClueStudio`` on macOS, ``%LOCALAPPDATA%\\ClueStudio\\Logs`` on Windows -
or ``CLUESTUDIO_LOG_DIR`` when set (tests, portable installs). The GUI opens it from
Help → Open log folder. A log folder that cannot be written never stops the program.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path
from types import TracebackType

from cluestudio.core.redact import RedactingFilter

LOG_DIR_ENV = "CLUESTUDIO_LOG_DIR"
LOG_FILE_NAME = "cluestudio.log"
MAX_BYTES = 1_000_000  # per file; with BACKUP_COUNT old files, at most ~4 MB in all
BACKUP_COUNT = 3
FORMAT = "%(asctime)s %(process)d %(threadName)s %(levelname)s %(name)s: %(message)s"

_HANDLER_NAME = "cluestudio-file"
_CONSOLE_NAME = "cluestudio-stderr"


class _StderrWarnings(logging.StreamHandler):
    """Warnings and errors to whatever ``sys.stderr`` is now, message only.

    This is what Python's last-resort handler did before we installed a file handler (it
    only acts while the root logger has none), so the console output does not change.
    """

    def __init__(self) -> None:
        logging.Handler.__init__(self, logging.WARNING)

    @property
    def stream(self) -> object:
        return sys.stderr

    def emit(self, record: logging.LogRecord) -> None:
        if sys.stderr is not None:  # a windowed app on Windows has no stderr
            super().emit(record)


def log_dir() -> Path:
    """The folder the log files go to (it may not exist yet)."""
    override = os.environ.get(LOG_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_log_dir("ClueStudio", appauthor=False))


def log_file() -> Path:
    return log_dir() / LOG_FILE_NAME


def _installed_handler(root: logging.Logger) -> logging.handlers.RotatingFileHandler | None:
    for handler in root.handlers:
        if handler.get_name() == _HANDLER_NAME and isinstance(
                handler, logging.handlers.RotatingFileHandler):
            return handler
    return None


def setup_logging(level: int = logging.INFO, directory: Path | None = None,
                  *, max_bytes: int = MAX_BYTES, backup_count: int = BACKUP_COUNT,
                  ) -> Path | None:
    """Send log records of ``level`` and above to a rotating file; return its path.

    Idempotent (a second call returns the file already in use). Returns None, and logs
    nowhere, when the folder cannot be created or written (read-only home, full disk).
    Uncaught exceptions are written to the log too, then handled as before.
    """
    root = logging.getLogger()
    existing = _installed_handler(root)
    if existing is not None:
        return Path(existing.baseFilename)
    folder = directory if directory is not None else log_dir()
    path = folder / LOG_FILE_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8")
    except OSError:
        return None
    handler.set_name(_HANDLER_NAME)
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(FORMAT))
    # An endpoint may echo the API key in its error text: no handler of ours writes it.
    handler.addFilter(RedactingFilter())
    root.addHandler(handler)
    console = _StderrWarnings()
    console.set_name(_CONSOLE_NAME)
    console.addFilter(RedactingFilter())
    root.addHandler(console)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    _log_uncaught_exceptions()
    return path


def teardown_logging() -> None:
    """Remove and close the file handler (tests; a later setup_logging starts afresh)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() in (_HANDLER_NAME, _CONSOLE_NAME):
            root.removeHandler(handler)
            handler.close()


def _log_uncaught_exceptions() -> None:
    previous = sys.excepthook
    if getattr(previous, "_cluestudio_logs", False):
        return

    def hook(kind: type[BaseException], error: BaseException,
             traceback: TracebackType | None) -> None:
        if not issubclass(kind, KeyboardInterrupt):
            logging.getLogger("cluestudio").critical(
                "uncaught exception", exc_info=(kind, error, traceback))
        previous(kind, error, traceback)

    hook._cluestudio_logs = True  # type: ignore[attr-defined]
    sys.excepthook = hook
