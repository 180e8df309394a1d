"""Widgets against the embedded sandbox, headless: set values, click, read the widgets' state."""

from urllib.parse import urlsplit

import pytest

import toolkit
from toolkit.sandbox import Sandbox


@pytest.fixture(scope="session")
def sandbox():
    # Frozen heads: the archive distance, and so every estimate's text, stays put during a test.
    with Sandbox(seed=0, head_pace=0) as running:
        yield running


@pytest.fixture
def gw(sandbox):
    """A fresh gateway handle (fresh ledger, no budget) with clean fault knobs."""
    sandbox.faults.clear()
    info = sandbox.info
    with toolkit.Gateway(
        info["platform_url"],
        info["api_key"],
        nodes=info["nodes"],
        sandbox=sandbox,
        retry=toolkit.RetryPolicy(attempts=2, backoff_s=0.01, backoff_max_s=0.02),
    ) as handle:
        yield handle
    sandbox.faults.clear()


@pytest.fixture
def secrets(sandbox):
    """Every secret of the sandbox: the API key, each node's access key and full URL."""
    info = sandbox.info
    keys = [urlsplit(url).path.strip("/") for url in info["nodes"].values()]
    return [info["api_key"], *keys, *info["nodes"].values()]
