"""The floors `make test-floors` installs are pyproject.toml's, one exact pin per dependency, and
`make test` runs them."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _floor_pins():
    spec = importlib.util.spec_from_file_location("floor_pins", ROOT / ".ci" / "floor_pins.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.floor_pins


def test_every_runtime_and_test_dependency_is_pinned_at_its_floor():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [Requirement(line) for line in project["dependencies"]]
    declared += [Requirement(line) for line in project["optional-dependencies"]["test"]]
    pins = [Requirement(line) for line in _floor_pins()(["test"])]
    assert [pin.name for pin in pins] == [requirement.name for requirement in declared]
    for pin, requirement in zip(pins, declared, strict=True):
        (exact,) = pin.specifier
        assert exact.operator == "==" and requirement.specifier.contains(exact.version), pin


def test_the_floors_that_were_too_low():
    """pandas 2.2 has no `StringDtype(na_value=)` (Parquet round trips fail), and pandas 3.1's
    Styler refuses jinja2 before 3.1.6 (`frames.readable`)."""
    pins = dict(line.split("==") for line in _floor_pins()([]))
    assert tuple(map(int, pins["pandas"].split("."))) >= (2, 3)
    assert tuple(map(int, pins["jinja2"].split("."))) >= (3, 1, 6)


def test_a_dependency_without_a_floor_is_refused(tmp_path, monkeypatch):
    floor_pins = _floor_pins()
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["certifi"]\n')
    monkeypatch.setitem(floor_pins.__globals__, "ROOT", tmp_path)
    with pytest.raises(SystemExit, match="certifi"):
        floor_pins([])


def test_make_test_runs_the_floors():
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.M)[1]
    assert "test-floors" in recipe
