"""The sandbox as a service, over real loopback HTTP: a request-size limit (413 with a JSON
error, refused before the body is read whole), parse errors as JSON-RPC -32700 for invalid and
deeply nested bodies (never a 500 with a traceback), constant-time key checks, and none of
these refusals metered."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import httpx
import pytest

from toolkit.sandbox._app import MAX_BODY_BYTES
from toolkit.sandbox._jsonrpc import MAX_DEPTH

JSON = {"Content-Type": "application/json"}
# (node, path) of a JSON-RPC endpoint of each style, and a REST one
JSONRPC_ENDPOINTS = [
    ("ethereum-mainnet", ""),
    ("hyperliquid-mainnet", "/evm"),
    ("solana-mainnet", ""),
    ("tron-mainnet", "/jsonrpc"),
    ("ton-mainnet", "/api/v2/jsonRPC"),
]


@pytest.fixture
def fresh_http():
    """Its own client: after a 413 the server closes the connection (the rest of the body is
    never read), which must not break the session's pooled client for other tests."""
    with httpx.Client(timeout=30) as client:
        yield client


def _requests(sandbox) -> int:
    return sum(usage["requests"] for usage in sandbox.metering().values())


@pytest.mark.parametrize(("node", "path"), JSONRPC_ENDPOINTS)
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 2_000, 200_000])
def test_deeply_nested_bodies_get_a_parse_error(http, nodes, sandbox, node, path, depth):
    sandbox.reset_metering()
    for opener, closer in ((b"[", b"]"), (b'{"a":', b"}")):
        body = opener * depth + b"1" + closer * depth
        response = http.post(nodes[node] + path, content=body, headers=JSON)
        assert response.status_code == 200, response.text[:200]
        assert response.headers["content-type"] == "application/json"
        answer = response.json()
        code = answer["code"] if node == "ton-mainnet" else answer["error"]["code"]
        assert code == -32700 and answer["id"] is None
        assert "Traceback" not in response.text


def test_a_nested_body_within_the_limit_is_read(http, nodes):
    inner = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    deep: object = 1
    for _ in range(MAX_DEPTH - 3):
        deep = [deep]
    envelope = {**inner, "params": [deep]}  # nested, but within the limit: read, then refused
    answer = http.post(nodes["ethereum-mainnet"], json=envelope).json()
    assert answer["error"]["code"] == -32602  # invalid params, not a parse error


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_tron_rest_bodies_nested_too_deep_are_a_json_error(http, nodes, depth):
    body = b'{"num":' * depth + b"1" + b"}" * depth
    response = http.post(nodes["tron-mainnet"] + "/wallet/getblockbylatestnum", content=body)
    assert response.status_code == 200
    assert "JSONException" in response.json()["Error"]


@pytest.mark.parametrize(
    ("node", "path"), [*JSONRPC_ENDPOINTS[:1], ("tron-mainnet", "/wallet/getblockbylatestnum")]
)
def test_an_oversized_body_is_413_with_a_json_error_and_not_metered(
    fresh_http, nodes, sandbox, node, path
):
    http = fresh_http
    sandbox.reset_metering()
    padding = "x" * MAX_BODY_BYTES
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "pad": padding})
    response = http.post(nodes[node] + path, content=body.encode(), headers=JSON)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"
    assert f"{MAX_BODY_BYTES:,}" in response.json()["error"]["message"]
    assert _requests(sandbox) == 0
    ok = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    assert http.post(nodes["ethereum-mainnet"], json=ok).status_code == 200  # still serving


def test_a_streamed_oversized_body_is_refused_before_it_ends(nodes, sandbox):
    """Chunked, with no Content-Length: the 413 comes once the limit is crossed, while the
    client has not even finished the body (so the server never waited to hold all of it)."""
    sandbox.reset_metering()
    url = urlsplit(nodes["ethereum-mainnet"])
    chunk = b" " * (256 * 1024)
    with socket.create_connection((url.hostname, url.port), timeout=10) as raw:
        raw.sendall(
            f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        for _ in range(MAX_BODY_BYTES // len(chunk) + 2):  # just over the limit, never ended
            raw.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        head = raw.recv(4096).decode("latin-1")
    assert head.startswith("HTTP/1.1 413 ")
    assert _requests(sandbox) == 0


def test_a_huge_declared_length_is_refused_without_reading(nodes, sandbox):
    """A client that announces 1 GB and sends nothing gets its 413 at once."""
    url = urlsplit(nodes["ethereum-mainnet"])
    with socket.create_connection((url.hostname, url.port), timeout=10) as raw:
        raw.sendall(
            f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n".encode()
        )
        head = raw.recv(4096).decode("latin-1")
    assert head.startswith("HTTP/1.1 413 ")
    assert "application/json" in head


def test_the_fault_knobs_refuse_nested_and_oversized_bodies(fresh_http, info, auth):
    http = fresh_http
    url = info["platform_url"] + "/_sandbox/faults"
    nested = http.post(url, content=b"[" * 100_000 + b"]" * 100_000, headers=auth)
    assert nested.status_code == 400 and nested.json()["error"]["code"] == "invalid_fault"
    huge = http.post(url, content=b" " * (MAX_BODY_BYTES + 1), headers=auth)
    assert huge.status_code == 413


def test_an_unforeseen_failure_is_a_json_500_without_a_traceback(
    fresh_http, nodes, sandbox, monkeypatch
):
    http = fresh_http  # the server may drop the connection after an unforeseen failure

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(sandbox.app.state.gateway, "_answer", broken)
    response = http.post(
        nodes["ethereum-mainnet"],
        json={"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []},
    )
    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "internal_error", "message": "internal error (RuntimeError)"}
    }
    assert "secret internals" not in response.text and "Traceback" not in response.text


def test_keys_are_compared_in_constant_time(monkeypatch, sandbox, fresh_http, info):
    """Every presented key is checked with hmac.compare_digest, against every node's key (no
    early exit on a match), and the API key likewise."""
    import hmac

    real = hmac.compare_digest
    compared: list[tuple[bytes, bytes]] = []

    def spy(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    world = sandbox.world
    first = world.served_nodes[0]
    assert world.node_by_key(first.key) is first
    assert len(compared) == len(world.nodes)  # all of them, not up to the first match
    assert [given == first.key.encode() for _, given in compared] == [True] * len(compared)
    assert world.node_by_key(first.key[:-1] + "\u00e9") is None  # non-ASCII: no TypeError
    assert world.node_by_key("") is None

    compared.clear()
    platform = info["platform_url"] + "/v2/nodes/"
    bad = fresh_http.get(platform, headers={"Authorization": "Bearer " + "0" * 8})
    good = fresh_http.get(platform, headers={"Authorization": f"Bearer {info['api_key']}"})
    assert (bad.status_code, good.status_code) == (403, 200)
    expected = [b"0" * 8, info["api_key"].encode()]
    matches = [given == want for (_, given), want in zip(compared, expected, strict=True)]
    assert matches == [True, True]  # (compared as booleans: a failure never prints the key)
