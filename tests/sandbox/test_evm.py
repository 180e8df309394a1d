"""EVM nodes: heads, archive balances, the token's calls and storage, geth's errors, and the
chain-specific methods (Arbitrum's debug_printBlock, Polygon's bor_getRootHash)."""

from __future__ import annotations

import re

import httpx
import pandas as pd
import pytest
from eth_abi import decode, encode

from toolkit.catalog import encoding as enc
from toolkit.sandbox import Sandbox

EVM_NODES = {
    "ethereum-mainnet": ("ethereum", 21_000_000, 22_000_000, "Geth/v1.14."),
    "arbitrum-mainnet": ("arbitrum", 22_207_815, 400_000_000, "nitro/v3"),
    "polygon-mainnet": ("polygon", 64_000_000, 66_000_000, "bor/v2"),
    "hyperliquid-mainnet": ("hyperliquid", 9_000_000, 11_000_000, "hyperliquid-evm/"),
}


def rpc_url(nodes, name):
    return nodes[name] + ("/evm" if name == "hyperliquid-mainnet" else "")


def selector(signature: str) -> str:
    return "0x" + enc.keccak256(signature.encode())[:4].hex()


def result(response):
    assert "error" not in response, response
    return response["result"]


@pytest.mark.parametrize("name", EVM_NODES)
def test_block_number_and_client_version_are_realistic(sandbox, nodes, rpc, name):
    chain, low, high, version = EVM_NODES[name]
    url = rpc_url(nodes, name)
    head = int(result(rpc(url, "eth_blockNumber")), 16)
    assert low < head < high
    assert head == sandbox.world.head(chain)
    assert result(rpc(url, "web3_clientVersion")).startswith(version)


def test_base_url_answers_with_or_without_trailing_slash(nodes, rpc):
    url = nodes["ethereum-mainnet"]
    assert result(rpc(url, "eth_blockNumber")) == result(rpc(url + "/", "eth_blockNumber"))


def test_hyperliquid_serves_evm_only_under_evm(nodes, http):
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    assert http.post(nodes["hyperliquid-mainnet"] + "/evm/", json=envelope).status_code == 200
    response = http.post(nodes["hyperliquid-mainnet"], json=envelope)
    assert response.status_code == 404
    assert "/evm" in response.json()["error"]["message"]


def test_balances_change_over_history_and_are_stable(nodes, rpc, demo, sandbox):
    url = nodes["ethereum-mainnet"]
    head = sandbox.world.head("ethereum")
    alice = demo.evm.accounts["alice"]
    blocks = [hex(head - step * 50_000) for step in range(20)]
    balances = [int(result(rpc(url, "eth_getBalance", alice, block)), 16) for block in blocks]
    assert len(set(balances)) > 5  # the account moves money around
    assert balances[0] == int(result(rpc(url, "eth_getBalance", alice, "latest")), 16)
    again = [int(result(rpc(url, "eth_getBalance", alice, block)), 16) for block in blocks]
    assert again == balances
    assert result(rpc(url, "eth_getBalance", alice, "earliest")) == "0x0"
    unknown = "0x" + "12" * 20
    assert result(rpc(url, "eth_getBalance", unknown, "latest")) == "0x0"


def test_each_chain_has_its_own_history(nodes, rpc, demo):
    bob = demo.evm.accounts["bob"]
    balances = {
        result(rpc(rpc_url(nodes, name), "eth_getBalance", bob, "latest")) for name in EVM_NODES
    }
    assert len(balances) == len(EVM_NODES)


def test_block_above_the_head_is_header_not_found(nodes, rpc, demo, sandbox):
    above = hex(sandbox.world.head("ethereum") + 1)
    url = nodes["ethereum-mainnet"]
    for method, params in (
        ("eth_getBalance", [demo.evm.accounts["alice"], above]),
        ("eth_getStorageAt", [demo.evm.token, "0x2", above]),
        ("eth_call", [{"to": demo.evm.token, "data": selector("totalSupply()")}, above]),
    ):
        error = rpc(url, method, *params)["error"]
        assert error == {"code": -32000, "message": "header not found"}


def test_block_tags_resolve_below_the_head(nodes, rpc, demo, sandbox):
    url = nodes["polygon-mainnet"]
    carol = demo.evm.accounts["carol"]
    head = sandbox.world.head("polygon")
    finalized = result(rpc(url, "eth_getBalance", carol, "finalized"))
    assert finalized == result(rpc(url, "eth_getBalance", carol, hex(head - 256)))
    assert result(rpc(url, "eth_getBalance", carol, "pending")) == result(
        rpc(url, "eth_getBalance", carol, "latest")
    )


def test_token_answers_its_abi(nodes, rpc, demo):
    url, token = nodes["arbitrum-mainnet"], demo.evm.token

    def call(signature: str, arguments: bytes = b"") -> bytes:
        data = selector(signature) + arguments.hex()
        return bytes.fromhex(
            result(rpc(url, "eth_call", {"to": token, "data": data}, "latest"))[2:]
        )

    assert decode(["string"], call("name()")) == ("Sandbox Dollar",)
    assert decode(["string"], call("symbol()")) == ("SBXD",)
    assert decode(["uint8"], call("decimals()")) == (6,)
    supply = decode(["uint256"], call("totalSupply()"))[0]
    holdings = [
        decode(["uint256"], call("balanceOf(address)", encode(["address"], [a])))[0]
        for a in demo.evm.accounts.values()
    ]
    assert all(h >= 0 for h in holdings) and sum(holdings) > 0
    assert supply > sum(holdings)  # the treasury holds the rest
    assert set(demo.evm.token_functions) == {
        "balanceOf(address)",
        "totalSupply()",
        "decimals()",
        "symbol()",
        "name()",
    }


def test_token_balances_change_over_history(nodes, rpc, demo, sandbox):
    url = nodes["ethereum-mainnet"]
    data = selector("balanceOf(address)") + encode(["address"], [demo.evm.accounts["dave"]]).hex()
    head = sandbox.world.head("ethereum")
    seen = {
        result(rpc(url, "eth_call", {"to": demo.evm.token, "data": data}, hex(head - k * 100_000)))
        for k in range(15)
    }
    assert len(seen) > 3


def test_unknown_selector_and_bad_arguments_revert(nodes, rpc, demo):
    url = nodes["ethereum-mainnet"]
    for data in ("0xdeadbeef", selector("balanceOf(address)") + "12"):
        error = rpc(url, "eth_call", {"to": demo.evm.token, "data": data}, "latest")["error"]
        assert error["message"] == "execution reverted"
        assert error["code"] in (3, -32000)


def test_token_does_not_exist_before_its_deployment(nodes, rpc, demo):
    url = nodes["ethereum-mainnet"]
    before = hex(demo.evm.token_deployed_at["ethereum"] - 1)
    call = {"to": demo.evm.token, "data": selector("totalSupply()")}
    assert result(rpc(url, "eth_call", call, before)) == "0x"
    assert result(rpc(url, "eth_getStorageAt", demo.evm.token, "0x2", before)) == "0x" + "00" * 32


def test_plain_transfer_needs_funds_for_value_and_gas(nodes, rpc, demo):
    url = nodes["ethereum-mainnet"]
    alice, bob = demo.evm.accounts["alice"], demo.evm.accounts["bob"]
    have = int(result(rpc(url, "eth_getBalance", alice, "latest")), 16)
    gas, price = 21_000, 10**9
    affordable = {"from": alice, "to": bob, "value": hex(have - gas * price), "gas": hex(gas)}
    affordable["gasprice"] = hex(price)
    assert result(rpc(url, "eth_call", affordable, "latest")) == "0x"
    too_much = {**affordable, "value": hex(have - gas * price + 1)}
    error = rpc(url, "eth_call", too_much, "latest")["error"]
    assert error["code"] == -32000
    assert error["message"].startswith("insufficient funds for gas * price + value")
    assert f"have {have} want {have + 1}" in error["message"]


def test_storage_follows_openzeppelin_layout(nodes, rpc, demo):
    url, token = nodes["polygon-mainnet"], demo.evm.token

    def word(slot: int | str) -> bytes:
        slot = slot if isinstance(slot, str) else hex(slot)
        value = result(rpc(url, "eth_getStorageAt", token, slot, "latest"))
        assert re.fullmatch(r"0x[0-9a-f]{64}", value)
        return bytes.fromhex(value[2:])

    supply_call = {"to": token, "data": selector("totalSupply()")}
    assert word(2) == bytes.fromhex(result(rpc(url, "eth_call", supply_call, "latest"))[2:])
    assert word(4) == b"SBXD".ljust(31, b"\0") + bytes([8])
    assert word(3) == b"Sandbox Dollar".ljust(31, b"\0") + bytes([28])
    erin = demo.evm.accounts["erin"]
    slot = enc.keccak256(bytes.fromhex(erin[2:].rjust(64, "0")) + bytes(32))
    balance_call = {"to": token, "data": selector("balanceOf(address)") + erin[2:].rjust(64, "0")}
    balance = result(rpc(url, "eth_call", balance_call, "latest"))
    assert word("0x" + slot.hex()) == bytes.fromhex(balance[2:])
    assert word(99) == bytes(32)
    assert result(rpc(url, "eth_getStorageAt", erin, "0x0", "latest")) == "0x" + "00" * 32


def test_debug_print_block_is_a_spew_dump_of_the_block(nodes, rpc):
    # Nitro answers spew.Sdump(block): typed values, pointers, hex dumps of byte fields.
    dump = result(rpc(nodes["arbitrum-mainnet"], "debug_printBlock", 250_000_000))
    lines = dump.splitlines()
    assert re.fullmatch(r"\(\*types\.Block\)\(0xc[0-9a-f]{9}\)\(\{", lines[0])
    assert re.fullmatch(r" header: \(\*types\.Header\)\(0xc[0-9a-f]{9}\)\(\{", lines[1])
    assert re.fullmatch(
        r"  ParentHash: \(common\.Hash\) \(len=32 cap=32\) 0x[0-9a-f]{64},", lines[2]
    )
    sequencer = "0xA4b000000000000000000073657175656e636572"  # EIP-55, as common.Address prints
    assert f"  Coinbase: (common.Address) (len=20 cap=20) {sequencer}," in lines
    assert re.search(r"\n  Number: \(\*big\.Int\)\(0xc[0-9a-f]{9}\)\(250000000\),\n", dump)
    assert "  GasLimit: (uint64) 1125899906842624," in lines
    assert "  Bloom: (types.Bloom) (len=256 cap=256) {" in lines
    assert re.search(r"\n   000000f0  (?:[0-9a-f]{2} {1,2}){16}\|.{16}\|\n  \},\n", dump)
    assert re.search(r"\n transactions: \(types\.Transactions\) \(len=\d+ cap=\d+\) \{\n", dump)
    assert "   inner: (*types.ArbitrumInternalTx)" in dump  # ArbOS's start-of-block transaction
    assert lines[-1] == "})"
    # the node reads the spec's decimal integer and its sample's 0x hex alike
    assert dump == result(rpc(nodes["arbitrum-mainnet"], "debug_printBlock", hex(250_000_000)))


def test_debug_print_block_reads_back_through_the_frame(nodes, rpc, sandbox):
    from toolkit.frames import evm_printed_blocks

    dump = result(rpc(nodes["arbitrum-mainnet"], "debug_printBlock", 250_000_000))
    row = evm_printed_blocks(dump).iloc[0]
    assert row["number"] == 250_000_000
    assert row["miner"] == "0xA4b000000000000000000073657175656e636572"
    assert row["gas_limit"] == 2**50 and row["base_fee"] == 10_000_000
    assert row["gas_used"] > 0 and row["tx_count"] >= 1 and row["uncle_count"] == 0
    assert row["timestamp"].year >= 2024 and row["size"].endswith(("B", "KiB"))
    # geth 1.14 caches the block hash behind a pointer: not in the dump, so NA (never the pointer)
    assert pd.isna(row["hash"])


def test_debug_print_block_floor_and_chain(nodes, rpc):
    error = rpc(nodes["arbitrum-mainnet"], "debug_printBlock", hex(22_207_814))["error"]
    assert error["code"] == -32602
    assert "22,207,815" in error["message"]
    assert "result" in rpc(nodes["arbitrum-mainnet"], "debug_printBlock", hex(22_207_815))
    # only Arbitrum serves it
    assert rpc(nodes["ethereum-mainnet"], "debug_printBlock", "0x1")["error"]["code"] == -32601


def test_bor_root_hash_is_64_hex_without_prefix_and_deterministic(nodes, rpc, sandbox):
    url = nodes["polygon-mainnet"]
    head = sandbox.world.head("polygon")
    first = result(rpc(url, "bor_getRootHash", head - 1023, head))
    assert re.fullmatch(r"[0-9a-f]{64}", first)
    assert first == result(rpc(url, "bor_getRootHash", head - 1023, head))
    assert first != result(rpc(url, "bor_getRootHash", head - 1024, head - 1))
    assert rpc(nodes["ethereum-mainnet"], "bor_getRootHash", 1, 2)["error"]["code"] == -32601


def test_bor_root_hash_range_cap_and_bounds(nodes, rpc, sandbox):
    url = nodes["polygon-mainnet"]
    head = sandbox.world.head("polygon")
    error = rpc(url, "bor_getRootHash", head - 1024, head)["error"]
    assert error["code"] == -32000
    assert "1024" in error["message"] and "1025" in error["message"]
    assert rpc(url, "bor_getRootHash", head, head + 1)["error"]["message"] == "header not found"
    assert rpc(url, "bor_getRootHash", 10, 5)["error"]["code"] == -32602
    assert rpc(url, "bor_getRootHash", "0x10", 20)["error"]["code"] == -32602


def test_bor_root_hash_cap_is_configurable():
    with Sandbox(head_pace=0, root_hash_cap=16) as small, httpx.Client() as http:
        url = small.info["nodes"]["polygon-mainnet"]
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "bor_getRootHash", "params": [1, 17]}
        error = http.post(url, json=envelope).json()["error"]
        assert "limit is 16 blocks" in error["message"]
