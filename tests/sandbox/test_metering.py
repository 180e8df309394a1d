"""Server-side RU metering: what counts, how much, and reading it in process and over HTTP."""

from __future__ import annotations

import httpx
import pytest

from toolkit.catalog import CATALOG
from toolkit.catalog._pricing import DEFAULT_PRICING


@pytest.fixture
def meter(sandbox):
    sandbox.reset_metering()
    return sandbox


def usage(sandbox, node):
    return sandbox.metering()[node]


def test_archive_calls_cost_two_and_recent_ones_one(meter, rpc, nodes, demo):
    url = nodes["ethereum-mainnet"]
    head = meter.world.head("ethereum")
    alice = demo.evm.accounts["alice"]
    rpc(url, "eth_getBalance", alice, "latest")  # 1
    rpc(url, "eth_getBalance", alice, hex(head - 127))  # 1: fewer than 128 behind
    rpc(url, "eth_getBalance", alice, hex(head - 128))  # 2: archive
    rpc(url, "eth_getStorageAt", demo.evm.token, "0x2", "earliest")  # 2: earliest is archive
    rpc(url, "eth_blockNumber")  # 1
    used = usage(meter, "ethereum-mainnet")
    assert (used["requests"], used["calls"], used["ru"]) == (5, 5, 7)
    assert used["by_method"]["eth_getBalance"] == {"calls": 3, "ru": 4}
    rule = CATALOG["eth_getBalance"].ru
    assert DEFAULT_PRICING.estimate(rule, hex(head - 128), head).ru == 2


def test_debug_costs_two_and_platform_costs_nothing(meter, rpc, nodes, http, info, auth):
    rpc(nodes["arbitrum-mainnet"], "debug_printBlock", hex(250_000_000))
    http.get(info["platform_url"] + "/v2/nodes/", headers=auth)
    assert usage(meter, "arbitrum-mainnet")["ru"] == 2
    assert usage(meter, "platform") == {
        "requests": 1,
        "calls": 1,
        "ru": 0,
        "by_method": {"v2/nodes/": {"calls": 1, "ru": 0}},
    }


def test_a_batch_of_n_is_n_calls(meter, http, nodes, demo):
    head = meter.world.head("polygon")
    batch = [
        {"jsonrpc": "2.0", "id": i, "method": "eth_getBalance", "params": [address, hex(head - i)]}
        for i, address in enumerate(demo.evm.accounts.values())
    ]
    http.post(nodes["polygon-mainnet"], json=batch)
    used = usage(meter, "polygon-mainnet")
    assert used["requests"] == 1 and used["calls"] == len(batch) == 12
    assert used["ru"] == 12  # every block is within 128 of the head


def test_error_answers_count_and_refused_requests_do_not(meter, http, nodes, info):
    url = nodes["hyperliquid-mainnet"] + "/evm"
    http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "nope", "params": []})  # -32601
    http.post(url, content=b"{not json")  # -32700
    http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": [1]})
    http.post(nodes["hyperliquid-mainnet"], json={})  # 404: the base is not the EVM path
    http.post(info["platform_url"] + "/" + "ab" * 16, json={})  # unknown key: not anyone's
    http.get(info["platform_url"] + "/v2/nodes/")  # no API key: not counted
    used = usage(meter, "hyperliquid-mainnet")
    # A method the pricing table does not know ("nope", an unreadable body, a path not served)
    # costs the highest price a call can have, 2 RU (issue 29); eth_getBalance without a block, 1.
    assert (used["requests"], used["calls"], used["ru"]) == (4, 4, 2 + 2 + 1 + 2)
    assert set(used["by_method"]) == {"nope", "", "eth_getBalance"}
    assert usage(meter, "platform")["requests"] == 0


def test_tron_and_ton_calls_are_one_ru(meter, http, nodes, demo):
    tron = nodes["tron-mainnet"]
    http.post(tron + "/wallet/getblockbylatestnum", json={"num": 3})
    http.post(tron + "/wallet/getassetissuebyid", json={"value": "1000001"})
    http.post(
        tron + "/jsonrpc", json={"jsonrpc": "2.0", "id": 1, "method": "web3_sha3", "params": ["0x"]}
    )
    ton = nodes["ton-mainnet"]
    http.get(ton + "/api/v2/getTokenData", params={"address": demo.ton.jettons[0].raw})
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "getMasterchainInfo", "params": {}}
    http.post(ton + "/api/v2/jsonRPC", json=[envelope, envelope])
    assert usage(meter, "tron-mainnet")["ru"] == 3
    ton_used = usage(meter, "ton-mainnet")
    assert (ton_used["requests"], ton_used["calls"], ton_used["ru"]) == (2, 3, 3)
    assert ton_used["by_method"] == {
        "api/v2/getTokenData": {"calls": 1, "ru": 1},
        "api/v2/jsonRPC": {"calls": 2, "ru": 2},
    }


def test_requests_count_on_receipt_and_refusals_do_not(meter, http, nodes):
    """The billing model (`toolkit.catalog.BILLING`): a request is billed when received, so a
    429, a dropped connection and a 503 fault (an overloaded node: the client counts it as "maybe")
    count; a refused key (403) and a stopped node's 503 do not."""
    url = nodes["ethereum-mainnet"]
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    meter.faults.set(kind="rate-limit", node="ethereum-mainnet", count=1)
    assert http.post(url, json=envelope).status_code == 429
    meter.faults.set(kind="drop", node="ethereum-mainnet", count=1)
    with pytest.raises(httpx.TransportError):
        http.post(url, json=envelope)
    meter.faults.set(kind="unavailable", node="ethereum-mainnet", count=1)
    assert http.post(url, json=envelope).status_code == 503
    assert usage(meter, "ethereum-mainnet")["requests"] == 3
    wrong_key = url.rsplit("/", 1)[0] + "/" + "5eedbad" + "c0ffee" * 4 + "1"
    assert http.post(wrong_key, json=envelope).status_code == 403
    stopped = next(n for n in meter.world.nodes if not n.serving)
    stopped_url = f"{url.rsplit('/', 1)[0]}/{stopped.key}"
    assert http.post(stopped_url, json=envelope).status_code == 503
    assert sum(u["requests"] for u in meter.metering().values()) == 3


def test_metering_over_http(meter, http, info, auth, rpc, nodes):
    rpc(nodes["tron-mainnet"] + "/jsonrpc", "web3_sha3", "0x")
    url = info["platform_url"] + "/_sandbox/metering"
    assert http.get(url).status_code == 401
    assert http.get(url, headers={"Authorization": "Bearer nope"}).status_code == 403
    body = http.get(url, headers=auth).json()
    assert set(body) == {*nodes, "platform"}
    assert body["tron-mainnet"]["requests"] == 1
    assert body == meter.metering()
    assert http.post(url + "/reset").status_code == 401
    cleared = http.post(url + "/reset", headers=auth).json()
    assert cleared["tron-mainnet"]["ru"] == 1
    assert http.get(url, headers=auth).json()["tron-mainnet"]["requests"] == 0


def test_a_batch_is_read_once_for_the_meter_and_the_answer(meter, nodes, demo, monkeypatch):
    from toolkit.sandbox import _jsonrpc

    reads = []
    decode = _jsonrpc.decode
    monkeypatch.setattr(_jsonrpc, "decode", lambda body: reads.append(body) or decode(body))
    alice = demo.evm.accounts["alice"]
    batch = [
        {"jsonrpc": "2.0", "id": i, "method": "eth_getBalance", "params": [alice, "latest"]}
        for i in range(3)
    ]
    answers = httpx.post(nodes["ethereum-mainnet"], json=batch).json()
    assert [a["id"] for a in answers] == [0, 1, 2] and all("result" in a for a in answers)
    assert len(reads) == 1
    assert usage(meter, "ethereum-mainnet")["calls"] == 3
