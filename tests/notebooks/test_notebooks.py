"""Every notebook runs top to bottom in a real kernel against the embedded sandbox, within a time
limit, and nothing it shows or saves contains a key."""

import ast
import json
import subprocess
import tomllib

import nbformat
import pytest
from packaging.requirements import Requirement

from tests.notebooks.kernel import (
    AFTER_RUN_ALL,
    NOTEBOOK_PYTHON,
    NOTEBOOKS,
    ROOT,
    SECONDS_PER_NOTEBOOK,
    WIDGET_VIEW,
    difference,
    errors_of,
    same_on_both_paths,
    shown,
)
from toolkit.sandbox import World

pytestmark = pytest.mark.notebooks


def secrets_of_the_sandbox() -> list[str]:
    """The keys `toolkit.connect()` will use: the sandbox derives them from its seed (0)."""
    world = World(0)
    return [world.api_key, *(node.key for node in world.nodes)]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 10, [p.name for p in NOTEBOOKS]


def imports_of(path) -> set[str]:
    """The top-level modules a notebook's code cells import (magics and shell lines left out)."""
    modules = set()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                modules |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules.add(node.module.partition(".")[0])
    return modules


def test_what_every_notebook_imports_is_in_the_environment_make_lab_builds():
    """A new user's `make lab` installs the lab and scale extras only: notebooks 02 and 07 once
    imported eth-abi and pytoniq-core, which only the test extra had. (The notebooks also run
    there, in `make test`: this names the module and the notebook at once.)"""
    if not NOTEBOOK_PYTHON:
        pytest.skip("`make test` builds the lab environment (.venv-lab) and names its Python")
    wanted = {module: path.name for path in NOTEBOOKS for module in imports_of(path)}
    wanted["pytest"] = "(none: only the test extra has it)"
    find = (
        "import importlib.util as u, sys; print(*[m for m in sys.argv[1:] if not u.find_spec(m)])"
    )
    done = subprocess.run(
        [NOTEBOOK_PYTHON, "-c", find, *sorted(wanted)], capture_output=True, text=True, timeout=60
    )
    missing = done.stdout.split()
    assert "pytest" in missing, f"{NOTEBOOK_PYTHON} is not an environment of the lab extras only"
    missing.remove("pytest")
    assert not missing, {module: wanted[module] for module in missing}


def test_notebooks_read_contracts_without_an_abi_library():
    """The notebooks call contracts by signature (`eth.read`, `Workload.reads`): notebook 02
    once encoded its token calls with eth-abi, which the lab extra carried for it alone. The
    test extra keeps eth-abi as an oracle of the toolkit's codec."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lab = [Requirement(line).name for line in extras["optional-dependencies"]["lab"]]
    assert "eth-abi" not in lab
    importing = [path.name for path in NOTEBOOKS if "eth_abi" in imports_of(path)]
    assert not importing, f"{importing} import eth-abi, which `make lab` does not install"


@pytest.mark.timeout(SECONDS_PER_NOTEBOOK)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_shows_no_key(path, tmp_path, executed):
    notebook = executed(path)
    saved = tmp_path / path.name
    nbformat.write(notebook, saved)
    text = saved.read_text()
    leaked = [secret for secret in secrets_of_the_sandbox() if secret in text]
    assert not leaked, f"{path.name} shows {len(leaked)} key(s) in its outputs"
    errors = errors_of(notebook)
    assert not errors, json.dumps(errors)[:2000]


@pytest.mark.timeout(SECONDS_PER_NOTEBOOK)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_shows_the_same_on_a_second_run_against_the_sandbox(
    path, executed, executed_again
):
    """Run All twice, against a new embedded sandbox each time: the same outputs, byte for byte
    (after ipywidgets' model ids, new in every kernel). The sandbox's heads move with the
    requests it serves and the ledger keeps its time, so neither the machine's speed nor the
    wall clock shows. The second run is in a browser-like kernel (tests/browser/harness.py):
    the browser path shows what CPython's does (up to a cell that asks `in_browser()`), and
    starts no thread and opens no socket, not even one it would get over. (It goes on with the
    cells other tests read the notebook's state with, `AFTER_RUN_ALL`: every cell of the
    notebook has run before them.)"""
    first = executed(path)
    again = executed_again(path)
    assert not errors_of(again)
    assert again.metadata["browser_refused"] == [], "refused in the browser-like kernel"
    after_run_all = AFTER_RUN_ALL.get(path.name, [])
    assert [cell.source for cell in again.cells[len(first.cells) :]] == after_run_all
    for before, after in same_on_both_paths(first.cells, again.cells):
        assert shown(before) == shown(after), difference(before, after)


def test_notebooks_are_committed_with_outputs_and_nothing_that_changes_from_run_to_run():
    """`make outputs` writes each notebook's outputs from its tape (the replay tests check they
    are current); what a run leaves besides them (the cells' run times, the widgets' state and
    model ids, new in every kernel) would change the files on every run."""
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        code = [cell for cell in notebook.cells if cell.cell_type == "code"]
        fix = f"{path.name} is not as `make outputs` writes it: run it"
        assert any(cell.outputs for cell in code), f"{fix} (no outputs)"
        assert "widgets" not in notebook.metadata, f"{fix} (widget state saved)"
        for cell in code:
            assert "execution" not in cell.metadata, f"{fix} (cell timings): {cell.source[:80]!r}"
            views = [o for o in cell.outputs if WIDGET_VIEW in o.get("data", {})]
            assert not views, f"{fix} (a widget view): {cell.source[:80]!r}"


@pytest.mark.timeout(SECONDS_PER_NOTEBOOK)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_that_draws_a_plot_shows_exactly_one_image(path, executed):
    # Notebook 09 once promised "a balances frame and a plot" and showed no plot: its cell
    # ended in an assignment. Two images would be the figure shown twice.
    drawing = [
        cell
        for cell in executed(path).cells
        if cell.cell_type == "code" and "plots.plot_" in cell.source
    ]
    for cell in drawing:
        images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
        assert len(images) == 1, f"{path.name}: {len(images)} images under {cell.source[:200]!r}"
