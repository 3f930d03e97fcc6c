"""Entry point of the frozen ClueStudio app (PyInstaller runs this file, see build_installer.spec).

Same as ``cluestudio`` on the command line, except that no arguments open the workbench:
double-clicking the executable (or the desktop entry) should show a window, not a usage text.
"""

from __future__ import annotations

import multiprocessing
import sys


def main() -> int:
    from cluestudio.cli import main as cli_main

    return cli_main(sys.argv[1:] or ["gui"])


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
