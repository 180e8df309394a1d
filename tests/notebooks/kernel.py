"""Running a notebook in a real kernel against the embedded sandbox, for the notebook tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SECONDS_PER_NOTEBOOK = 240


def execute(path: Path, *, extra_cells: Iterable[str] = ()) -> nbformat.NotebookNode:
    """The notebook at `path`, run top to bottom (then `extra_cells`), its outputs in memory."""
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.extend(nbformat.v4.new_code_cell(source) for source in extra_cells)
    NotebookClient(
        notebook,
        timeout=SECONDS_PER_NOTEBOOK,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return notebook
