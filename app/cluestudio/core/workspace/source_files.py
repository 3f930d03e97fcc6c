"""Reading the files of a folder someone else prepared (a course folder, a JSONL's images).

An imported folder is untrusted (DESIGN §8): a ``reference.puml`` that is a symbolic link to
``/etc/passwd``, a task folder linked to the user's home, or a JSONL record naming
``/home/me/secret.png`` would otherwise be read into the workspace and from there into packs
sent to other graders. So every read goes through a :class:`SourceFolder`, which

- reads nothing whose real path (links resolved) lies outside the folder, unless the user
  asked for it (``allow_outside``, the CLI's ``--allow-outside``);
- reads only regular files (a FIFO or a device would block or never end);
- reads at most a size limit, and says so before reading a larger file whole.

Problems go into the import's :class:`Report` with the file's name, so an import that meets
one fails as a whole and writes nothing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cluestudio.core.workspace.report import Report

# A class diagram, a requirement or a small TOML/JSON file. Issue 15 sets the parser's own
# default input limit to the same 1 MiB.
MAX_TEXT_BYTES = 1 << 20
# An id or a person's name (task, submission, grader, reviewer, author). Both limits hold
# for every way in: imports, packs and the editor (issue 25).
MAX_NAME_BYTES = 1024
# ratings.csv of a large course: ~100 bytes a row, so ~300,000 ratings.
MAX_TABLE_BYTES = 32 << 20
# One JSONL record: a requirement, a reference and a candidate.
MAX_RECORD_BYTES = 4 << 20
_CHUNK = 1 << 16


def _kib(size: int) -> str:
    return f"{size / 1024:,.0f} KB" if size < (1 << 20) else f"{size / (1 << 20):,.1f} MB"


class SourceFolder:
    """Guarded reads below ``root``; see the module docstring."""

    def __init__(self, root: Path, *, allow_outside: bool = False) -> None:
        self.root = root
        self.real_root = root.resolve()
        self.allow_outside = allow_outside

    def inside(self, path: Path) -> bool:
        """Whether ``path``'s real location (every link resolved) is in the folder."""
        try:
            return path.resolve().is_relative_to(self.real_root)
        except (OSError, RuntimeError):  # a link loop resolves to nowhere
            return False

    def allowed(self, path: Path, report: Report) -> bool:
        """Whether ``path`` may be read or listed; reports why not."""
        if self.allow_outside or self.inside(path):
            return True
        target = path.resolve() if path.is_symlink() or path.exists() else path
        report.error(str(path), f"points outside the imported folder (to {target}); not read "
                                "(pass --allow-outside to import it anyway)")
        return False

    def folders(self, parent: Path, report: Report) -> list[Path]:
        """The sub-folders of ``parent`` that may be read, sorted; others reported."""
        out = []
        for path in sorted(parent.iterdir()):
            if path.is_dir() and self.allowed(path, report):
                out.append(path)
        return out

    def read_bytes(self, path: Path, report: Report, limit: int) -> bytes | None:
        """At most ``limit`` bytes of a regular file in the folder; None (and an error) else."""
        if not self.allowed(path, report):
            return None
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(path, flags)
        except OSError as error:
            report.error(str(path), f"cannot read: {error.strerror or error}")
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            report.error(str(path), "not a regular file (a folder, device, pipe or socket); "
                                    "not read")
            return None
        with os.fdopen(fd, "rb") as handle:
            if info.st_size > limit:
                report.error(str(path), f"file is {_kib(info.st_size)}, over the {_kib(limit)} "
                                        "limit; not read")
                return None
            data = bytearray()
            try:
                while len(data) <= limit:
                    chunk = handle.read(min(_CHUNK, limit + 1 - len(data)))
                    if not chunk:
                        break
                    data.extend(chunk)
            except OSError as error:
                report.error(str(path), f"cannot read: {error.strerror or error}")
                return None
        if len(data) > limit:  # it grew while we read it
            report.error(str(path), f"file is over the {_kib(limit)} limit; not read")
            return None
        return bytes(data)

    def read_text(self, path: Path, report: Report, limit: int = MAX_TEXT_BYTES) -> str | None:
        """UTF-8 text (a BOM is dropped) of a file in the folder; None (and an error) else."""
        data = self.read_bytes(path, report, limit)
        if data is None:
            return None
        return decode_text(data, str(path), report)


def decode_text(data: bytes, source: str, report: Report, first_line: int = 1) -> str | None:
    """``data`` as UTF-8 (BOM dropped); an error naming the line of the first bad byte
    (``first_line`` is the line ``data`` starts on)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = first_line + data[: error.start].count(b"\n")
        report.error(source, f"not UTF-8 text (byte {error.start}); save it as UTF-8", line)
        return None


def size_over(text: str, limit: int = MAX_TEXT_BYTES) -> int | None:
    """The size of ``text`` in UTF-8 bytes when it is over ``limit``, else None (encoded
    only when it could be over: a character is at most 4 bytes)."""
    if len(text) * 4 <= limit:
        return None
    size = len(text.encode("utf-8", "replace"))
    return size if size > limit else None


def field_problems(**fields: tuple[str, int]) -> list[str]:
    """"comment is 3,000,000 bytes, over the 1,048,576-byte limit" for each field
    (``name=(text, limit)``) over its limit."""
    return [f"{name} is {size:,} bytes, over the {limit:,}-byte limit"
            for name, (text, limit) in fields.items()
            if (size := size_over(text, limit)) is not None]


def check_text_size(text: str, source: str, report: Report, line: int | None = None,
                    limit: int = MAX_TEXT_BYTES) -> bool:
    """Whether a diagram or requirement text given inline (a JSONL field, a pack record) is
    within ``limit``; reports it when not."""
    size = len(text.encode("utf-8", "replace"))
    if size <= limit:
        return True
    report.error(source, f"text is {_kib(size)}, over the {_kib(limit)} limit", line)
    return False
