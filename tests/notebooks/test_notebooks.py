"""Every notebook runs top to bottom in a real kernel against the embedded sandbox, within a time
limit, and nothing it shows or saves contains a key."""

import json

import nbformat
import pytest

from toolkit.sandbox import World

from tests.notebooks.kernel import (
    AFTER_RUN_ALL,
    NOTEBOOKS,
    SECONDS_PER_NOTEBOOK,
    difference,
    errors_of,
    shown,
)

pytestmark = pytest.mark.notebooks


def secrets_of_the_sandbox() -> list[str]:
    """The keys `toolkit.connect()` will use: the sandbox derives them from its seed (0)."""
    world = World(0)
    return [world.api_key, *(node.key for node in world.nodes)]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 8, [p.name for p in NOTEBOOKS]


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
    wall clock shows. (The second run goes on with the cells other tests read the notebook's
    state with, `AFTER_RUN_ALL`: every cell of the notebook has run before them.)"""
    first = executed(path)
    again = executed_again(path)
    assert not errors_of(again)
    after_run_all = AFTER_RUN_ALL.get(path.name, [])
    assert [cell.source for cell in again.cells[len(first.cells) :]] == after_run_all
    for before, after in zip(first.cells, again.cells[: len(first.cells)], strict=True):
        assert shown(before) == shown(after), difference(before, after)


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        assert all(
            not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"
        ), f"{path.name} carries outputs; clear them before committing"


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
