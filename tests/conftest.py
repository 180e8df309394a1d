"""Shared fixtures: tests never reach a real gateway, whatever the environment says."""

import pytest


@pytest.fixture(autouse=True)
def _no_real_gateway(monkeypatch):
    import os

    for name in list(os.environ):
        if name.startswith("NODE_GATEWAY_"):
            monkeypatch.delenv(name)
