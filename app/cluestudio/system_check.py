"""Before the window opens on Linux: are the system libraries Qt's X11 plugin needs there?

Qt's wheel ships Qt itself but not the X11/xcb client libraries a desktop normally has; a
plain desktop may lack one (Qt >= 6.5 needs ``libxcb-cursor0``) and Qt then aborts with
"Could not load the Qt platform plugin xcb". This asks the dynamic linker (``ldd``) what the
xcb plugin cannot find and says exactly which packages to install, per distribution. Qt is
not imported: loading it is what would fail.

``python -m cluestudio.system_check`` (run by ``make run``) exits 1 with that advice.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# Library name (without ".so.N") -> package on Debian/Ubuntu, Fedora/RHEL, Arch, openSUSE.
PACKAGES: dict[str, tuple[str, str, str, str]] = {
    "libxcb-cursor": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor",
                      "libxcb-cursor0"),
    "libxcb-icccm": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm", "libxcb-icccm4"),
    "libxcb-util": ("libxcb-util1", "xcb-util", "xcb-util", "libxcb-util1"),
    "libxcb-image": ("libxcb-image0", "xcb-util-image", "xcb-util-image", "libxcb-image0"),
    "libxcb-keysyms": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms",
                       "libxcb-keysyms1"),
    "libxcb-render-util": ("libxcb-render-util0", "xcb-util-renderutil",
                           "xcb-util-renderutil", "libxcb-render-util0"),
    "libxcb-randr": ("libxcb-randr0", "libxcb", "libxcb", "libxcb-randr0"),
    "libxcb-render": ("libxcb-render0", "libxcb", "libxcb", "libxcb-render0"),
    "libxcb-shape": ("libxcb-shape0", "libxcb", "libxcb", "libxcb-shape0"),
    "libxcb-shm": ("libxcb-shm0", "libxcb", "libxcb", "libxcb-shm0"),
    "libxcb-sync": ("libxcb-sync1", "libxcb", "libxcb", "libxcb-sync1"),
    "libxcb-xfixes": ("libxcb-xfixes0", "libxcb", "libxcb", "libxcb-xfixes0"),
    "libxcb-xkb": ("libxcb-xkb1", "libxcb", "libxcb", "libxcb-xkb1"),
    "libxcb": ("libxcb1", "libxcb", "libxcb", "libxcb1"),
    "libxkbcommon-x11": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11",
                         "libxkbcommon-x11-0"),
    "libxkbcommon": ("libxkbcommon0", "libxkbcommon", "libxkbcommon", "libxkbcommon0"),
    "libX11-xcb": ("libx11-xcb1", "libX11-xcb", "libx11", "libX11-xcb1"),
    "libX11": ("libx11-6", "libX11", "libx11", "libX11-6"),
    "libGL": ("libgl1", "mesa-libGL", "libglvnd", "libGL1"),
    "libEGL": ("libegl1", "mesa-libEGL", "libglvnd", "libEGL1"),
    "libOpenGL": ("libopengl0", "libglvnd-opengl", "libglvnd", "libOpenGL0"),
    "libfontconfig": ("libfontconfig1", "fontconfig", "fontconfig", "libfontconfig1"),
    "libfreetype": ("libfreetype6", "freetype", "freetype2", "libfreetype6"),
    "libdbus-1": ("libdbus-1-3", "dbus-libs", "dbus", "libdbus-1-3"),
    "libglib-2.0": ("libglib2.0-0", "glib2", "glib2", "libglib-2_0-0"),
    "libgthread-2.0": ("libglib2.0-0", "glib2", "glib2", "libgthread-2_0-0"),
}
INSTALLERS = {"debian": "sudo apt install", "fedora": "sudo dnf install",
              "arch": "sudo pacman -S", "suse": "sudo zypper install"}
_COLUMN = {"debian": 0, "fedora": 1, "arch": 2, "suse": 3}
# The files whose dependencies decide whether the window can open on X11.
QT_FILES = ("Qt/plugins/platforms/libqxcb.so", "Qt/lib/libQt6Widgets.so.6")
_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.MULTILINE)


@dataclass(frozen=True)
class Finding:
    missing: tuple[str, ...]  # library file names the linker cannot find
    needed_by: str
    problem: str = ""  # why the check itself could not run (then ``missing`` is empty)
    fatal: bool = False  # the problem stops the window (not merely the check)


def missing_from_ldd(output: str) -> list[str]:
    """The libraries ``ldd`` printed as "not found", in its order, once each."""
    return list(dict.fromkeys(_NOT_FOUND.findall(output)))


def library_stem(soname: str) -> str:
    """``libxcb-cursor.so.0`` -> ``libxcb-cursor``."""
    return soname.split(".so", 1)[0]


def distribution(os_release: str | None = None) -> str:
    """debian, fedora, arch or suse (from /etc/os-release's ID and ID_LIKE); "" if other."""
    if os_release is None:
        try:
            os_release = Path("/etc/os-release").read_text(encoding="utf-8")
        except OSError:
            return ""
    ids: list[str] = []
    for line in os_release.splitlines():
        key, _, value = line.partition("=")
        if key in ("ID", "ID_LIKE"):
            ids += value.strip().strip('"').lower().split()
    for family, members in (("debian", ("debian", "ubuntu")),
                            ("fedora", ("fedora", "rhel", "centos", "rocky", "almalinux")),
                            ("arch", ("arch", "manjaro", "endeavouros")),
                            ("suse", ("suse", "opensuse", "opensuse-leap",
                                      "opensuse-tumbleweed", "sles"))):
        if any(i in members for i in ids):
            return family
    return ""


def install_advice(missing: list[str], family: str) -> str:
    """The command that installs what is missing (one line per distribution if unknown)."""
    def packages(column: int) -> list[str]:
        names = [PACKAGES[library_stem(m)][column] for m in missing
                 if library_stem(m) in PACKAGES]
        return list(dict.fromkeys(names))

    unknown = [m for m in missing if library_stem(m) not in PACKAGES]
    lines = []
    families = [family] if family in _COLUMN else list(_COLUMN)
    for name in families:
        wanted = packages(_COLUMN[name])
        if wanted:
            label = "" if family in _COLUMN else f"{name}: "
            lines.append(f"  {label}{INSTALLERS[name]} {' '.join(wanted)}")
    if unknown:
        lines.append(f"  and the package that provides {', '.join(unknown)} "
                     f"(apt-file search / dnf provides)")
    return "\n".join(lines)


def readme_markdown() -> str:
    """The README's per-distribution list of what Qt needs (tests/test_system_check.py keeps
    the two equal)."""
    names = {"debian": "Debian, Ubuntu", "fedora": "Fedora, RHEL", "arch": "Arch",
             "suse": "openSUSE"}
    lines = ["```bash"]
    for family, column in _COLUMN.items():
        wanted = " ".join(dict.fromkeys(p[column] for p in PACKAGES.values()))
        lines.append(f"# {names.get(family, family)}")
        lines.append(f"{INSTALLERS[family]} {wanted}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def qt_directory() -> Path | None:
    """PySide6's folder, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def check_file(path: Path, ldd: str = "ldd") -> Finding:
    if not path.is_file():
        return Finding((), path.name, f"{path} is missing: reinstall PySide6-Essentials",
                       fatal=True)
    try:
        done = subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Finding((), path.name, f"could not run {ldd}: {error}")
    return Finding(tuple(missing_from_ldd(done.stdout + done.stderr)), path.name)


def check_qt(root: Path | None = None, ldd: str = "ldd") -> list[Finding]:
    """What each Qt file the window needs is missing (Linux only; else nothing)."""
    if not sys.platform.startswith("linux"):
        return []
    root = root or qt_directory()
    if root is None:
        return [Finding((), "PySide6", "PySide6 is not installed: run `make install`",
                        fatal=True)]
    return [check_file(root / name, ldd) for name in QT_FILES]


def report(findings: list[Finding], family: str | None = None) -> str:
    """Advice for the user, or "" when the window can open."""
    missing = list(dict.fromkeys(m for f in findings for m in f.missing))
    problems = [f.problem for f in findings if f.problem]
    if not missing and not problems:
        return ""
    lines = []
    if missing:
        needed_by = ", ".join(dict.fromkeys(f.needed_by for f in findings if f.missing))
        lines += ["ClueStudio's window cannot open: Qt's X11 plugin needs system libraries "
                  "that are not installed:",
                  *(f"  {m}" for m in missing), f"(needed by {needed_by}). Install them with:",
                  install_advice(missing, distribution() if family is None else family)]
    lines += problems
    return "\n".join(lines)


def main() -> int:
    findings = check_qt()
    text = report(findings)
    if text:
        print(text, file=sys.stderr)
    return 1 if any(f.missing or f.fatal for f in findings) else 0


if __name__ == "__main__":
    raise SystemExit(main())
