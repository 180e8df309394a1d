"""The command line as a user runs it: `python -m toolkit --version`, `--help`, and `--help` for
each command, in a subprocess."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import toolkit
from toolkit.__main__ import parser


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *args], capture_output=True, text=True, timeout=60
    )


def _commands() -> dict[str, argparse.ArgumentParser]:
    (subparsers,) = [
        action for action in parser()._actions if isinstance(action, argparse._SubParsersAction)
    ]
    return dict(subparsers.choices)


def test_version():
    done = run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"node-gateway-toolkit {toolkit.__version__}\n"


def test_help_lists_every_command():
    done = run("--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m toolkit")
    assert "--version" in done.stdout
    for name in _commands():
        assert f"    {name} " in done.stdout, name


@pytest.mark.parametrize("command", sorted(_commands()))
def test_each_command_has_its_help(command):
    done = run(command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m toolkit {command}")
    options = [
        option
        for action in _commands()[command]._actions
        for option in action.option_strings
        if option.startswith("--")
    ]
    assert len(options) > 1
    for option in options:
        assert option in done.stdout, option


def test_no_command_is_a_usage_error():
    done = run()
    assert done.returncode == 2
    assert "usage: python -m toolkit" in done.stderr and "COMMAND" in done.stderr
