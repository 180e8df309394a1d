"""Each notebook run once per session for the tests that read its outputs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from tests.notebooks.kernel import execute


@pytest.fixture(scope="session")
def executed() -> Callable[[Path], nbformat.NotebookNode]:
    """`executed(path)`: the notebook run once this session, shared by every test that reads its
    outputs (do not change it)."""
    runs: dict[Path, nbformat.NotebookNode] = {}

    def get(path: Path) -> nbformat.NotebookNode:
        if path not in runs:
            runs[path] = execute(path)
        return runs[path]

    return get
