"""Widgets against the embedded sandbox, headless: set values, click, read the widgets' state."""

from urllib.parse import urlsplit

import pytest

import toolkit


@pytest.fixture
def gw(make_gateway):
    """A fresh gateway handle (fresh ledger, no budget) with clean fault knobs."""
    return make_gateway(retry=toolkit.RetryPolicy(attempts=2, backoff_s=0.01, backoff_max_s=0.02))


@pytest.fixture
def secrets(sandbox):
    """Every secret of the sandbox: the API key, each node's access key and full URL."""
    info = sandbox.info
    keys = [urlsplit(url).path.strip("/") for url in info["nodes"].values()]
    return [info["api_key"], *keys, *info["nodes"].values()]
