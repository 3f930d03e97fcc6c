"""`cluestudio --help` lists every command without setting each one up (issue 28: a
command's options may import what its choices need, and `--help` paid for all of them)."""

from __future__ import annotations

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
