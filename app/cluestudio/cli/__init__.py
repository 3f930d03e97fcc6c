"""The ``cluestudio`` command. Each subcommand lives in a ``cmd_<name>.py`` module here.

A command module defines ``NAME``, ``HELP``, ``configure(parser)`` and ``run(args) -> int``,
and imports anything heavy inside ``run``. Every module is imported to list the commands, but
only the one that runs is configured (``cluestudio --help`` configures none), so what a
command's options need costs nothing to the others.
Errors ClueStudio raises on purpose (:class:`ClueStudioError`) are printed as one line
naming the file and line, with exit status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cluestudio import __version__

if TYPE_CHECKING:  # the rest is imported where it is used: `--version` needs none of it
    import argparse
    from pathlib import Path
    from types import ModuleType


def _command_modules() -> list[ModuleType]:
    import importlib

    modules = [importlib.import_module(f"{__name__}.{name}") for name in _command_names()]
    return sorted(modules, key=lambda m: m.NAME)


def _command_names() -> list[str]:
    """The ``cmd_*`` modules of this package: a listing of its folder, else (a frozen app
    keeps them in an archive) pkgutil's, which costs ~10 ms more (it imports inspect)."""
    import os

    names = set()
    for folder in __path__:
        try:
            with os.scandir(folder) as entries:
                names |= {entry.name.removesuffix(".py") for entry in entries
                          if entry.name.startswith("cmd_") and entry.name.endswith(".py")}
        except OSError:
            continue
    if not names:
        import pkgutil

        names = {info.name for info in pkgutil.iter_modules(__path__)
                 if info.name.startswith("cmd_")}
    return sorted(names)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command``, only that subcommand's options are set up.

    Every command is listed (with its one-line help) either way, but a command's
    ``configure`` may import what its choices need (``grades`` its export formats): doing
    that for every command made ``--help`` and each run pay for all of them (issue 28).
    """
    import argparse

    parser = argparse.ArgumentParser(
        prog="cluestudio",
        description="Review, grade and score UML class diagrams.",
    )
    parser.add_argument("--version", action="version", version=f"cluestudio {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        parser_of_command = sub.add_parser(module.NAME, help=module.HELP,
                                           description=module.HELP)
        if command is None or command == module.NAME:
            module.configure(parser_of_command)
        parser_of_command.set_defaults(_run=module.run)
    return parser


def chosen_command(argv: Sequence[str]) -> str:
    """The subcommand ``argv`` names: its first word that is not an option (the top level
    has no option that takes a value); "" when there is none (``--help``, no arguments)."""
    return next((word for word in argv if not word.startswith("-")), "")


def _workspace_argument(args: argparse.Namespace) -> Path | None:
    """The workspace file a command was given, to name it in a database error."""
    from pathlib import Path

    named = getattr(args, "workspace", None)
    if isinstance(named, Path):
        return named
    return next((value for value in vars(args).values() if isinstance(value, Path)
                 and value.suffix.lower() in (".sqlite", ".sqlite3", ".db")), None)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--version"]:
        # Answered before the commands are imported (issue 28: ≤ 100 ms, like `python -c`).
        print(f"cluestudio {__version__}")
        return 0
    command = chosen_command(words)
    if command != "gui":  # the window's worker process sees to its own
        from cluestudio.core.threads import single_threaded_blas

        single_threaded_blas()
    if getattr(sys, "frozen", False):
        import multiprocessing

        # In the frozen app, a worker process (the GUI's batch jobs) re-enters here: run it.
        multiprocessing.freeze_support()
    parser = build_parser(command)
    args = parser.parse_args(words)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 1
    # Imported once a command is to run: `--help` and usage errors need none of these.
    import logging
    import sqlite3

    from cluestudio.core.errors import ClueStudioError, describe_failure
    from cluestudio.core.redact import redact
    from cluestudio.logging_setup import setup_logging

    setup_logging()
    log = logging.getLogger("cluestudio")
    log.info("cluestudio %s %s (frozen: %s)", __version__, args.command,
             bool(getattr(sys, "frozen", False)))
    try:
        return int(args._run(args) or 0)
    except ClueStudioError as error:
        # INFO, not WARNING: the user sees the error once, below; the log file keeps it too.
        log.info("%s failed: %s", args.command, error)
        _tell(f"error: {redact(str(error))}")
        return 2
    except (OSError, sqlite3.DatabaseError, MemoryError) as error:
        # A full disk, a damaged workspace, an unreadable file: the world, not a bug.
        message = describe_failure(error, _workspace_argument(args))
        if message is None:
            raise
        log.info("%s failed: %s", args.command, message, exc_info=True)
        _tell(f"error: {redact(message)}")
        return 2
    except KeyboardInterrupt:
        _tell("interrupted")
        return 130


def _tell(message: str) -> None:
    """One line on stderr, if there is one: a launcher may have closed it (BrokenPipeError
    with a traceback, issue 24) or given none (pythonw)."""
    import contextlib
    import os

    try:
        print(message, file=sys.stderr, flush=True)
    except (OSError, AttributeError, ValueError):
        with contextlib.suppress(OSError, AttributeError, ValueError):
            # Python would flush the dead stream again at exit, with a traceback.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())


if __name__ == "__main__":
    sys.exit(main())
