"""Every notebook runs top to bottom in a real kernel against the embedded sandbox, within a time
limit, and nothing it shows or saves contains a key."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from toolkit.sandbox import World

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SECONDS_PER_NOTEBOOK = 240

pytestmark = pytest.mark.notebooks


def secrets_of_the_sandbox() -> list[str]:
    """The keys `toolkit.connect()` will use: the sandbox derives them from its seed (0)."""
    world = World(0)
    return [world.api_key, *(node.key for node in world.nodes)]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 8, [p.name for p in NOTEBOOKS]


@pytest.mark.timeout(SECONDS_PER_NOTEBOOK)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_shows_no_key(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=SECONDS_PER_NOTEBOOK,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    saved = tmp_path / path.name
    nbformat.write(notebook, saved)
    text = saved.read_text()
    leaked = [secret for secret in secrets_of_the_sandbox() if secret in text]
    assert not leaked, f"{path.name} shows {len(leaked)} key(s) in its outputs"
    errors = [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors, json.dumps(errors)[:2000]


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        assert all(
            not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"
        ), f"{path.name} carries outputs; clear them before committing"
