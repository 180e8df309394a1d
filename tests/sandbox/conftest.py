"""One sandbox for the whole session, reached over real loopback HTTP with plain httpx.

Its heads are frozen (``head_pace=0``) so that archive arithmetic in tests is exact. Faults are
cleared after every test, so a test that forgets its own cleanup cannot leak into the next one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from toolkit.sandbox import DEMO, Sandbox


@pytest.fixture(scope="session")
def info(sandbox: Sandbox) -> dict[str, Any]:
    return sandbox.info


@pytest.fixture(scope="session")
def nodes(info: dict[str, Any]) -> dict[str, str]:
    return info["nodes"]


@pytest.fixture(scope="session")
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as client:
        yield client


@pytest.fixture(scope="session")
def auth(info: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {info['api_key']}"}


@pytest.fixture(autouse=True)
def _no_leftover_faults(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "sandbox" in request.fixturenames:
        request.getfixturevalue("sandbox").faults.clear()


@pytest.fixture(scope="session")
def demo():
    return DEMO


@pytest.fixture(scope="session")
def rpc(http: httpx.Client):
    """`rpc(url, method, *params, id=1)` -> the decoded JSON-RPC response object."""

    def call(url: str, method: str, *params: Any, id: Any = 1) -> dict[str, Any]:
        envelope = {"jsonrpc": "2.0", "id": id, "method": method, "params": list(params)}
        response = http.post(url, json=envelope)
        assert response.status_code == 200, response.text
        return response.json()

    return call
