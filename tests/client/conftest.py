"""The client against the embedded sandbox, over real loopback HTTP, with frozen chain heads."""

import pytest

import toolkit
from toolkit.sandbox import Sandbox


@pytest.fixture(scope="session")
def sandbox():
    with Sandbox(seed=0, head_pace=0) as running:
        yield running


@pytest.fixture
def gateway(sandbox):
    """A fresh handle (fresh ledger, no budget) and clean fault knobs and metering."""
    sandbox.faults.clear()
    sandbox.reset_metering()
    info = sandbox.info
    with toolkit.Gateway(
        info["platform_url"],
        info["api_key"],
        nodes=info["nodes"],
        sandbox=sandbox,
        retry=toolkit.RetryPolicy(attempts=4, backoff_s=0.01, backoff_max_s=0.05),
    ) as handle:
        yield handle
    sandbox.faults.clear()


@pytest.fixture
def server_requests(sandbox):
    """How many requests the sandbox has answered since the last reset, over all nodes."""
    return lambda: sum(usage["requests"] for usage in sandbox.metering().values())
