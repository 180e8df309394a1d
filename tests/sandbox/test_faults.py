"""Fault knobs: every kind as a client sees it, count and rate, scope, and the HTTP controls."""

from __future__ import annotations

import json
import math
import time

import httpx
import pytest

from toolkit.sandbox import FaultKind, Faults

ENVELOPE = {"jsonrpc": "2.0", "id": 7, "method": "eth_blockNumber", "params": []}


@pytest.fixture
def eth(nodes):
    return nodes["ethereum-mainnet"]


def fault_once(sandbox, kind, **settings):
    sandbox.faults.set(kind=kind, node="ethereum-mainnet", count=1, **settings)


def assert_healthy(http, url):
    response = http.post(url, json=ENVELOPE)
    assert response.status_code == 200 and "result" in response.json()


def test_rate_limit_with_retry_after(sandbox, http, eth):
    fault_once(sandbox, "rate-limit", retry_after=3)
    response = http.post(eth, json=ENVELOPE)
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "3"
    assert response.headers["content-type"] == "application/json"
    assert set(response.json()["error"]) == {"code", "message"}
    assert_healthy(http, eth)


def test_rate_limit_as_html_without_retry_after(sandbox, http, eth):
    fault_once(sandbox, "rate-limit-html")
    response = http.post(eth, json=ENVELOPE)
    assert response.status_code == 429
    assert "retry-after" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert "429 Too Many Requests" in response.text


def test_rate_limit_as_a_json_rpc_error(sandbox, http, eth):
    fault_once(sandbox, "rate-limit-rpc", try_again_in="250ms")
    response = http.post(eth, json=ENVELOPE)
    assert response.status_code == 200
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": -32005,
            "message": "RPS limit exceeded",
            "data": {"try_again_in": "250ms"},
        },
    }
    fault_once(sandbox, "rate-limit-rpc")
    batch = http.post(eth, json=[ENVELOPE, {**ENVELOPE, "id": "b"}]).json()
    assert [a["id"] for a in batch] == [7, "b"]
    assert all(a["error"]["code"] == -32005 for a in batch)


@pytest.mark.parametrize(
    ("kind", "status", "marker"),
    [
        ("server-error", 500, "internal_error"),
        ("bad-gateway", 502, "502 Bad Gateway"),
        ("unavailable", 503, "503 Service"),
        ("html", 200, "<!DOCTYPE html>"),
    ],
)
def test_error_pages(sandbox, http, eth, kind, status, marker):
    fault_once(sandbox, kind)
    response = http.post(eth, json=ENVELOPE)
    assert response.status_code == status
    assert marker in response.text
    if kind != "server-error":
        assert response.headers["content-type"].startswith("text/html")
    assert_healthy(http, eth)


def test_truncated_body(sandbox, http, eth):
    whole = http.post(eth, json=ENVELOPE).content
    fault_once(sandbox, "truncated")
    response = http.post(eth, json=ENVELOPE)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == whole[: len(whole) // 2]
    with pytest.raises(ValueError):
        response.json()


def test_non_json_number_writes_nan_where_a_number_or_the_result_was(sandbox, http, eth):
    fault_once(sandbox, "non-json-number")
    response = http.post(eth, json=ENVELOPE)
    assert response.status_code == 200
    assert response.content.endswith(b'"result": NaN}')  # eth_blockNumber's result is text
    decoded = json.loads(response.content)  # Python's json takes it; JSON has no NaN
    assert math.isnan(decoded["result"]) and decoded["id"] == ENVELOPE["id"]


def test_wrong_content_type(sandbox, http, eth):
    whole = http.post(eth, json=ENVELOPE).content
    fault_once(sandbox, "wrong-content-type")
    response = http.post(eth, json=ENVELOPE)
    assert response.headers["content-type"].startswith("text/plain")
    assert response.content == whole


def test_dropped_connection(sandbox, eth):
    fault_once(sandbox, "drop")
    with httpx.Client() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            client.post(eth, json=ENVELOPE)
        assert client.post(eth, json=ENVELOPE).status_code == 200


def test_latency_combines_with_other_faults(sandbox, http, eth):
    fault_once(sandbox, "latency", delay=0.3)
    fault_once(sandbox, "rate-limit")
    started = time.perf_counter()
    response = http.post(eth, json=ENVELOPE)
    assert time.perf_counter() - started >= 0.3
    assert response.status_code == 429
    started = time.perf_counter()
    assert_healthy(http, eth)
    assert time.perf_counter() - started < 0.3


def test_count_fires_exactly_n_times_on_its_node_only(sandbox, http, nodes, eth):
    sandbox.faults.set(kind="server-error", node="ethereum-mainnet", count=3)
    polygon = nodes["polygon-mainnet"]
    assert http.post(polygon, json=ENVELOPE).status_code == 200
    assert [http.post(eth, json=ENVELOPE).status_code for _ in range(5)] == [500] * 3 + [200] * 2
    assert sandbox.faults.list() == []


def test_global_faults_hit_every_node_and_the_platform(sandbox, http, nodes, info, auth):
    sandbox.faults.set(kind="unavailable")
    assert http.post(
        nodes["tron-mainnet"] + "/wallet/getblockbylatestnum", json={}
    ).status_code == (503)
    assert http.get(info["platform_url"] + "/v2/nodes/", headers=auth).status_code == 503
    sandbox.faults.clear()
    assert http.get(info["platform_url"] + "/v2/nodes/", headers=auth).status_code == 200


def test_rate_is_a_seeded_probability():
    def pattern(seed):
        faults = Faults(seed, ["n"])
        faults.set(kind="server-error", rate=0.5)
        return [faults.draw("n").fault is not None for _ in range(200)]

    assert pattern(1) == pattern(1)
    assert pattern(1) != pattern(2)
    assert 60 < sum(pattern(1)) < 140


def test_knobs_are_checked():
    faults = Faults(0, ["ethereum-mainnet"])
    for bad in (
        {"kind": "gremlins"},
        {"kind": "drop", "node": "mars-mainnet"},
        {"kind": "drop", "rate": 0},
        {"kind": "drop", "count": 0},
        {"kind": "latency", "delay": -1},
    ):
        with pytest.raises(ValueError):
            faults.set(**bad)
    assert {k.value for k in FaultKind} >= {"rate-limit", "drop", "truncated", "latency"}


def test_faults_over_http(sandbox, http, info, auth, eth):
    url = info["platform_url"] + "/_sandbox/faults"
    assert http.post(url, json={"kind": "drop"}).status_code == 401
    settings = {"kind": "bad-gateway", "node": "ethereum-mainnet", "count": 2}
    created = http.post(url, json=settings, headers=auth).json()
    assert created["kind"] == "bad-gateway" and created["count"] == 2
    assert http.get(url, headers=auth).json()["faults"] == [created]
    assert http.post(eth, json=ENVELOPE).status_code == 502
    bad = http.post(url, json={"kind": "nope"}, headers=auth)
    assert bad.status_code == 400 and "unknown fault kind" in bad.json()["error"]["message"]
    assert http.post(url, json={"kind": "drop", "colour": 1}, headers=auth).status_code == 400
    assert http.delete(url, headers=auth, params={"node": "ethereum-mainnet"}).json() == {
        "removed": 1
    }
    assert_healthy(http, eth)
