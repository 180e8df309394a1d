"""The JSON-RPC envelope on every JSON-RPC endpoint, batches, and access-key routing."""

from __future__ import annotations

import pytest

# (node, path) of every JSON-RPC endpoint, with a method it serves and that method's params.
ENDPOINTS = [
    ("ethereum-mainnet", "", "eth_blockNumber", []),
    ("arbitrum-mainnet", "", "eth_blockNumber", []),
    ("polygon-mainnet", "", "eth_blockNumber", []),
    ("hyperliquid-mainnet", "/evm", "eth_blockNumber", []),
    ("tron-mainnet", "/jsonrpc", "web3_sha3", ["0x00"]),
]


def post_raw(http, url, content: bytes):
    return http.post(url, content=content, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(("node", "path", "method", "params"), ENDPOINTS)
def test_envelope_rules(http, nodes, node, path, method, params):
    url = nodes[node] + path
    ok = {"jsonrpc": "2.0", "id": 41, "method": method, "params": params}
    response = http.post(url, json=ok)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"jsonrpc", "id", "result"} and body["id"] == 41

    parse = post_raw(http, url, b'{"jsonrpc": "2.0", "id": 1,').json()
    assert parse == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    for broken in (
        {**ok, "jsonrpc": "1.0"},
        {k: v for k, v in ok.items() if k != "jsonrpc"},
        {k: v for k, v in ok.items() if k != "id"},
        {**ok, "id": True},
        {**ok, "id": {"a": 1}},
        {**ok, "method": 7},
        {**ok, "params": "nope"},
    ):
        error = http.post(url, json=broken).json()["error"]
        assert error["code"] == -32600, broken
    unknown = http.post(url, json={**ok, "method": "eth_nope"}).json()
    assert unknown["error"] == {"code": -32601, "message": "Method not found"}
    assert unknown["id"] == 41


@pytest.mark.parametrize(("node", "path", "method", "params"), ENDPOINTS)
def test_batches_answer_in_order_with_each_id(http, nodes, node, path, method, params):
    url = nodes[node] + path
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        {"jsonrpc": "2.0", "id": "two", "method": "nope_nope", "params": []},
        {"jsonrpc": "2.0", "id": 3, "method": method, "params": params},
        "not an envelope",
    ]
    answers = http.post(url, json=batch).json()
    assert [a.get("id") for a in answers] == [1, "two", 3, None]
    assert "result" in answers[0] and "result" in answers[2]
    assert answers[1]["error"]["code"] == -32601
    assert answers[3]["error"]["code"] == -32600
    empty = http.post(url, json=[]).json()
    assert empty["error"]["code"] == -32600


def test_ids_are_echoed_exactly(http, nodes):
    url = nodes["tron-mainnet"] + "/jsonrpc"
    for id_ in (0, 7, 2**53, "abc", "", 1.5):
        envelope = {"jsonrpc": "2.0", "id": id_, "method": "web3_sha3", "params": ["0x"]}
        assert http.post(url, json=envelope).json()["id"] == id_


def test_invalid_params_carry_the_validation_text(rpc, nodes, demo):
    url = nodes["ethereum-mainnet"]
    error = rpc(url, "eth_getBalance", demo.evm.accounts["alice"], "12345")["error"]
    assert error["code"] == -32602
    assert "0x prefix" in error["message"]
    assert error["data"] == {"param": "block", "rule": "hex-prefix"}
    error = rpc(url, "eth_getBalance", "0x1234", "latest")["error"]
    assert error["code"] == -32602 and error["data"]["param"] == "address"
    error = rpc(url, "eth_blockNumber", 1, 2)["error"]
    assert error["code"] == -32602 and error["data"]["rule"] == "arity"


def test_named_params_are_refused_on_positional_endpoints(http, nodes):
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": {"a": 1}}
    error = http.post(nodes["ethereum-mainnet"], json=envelope).json()["error"]
    assert error["code"] == -32602


def test_web3_sha3_matches_published_keccak_vectors(rpc, nodes):
    url = nodes["tron-mainnet"] + "/jsonrpc"
    empty = rpc(url, "web3_sha3", "0x", id="empty")
    assert empty == {
        "jsonrpc": "2.0",
        "id": "empty",
        "result": "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    }
    hello = rpc(url, "web3_sha3", "0x" + b"hello".hex(), id=9)
    assert hello["result"] == "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"
    assert hello["id"] == 9
    assert rpc(url, "web3_sha3", "hello")["error"]["code"] == -32602


def test_access_keys(http, nodes, info):
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    missing = http.post(info["platform_url"] + "/", json=envelope)
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "missing_access_key"
    wrong = http.post(info["platform_url"] + "/0123456789abcdef0123456789abcdef", json=envelope)
    assert wrong.status_code == 403
    assert set(wrong.json()["error"]) == {"code", "message"}
    keys = [url.rsplit("/", 1)[1] for url in nodes.values()]
    assert len(set(keys)) == len(keys) == 7
    assert all(len(key) >= 32 for key in keys)
    # a key opens only its own node: the TRON key does not serve EVM methods at its base
    assert http.post(nodes["tron-mainnet"], json=envelope).status_code == 404


def test_unknown_path_and_wrong_http_method(http, nodes):
    unknown = http.post(nodes["tron-mainnet"] + "/wallet/nope", json={})
    assert unknown.status_code == 404
    assert "/wallet/getassetissuebyname" in unknown.json()["error"]["message"]
    assert http.get(nodes["ethereum-mainnet"]).status_code == 405
    assert http.get(nodes["tron-mainnet"] + "/wallet/getassetissuebyid").status_code == 405
