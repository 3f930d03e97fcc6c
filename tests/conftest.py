"""Test-wide isolation: no display, no real user dirs, and nothing left running afterwards."""

from __future__ import annotations

import os
import threading

import pytest

# Before any Qt import: tests never need a display (STYLE practice 9).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# No model hub is reachable; make transformers fail fast instead of retrying the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point every data, config and cache dir at a fresh temp dir, HOME included."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("CLUESTUDIO_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("CLUESTUDIO_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("CLUESTUDIO_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("CLUESTUDIO_LOG_DIR", str(home / "log"))
    yield home
    # `cluestudio` run in-process installs a log file handler on the root logger; drop it so
    # the next test logs into its own folder.
    from cluestudio.logging_setup import teardown_logging

    teardown_logging()


# Threads that libraries start once per process and keep on purpose.
_ALLOWED_THREAD_PREFIXES = ("pydevd", "ThreadPoolExecutor", "QDBus", "asyncio")


@pytest.fixture(autouse=True)
def _no_leaked_threads(request: pytest.FixtureRequest):
    """Fail a test that leaves a non-daemon thread of ours running (STYLE practice 8)."""
    before = set(threading.enumerate())
    yield
    leaked = [
        t for t in threading.enumerate()
        if t not in before and t.is_alive() and not t.daemon
        and not t.name.startswith(_ALLOWED_THREAD_PREFIXES)
    ]
    for thread in leaked:
        thread.join(timeout=5)
    still = [t.name for t in leaked if t.is_alive()]
    assert not still, f"test left threads running: {still}"


@pytest.fixture(autouse=True)
def _no_leaked_gui():
    """Fail a GUI test that leaves a job worker running or a window open."""
    yield
    import sys

    worker = sys.modules.get("cluestudio.gui.worker")
    if worker is None:
        return
    from cluestudio.gui.qt import QApplication

    assert not worker.running_workers(), f"job workers left running: {worker.running_workers()}"
    app = QApplication.instance()
    if app is not None:
        app.processEvents()
        open_windows = [w.windowTitle() or type(w).__name__
                        for w in app.topLevelWidgets() if w.isVisible()]
        assert not open_windows, f"windows left open: {open_windows}"


@pytest.fixture
def session(qtbot):
    """One TA at one workbench window (tests/test_gui_stories.py's Session), closed after."""
    from test_gui_stories import Session

    opened = Session(qtbot)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def window(qtbot):
    """A workbench window with default settings and no workspace open, closed after."""
    from cluestudio.core.settings import Settings
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

    runner = JobRunner()
    main = MainWindow(runner, Settings())
    main.ask_before_discard = False
    qtbot.addWidget(main)
    try:
        yield main
    finally:
        main.close()
        runner.shutdown()


@pytest.fixture(scope="module")
def sample_ws(tmp_path_factory: pytest.TempPathFactory):
    """The sample course imported into a fresh workspace, once per test module (tests copy
    it before they change it)."""
    from pathlib import Path

    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import import_path, open_workspace

    path = tmp_path_factory.mktemp("ws") / "sample.sqlite"
    with open_workspace(path) as ws:
        run_job(import_path(ws, Path(__file__).resolve().parents[1] / "annotations" / "sample"))
    return path
