"""The client against the embedded sandbox (tests/conftest.py), over real loopback HTTP."""

import pytest


@pytest.fixture
def server_requests(sandbox):
    """How many requests the sandbox has answered since the last reset, over all nodes."""
    return lambda: sum(usage["requests"] for usage in sandbox.metering().values())
