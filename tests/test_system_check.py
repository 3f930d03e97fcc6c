"""Story 14 of issue 17: on a plain Linux desktop Qt aborts ("Could not load the Qt platform
plugin xcb") when a system library is missing; `make run` and `cluestudio gui` must say
exactly what to install instead."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cluestudio.system_check import (
    Finding,
    check_file,
    check_qt,
    distribution,
    install_advice,
    missing_from_ldd,
    qt_directory,
    report,
)

LDD_OUTPUT = """\
	linux-vdso.so.1 (0x00007ffd)
	libQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f1)
	libxcb-cursor.so.0 => not found
	libxcb-icccm.so.4 => not found
	libxkbcommon-x11.so.0 => /lib/x86_64-linux-gnu/libxkbcommon-x11.so.0 (0x00007f2)
	libxcb-cursor.so.0 => not found
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux check")


def test_story14_missing_libraries_are_read_from_ldd_once_each() -> None:
    assert missing_from_ldd(LDD_OUTPUT) == ["libxcb-cursor.so.0", "libxcb-icccm.so.4"]


@pytest.mark.parametrize(("os_release", "family", "command"), [
    ('ID=ubuntu\nID_LIKE=debian\n', "debian", "sudo apt install libxcb-cursor0 libxcb-icccm4"),
    ('ID="fedora"\n', "fedora", "sudo dnf install xcb-util-cursor xcb-util-wm"),
    ('ID=manjaro\nID_LIKE=arch\n', "arch", "sudo pacman -S xcb-util-cursor xcb-util-wm"),
    ('ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n', "suse",
     "sudo zypper install libxcb-cursor0 libxcb-icccm4"),
])
def test_story14_advice_names_the_packages_of_each_distribution(os_release, family,
                                                                  command) -> None:
    assert distribution(os_release) == family
    assert install_advice(["libxcb-cursor.so.0", "libxcb-icccm.so.4"], family).strip() == command


def test_story14_an_unknown_distribution_gets_every_command_and_unknown_libraries_a_hint() -> None:
    advice = install_advice(["libxcb-cursor.so.0", "libweird.so.3"], "")
    assert "apt install libxcb-cursor0" in advice and "dnf install xcb-util-cursor" in advice
    assert "libweird.so.3" in advice


def _qt_plugin() -> Path:
    root = qt_directory()
    assert root is not None
    return root / "Qt" / "plugins" / "platforms" / "libqxcb.so"


@pytest.mark.skipif(shutil.which("ldd") is None, reason="no ldd")
def test_story14_a_real_plugin_with_a_missing_library_is_reported(tmp_path: Path) -> None:
    """The real xcb plugin, with one of its NEEDED names changed to a library no system has:
    the real dynamic linker reports it and the advice names the package to install."""
    data = _qt_plugin().read_bytes()
    assert b"libxcb-cursor.so.0\x00" in data
    broken = tmp_path / "libqxcb.so"
    broken.write_bytes(data.replace(b"libxcb-cursor.so.0\x00", b"libxcb-cursor.so.9\x00", 1))
    finding = check_file(broken)
    assert "libxcb-cursor.so.9" in finding.missing
    text = report([finding], "debian")
    assert "libxcb-cursor.so.9" in text and "sudo apt install libxcb-cursor0" in text


def test_story14_a_damaged_install_is_fatal_and_says_so(tmp_path: Path) -> None:
    findings = check_qt(tmp_path)  # a "PySide6" folder without Qt in it
    assert findings and all(f.fatal for f in findings)
    assert "reinstall PySide6-Essentials" in report(findings)


def test_story14_no_ldd_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    finding = check_file(_qt_plugin(), ldd=str(tmp_path / "no-such-ldd"))
    assert finding.problem and not finding.fatal and not finding.missing


def test_story14_this_machine_gets_advice_or_nothing() -> None:
    """Whatever this machine lacks, the check runs, exits 1 exactly when something is
    missing, and then names an install command."""
    done = subprocess.run([sys.executable, "-m", "cluestudio.system_check"],
                          capture_output=True, text=True, timeout=60, check=False)
    findings = check_qt()
    assert done.returncode == (1 if any(f.missing or f.fatal for f in findings) else 0)
    if done.returncode:
        assert "install" in done.stderr
    assert report([Finding((), "x")]) == ""


def test_story14_the_readme_lists_what_the_check_asks_for() -> None:
    from cluestudio.system_check import readme_markdown

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("<!-- syslibs:start")
    body = readme[readme.index("\n", start) + 1:readme.index("<!-- syslibs:end -->")]
    assert body == readme_markdown(), (
        "README's system-library list differs from system_check.PACKAGES; replace it with "
        "cluestudio.system_check.readme_markdown()")
