"""packaging/bundle_trim.py: which shared libraries the installer spec prunes, on real ELF files
(numpy's extension module and the OpenBLAS it links, as wheels ship them)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bundle_trim", ROOT / "packaging" / "bundle_trim.py")
assert _spec and _spec.loader
bundle_trim = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bundle_trim)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF (Linux) only")

NUMPY = Path(numpy.__file__).parent
EXTENSION = next((NUMPY / "_core").glob("_multiarray_umath.*.so"))


def _vendored_library() -> Path:
    """The library numpy's wheel vendors in numpy.libs and the extension links by name."""
    needed = bundle_trim.elf_needed(EXTENSION) or []
    found = [path for path in (NUMPY.parent / "numpy.libs").glob("*.so*") if path.name in needed]
    if not found:
        pytest.skip("this numpy links no vendored library (not a manylinux wheel)")
    return found[0]


def test_elf_needed_reads_the_dynamic_section() -> None:
    needed = bundle_trim.elf_needed(EXTENSION)
    assert needed and any(name.startswith("libc.so") for name in needed)
    assert _vendored_library().name in needed
    assert bundle_trim.elf_needed(ROOT / "Makefile") is None  # not ELF
    assert bundle_trim.elf_needed(ROOT / "no-such-file.so") is None


def test_a_library_goes_with_the_last_binary_that_linked_it() -> None:
    blas = _vendored_library()
    extension = ("numpy/_core/" + EXTENSION.name, str(EXTENSION), "EXTENSION")
    library = (blas.name, str(blas), "BINARY")
    # A top-level library nothing links (as the GTK theme's libraries once the plugin is out).
    stray = ("libstray.so.1", str(blas), "BINARY")
    kept, dropped = bundle_trim.prune_unlinked([extension, library, stray])
    assert kept == [extension, library] and dropped == ["libstray.so.1"]
    kept, dropped = bundle_trim.prune_unlinked([library, stray])
    assert kept == [] and sorted(dropped) == sorted([blas.name, "libstray.so.1"])
    # Named in keep (the Python library the bootloader opens): never dropped.
    kept, _ = bundle_trim.prune_unlinked([library], keep=[blas.name])
    assert kept == [library]


def test_extension_modules_plugins_and_dlopened_libraries_are_never_candidates() -> None:
    blas = _vendored_library()
    entries = [("numpy/_core/" + EXTENSION.name, str(EXTENSION), "EXTENSION"),
               ("PySide6/Qt/plugins/platforms/libqxcb.so", str(blas), "BINARY"),
               ("onnxruntime/capi/libonnxruntime_providers_shared.so", str(blas), "BINARY"),
               ("PySide6/QtCore.abi3.so", str(blas), "EXTENSION")]
    kept, dropped = bundle_trim.prune_unlinked(entries)
    assert kept == entries and dropped == []
