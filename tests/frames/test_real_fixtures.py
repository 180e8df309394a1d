"""Frames on real published response bodies (tests/fixtures/real/, sources in SOURCES.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from toolkit import frames
from toolkit.frames import FrameError

REAL = Path(__file__).parents[1] / "fixtures" / "real"


def real(name: str) -> Any:
    text = (REAL / name).read_text(encoding="utf-8")
    if name.endswith(".jsonc"):
        text = re.sub(r"/\*.*?\*/", "", text)  # the publisher's elisions, "/* ... */"
    return json.loads(text)


def test_every_fixture_is_cited_in_sources():
    sources = (REAL / "SOURCES.md").read_text(encoding="utf-8")
    fixtures = sorted(p.name for p in REAL.iterdir() if p.suffix in (".json", ".jsonc"))
    assert fixtures and all(f"`{name}`" in sources for name in fixtures)


# --- debug_printBlock -----------------------------------------------------------------------------


def test_a_real_spew_dump_becomes_a_header_row():
    body = real("evm_debug_print_block_spew_go_quai.json")
    row = frames.print_block_frame(body).iloc[0]
    # go-quai prints one number and one parent hash per level; the last is the block's own
    assert row["number"] == 236
    assert row["hash"] == "0x0000066a8914d4dd81192c8fba4a11a3ee154dadd3306bf97918b3bdafaab4f2"
    assert row["parent_hash"] == (
        "0x000006b033056dcc1536c0f7cc147f162d34193a3f4cfe30c04f61bfc1a31e8a"
    )
    assert row["miner"] == "0x05795eD14cDB744781B50d8061A00F42c2124f93"
    assert row["timestamp"] == pd.Timestamp(1691534483, unit="s", tz="UTC")
    assert (row["gas_limit"], row["gas_used"], row["base_fee"]) == (80_000_000, 0, 1)
    assert (row["tx_count"], row["uncle_count"]) == (0, 0)
    assert pd.isna(row["size"])  # the dump's size cache holds <nil>
    # byte fields from spew's hex dumps, numbers as ints, caches never as text fragments
    assert row["nonce"] == "0x5ad5129a55c962ed"
    assert row["extra"].startswith("0xdf8776302e31312e30") and row["difficulty"] == 1781014
    assert row["seal_hash"].startswith("0x98187a67")
    assert row["raw"] == body["result"]
    values = row.drop("raw").dropna().astype(str)
    assert not values.str.contains(r"\(|\{|atomic", regex=True).any()


def test_the_older_compact_form_is_still_read_and_what_it_lacks_is_na():
    body = real("evm_debug_print_block_compact_klaytn.json")
    row = frames.print_block_frame(body).iloc[0]
    assert row["number"] == 65120 and row["size"] == "2.95 kB"
    assert row["hash"] == "e96d6477acfeba8ba865c315020471dcf751aa1bddca77f469334ab0492d218f"
    assert row["parent_hash"].startswith("e768b5b7")
    assert row["miner"] == "0" * 40
    # the publisher cut the body short: no gas, time or base fee, so NA
    assert all(pd.isna(row[c]) for c in ("gas_limit", "gas_used", "timestamp", "base_fee"))


def test_junk_in_a_known_column_is_na_not_text():
    dump = (
        "(*types.Block)(0xc000010000)({\n"
        " header: (*types.Header)(0xc000020000)({\n"
        "  ParentHash: (common.Hash) (len=3 cap=3) 0x1,\n"
        "  Coinbase: (*common.Address)(<nil>),\n"
        "  Number: (*big.Int)(<nil>),\n"
        "  GasLimit: (uint64) lots,\n"
        " }),\n"
        " hash: (atomic.Value) {\n"
        "  v: (interface {}) <nil>\n"
        " },\n"
        " size: (atomic.Value) {\n"
        "  v: (interface {}) <nil>\n"
        " }\n"
        "})\n"
    )
    row = frames.print_block_frame(dump).iloc[0]
    for column in ("number", "hash", "parent_hash", "miner", "gas_limit", "size", "tx_count"):
        assert pd.isna(row[column]), column


def test_a_print_block_error_envelope_raises_with_its_message():
    error = {"code": -32000, "message": "block #9 not found"}
    envelope = {"jsonrpc": "2.0", "id": 1, "error": error}
    with pytest.raises(FrameError, match="block #9 not found"):
        frames.print_block_frame(envelope)


# --- TON getTokenData -----------------------------------------------------------------------------


def test_toncenters_current_shape_carries_the_address_and_a_decimal_string_supply():
    body = real("ton_gettokendata_current_excerpt.json")
    row = frames.ton_token_data(body).iloc[0]
    assert row["address"] == "EQBZ6nHfmT2wct9d4MoOdNPzhtUGXOds1y3NTmYUFHAA3uvV"  # not asked: given
    assert row["total_supply"] == 10**36 and type(row["total_supply"]) is int
    assert row["decimals"] == 9 and row["supply"] == 1e27
    assert row["admin_address"].startswith("EQBFPDdS") and row["mintable"]
    assert row["description"].startswith("Introducing CandleSpinner")


def test_toncenters_older_shape_needs_the_address_asked_for():
    body = real("ton_gettokendata_older_drpc.json")
    asked = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"  # USDT on TON
    row = frames.ton_token_data(body, address=asked).iloc[0]
    assert row["address"] == asked
    assert row["total_supply"] == 1030000002000000 and row["decimals"] == 6
    assert row["supply"] == pytest.approx(1_030_000_002.0)
    assert row["uri"] == "https://tether.to/usdt-ton.json" and row["content_type"] == "onchain"
    assert pd.isna(row["name"])  # off-chain metadata: the name is behind the uri


def test_the_three_shapes_give_the_same_columns():
    spec_record = {
        "name": "Tether USD",
        "symbol": "USDT",
        "decimals": 6,
        "totalSupply": "1030000002000000",
        "mintable": True,
        "burnable": True,
        "address": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs",
    }
    bodies = [
        spec_record,
        real("ton_gettokendata_older_drpc.json"),
        real("ton_gettokendata_current_excerpt.json"),
    ]
    df = frames.ton_token_data(bodies, address=[None, spec_record["address"], None])
    assert df["total_supply"].tolist() == [1030000002000000, 1030000002000000, 10**36]
    assert df["address"].notna().all()


# --- TRON -----------------------------------------------------------------------------------------


def test_a_real_asset_by_id():
    row = frames.asset_issues(real("tron_getassetissuebyid_nile.json")).iloc[0]
    assert (row["id"], row["name"], row["abbr"]) == ("1005416", "TRN", "TN")
    assert row["total_supply"] == 10**17 and row["precision"] == 6
    assert row["total_supply_tokens"] == 1e11 and row["frozen_supply_total"] == 1
    assert row["url"] == "https://nileex.io/"
    assert row["start_time"] == pd.Timestamp(1737690890434, unit="ms", tz="UTC")


def test_a_real_bare_by_name_record_and_the_spec_wrapping_give_the_same_row():
    bare = real("tron_getassetissuebyname_nile.json")
    one, wrapped = frames.asset_issues(bare), frames.asset_issues({"assetIssue": [bare]})
    pd.testing.assert_frame_equal(one, wrapped)
    row = one.iloc[0]
    assert row["name"] == "00Dice" and row["id"] == "1000052"
    # left out by protobuf JSON because they are zero
    assert row["free_asset_net_limit"] == 0 and row["public_free_asset_net_limit"] == 0


def test_a_real_list_record_without_precision_has_precision_0():
    df = frames.asset_issues(real("tron_getassetissuelistbyname_nile.json"))
    assert df["id"].tolist() == ["1005415", "1005416"]
    assert df["precision"].tolist() == [0, 6]
    assert df["total_supply_tokens"].tolist() == [1e17, 1e11]  # not NaN
    assert df["description"][0] == "trident"


def test_real_transaction_infos():
    df = frames.tron_transaction_infos(real("tron_gettransactioninfobyblocknum_nile.json"))
    assert df["block_number"].tolist() == [66987565, 66987565]
    assert df["fee_sun"].tolist() == [267000, 267000] and df["net_fee"].tolist() == [267000] * 2
    assert df["fee_trx"][0] == 0.267 and pd.isna(df["energy_usage_total"][0])
    assert df["block_time"][0] == pd.Timestamp(1777445121000, unit="ms", tz="UTC")
    assert df["log_count"].tolist() == [0, 0] and df["contract_result"].tolist() == ["", ""]


def test_real_latest_blocks_with_the_publishers_elisions():
    df = frames.tron_blocks(real("tron_getblockbylatestnum_nile.jsonc"))
    assert df["number"][0] == 66987628 and df["version"][0] == 34
    assert df["witness_address"][0] == "416606973497a56dcfcedb684e60a2386f2ae39db5"
    assert df["tx_count"].tolist() == [0, 0]  # elided by the publisher: "[ /* ... */ ]"
    assert pd.isna(df["number"][1])  # its header was elided too: NA, not an error


# --- Solana simulateTransaction -------------------------------------------------------------------


def test_real_simulation_results():
    current = frames.simulation_summary(real("solana_simulatetransaction_solana_docs.json"))
    row = current.iloc[0]
    assert (row["slot"], row["api_version"], row["success"]) == (393226680, "3.1.8", True)
    assert row["units_consumed"] == 1714 and row["fee_lamports"] == 5000
    assert row["replacement_blockhash"] == "6oFLsE7kmgJx9PjR4R63VRNtpAVJ648gCTr3nq5Hihit"
    assert row["log_count"] == 4
    older = real("solana_simulatetransaction_return_data.json")
    assert frames.simulation_summary(older).iloc[0]["units_consumed"] == 2366
    assert pd.isna(frames.simulation_summary(older).iloc[0]["api_version"])
    logs = frames.simulation_logs(older)
    assert len(logs) == 4
    assert logs["program_id"].iloc[0] == "83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaY3mDLVcri"
    returned = frames.simulation_return_data(older).iloc[0]
    assert returned["data_base64"] == "Kg==" and returned["data_hex"] == "2a"


# --- platform -----------------------------------------------------------------------------------


def test_a_real_node_list_page():
    df = frames.platform_nodes(real("platform_v2_nodes_chainstack_docs.json"))
    row = df.iloc[0]
    assert (row["id"], row["protocol"], row["status"]) == ("ND-123-456-789", "ethereum", "running")
    assert row["https_endpoint"] == "https://nd-123-456-789.p2pify.com"
