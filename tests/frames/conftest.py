"""Fixtures for the frame tests: realistic gateway responses saved under ``data/``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def load() -> Callable[[str], Any]:
    """Load ``data/<name>.json`` as the gateway returned it (a fresh copy each call)."""

    def _load(name: str) -> Any:
        return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))

    return _load


@pytest.fixture
def load_text() -> Callable[[str], str]:
    """Read ``data/<file name>`` as text (for results that are strings, like debug_printBlock)."""
    return lambda name: (DATA / name).read_text(encoding="utf-8")
