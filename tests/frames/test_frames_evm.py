"""EVM frames: hex quantities, balances across blocks, debug_printBlock dumps, Bor root hashes."""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit.catalog import abi
from toolkit.frames import FrameError, evm_balances, evm_printed_blocks, evm_root_hashes, quantity
from toolkit.frames._evm import BALANCE_COLUMNS, PRINT_BLOCK_COLUMNS, ROOT_HASH_COLUMNS

ALICE = "0x1f9090aae28b8a3dceadf281b0f12828e676c326"
BOB = "0x388c818ca8b9251b393131c08a736a67ccb19297"


def test_quantity():
    assert quantity("0x1bc16d674ec80000") == 2 * 10**18
    assert quantity("0x0") == 0
    assert quantity(7) == 7
    assert quantity({"jsonrpc": "2.0", "id": 1, "result": "0x10"}) == 16
    for bad in ("latest", "0x", "12", None, 1.5, True):
        with pytest.raises(FrameError):
            quantity(bad)


def test_balances_frame_from_tuples_and_dicts():
    records = [
        (ALICE, 22207815, "0x1bc16d674ec80000"),
        (ALICE, hex(22207816), hex(2**70)),
        {"address": BOB, "block": 22207815, "wei": 0},
        {
            "address": BOB,
            "block": 22207816,
            "balance": {"jsonrpc": "2.0", "id": 4, "result": "0x1"},
        },
    ]
    df = evm_balances(records)
    assert tuple(df.columns) == BALANCE_COLUMNS
    assert df["block"].tolist() == [22207815, 22207816, 22207815, 22207816]
    assert df["wei"].tolist() == [2 * 10**18, 2**70, 0, 1]
    assert df["wei"].dtype == object and str(df["block"].dtype) == "Int64"
    assert df["eth"].tolist() == [2.0, 2**70 / 10**18, 0.0, 1e-18]


def test_balances_frame_empty_and_bad_records():
    assert evm_balances([]).empty
    assert evm_balances(iter([(ALICE, 1, None)]))["wei"].isna().all()
    with pytest.raises(FrameError, match="hex quantity"):
        evm_balances([(ALICE, "latest", "0x1")])
    with pytest.raises(FrameError, match="address, block, wei"):
        evm_balances([(ALICE, 1)])
    with pytest.raises(FrameError, match="iterable"):
        evm_balances(5)


def test_print_block_frame_parses_a_geth_style_dump(load_text):
    text = load_text("debug_print_block.txt")
    df = evm_printed_blocks(text)
    assert tuple(df.columns[: len(PRINT_BLOCK_COLUMNS)]) == PRINT_BLOCK_COLUMNS
    row = df.iloc[0]
    assert row["number"] == 22207815
    assert row["hash"] == "8e38b4dbf6b11fcc3b9dee84fb7986e29ca0a02cecd8977c161ff7333329681e"
    assert row["parent_hash"].startswith("9c1b52a4")
    assert row["miner"] == "95222290dd7278aa3ddd389cc1e1d165cc4bafe5"
    assert row["timestamp"] == pd.Timestamp("2025-04-05", tz="UTC")
    assert (row["gas_limit"], row["gas_used"], row["base_fee"]) == (36000000, 12345678, 412345678)
    assert (row["tx_count"], row["uncle_count"]) == (2, 0)
    assert row["size"] == "1.23 kB"
    # Generic fields: snake_case names, decimal numbers as ints, hex (even all digits) as text.
    assert row["tx_sha"].startswith("56e81f17")  # "TxSha <hash>" has no colon in geth
    assert row["extra"] == "beaverbuild.org"
    assert row["nonce"] == "0000000000000042"
    assert row["difficulty"] == 0
    assert row["raw"] == text
    assert "from" not in df.columns  # transaction fields are not header fields


def test_print_block_frame_is_tolerant_of_other_formats():
    df = evm_printed_blocks(["not a block dump", "Number: 5\nGasUsed: 0x10\nBaseFee: <nil>"])
    assert df["raw"].tolist() == ["not a block dump", "Number: 5\nGasUsed: 0x10\nBaseFee: <nil>"]
    assert pd.isna(df["number"][0]) and df["number"][1] == 5
    assert df["gas_used"][1] == 16 and pd.isna(df["base_fee"][1]) and pd.isna(df["tx_count"][1])
    envelope = {"jsonrpc": "2.0", "id": 1, "result": "Number: 9"}
    assert evm_printed_blocks(envelope)["number"][0] == 9
    with pytest.raises(FrameError):
        evm_printed_blocks([{"not": "text"}])


def test_root_hashes():
    digest = "7f2e8b6c3a9d1f4e5b2c8a7d6e3f1b9c4a5d2e8f7b6c3a1d9e4f5b2c8a7d6e3f"
    records = [
        (62000000, 62000099, digest),
        {
            "from": 62000100,
            "to": 62000199,
            "root_hash": {"jsonrpc": "2.0", "id": 1, "result": digest},
        },
        {"from_block": 1, "to_block": 1, "root_hash": "0x" + digest},
    ]
    df = evm_root_hashes(records)
    assert tuple(df.columns) == ROOT_HASH_COLUMNS
    assert df["blocks"].tolist() == [100, 100, 1]
    assert df["root_hash"].tolist() == [digest, digest, "0x" + digest]
    assert df["root_hash_0x"].tolist() == ["0x" + digest] * 3
    with pytest.raises(FrameError, match="root_hash: expected text"):
        evm_root_hashes([(1, 2, [3])])


def test_blocks_and_logs_from_the_sandbox_are_typed_frames(gateway):
    from toolkit import frames

    arbitrum = gateway.node("arbitrum-mainnet")
    full = arbitrum.get_block(22_207_900, True)
    blocks = frames.evm_blocks(full)
    assert blocks["number"].tolist() == [22_207_900] and str(blocks["time"].dtype).endswith("UTC]")
    assert blocks["tx_count"][0] == len(full["transactions"])
    assert blocks["hash"][0] == arbitrum.get_block(22_207_900)["hash"]
    transactions = frames.evm_block_transactions(full)
    assert transactions["hash"].tolist() == [tx["hash"] for tx in full["transactions"]]
    assert transactions["value_wei"].map(type).eq(int).all()  # exact, never float
    hashes_only = frames.evm_block_transactions(arbitrum.get_block(22_207_900))
    assert hashes_only["hash"].tolist() == transactions["hash"].tolist()
    assert hashes_only["from"].isna().all()
    assert frames.evm_blocks(None).empty  # a block above the head answers null

    head = arbitrum.head()
    logs = frames.evm_logs(arbitrum.get_logs(fromBlock=head - 30, toBlock=head))
    transfer, approval = (abi.event(name).topic0 for name in ("Transfer", "Approval"))
    assert len(logs) and set(logs["topic0"]) == {transfer, approval}  # the token's two events
    assert logs["topic3"].isna().all() and str(logs["removed"].dtype) == "boolean"
    assert logs["block_number"].between(head - 30, head).all()


@pytest.mark.parametrize("bad", [[1], [{"topics": "x"}], {"number": "0x1", "transactions": 5}])
def test_malformed_blocks_and_logs_are_frame_errors(bad):
    from toolkit import frames

    with pytest.raises(frames.FrameError):
        frames.evm_logs(bad) if isinstance(bad, list) else frames.evm_block_transactions(bad)


def test_root_hashes_refuse_a_root_that_is_not_hex():
    # bor_getRootHash answered in base64 by 2020-era nodes: not a hex root, never "0x" + it.
    base64_root = "BXy0Xt2MNq0n8WyKBnzfMRzw/VjNQr4LT+eDlQ1BOHo="
    with pytest.raises(FrameError, match="root_hash of blocks 1-2 must be 64 hex digits"):
        evm_root_hashes([(1, 2, base64_root)])
