"""The TON node: toncenter v2 bodies for getTokenData and jsonRPC."""

from __future__ import annotations

import pytest
from pytoniq_core import Address


@pytest.fixture(scope="module")
def ton(nodes):
    return nodes["ton-mainnet"]


def test_get_token_data_is_in_toncenter_v2s_current_shape(http, ton, demo):
    assert len(demo.ton.jettons) == 8
    for jetton in demo.ton.jettons:
        response = http.get(ton + "/api/v2/getTokenData", params={"address": jetton.address})
        assert response.status_code == 200
        body = response.json()
        assert body["ok"] is True
        result = body["result"]
        assert list(result)[:5] == ["@type", "address", "contract_type", "total_supply", "mintable"]
        assert result["@type"] == "ext.tokens.jettonMasterData"
        assert result["contract_type"] == "jetton_master"
        assert result["address"] == jetton.address  # the token's own, user-friendly bounceable
        # a decimal string: supplies pass what a JSON number carries exactly
        assert result["total_supply"].isdigit() and int(result["total_supply"]) > 0
        assert result["mintable"] is jetton.mintable
        assert ("admin_address" in result) is jetton.mintable
        assert result["jetton_wallet_code"]
        content = result["jetton_content"]
        assert content["type"] == "onchain"
        assert set(content["data"]) == {"name", "symbol", "decimals", "description", "image"}
        assert content["data"]["symbol"] == jetton.symbol
        assert int(content["data"]["decimals"]) == jetton.decimals


def test_raw_and_friendly_addresses_give_the_same_token(http, ton, demo):
    jetton = demo.ton.jettons[3]
    by_friendly = http.get(ton + "/api/v2/getTokenData", params={"address": jetton.address})
    by_raw = http.get(ton + "/api/v2/getTokenData", params={"address": jetton.raw})
    assert by_friendly.content == by_raw.content


def test_huge_supplies_stay_exact(http, ton, demo):
    tide = next(j for j in demo.ton.jettons if j.symbol == "TIDE")
    response = http.get(ton + "/api/v2/getTokenData", params={"address": tide.raw})
    assert response.json()["result"]["total_supply"] == str(5 * 10**27)


def test_get_token_data_errors(http, ton, demo):
    cases = [
        ({"address": demo.ton.not_a_jetton}, 409),
        ({"address": "not-an-address"}, 416),
        ({}, 422),
    ]
    for params, code in cases:
        response = http.get(ton + "/api/v2/getTokenData", params=params)
        assert response.status_code == code
        body = response.json()
        assert body["ok"] is False and body["code"] == code and isinstance(body["error"], str)


def jsonrpc(http, ton, method, params, id=1):
    envelope = {"jsonrpc": "2.0", "id": id, "method": method, "params": params}
    response = http.post(ton + "/api/v2/jsonRPC", json=envelope)
    assert response.status_code == 200
    return response.json()


def test_unpack_and_pack_address(http, ton, demo):
    jetton = demo.ton.jettons[0]
    body = jsonrpc(http, ton, "unpackAddress", {"address": jetton.address}, id=5)
    # toncenter types the id as a string and echoes it as one
    assert body == {"ok": True, "result": jetton.raw, "jsonrpc": "2.0", "id": "5"}
    assert jsonrpc(http, ton, "unpackAddress", {"address": jetton.address}, id="x")["id"] == "x"
    assert Address(body["result"]) == Address(jetton.address)
    packed = jsonrpc(http, ton, "packAddress", {"address": jetton.raw})
    assert packed["result"] == jetton.address


def test_detect_address(http, ton, demo):
    jetton = demo.ton.jettons[1]
    result = jsonrpc(http, ton, "detectAddress", {"address": jetton.raw})["result"]
    assert result["raw_form"] == jetton.raw
    assert result["given_type"] == "raw_form"
    assert result["bounceable"]["b64url"] == jetton.address
    assert result["non_bounceable"]["b64url"].startswith("UQ")
    friendly = jsonrpc(http, ton, "detectAddress", {"address": jetton.address})["result"]
    assert friendly["given_type"] == "friendly_bounceable"


def test_masterchain_info_follows_the_head(http, ton, sandbox):
    result = jsonrpc(http, ton, "getMasterchainInfo", {})["result"]
    assert result["last"]["seqno"] == sandbox.world.head("ton")
    assert result["last"]["workchain"] == -1
    assert result["init"]["seqno"] == 0


def test_token_data_over_jsonrpc_matches_get(http, ton, demo):
    jetton = demo.ton.jettons[2]
    by_get = http.get(ton + "/api/v2/getTokenData", params={"address": jetton.address}).json()
    by_rpc = jsonrpc(http, ton, "getTokenData", {"address": jetton.address})
    assert by_rpc["result"] == by_get["result"]


def test_jsonrpc_errors_are_toncenter_shaped(http, ton):
    unknown = jsonrpc(http, ton, "getEverything", {}, id=3)
    assert unknown["ok"] is False and unknown["id"] == "3" and unknown["code"] == -32601
    bad = jsonrpc(http, ton, "unpackAddress", {"address": "zzz"})
    assert bad["ok"] is False and bad["code"] == -32602 and "zzz" in bad["error"]
    missing = jsonrpc(http, ton, "detectAddress", {})
    assert missing["ok"] is False and "address" in missing["error"]
    positional = jsonrpc(http, ton, "unpackAddress", ["0:" + "00" * 32])
    assert positional["ok"] is False and positional["code"] == -32602


def test_jsonrpc_batch(http, ton, demo):
    batch = [
        {"jsonrpc": "2.0", "id": i, "method": "unpackAddress", "params": {"address": j.address}}
        for i, j in enumerate(demo.ton.jettons)
    ]
    answers = http.post(ton + "/api/v2/jsonRPC", json=batch).json()
    assert [a["result"] for a in answers] == [j.raw for j in demo.ton.jettons]
    assert [a["id"] for a in answers] == [str(i) for i in range(len(demo.ton.jettons))]
