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


def _unstripped_extension() -> Path:
    """An extension module a wheel ships with its symbol table (kiwisolver, matplotlib's)."""
    kiwisolver = pytest.importorskip("kiwisolver")
    found = list(Path(kiwisolver.__file__).parent.glob("_cext*.so"))
    if not found:
        pytest.skip("kiwisolver has no compiled _cext module here")
    return found[0]


def test_strip_keeps_a_working_module_and_leaves_patched_ones_alone(tmp_path: Path) -> None:
    import importlib.machinery

    source = _unstripped_extension()
    module = tmp_path / "kiwisolver" / source.name
    module.parent.mkdir()
    module.write_bytes(source.read_bytes())
    patched = tmp_path / "numpy" / "_core" / EXTENSION.name  # RUNPATH $ORIGIN/../../numpy.libs
    patched.parent.mkdir(parents=True)
    patched.write_bytes(EXTENSION.read_bytes())
    saved, left = bundle_trim.strip_libraries(tmp_path)
    if saved == 0:
        pytest.skip("no strip here, or this kiwisolver build is already stripped")
    assert module.stat().st_size == source.stat().st_size - saved
    assert patched.read_bytes() == EXTENSION.read_bytes()
    assert left == ["numpy/_core/" + EXTENSION.name]
    # The stripped module still loads and works.
    loader = importlib.machinery.ExtensionFileLoader("kiwisolver._cext", str(module))
    spec = importlib.util.spec_from_file_location("kiwisolver._cext", module, loader=loader)
    assert spec
    stripped = importlib.util.module_from_spec(spec)
    loader.exec_module(stripped)
    assert stripped.Variable("x").name() == "x"


def test_a_strip_result_the_loader_would_refuse_is_not_kept(tmp_path: Path) -> None:
    source = _unstripped_extension()
    module = tmp_path / source.name
    module.write_bytes(source.read_bytes())
    # A `strip` that moves the second PT_LOAD's file offset off its alignment, as strip does
    # to some patchelf-edited files.
    fake = tmp_path / "bin" / "strip"
    fake.parent.mkdir()
    fake.write_text(f"""#!{sys.executable}
import struct, sys
source, target = sys.argv[-1], sys.argv[-2]
data = bytearray(open(source, "rb").read()[:-64])
phoff, = struct.unpack_from("<Q", data, 32)
entsize, count = struct.unpack_from("<HH", data, 54)
heads = [phoff + i * entsize for i in range(count)]
loads = [at for at in heads if struct.unpack_from("<I", data, at)[0] == 1]
offset, = struct.unpack_from("<Q", data, loads[1] + 8)
struct.pack_into("<Q", data, loads[1] + 8, offset + 16)
open(target, "wb").write(data)
""")
    fake.chmod(0o755)
    saved, left = bundle_trim.strip_libraries(tmp_path, strip=str(fake))
    assert (saved, left) == (0, [source.name])
    assert module.read_bytes() == source.read_bytes()
    assert not list(tmp_path.glob("*.stripped"))
