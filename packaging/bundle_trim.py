"""Prune shared libraries that nothing in the bundle loads any more (build_installer.spec).

PyInstaller collects, next to each binary, the system libraries it links against. When the
spec then drops a binary (a Qt plugin we do not want, say), the libraries only it needed stay
behind: the GTK theme plugin alone brings 31 of them (~20 MB of the build machine's GTK,
cairo, pango, ...). This module reads each ELF file's DT_NEEDED list (no external tool) and
drops the libraries no remaining binary names, repeatedly, until nothing changes.

Only libraries that are reached by linking are candidates: those PyInstaller put at the top
of the bundle and Qt's own libraries. Python extension modules, Qt plugins and libraries a
program opens by itself (dlopen) are never dropped.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 15, 29

# Where linked (not dlopened) libraries sit in a PyInstaller one-folder bundle on Linux.
LINKED_LIBRARY_DIRS = ("", "PySide6/Qt/lib")


class ElfInfo(NamedTuple):
    needed: list[str]  # DT_NEEDED
    runpath: str  # DT_RUNPATH or DT_RPATH ("" if none)
    loads: list[tuple[int, int, int, int]]  # PT_LOAD (vaddr, offset, filesz, align)


def elf_info(path: str | Path) -> ElfInfo | None:
    """What the dynamic loader reads of an ELF file; None if it is not one (or unreadable)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    wide = data[4] == 2
    order = "<" if data[5] == 1 else ">"
    word = "Q" if wide else "I"
    phoff, phentsize, phnum = (
        (struct.unpack_from(order + "Q", data, 32)[0], *struct.unpack_from(order + "HH", data, 54))
        if wide else
        (struct.unpack_from(order + "I", data, 28)[0], *struct.unpack_from(order + "HH", data, 42)))
    loads: list[tuple[int, int, int, int]] = []
    dynamic: tuple[int, int] | None = None
    for index in range(phnum):
        at = phoff + index * phentsize
        if wide:
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz, _memsz, p_align = (
                struct.unpack_from(order + "IIQQQQQQ", data, at))
        else:
            p_type, p_offset, p_vaddr, _paddr, p_filesz, _memsz, _flags, p_align = (
                struct.unpack_from(order + "IIIIIIII", data, at))
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz, p_align))
        elif p_type == _PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        return ElfInfo([], "", loads)
    entry = struct.calcsize(order + word + word)
    strings: dict[int, list[int]] = {_DT_NEEDED: [], _DT_RPATH: [], _DT_RUNPATH: []}
    strtab_address = None
    for at in range(dynamic[0], dynamic[0] + dynamic[1] - entry + 1, entry):
        tag, value = struct.unpack_from(order + word + word, data, at)
        if tag == _DT_NULL:
            break
        if tag in strings:
            strings[tag].append(value)
        elif tag == _DT_STRTAB:
            strtab_address = value
    strtab = next((offset + strtab_address - vaddr for vaddr, offset, size, _ in loads
                   if strtab_address is not None and vaddr <= strtab_address < vaddr + size), None)
    if strtab is None:
        return None if any(strings.values()) else ElfInfo([], "", loads)

    def text(offset: int) -> str:
        start = strtab + offset
        return data[start:data.find(b"\0", start)].decode("utf-8", "replace")

    runpath = [text(offset) for offset in strings[_DT_RUNPATH] or strings[_DT_RPATH]]
    return ElfInfo([text(offset) for offset in strings[_DT_NEEDED]], ":".join(runpath), loads)


def elf_needed(path: str | Path) -> list[str] | None:
    """The DT_NEEDED names of an ELF file; None if it is not an ELF file (or unreadable)."""
    info = elf_info(path)
    return None if info is None else info.needed


def _is_linked_library(dest: str, keep: Iterable[str]) -> bool:
    folder, _, name = dest.replace("\\", "/").rpartition("/")
    return (folder in LINKED_LIBRARY_DIRS and name.startswith("lib") and ".so" in name
            and ".cpython-" not in name and ".abi3." not in name and name not in keep)


def prune_unlinked(entries: Sequence[tuple[str, str, str]],
                   keep: Iterable[str] = ()) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Entries (PyInstaller TOC: dest, source, typecode) without the linked libraries that no
    remaining ELF file needs; and the dest names dropped. ``keep``: library names never
    dropped (the Python library, which the bootloader opens by itself)."""
    keep = set(keep)
    needs: dict[str, list[str]] = {}
    for dest, source, typecode in entries:
        if typecode != "SYMLINK":
            found = elf_needed(source)
            if found:
                needs[dest] = found
    alive = list(entries)
    dropped: list[str] = []
    while True:
        wanted = {name for dest, _source, _type in alive for name in needs.get(dest, ())}
        orphans = {dest for dest, _source, _type in alive
                   if _is_linked_library(dest, keep) and dest.rpartition("/")[2] not in wanted}
        if not orphans:
            return alive, dropped
        dropped += sorted(orphans)
        alive = [entry for entry in alive if entry[0] not in orphans]


def _loadable(info: ElfInfo | None) -> bool:
    """The check the dynamic loader makes of each PT_LOAD: its file offset and its address
    agree modulo its alignment (what ``strip`` breaks in some patchelf-edited files)."""
    return info is not None and all(
        align <= 1 or (vaddr - offset) % align == 0 for vaddr, offset, _, align in info.loads)


def strip_libraries(folder: str | Path, strip: str = "strip") -> tuple[int, list[str]]:
    """Strip the symbol tables of the shared libraries under ``folder``, in place (the dynamic
    symbols, which linking needs, stay). Returns the bytes saved and the files left as they
    were. Left alone: the libraries auditwheel vendored into a wheel's ``*.libs`` folder and
    the modules that find them there (RUNPATH ``$ORIGIN/...libs``): ``patchelf`` edited them,
    and ``strip`` can turn such a file into one the loader refuses ("ELF load command
    address/offset not page-aligned"). Every stripped file is checked the same way the loader
    checks it, and must name the same libraries; if not, the original is kept."""
    if shutil.which(strip) is None:
        return 0, []
    saved, kept = 0, []
    for path in sorted(Path(folder).rglob("*.so*")):
        if path.is_symlink() or not path.is_file():
            continue
        before = elf_info(path)
        if before is None:
            continue
        relative = path.relative_to(folder).as_posix()
        if (any(part.endswith(".libs") for part in path.relative_to(folder).parts[:-1])
                or ".libs" in before.runpath):
            kept.append(relative)
            continue
        stripped = path.with_name(path.name + ".stripped")
        result = subprocess.run([strip, "--strip-unneeded", "-o", str(stripped), str(path)],
                                capture_output=True, check=False)
        after = elf_info(stripped) if result.returncode == 0 else None
        if (after is None or not _loadable(after) or after.needed != before.needed
                or stripped.stat().st_size >= path.stat().st_size):
            stripped.unlink(missing_ok=True)
            kept.append(relative)
            continue
        saved += path.stat().st_size - stripped.stat().st_size
        os.chmod(stripped, path.stat().st_mode)
        os.replace(stripped, path)
    return saved, kept
