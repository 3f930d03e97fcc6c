"""What a cold command pays before its work (issue 28): `cluestudio --help` lists every
command without setting each one up (a command's options may import what its choices need);
CLUE's Hungarian solver comes without the rest of ``scipy.optimize``; scoring processes run
numpy on one OpenBLAS thread (its spinning helpers cost busy cores 5–10× the CPU)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cluestudio import cli

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cluestudio", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_help_lists_every_command_with_its_one_line_help() -> None:
    listed = _cli("--help")
    assert listed.returncode == 0, listed.stderr
    modules = cli._command_modules()
    on_disk = sorted(p.stem for p in (ROOT / "app" / "cluestudio" / "cli").glob("cmd_*.py"))
    assert sorted(m.__name__.rsplit(".", 1)[1] for m in modules) == on_disk
    text = " ".join(listed.stdout.split())  # argparse wraps long lines its own way
    for module in modules:
        assert f" {module.NAME} {' '.join(module.HELP.split())}" in text, module.NAME


def test_help_sets_up_no_command() -> None:
    """What a command's options need (the gradebook's formats) is not imported for --help."""
    code = ("import sys, contextlib, io\n"
            "from cluestudio.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        main(['--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('cluestudio.core'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert "cluestudio.core.gradebook" not in out
    assert not [m for m in out if m.startswith("cluestudio.core.workspace")], out


def test_a_command_gets_its_own_options_and_only_those_are_set_up() -> None:
    parser = cli.build_parser(cli.chosen_command(["grades", "course.sqlite", "-o", "g.csv"]))
    args = parser.parse_args(["grades", "course.sqlite", "--format", "canvas", "-o", "g.csv"])
    assert (args.command, args.format) == ("grades", "canvas")
    with pytest.raises(SystemExit):  # another command was listed but not set up
        parser.parse_args(["render", "a.puml", "-o", "a.svg"])
    helped = _cli("grades", "--help")
    assert helped.returncode == 0 and "moodle" in helped.stdout and "--output" in helped.stdout


@pytest.mark.parametrize(("argv", "command"), [
    (["--help"], ""), ([], ""), (["score", "a", "b"], "score"),
    (["--version"], ""), (["-h", "parse", "x"], "parse")])
def test_chosen_command_is_the_first_word_that_is_not_an_option(argv: list[str],
                                                                 command: str) -> None:
    assert cli.chosen_command(argv) == command


def test_clue_matching_needs_no_scipy_optimize_and_shares_its_solver() -> None:
    """CLUE's Hungarian solver is scipy's compiled one, loaded without ``scipy.optimize``'s
    0.4–0.9 s of linprog/linalg/special; a later ``import scipy.optimize`` shares it."""
    code = ("import sys, numpy as np\n"
            "from cluestudio.core.clue.optmatch import assign\n"
            "rows, cols = assign(np.array([[0.1, 0.9, 0.2], [0.8, 0.7, 0.1]]))\n"
            "print(rows.tolist(), cols.tolist(), 'scipy.optimize' in sys.modules)\n"
            "import scipy.optimize\n"
            "solver = sys.modules['cluestudio.core.clue.optmatch'].hungarian_solver()\n"
            "print(scipy.optimize.linear_sum_assignment is solver)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.splitlines()
    assert out == ["[0, 1] [1, 0] False", "True"]


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (6, 6), (1, 4), (4, 1)])
def test_clue_matching_is_the_best_one(shape: tuple[int, int]) -> None:
    import itertools

    import numpy as np

    from cluestudio.core.clue.optmatch import assign

    es = np.random.default_rng(sum(shape)).random(shape)
    rows, cols = assign(es)
    tall = es if shape[0] <= shape[1] else es.T
    best = max(sum(tall[i, j] for i, j in enumerate(chosen))
               for chosen in itertools.permutations(range(tall.shape[1]), tall.shape[0]))
    assert len(rows) == min(shape) and abs(es[rows, cols].sum() - best) < 1e-12


@pytest.mark.parametrize(("chosen", "expected"), [(None, 1), ("2", 2)])
def test_the_cli_runs_numpy_on_one_blas_thread_unless_the_user_chose(
        chosen: str | None, expected: int) -> None:
    """OpenBLAS's waiting threads spin: on busy cores they cost the course's CodeBERTScore
    matrices 5–10× the CPU. The CLI (and the processes it starts) use one."""
    pytest.importorskip("threadpoolctl")
    code = ("import os\n"
            "from cluestudio.cli import main\n"
            "try:\n"
            "    main(['plugins', '--json'])\n"
            "except SystemExit:\n"
            "    pass\n"
            "import numpy, threadpoolctl\n"
            "print(sorted({p['num_threads'] for p in threadpoolctl.threadpool_info()\n"
            "              if p['internal_api'] == 'openblas'}))\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if chosen is not None:
        env["OPENBLAS_NUM_THREADS"] = chosen
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env, check=True).stdout.splitlines()
    assert out[-1] == f"[{expected}]"


def test_the_window_keeps_its_blas_threads_and_its_worker_process_uses_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The window's process is left as it was (its first paint was slower with one thread);
    the worker process, where scoring runs, takes one thread before any job imports numpy."""
    pytest.importorskip("threadpoolctl")
    import threading

    from cluestudio.app.worker_process import WorkerProcess

    code = ("import os\n"
            "from cluestudio.cli import main\n"
            "try:\n"
            "    main(['gui', '--help'])\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env, check=True).stdout.splitlines()
    assert out[-1] == "None"

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    answers: dict[str, object] = {}
    done = threading.Event()

    def on_message(job_id: int, kind: str, payload: object) -> None:
        answers[kind] = payload
        if kind == "finished":
            done.set()

    worker = WorkerProcess(on_message)
    try:
        worker.submit(1, "support.worker_process_samples:blas_threads")
        assert done.wait(120), answers
    finally:
        worker.stop()
    assert answers.get("result") == [1], answers
