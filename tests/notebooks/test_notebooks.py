"""Every notebook runs top to bottom in a real kernel against the embedded sandbox, within a time
limit, and nothing it shows or saves contains a key."""

import json

import nbformat
import pytest

from toolkit.sandbox import World

from tests.notebooks.kernel import NOTEBOOKS, SECONDS_PER_NOTEBOOK, errors_of

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


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        assert all(
            not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"
        ), f"{path.name} carries outputs; clear them before committing"
