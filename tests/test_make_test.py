"""How `make test` lays its runs out: the subsets it runs on another Python and on the declared
floors (what they run exists; their property tests are cut to a few examples, the full search
being the main run's), and the xdist groups of the main run's two workers."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import cap_examples, xdist_group_of

ROOT = Path(__file__).resolve().parents[1]


def make_variable(name: str) -> list[str]:
    """The words of the Makefile's `name := ...` (continued lines joined)."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    found = re.search(rf"^{name} :?= (.*)$", text, re.MULTILINE)
    assert found, name
    return found.group(1).split()


def test_every_path_a_subset_names_exists():
    for name in ("OTHER_TESTS", "FLOORS_TESTS"):
        paths = make_variable(name)
        assert paths, name
        for path in paths:
            assert (ROOT / path.split("::")[0]).exists(), f"{name} names {path}, which is gone"


def test_a_property_test_is_cut_to_the_examples_asked_and_never_raised():
    seen: list[int] = []

    @settings(max_examples=300, database=None)
    @given(st.integers())
    def many(number):
        seen.append(number)

    @settings(max_examples=3, database=None)
    @given(st.integers())
    def few(number):
        seen.append(number)

    cap_examples(SimpleNamespace(obj=many), 5)
    many()
    assert 1 <= len(seen) <= 5
    seen.clear()
    cap_examples(SimpleNamespace(obj=few), 5)
    few()
    assert 1 <= len(seen) <= 3


def test_a_test_without_hypothesis_is_left_alone():
    def plain():
        return None

    cap_examples(SimpleNamespace(obj=plain), 5)
    assert not hasattr(plain, "_hypothesis_internal_use_settings")


def fake_item(nodeid: str, *, marks: tuple[str, ...] = (), fixtures: tuple[str, ...] = ()):
    """What `xdist_group_of` reads of a collected test: its id, marks and fixtures (all
    function-scoped here)."""
    definition = SimpleNamespace(scope="function")
    info = SimpleNamespace(
        names_closure=list(fixtures), name2fixturedefs={name: [definition] for name in fixtures}
    )
    return SimpleNamespace(
        nodeid=nodeid,
        _fixtureinfo=info,
        get_closest_marker=lambda name: name if name in marks else None,
    )


def test_only_the_session_runs_readers_share_the_one_kernels_group():
    session_runs = fake_item(
        "tests/notebooks/test_notebooks.py::test_a[01.ipynb]",
        marks=("notebooks",),
        fixtures=("executed", "tmp_path"),
    )
    assert xdist_group_of(session_runs) == "kernels"
    # Read from another folder, a session run still belongs to the worker that made it.
    assert xdist_group_of(fake_item("tests/x/test_y.py::test_z", fixtures=("executed_again",))) == (
        "kernels"
    )
    # Kernels of its own: its module's group, free to go to either worker.
    replay = fake_item("tests/notebooks/test_tapes.py::test_replay[01.ipynb]", marks=("notebooks",))
    assert xdist_group_of(replay) == "tests/notebooks/test_tapes.py"
    browser = fake_item("tests/widgets/test_voila.py::test_v", marks=("browser", "notebooks"))
    assert xdist_group_of(browser) == "browser"
    assert xdist_group_of(fake_item("tests/test_plain.py::test_p", fixtures=("tmp_path",))) is None


@pytest.mark.notebooks
def test_a_notebook_run_stops_its_kernel(tmp_path, monkeypatch):
    """`make test` runs notebooks in the lab environment's kernel, through a kernel manager of
    its own, which nbclient leaves running once the notebook is done: each of the forty-odd runs
    kept its kernel (and what it started: a sandbox, a Dask cluster) until its worker ended."""
    from tests.notebooks import kernel

    if not kernel.NOTEBOOK_PYTHON:  # run by hand: this Python's kernel, through a manager too
        monkeypatch.setattr(kernel, "NOTEBOOK_PYTHON", sys.executable)
    path = tmp_path / "pid.ipynb"
    cell = nbformat.v4.new_code_cell("import os; print(os.getpid())")
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    pid = int(kernel.execute(path).cells[0].outputs[0]["text"])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
