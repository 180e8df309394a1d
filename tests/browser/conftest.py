"""The browser-like limits for one test, in this process (tests/browser/harness.py)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest

# By path, as the kernels load it: the harness is one module in every process that uses it.
_spec = importlib.util.spec_from_file_location(
    "browser_harness", Path(__file__).with_name("harness.py")
)
harness = sys.modules.setdefault("browser_harness", importlib.util.module_from_spec(_spec))
if not hasattr(harness, "arm"):
    _spec.loader.exec_module(harness)


@pytest.fixture
def page_loop():
    """An event loop made before the limits (as a kernel's is), for a test to run its "cells"
    in: ``page_loop.run_until_complete(cell())``."""
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture
def browser_like(page_loop, monkeypatch):
    """No new thread, socket or process on this thread, no module without a Pyodide 314 build,
    and ``NODE_GATEWAY_BROWSER=1``, for the test; yields the list of what was refused."""
    monkeypatch.delenv("NODE_GATEWAY_PLATFORM_URL", raising=False)  # connect(): the sandbox
    monkeypatch.delenv("NODE_GATEWAY_TAPE", raising=False)
    with harness.armed() as refused:
        yield refused
