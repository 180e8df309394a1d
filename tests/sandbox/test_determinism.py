"""The same seed gives byte-identical answers; another seed gives another world."""

from __future__ import annotations

import httpx

from toolkit.catalog import encoding as enc
from toolkit.sandbox import DEMO, Sandbox


def request_set(info):
    """(method, url, kwargs) for a fixed tour of every endpoint."""
    nodes, demo = info["nodes"], DEMO
    alice, token = demo.evm.accounts["alice"], demo.evm.token

    def rpc(method, *params):
        return {"json": {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}}

    tron, ton = nodes["tron-mainnet"], nodes["ton-mainnet"]
    pending = next(p for p in demo.tron.proposals if p.deletable)
    masterchain = {"method": "getMasterchainInfo", "params": {}}
    requests = [
        ("POST", nodes[name] + path, rpc("eth_getBalance", alice, hex(block)))
        for name, path, block in [
            ("ethereum-mainnet", "", 21_000_000),
            ("arbitrum-mainnet", "", 290_000_000),
            ("polygon-mainnet", "", 64_900_000),
            ("hyperliquid-mainnet", "/evm", 9_990_000),
        ]
    ]
    requests += [
        ("POST", nodes["ethereum-mainnet"], rpc("eth_blockNumber")),
        ("POST", nodes["ethereum-mainnet"], rpc("eth_getStorageAt", token, "0x2", "latest")),
        ("POST", nodes["polygon-mainnet"], rpc("eth_call", {"to": token, "data": "0x18160ddd"})),
        ("POST", nodes["arbitrum-mainnet"], rpc("debug_printBlock", hex(299_000_000))),
        ("POST", nodes["polygon-mainnet"], rpc("bor_getRootHash", 64_000_000, 64_000_500)),
        ("POST", tron + "/wallet/getblockbylatestnum", {"json": {"num": 20}}),
        ("POST", tron + "/wallet/gettransactioninfobyblocknum", {"json": {"num": 72_000_123}}),
        ("POST", tron + "/wallet/getassetissuelistbyname", {"json": {"value": "Tether USD"}}),
        (
            "POST",
            tron + "/wallet/proposaldelete",
            {"json": {"owner_address": pending.creator, "proposal_id": pending.id}},
        ),
        ("POST", tron + "/jsonrpc", rpc("web3_sha3", "0x" + enc.utf8_to_hex("determinism"))),
        ("GET", ton + "/api/v2/getTokenData", {"params": {"address": demo.ton.jettons[0].raw}}),
        ("POST", ton + "/api/v2/jsonRPC", {"json": {**rpc("")["json"], **masterchain}}),
        ("GET", info["platform_url"] + "/v2/nodes/", {"params": {"page": 2}}),
    ]
    return requests


def bodies(seed):
    with Sandbox(seed=seed, head_pace=0) as sandbox, httpx.Client() as http:
        info = sandbox.info
        headers = {"Authorization": f"Bearer {info['api_key']}", "Host": "sandbox.test"}
        out = []
        for method, url, kwargs in request_set(info):
            response = http.request(method, url, headers=headers, **kwargs)
            assert response.status_code == 200, (url, response.text)
            out.append(response.content)
        return out, info


def test_same_seed_same_bytes_other_seed_other_world():
    first, first_info = bodies(0)
    second, second_info = bodies(0)
    assert first == second
    assert first_info["api_key"] == second_info["api_key"]
    strip = lambda info: {k: v.rsplit("/", 1)[1] for k, v in info["nodes"].items()}  # noqa: E731
    assert strip(first_info) == strip(second_info)
    other, other_info = bodies(1)
    assert other_info["api_key"] != first_info["api_key"]
    paths = [url.rsplit("/", 1)[1] for _, url, _ in request_set(first_info)]
    same = [path for path, a, b in zip(paths, first, other, strict=True) if a == b]
    # only the seed-independent answers agree: the asset list and web3_sha3
    assert same == ["getassetissuelistbyname", "jsonrpc"]
