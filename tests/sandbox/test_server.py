"""Starting and stopping: the Sandbox class, shared_sandbox, and `python -m toolkit sandbox`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from toolkit import __main__ as cli
from toolkit.sandbox import Sandbox, shared_sandbox

NODE_NAMES = {
    "ethereum-mainnet",
    "arbitrum-mainnet",
    "polygon-mainnet",
    "hyperliquid-mainnet",
    "solana-mainnet",
    "tron-mainnet",
    "ton-mainnet",
}
ROOT = Path(__file__).resolve().parents[2]


def test_starts_fast_and_describes_itself():
    started = time.perf_counter()
    sandbox = Sandbox(seed=3).start()
    elapsed = time.perf_counter() - started
    try:
        assert elapsed < 1.5
        info = sandbox.info
        assert set(info) == {"platform_url", "api_key", "nodes"}
        assert info["platform_url"] == f"http://127.0.0.1:{sandbox.port}"
        assert set(info["nodes"]) == NODE_NAMES
        for url in info["nodes"].values():
            prefix, key = url.rsplit("/", 1)
            assert prefix == info["platform_url"] and len(key) >= 32
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
        assert httpx.post(info["nodes"]["ethereum-mainnet"], json=envelope).status_code == 200
    finally:
        sandbox.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.post(info["nodes"]["ethereum-mainnet"], json=envelope)


def test_context_manager_and_fixed_port():
    with Sandbox() as first:
        port = first.port
    with Sandbox(port=port) as second:
        assert second.port == port


def test_refuses_non_loopback_hosts():
    with pytest.raises(ValueError, match="allow_remote"):
        Sandbox(host="0.0.0.0")
    assert Sandbox(host="::1", allow_remote=False).host == "::1"


def test_shared_sandbox_is_one_per_process_even_under_threads():
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(shared_sandbox())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(s) for s in seen}) == 1
    assert shared_sandbox() is seen[0]
    response = httpx.get(
        seen[0].info["platform_url"] + "/v2/nodes/",
        headers={"Authorization": f"Bearer {seen[0].info['api_key']}"},
    )
    assert response.status_code == 200


def test_the_shared_sandbox_made_in_process_binds_no_port_until_served(monkeypatch):
    from toolkit.sandbox import _server

    monkeypatch.setattr(_server, "_shared", None)
    threads = threading.active_count()
    local = shared_sandbox(serve=False)
    try:
        assert local.port == 0 and threading.active_count() == threads
        assert local.info["platform_url"] == "http://127.0.0.1:0"
        assert shared_sandbox(serve=False) is local
        assert shared_sandbox() is local and local.port != 0  # served when asked for it
        assert local.info["platform_url"] == f"http://127.0.0.1:{local.port}"
    finally:
        local.stop()


def test_cli_prints_json_first_serves_and_stops_on_sigterm():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "toolkit", "sandbox", "--port", "0", "--seed", "4"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        first_line = process.stdout.readline()
        info = json.loads(first_line)
        assert set(info) == {"platform_url", "api_key", "nodes"}
        assert set(info["nodes"]) == NODE_NAMES
        assert info["api_key"] == Sandbox(seed=4).world.api_key
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "web3_sha3", "params": ["0x"]}
        response = httpx.post(info["nodes"]["tron-mainnet"] + "/jsonrpc", json=envelope)
        assert response.json()["result"].startswith("0xc5d2460186f7")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_cli_refuses_remote_hosts_and_explains(capsys):
    assert cli.main(["sandbox", "--host", "0.0.0.0"]) == 2
    message = capsys.readouterr().err
    assert "--allow-remote" in message and "keys" in message


def test_cli_needs_a_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([])
    assert exit_info.value.code == 2
