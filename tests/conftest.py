"""Fixtures shared by every test folder: no real gateway, one sandbox, fresh gateway handles,
and Anvil (a real EVM node installed from npm into .tools by `make test`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from hypothesis import settings

import toolkit
from toolkit.sandbox import Sandbox

# Speed is measured in bench/, not asserted: a loaded CI machine must not fail a property test.
settings.register_profile("toolkit", deadline=None)
settings.load_profile("toolkit")

FAST_RETRY = toolkit.RetryPolicy(attempts=4, backoff_s=0.005, backoff_max_s=0.02)


@pytest.fixture(autouse=True)
def _no_real_gateway(monkeypatch):
    """Tests never reach a real gateway, whatever the environment says."""
    for name in list(os.environ):
        if name.startswith("NODE_GATEWAY_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def sandbox():
    """One sandbox for the whole run, with frozen heads: estimates and archive distances hold."""
    with Sandbox(seed=0, head_pace=0) as running:
        yield running


@pytest.fixture
def make_gateway(sandbox):
    """Fresh handles on the sandbox (own ledgers, fast retries), with clean faults and metering."""
    sandbox.faults.clear()
    sandbox.reset_metering()
    opened = []

    def make(**options) -> toolkit.Gateway:
        info = sandbox.info
        options.setdefault("retry", FAST_RETRY)
        gateway = toolkit.Gateway(
            info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox, **options
        )
        opened.append(gateway)
        return gateway

    yield make
    sandbox.faults.clear()
    for gateway in opened:
        gateway.close()
        if gateway.cache is not None:
            gateway.cache.close()


@pytest.fixture
def gateway(make_gateway):
    return make_gateway()


ROOT = Path(__file__).resolve().parents[1]
ANVIL = ROOT / ".tools" / "node_modules" / ".bin" / "anvil"

# A contract assembled by hand, so no Solidity compiler is needed. The constructor stores 42 in
# slot 0; the runtime code answers every call with slot 0 as one 32-byte word:
#   runtime: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
#   init:    PUSH1 42 PUSH1 0 SSTORE, then CODECOPY the 11 runtime bytes and RETURN them
RUNTIME = "6000546000526020" + "6000f3"
INIT_CODE = "0x602a600055" + "600b80601060003960" + "00f3" + RUNTIME


def _find_anvil() -> str | None:
    if ANVIL.exists():
        return str(ANVIL)
    return shutil.which("anvil")


class Anvil:
    init_code = INIT_CODE

    def __init__(self, url: str):
        self.url = url
        self.client = httpx.Client(timeout=10)

    def send(self, transaction: dict) -> dict:
        """Send a transaction and wait for its receipt (it can lag the send under load)."""
        tx_hash = self.rpc("eth_sendTransaction", transaction)
        deadline = time.monotonic() + 10
        while (receipt := self.rpc("eth_getTransactionReceipt", tx_hash)) is None:
            assert time.monotonic() < deadline, "Anvil did not mine the transaction"
            time.sleep(0.02)
        return receipt

    def rpc(self, method: str, *params):
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
        answer = self.client.post(self.url, json=body).json()
        assert "error" not in answer, answer
        return answer["result"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def anvil(tmp_path_factory):
    binary = _find_anvil()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("Anvil is missing in CI: `make test` installs it with npm")
        pytest.skip("Anvil not installed (run `make anvil`)")
    cache = tmp_path_factory.mktemp("anvil-cache")
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", str(port), "--cache-path", str(cache)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(cache)},  # keeps ~/.foundry state out of the real home
    )
    node = Anvil(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                node.rpc("eth_chainId")
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("Anvil did not start") from None
                time.sleep(0.05)
        yield node
    finally:
        process.terminate()
        process.wait(timeout=10)
