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

import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB = 0, 1, 5

# Where linked (not dlopened) libraries sit in a PyInstaller one-folder bundle on Linux.
LINKED_LIBRARY_DIRS = ("", "PySide6/Qt/lib")


def elf_needed(path: str | Path) -> list[str] | None:
    """The DT_NEEDED names of an ELF file; None if it is not an ELF file (or unreadable)."""
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
    loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
    dynamic: tuple[int, int] | None = None
    for index in range(phnum):
        at = phoff + index * phentsize
        if wide:
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(
                order + "IIQQQQ", data, at)
        else:
            p_type, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(
                order + "IIIII", data, at)
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        return []
    entry = struct.calcsize(order + word + word)
    needed_offsets: list[int] = []
    strtab_address = None
    for at in range(dynamic[0], dynamic[0] + dynamic[1] - entry + 1, entry):
        tag, value = struct.unpack_from(order + word + word, data, at)
        if tag == _DT_NULL:
            break
        if tag == _DT_NEEDED:
            needed_offsets.append(value)
        elif tag == _DT_STRTAB:
            strtab_address = value
    if strtab_address is None:
        return []
    strtab = next((offset + strtab_address - vaddr for vaddr, offset, size in loads
                   if vaddr <= strtab_address < vaddr + size), None)
    if strtab is None:
        return None
    names = []
    for offset in needed_offsets:
        start = strtab + offset
        end = data.find(b"\0", start)
        names.append(data[start:end].decode("utf-8", "replace"))
    return names


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
