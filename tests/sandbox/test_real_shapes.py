"""The sandbox answers the newer read methods in the shape real nodes do: the same keys, at the same
depth, as the real published bodies in tests/fixtures/real/ (sources in SOURCES.md).

A shape is the set of key paths of a JSON value (``block_header.raw_data.number``; list elements
share the path ``[]``). Where real bodies differ among themselves (a field only newer node versions
print, a publisher's shortening), the sandbox must carry the keys every real body has and none
that no real body has.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.fixtures.real_bodies import real_result as real


def shape(value: Any, prefix: str = "") -> set[str]:
    """The key paths of a JSON value; "@type" keys (toncenter's type tags) included."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            paths |= {path} | shape(item, path)
    elif isinstance(value, list):
        for item in value:
            paths |= shape(item, f"{prefix}[]")
    return paths


def assert_shape_between(answer: Any, *real_bodies: Any, ignore: set[str] = frozenset()) -> None:
    """`answer` has every key path all real bodies have, and none that no real body has."""
    shapes = [shape(body) - ignore for body in real_bodies]
    common, known = set.intersection(*shapes), set.union(*shapes)
    got = shape(answer) - ignore
    assert not common - got, f"missing what real bodies have: {sorted(common - got)}"
    assert not got - known, f"keys no real body has: {sorted(got - known)}"


@pytest.fixture(scope="module")
def eth(nodes):
    return nodes["ethereum-mainnet"]


@pytest.fixture(scope="module")
def tron(nodes, http):
    """`tron(path, **body)`: a POST to the TRON node, its JSON."""
    return lambda path, **body: _ok(http.post(nodes["tron-mainnet"] + path, json=body))


@pytest.fixture(scope="module")
def ton(nodes, http):
    """`ton(path, **params)`: a GET on the TON node, its JSON."""
    return lambda path, **params: _ok(http.get(nodes["ton-mainnet"] + path, params=params))


def _ok(response: Any) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


# Header fields of forks after London (Shanghai withdrawals, Cancun blobs and beacon root, Prague
# requests) and the blockTimestamp geth 1.16 adds to transactions and logs: real Ethereum bodies
# have them, the sandbox's chains (Arbitrum, Polygon, Hyperliquid among them) answer London blocks.
LATER_FIELDS = {
    "blobGasUsed",
    "excessBlobGas",
    "parentBeaconBlockRoot",
    "requestsHash",
    "withdrawals",
    "withdrawalsRoot",
    "transactions[].blockTimestamp",
    "blockTimestamp",
}
# Keys an eth_simulateV1 block carries besides what eth_getBlockByNumber has.
SIMULATE_ONLY = {"calls", "calls[].returnData", "calls[].logs", "calls[].gasUsed"}


def _block_with_transactions(rpc, eth, full: bool) -> dict[str, Any]:
    head = int(rpc(eth, "eth_blockNumber")["result"], 16)
    for number in range(head, head - 50, -1):
        block = rpc(eth, "eth_getBlockByNumber", hex(number), full)["result"]
        if block["transactions"]:
            return block
    raise AssertionError("no block with transactions near the head")


def test_evm_scalars_are_of_the_real_kinds(rpc, eth):
    chain_id = rpc(eth, "eth_chainId")["result"]
    assert re.fullmatch(r"0x[0-9a-f]+", chain_id)
    assert re.fullmatch(r"0x[0-9a-f]+", real("evm_eth_chainid_execution_apis.json"))
    # net_version is decimal text of the same number, as real nodes answer
    assert rpc(eth, "net_version")["result"] == str(int(chain_id, 16))
    assert real("evm_net_version_execution_apis.json").isdigit()
    assert re.fullmatch(r"0x[0-9a-f]+", rpc(eth, "eth_gasPrice")["result"])
    nobody = "0xc1cadaffffffffffffffffffffffffffffffffff"
    assert rpc(eth, "eth_getCode", nobody, "latest")["result"] == "0x"  # as the real answer
    assert rpc(eth, "eth_getTransactionCount", nobody, "latest")["result"] == "0x0"


def test_evm_blocks_have_the_real_header_keys(rpc, eth):
    block = _block_with_transactions(rpc, eth, full=False)
    real_block = real("evm_eth_getblockbynumber_hashes_execution_apis.json")
    assert_shape_between(block, real_block, ignore=LATER_FIELDS)


def test_evm_type_2_transactions_have_the_real_keys(rpc, eth):
    block = _block_with_transactions(rpc, eth, full=True)
    type_2 = [tx for tx in block["transactions"] if tx["type"] == "0x2"]
    assert type_2, "the sandbox's users send EIP-1559 transactions"
    (real_block,) = real("evm_eth_simulatev1_type2_blocks_execution_apis.json")
    real_tx = real_block["transactions"][0]
    for tx in type_2:
        assert set(tx) == set(real_tx) - {"blockTimestamp"}
        assert int(tx["maxFeePerGas"], 16) >= int(tx["gasPrice"], 16)
        assert int(tx["maxPriorityFeePerGas"], 16) <= int(tx["maxFeePerGas"], 16)
        assert tx["yParity"] in ("0x0", "0x1") and tx["accessList"] == []
    legacy = real("evm_eth_getblockbynumber_latest_full_execution_apis.json")["transactions"][0]
    assert "maxFeePerGas" not in legacy  # type 0 carries no caps; the frame's NA


def test_evm_logs_have_the_real_keys(rpc, eth):
    head = int(rpc(eth, "eth_blockNumber")["result"], 16)
    logs = rpc(eth, "eth_getLogs", {"fromBlock": hex(head - 200), "toBlock": hex(head)})["result"]
    assert logs, "the demo token moves every few blocks"
    real_log = real("evm_eth_getlogs_execution_apis.json")[0]
    for log in logs[:20]:
        assert set(log) == set(real_log) - {"blockTimestamp"}


def test_tron_blocks_have_the_real_keys(tron):
    now = tron("/wallet/getnowblock")
    number = now["block_header"]["raw_data"]["number"]
    by_num = tron("/wallet/getblockbynum", num=number - 1)
    real_blocks = [real("tron_getnowblock_nile.jsonc"), real("tron_getblockbynum_nile.jsonc")]
    # the publisher elided the transactions, so their keys are not compared here
    for block in (now, by_num):
        header = {k: v for k, v in block.items() if k != "transactions"}
        assert_shape_between(
            header, *({k: v for k, v in b.items() if k != "transactions"} for b in real_blocks)
        )
    assert tron("/wallet/getblockbynum", num=number + 1000) == {}  # above the head


def test_tron_node_info_has_the_real_keys(tron):
    info = tron("/wallet/getnodeinfo")
    mainnet = real("tron_getnodeinfo_mainnet_getblock.json")
    assert_shape_between(info, mainnet)
    assert "peerInfoList" not in info and info["peerList"]  # java-tron's name for the list
    assert info["currentConnectCount"] == len(info["peerList"])
    assert all(peer["host"].startswith("/") for peer in info["peerList"])
    # the shortened Nile body has nothing the sandbox lacks
    assert shape(real("tron_getnodeinfo_nile_excerpt.json")) <= shape(info)


def test_tron_accounts_have_the_real_keys(tron, demo):
    for address in demo.tron.accounts.values():
        for visible in (False, True):
            account = tron("/wallet/getaccount", address=address, visible=visible)
            assert_shape_between(
                account,
                real("tron_getaccount_nile.json"),
                real("tron_getaccount_visible_getblock.json"),
            )
            assert account["address"].startswith("T" if visible else "41")
            keys = account["owner_permission"]["keys"]
            assert keys[0]["address"] == account["address"]


def test_ton_masterchain_info_has_the_real_keys_and_zero_state(ton):
    body = ton("/api/v2/getMasterchainInfo")
    assert body["ok"] is True
    rest = real("ton_getmasterchaininfo_toncenter_docs.json")["result"]
    jsonrpc = real("ton_getmasterchaininfo_jsonrpc_getblock.json")  # its result
    assert_shape_between(body["result"], rest, jsonrpc)
    # the zero state is the one every real answer shows, shard "0" included
    assert body["result"]["init"] == rest["init"] == jsonrpc["init"]
    assert body["result"]["last"]["shard"] == rest["last"]["shard"]


def test_ton_address_forms_have_the_real_keys(ton, demo):
    jetton = demo.ton.jettons[0]
    body = ton("/api/v2/detectAddress", address=jetton.address)
    older = real("ton_detectaddress_getblock_older.json")["result"]
    # toncenter's current answers add "@type" tags to the older shape
    tags = {"@type", "bounceable.@type", "non_bounceable.@type"}
    assert shape(body["result"]) - tags == shape(older)
    assert body["result"]["@type"] == "ext.utils.detectedAddress"


# --- beyond the spec: what web3.py asks after get_block (sandbox/_evm_beyond.py) ---------------


def test_evm_receipts_have_the_real_keys(rpc, eth):
    block = _block_with_transactions(rpc, eth, full=False)
    dynamic = real("evm_eth_gettransactionreceipt_dynamic_fee_execution_apis.json")
    legacy = real("evm_eth_gettransactionreceipt_legacy_execution_apis.json")
    real_log = real("evm_eth_getlogs_execution_apis.json")[0]
    for tx_hash in block["transactions"]:
        receipt = rpc(eth, "eth_getTransactionReceipt", tx_hash)["result"]
        assert set(receipt) == set(dynamic) == set(legacy)
        assert len(receipt["logsBloom"]) == len(dynamic["logsBloom"])
        assert receipt["status"] in ("0x0", "0x1") and receipt["contractAddress"] is None
        for log in receipt["logs"]:
            assert set(log) == set(real_log) - {"blockTimestamp"}
    missing = rpc(eth, "eth_getTransactionReceipt", "0x" + "ab" * 32)
    assert missing["result"] is None  # geth's answer for an unknown hash


def test_evm_fee_history_has_the_real_keys_and_kinds(rpc, eth):
    recorded = real("evm_eth_feehistory_execution_apis.json")
    history = rpc(eth, "eth_feeHistory", "0x1", "latest", [95, 99])["result"]
    assert set(history) == set(recorded)
    assert len(history["baseFeePerGas"]) == 2 and len(history["gasUsedRatio"]) == 1
    assert isinstance(history["gasUsedRatio"][0], float) and 0 <= history["gasUsedRatio"][0] <= 1
    assert len(history["reward"]) == 1 and len(history["reward"][0]) == 2
    assert all(re.fullmatch(r"0x[0-9a-f]+", fee) for fee in history["baseFeePerGas"])


def test_evm_estimate_gas_answers_the_recorded_request_as_recorded(rpc, eth):
    """The request of the recording (a transfer from an unfunded sender, no value) gets the
    recorded answer."""
    recorded = real("evm_eth_estimategas_simple_transfer_execution_apis.json")
    call = {
        "from": "0xaa00000000000000000000000000000000000000",
        "to": "0x0100000000000000000000000000000000000000",
    }
    assert rpc(eth, "eth_estimateGas", call)["result"] == recorded == "0x5208"
