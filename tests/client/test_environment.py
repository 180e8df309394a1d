"""One HTTP behaviour for both stacks: sync calls (httpx), async calls and bulk runs (aiohttp) take
the proxy and the CA roots from the environment the same way.

The proxy is proxy.py (a real forward proxy from PyPI) on loopback, a plugin of ours counting the
requests it forwards; the TLS server is the sandbox's JSON-RPC shape behind a certificate from a
throwaway CA (trustme), trusted only through SSL_CERT_FILE.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest

import toolkit
from tests.loopback import LoopbackHTTPServer
from toolkit.client._http import env_proxy, tls_context
from toolkit.sandbox import DEMO, Sandbox

HERE = Path(__file__).resolve().parent
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
ALICE = DEMO.evm.accounts["alice"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def clean_environment(monkeypatch):
    """No proxy or CA variable from the machine running the tests."""
    for name in (*PROXY_VARIABLES, "SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


class ForwardProxy:
    """proxy.py in a child process; `requests_to(port)` counts the requests it forwarded there."""

    def __init__(self, tmp_path, basic_auth: str | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log, self.requests = tmp_path / "proxy.log", tmp_path / "proxy-requests.log"
        command = [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1"]
        command += ["--port", str(self.port), "--num-workers", "1", "--num-acceptors", "1"]
        command += ["--log-file", str(self.log), "--plugins", "_proxy_plugin.CountRequests"]
        if basic_auth:
            command += ["--basic-auth", basic_auth]
        env = {**os.environ, "PROXY_REQUEST_LOG": str(self.requests)}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"proxy.py did not start: {self.log.read_text()[-2000:]}")
                time.sleep(0.05)

    def requests_to(self, port: int) -> int:
        lines = self.requests.read_text().splitlines() if self.requests.exists() else []
        return sum(line.endswith(f" 127.0.0.1:{port}") for line in lines)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def forward_proxy(tmp_path):
    proxy = ForwardProxy(tmp_path)
    yield proxy
    proxy.stop()


@pytest.fixture
def sandbox():
    with Sandbox(head_pace=0) as running:
        yield running


def remote_gateway(sandbox: Sandbox, **options) -> toolkit.Gateway:
    """The sandbox reached as a real gateway is: by its URLs, not as the embedded one."""
    info = sandbox.info
    return toolkit.connect(
        info["platform_url"], info["api_key"], nodes=info["nodes"], cache=False, **options
    )


def sync_async_and_bulk(gw: toolkit.Gateway) -> None:
    """One call of each kind: sync, async, and a bulk run of three."""
    eth = gw.node("ethereum-mainnet")
    assert eth.get_balance(ALICE, block="0x1") >= 0
    assert asyncio.run(eth.aio.get_balance(ALICE, block="0x2")) >= 0
    work = toolkit.Workload()
    for block in ("0x3", "0x4", "0x5"):
        work.add(eth, "eth_getBalance", ALICE, block)
    frame = work.run(progress=False)
    assert frame["error"].isna().all(), frame["message"].tolist()


def test_sync_async_and_bulk_calls_all_go_through_the_proxy(
    clean_environment, forward_proxy, sandbox
):
    clean_environment.setenv("HTTP_PROXY", forward_proxy.url)
    gw = remote_gateway(sandbox)
    sync_async_and_bulk(gw)
    metered = sandbox.metering()["ethereum-mainnet"]
    assert metered["requests"] >= 3  # sync, async, and the bulk run's batch (or its calls)
    assert forward_proxy.requests_to(sandbox.port) == metered["requests"]
    assert gw.ledger.total_ru == metered["ru"]  # billing is unchanged by the hop


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_proxy_credentials_in_the_url_reach_the_proxy_from_every_stack(
    clean_environment, tmp_path, sandbox, transport
):
    proxy = ForwardProxy(tmp_path, basic_auth="analyst:s3cret-pass")
    try:
        clean_environment.setenv("HTTP_PROXY", f"http://analyst:wrong@127.0.0.1:{proxy.port}")
        eth = remote_gateway(sandbox, async_transport=transport, retry=None)
        with pytest.raises(toolkit.GatewayError):  # the proxy's 407: nothing reached the node
            eth.node("ethereum-mainnet").block_number()
        assert proxy.requests_to(sandbox.port) == 0

        clean_environment.setenv("HTTP_PROXY", f"http://analyst:s3cret-pass@127.0.0.1:{proxy.port}")
        gw = remote_gateway(sandbox, async_transport=transport)
        sync_async_and_bulk(gw)
        metered = sandbox.metering()["ethereum-mainnet"]["requests"]
        assert metered >= 3 and proxy.requests_to(sandbox.port) == metered
    finally:
        proxy.stop()


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_every_stack_fails_alike_when_the_environment_names_a_dead_proxy(
    clean_environment, sandbox, transport, caplog
):
    password = "pr0xy-" + "7f3a" * 6
    clean_environment.setenv("HTTP_PROXY", f"http://analyst:{password}@127.0.0.1:{free_port()}")
    eth = remote_gateway(sandbox, async_transport=transport, retry=None).node("ethereum-mainnet")
    with caplog.at_level("DEBUG"):
        with pytest.raises(toolkit.TransportError) as sync_error:
            eth.block_number()
        with pytest.raises(toolkit.TransportError) as async_error:
            asyncio.run(eth.aio.block_number())
    assert sandbox.metering()["ethereum-mainnet"]["requests"] == 0  # nothing went direct
    for shown in (repr(sync_error.value), repr(async_error.value), caplog.text):
        assert password not in shown  # the proxy's password is a secret too


def test_no_proxy_and_trust_env_false_go_direct(clean_environment, forward_proxy, sandbox):
    clean_environment.setenv("HTTP_PROXY", forward_proxy.url)
    clean_environment.setenv("NO_PROXY", "example.org,127.0.0.1")
    sync_async_and_bulk(remote_gateway(sandbox))
    clean_environment.delenv("NO_PROXY")
    sync_async_and_bulk(remote_gateway(sandbox, trust_env=False))
    assert sandbox.metering()["ethereum-mainnet"]["requests"] >= 6
    assert forward_proxy.requests_to(sandbox.port) == 0


def test_the_embedded_sandbox_is_never_reached_through_a_proxy(clean_environment):
    clean_environment.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")  # nobody there
    gw = toolkit.connect()
    assert gw.settings.trust_env is False
    assert gw.node("ethereum-mainnet").block_number() > 0


def test_env_proxy_reads_the_variables_as_the_standard_library_does(clean_environment):
    clean_environment.setenv("HTTPS_PROXY", "http://user:pw@proxy.internal:3128")
    clean_environment.setenv("NO_PROXY", ".corp.example")
    assert env_proxy("https://eth.gateway.example/KEY") == "http://user:pw@proxy.internal:3128"
    assert env_proxy("http://eth.gateway.example/KEY") is None  # no HTTP_PROXY
    assert env_proxy("https://node.corp.example/KEY") is None
    clean_environment.setenv("ALL_PROXY", "http://fallback:8080")
    assert env_proxy("http://eth.gateway.example/KEY") == "http://fallback:8080"


# --- TLS: the same CA roots, SSL_CERT_FILE honoured ---------------------------------------------


class JsonRpcHandler(BaseHTTPRequestHandler):
    """Answers every JSON-RPC call (or batch) with block 0x10, echoing the ids; keeps the
    Authorization header of each request in `authorizations`."""

    protocol_version = "HTTP/1.1"
    authorizations: ClassVar[list[str | None]] = []

    def do_POST(self) -> None:
        self.authorizations.append(self.headers.get("Authorization"))
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))

        def answer(call: dict) -> dict:
            return {"jsonrpc": "2.0", "id": call["id"], "result": "0x10"}

        body = json.dumps(
            [answer(c) for c in request] if isinstance(request, list) else answer(request)
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_netrc_is_never_read(clean_environment, tmp_path):
    """aiohttp's own `trust_env` would send ~/.netrc's credentials for the gateway's host."""
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password from-netrc\n")
    netrc.chmod(0o600)
    clean_environment.setenv("NETRC", str(netrc))
    clean_environment.setenv("HOME", str(tmp_path))
    (tmp_path / ".netrc").write_text(netrc.read_text())
    (tmp_path / ".netrc").chmod(0o600)
    server = LoopbackHTTPServer(("127.0.0.1", 0), JsonRpcHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    JsonRpcHandler.authorizations = []
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{'c5' * 16}"
        for transport in ("aiohttp", "httpx"):
            assert blocks_three_ways(url, transport) == [16, 16, [16, 16]]
    finally:
        server.shutdown()
        server.server_close()
    assert len(JsonRpcHandler.authorizations) >= 6
    assert set(JsonRpcHandler.authorizations) == {None}


@pytest.fixture
def tls_node_server(tmp_path):
    """An HTTPS JSON-RPC server whose certificate only a throwaway CA vouches for."""
    trustme = pytest.importorskip("trustme")
    authority = trustme.CA()
    server = LoopbackHTTPServer(("127.0.0.1", 0), JsonRpcHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    yield f"https://127.0.0.1:{server.server_address[1]}/{'b7' * 16}", ca_file
    server.shutdown()
    server.server_close()


def blocks_three_ways(url: str, transport: str) -> list:
    eth = toolkit.node(url, chain="ethereum", cache=False, retry=None, async_transport=transport)
    work = toolkit.Workload().add(eth, "eth_blockNumber").add(eth, "eth_blockNumber")
    results = []
    for attempt in (eth.block_number, lambda: asyncio.run(eth.aio.block_number())):
        try:
            results.append(attempt())
        except toolkit.TransportError as error:
            results.append(error)
    frame = work.run(progress=False)
    failed = frame["error"].notna()
    results.append(list(frame["message"]) if failed.any() else list(frame["value"]))
    return results


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_ssl_cert_file_is_trusted_by_sync_async_and_bulk_calls(
    clean_environment, tls_node_server, transport
):
    url, ca_file = tls_node_server
    sync, async_, bulk = blocks_three_ways(url, transport)
    for refusal in (sync, async_, *bulk):
        assert "TLS certificate is not trusted" in str(refusal), refusal
        assert "SSL_CERT_FILE" in str(refusal)
    assert isinstance(sync, toolkit.TransportError) and isinstance(async_, toolkit.TransportError)

    clean_environment.setenv("SSL_CERT_FILE", str(ca_file))
    assert blocks_three_ways(url, transport) == [16, 16, [16, 16]]


def test_one_tls_context_per_setting(clean_environment, tmp_path):
    trustme = pytest.importorskip("trustme")
    ca_file = tmp_path / "ca.pem"
    trustme.CA().cert_pem.write_to_path(str(ca_file))
    default = tls_context()
    assert tls_context() is default  # certifi's roots, loaded once
    clean_environment.setenv("SSL_CERT_FILE", str(ca_file))
    own = tls_context()
    assert own is not default and len(own.get_ca_certs()) == 1
    assert tls_context(trust_env=False) is default
