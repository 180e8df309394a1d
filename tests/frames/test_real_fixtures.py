"""Frames on real published response bodies (tests/fixtures/real/, sources in SOURCES.md)."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.fixtures.real_bodies import REAL, real
from toolkit import frames
from toolkit.frames import FrameError


def test_every_fixture_is_cited_in_sources():
    sources = (REAL / "SOURCES.md").read_text(encoding="utf-8")
    fixtures = sorted(p.name for p in REAL.iterdir() if p.suffix in (".json", ".jsonc"))
    assert fixtures and all(f"`{name}`" in sources for name in fixtures)


# --- debug_printBlock -----------------------------------------------------------------------------


def test_a_real_spew_dump_becomes_a_header_row():
    body = real("evm_debug_print_block_spew_go_quai.json")
    row = frames.evm_printed_blocks(body).iloc[0]
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
    row = frames.evm_printed_blocks(body).iloc[0]
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
    row = frames.evm_printed_blocks(dump).iloc[0]
    for column in ("number", "hash", "parent_hash", "miner", "gas_limit", "size", "tx_count"):
        assert pd.isna(row[column]), column


def test_a_print_block_error_envelope_raises_with_its_message():
    error = {"code": -32000, "message": "block #9 not found"}
    envelope = {"jsonrpc": "2.0", "id": 1, "error": error}
    with pytest.raises(FrameError, match="block #9 not found"):
        frames.evm_printed_blocks(envelope)


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


def test_an_nft_collections_token_data_gets_its_content_owner_and_item_count():
    body = real("ton_gettokendata_nft_collection_getblock.json")
    asked = "EQAG2BH0JlmFkbMrLEnyn2bIITaOSssd4WdisE4BdFMkZbir"  # TON Diamonds
    row = frames.ton_token_data(body, address=asked).iloc[0]
    assert row["contract_type"] == "nft_collection" and row["address"] == asked
    assert row["content_type"] == "offchain"
    assert row["uri"] == "https://nft.ton.diamonds/diamonds.json"
    assert row["owner_address"] == "EQDsP4js-X1VVS7mBZAuoeXvKcvOYlkpsdELBHwJOez07ZTW"
    assert row["next_item_index"] == 10000
    assert pd.isna(row["total_supply"]) and pd.isna(row["index"]) and pd.isna(row["balance"])


def test_an_nft_items_token_data_gets_its_content_owner_and_index():
    body = real("ton_gettokendata_nft_item_blockpi.json")
    row = frames.ton_token_data(body, address="EQCgH4od_xrY2pviA7MI30zdKG6z-7d2mh79Ki4GRVwRfHXM")
    item = row.iloc[0]
    assert item["contract_type"] == "nft_item" and item["content_type"] == "offchain"
    assert item["uri"] == "https://nft.ton.diamonds/inner-landscapes/creativity/creativity.json"
    assert item["owner_address"] == "EQACaKYuhOZZSN5cHitEmp6qSOhlPS7yAavTtZTUYF3BcAek"
    assert item["index"] == 0 and bool(item["init"]) is True
    assert pd.isna(item["collection_address"])  # not in the published answer: NA, not an error


def test_a_jetton_wallets_token_data_gets_its_balance_owner_and_master():
    """No published answer for a jetton wallet was found (SOURCES.md): the keys are those
    toncenter's pytonlib builds (`parse_jetton_wallet_data`: balance, owner, jetton,
    jetton_wallet_code; `get_token_data` adds contract_type), with the real USDT master."""
    body = {
        "ok": True,
        "result": {
            "balance": 25000000,
            "owner": "EQDsP4js-X1VVS7mBZAuoeXvKcvOYlkpsdELBHwJOez07ZTW",
            "jetton": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs",
            "jetton_wallet_code": "te6cckEBAQEAIwAIQgKPRS16Tf10BmtoI2UXclntBXNENb52tf1L1div",
            "contract_type": "jetton_wallet",
        },
    }
    row = frames.ton_token_data(body).iloc[0]
    assert row["contract_type"] == "jetton_wallet" and row["balance"] == 25000000
    assert row["owner_address"].startswith("EQDsP4js")
    assert row["jetton_address"] == "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"


def test_every_kind_of_token_data_in_one_frame():
    bodies = [
        real("ton_gettokendata_current_excerpt.json"),
        real("ton_gettokendata_nft_collection_getblock.json"),
        real("ton_gettokendata_nft_item_blockpi.json"),
    ]
    df = frames.ton_token_data(bodies)
    assert df["contract_type"].tolist() == ["jetton_master", "nft_collection", "nft_item"]
    assert df["uri"].notna()[1:].all() and df["content_type"].notna().all()


# --- TRON -----------------------------------------------------------------------------------------


def test_a_real_asset_by_id():
    row = frames.tron_asset_issues(real("tron_getassetissuebyid_nile.json")).iloc[0]
    assert (row["id"], row["name"], row["abbr"]) == ("1005416", "TRN", "TN")
    assert row["total_supply"] == 10**17 and row["precision"] == 6
    assert row["total_supply_tokens"] == 1e11 and row["frozen_supply_total"] == 1
    assert row["url"] == "https://nileex.io/"
    assert row["start_time"] == pd.Timestamp(1737690890434, unit="ms", tz="UTC")


def test_a_real_bare_by_name_record_and_the_spec_wrapping_give_the_same_row():
    bare = real("tron_getassetissuebyname_nile.json")
    one, wrapped = frames.tron_asset_issues(bare), frames.tron_asset_issues({"assetIssue": [bare]})
    pd.testing.assert_frame_equal(one, wrapped)
    row = one.iloc[0]
    assert row["name"] == "00Dice" and row["id"] == "1000052"
    # left out by protobuf JSON because they are zero
    assert row["free_asset_net_limit"] == 0 and row["public_free_asset_net_limit"] == 0


def test_a_real_list_record_without_precision_has_precision_0():
    df = frames.tron_asset_issues(real("tron_getassetissuelistbyname_nile.json"))
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
    current = frames.solana_simulation_summary(real("solana_simulatetransaction_solana_docs.json"))
    row = current.iloc[0]
    assert (row["slot"], row["api_version"], row["success"]) == (393226680, "3.1.8", True)
    assert row["units_consumed"] == 1714 and row["fee_lamports"] == 5000
    assert row["replacement_blockhash"] == "6oFLsE7kmgJx9PjR4R63VRNtpAVJ648gCTr3nq5Hihit"
    assert row["log_count"] == 4
    older = real("solana_simulatetransaction_return_data.json")
    assert frames.solana_simulation_summary(older).iloc[0]["units_consumed"] == 2366
    assert pd.isna(frames.solana_simulation_summary(older).iloc[0]["api_version"])
    logs = frames.solana_simulation_logs(older)
    assert len(logs) == 4
    assert logs["program_id"].iloc[0] == "83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaY3mDLVcri"
    returned = frames.solana_simulation_return_data(older).iloc[0]
    assert returned["data_base64"] == "Kg==" and returned["data_hex"] == "2a"


# --- platform -----------------------------------------------------------------------------------


def test_a_real_node_list_page():
    df = frames.platform_nodes(real("platform_v2_nodes_chainstack_docs.json"))
    row = df.iloc[0]
    assert (row["id"], row["protocol"], row["status"]) == ("ND-123-456-789", "ethereum", "running")
    assert row["https_endpoint"] == "https://nd-123-456-789.p2pify.com"


# --- the read methods real clients call first ----------------------------------------------------


def test_real_evm_scalars_read_exactly():
    assert frames.quantity(real("evm_eth_chainid_execution_apis.json")) == 3503995874084926
    # net_version is decimal text, and the same network as the chain id
    assert real("evm_net_version_execution_apis.json")["result"] == "3503995874084926"
    assert frames.quantity(real("evm_eth_gasprice_getblock.json")) == 27_261_650_066
    assert frames.quantity(real("evm_eth_gettransactioncount_execution_apis.json")) == 1
    assert real("evm_eth_getcode_unknown_account_execution_apis.json")["result"] == "0x"


def test_a_real_full_block_and_its_legacy_transactions():
    body = real("evm_eth_getblockbynumber_latest_full_execution_apis.json")
    block = frames.evm_blocks(body).iloc[0]
    assert (block["number"], block["tx_count"], block["size"]) == (0x36, 4, 0x455)
    assert block["base_fee_wei"] == 0x1A21397 and type(block["base_fee_wei"]) is int
    assert block["time"] == pd.Timestamp(0x21C, unit="s", tz="UTC")
    txs = frames.evm_block_transactions(body)
    assert txs["type"].tolist() == [0] * 4 and txs["nonce"].tolist() == [0xF5, 0xF6, 0xF7, 0xF8]
    assert txs["to"].isna().tolist() == [True, True, True, False]  # contract creations
    assert txs["gas_price_wei"].tolist() == [0x1A21398] * 4
    # legacy transactions carry no EIP-1559 caps: NA, not 0
    assert txs["max_fee_per_gas_wei"].isna().all()
    assert txs["max_priority_fee_per_gas_wei"].isna().all()
    assert txs["value_wei"][3] == 2 and txs["value_eth"][3] == 2e-18


def test_real_type_2_transactions_keep_their_fee_caps():
    df = frames.evm_block_transactions(real("evm_eth_simulatev1_type2_blocks_execution_apis.json"))
    assert df["type"].tolist() == [2, 2] and df["block_number"].tolist() == [0x37, 0x37]
    assert df["max_fee_per_gas_wei"].tolist() == [16, 16]
    assert df["max_priority_fee_per_gas_wei"].tolist() == [0, 0]  # a real 0, not NA
    assert df["gas_price_wei"].tolist() == [15, 15]  # what was paid: the base fee 0xf
    assert df["max_fee_per_gas_wei"].dtype == object
    assert df["value_wei"].tolist() == [10_000_000_000, 1000]


def test_a_real_block_with_hashes_and_the_real_null_above_the_head():
    body = real("evm_eth_getblockbynumber_hashes_execution_apis.json")
    assert frames.evm_blocks(body)["tx_count"][0] == 6
    txs = frames.evm_block_transactions(body)
    assert len(txs) == 6 and txs["hash"].str.startswith("0x").all()
    assert txs["index"].tolist() == list(range(6)) and txs["from"].isna().all()
    none = real("evm_eth_getblockbynumber_notfound_execution_apis.json")
    assert frames.evm_blocks(none).empty and frames.evm_block_transactions(none).empty


def test_real_logs():
    df = frames.evm_logs(real("evm_eth_getlogs_execution_apis.json"))
    assert df["block_number"].tolist() == [2, 4] and df["log_index"].tolist() == [10, 0]
    assert df["address"].unique().tolist() == ["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df"]
    assert df["topic1"][1] == "0x95b7276947f6331672b0c63eca28c1d39f25286d5e2793d6a487837ff1475ba0"
    assert df["topic2"].isna().all() and df["removed"].tolist() == [False, False]


def test_real_now_block_and_block_by_num():
    df = frames.tron_blocks(
        [real("tron_getnowblock_nile.jsonc"), real("tron_getblockbynum_nile.jsonc")]
    )
    assert df["number"].tolist() == [66987627, 66987565]
    assert df["time"][1] == pd.Timestamp(1777445121000, unit="ms", tz="UTC")
    assert df["witness_address"][0] == "41e7860196ad5b5718c1d6326babab039b70b8c1cd"
    assert df["tx_count"].tolist() == [0, 0]  # elided by the publisher


def test_a_real_account_where_zero_fields_are_left_out():
    row = frames.tron_account(real("tron_getaccount_nile.json")).iloc[0]
    assert row["address"] == "41dd791d6b49e190062d650e6a23c575510d35f2f9"
    assert row["balance_sun"] == 1793227200 and row["balance_trx"] == 1793.2272
    assert row["type"] == "Normal"  # the enum's zero, left out
    assert row["create_time"] == pd.Timestamp(1776933207000, unit="ms", tz="UTC")
    # java-tron spells it latest_opration_time
    assert row["latest_operation_time"] == pd.Timestamp(1777444809000, unit="ms", tz="UTC")
    assert row["free_net_usage"] == 441
    # frozenV2 lists {} (bandwidth), ENERGY and TRON_POWER with no amounts: all 0, never NA
    assert (row["staked_bandwidth_sun"], row["staked_energy_sun"]) == (0, 0)
    assert row["net_usage"] == 0 and row["energy_usage"] == 0 and row["asset_count"] == 1
    assert not row["is_witness"] and pd.isna(row["account_name"])


def test_a_real_visible_account_keeps_base58_and_its_delegated_energy():
    body = real("tron_getaccount_visible_getblock.json")
    row = frames.tron_account(body).iloc[0]
    assert row["address"] == "TZ4UXDV5ZhNW7fb2AMSbgfAEZ7hWsnYS2g"
    assert row["acquired_delegated_energy_sun"] == 1_000_000 and row["asset_count"] == 2
    assert pd.isna(row["latest_operation_time"])  # this answer has none
    assets = frames.tron_account_assets(body)
    assert assets["asset_id"].tolist() == ["1004977", "1005026"]
    assert assets["amount"].tolist() == [8888880000, 8888880000]
    assert type(assets["amount"][0]) is int and assets["free_asset_net_usage"].tolist() == [0, 0]
    assert frames.tron_account({}).empty and frames.tron_account_assets({}).empty


def test_real_node_infos_mainnet_whole_and_nile_shortened():
    df = frames.tron_node_info(
        [real("tron_getnodeinfo_mainnet_getblock.json"), real("tron_getnodeinfo_nile_excerpt.json")]
    )
    assert df["block_number"].tolist() == [71562193, 66987565]
    assert df["solidity_block_number"].tolist() == [71562175, 66987547]
    assert df["block_id"][1] == "0000000003fe262d52bfa4b2814f816fd2e57af5b98a33d60d8630a03a908e0e"
    assert df["p2p_version"].tolist() == ["11111", "201910292"]  # mainnet, Nile
    assert df["code_version"].tolist() == ["4.7.7", "4.8.1"]
    assert df["peer_count"][0] == 9 and pd.isna(df["peer_count"][1])  # the publisher left it out
    assert df["cpu_rate"][0] == pytest.approx(0.13043478260869565)
    assert pd.isna(df["process_cpu_rate"][1]) and df["total_memory"][0] == 67075801088
    assert df["cpu_rate"].dtype == "float64" and df["block_number"].dtype == "Int64"


def test_real_peers_are_read_from_peer_list():
    peers = frames.tron_node_peers(real("tron_getnodeinfo_mainnet_getblock.json"))
    assert len(peers) == 9 and peers["host"][0] == "168.119.5.80"  # java's "/" is dropped
    assert peers["avg_latency_ms"].tolist()[:3] == [12.0, 13.0, 44.0]
    assert peers["connect_time"][0] == pd.Timestamp(1745333487937, unit="ms", tz="UTC")
    assert peers["head_block_we_both_have"][0] == 71562191
    assert pd.isna(peers["last_sync_block"][0]) and peers["last_sync_block"][3] == 71561955
    assert peers["local_disconnect_reason"][1] == "TIME_OUT"
    assert pd.isna(peers["local_disconnect_reason"][0])  # "" means none
    assert peers["active"].all() and peers["sync_flag"].dtype == "boolean"


def test_real_masterchain_infos_rest_and_json_rpc():
    df = frames.ton_masterchain_info(
        [
            real("ton_getmasterchaininfo_toncenter_docs.json"),
            real("ton_getmasterchaininfo_jsonrpc_getblock.json"),
        ]
    )
    assert df["seqno"].tolist() == [51148696, 45792554] and df["workchain"].tolist() == [-1, -1]
    assert df["shard"].tolist() == ["-9223372036854775808"] * 2
    # the zero state's shard is "0" in real answers, not the masterchain's shard
    assert df["init_shard"].tolist() == ["0", "0"] and df["init_seqno"].tolist() == [0, 0]
    assert df["init_root_hash"][0] == "F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk="
    assert df["extra"][0] == "1755812855.1928415:3:0.47373957740114636" and pd.isna(df["extra"][1])
    with pytest.raises(FrameError, match="code 429"):
        frames.ton_masterchain_info({"ok": False, "code": 429, "error": "Ratelimit exceeded"})


def test_real_address_forms_of_the_older_shape():
    row = frames.ton_address_forms(real("ton_detectaddress_getblock_older.json")).iloc[0]
    assert row["raw_form"] == "0:d76767392e7035d84ba6f83960b9399f62430ebcd7850a1e2b043d2d826c2370"
    assert row["workchain"] == 0 and row["given_type"] == "friendly_bounceable"
    assert row["bounceable"] == "EQDXZ2c5LnA12Eum-DlguTmfYkMOvNeFCh4rBD0tgmwjcFI-"
    assert row["non_bounceable_b64"] == "UQDXZ2c5LnA12Eum+DlguTmfYkMOvNeFCh4rBD0tgmwjcA/7"
    assert not row["test_only"]


def test_a_real_root_hash_becomes_its_range_row():
    root = real("polygon_bor_getroothash_infura_docs.json")["result"]
    df = frames.evm_root_hashes([(1000, 1032, root)])
    row = df.iloc[0]
    assert (row["from_block"], row["to_block"], row["blocks"]) == (1000, 1032, 33)
    assert row["root_hash"] == "67518d9fc6bf9ff886ba1a4e932a0d0a8a1318b3f300518773aaf2210410cf73"
    assert row["root_hash_0x"] == "0x" + row["root_hash"]


def test_a_real_unsigned_transaction_becomes_one_row():
    body = real("tron_createtransaction_unsigned_nile.json")
    row = frames.tron_transaction(body).iloc[0]
    assert row["tx_id"] == "6303c7639f591407ef9f34a7ac8c9c9a21151f5a6af21924502515734fc267ab"
    assert row["contract_type"] == "TransferContract"
    assert row["owner_address"] == "41dd791d6b49e190062d650e6a23c575510d35f2f9"
    assert row["to_address"] == "4192ad11c1bf16b3b14b0bd6b5c7e2db73a0b5e83a"
    assert row["amount_sun"] == 1_000_000 and row["amount_trx"] == 1.0
    assert (row["ref_block_bytes"], row["ref_block_hash"]) == ("2927", "939ece39d08a7abe")
    assert row["expiration"] == pd.Timestamp(1777447527000, unit="ms", tz="UTC")
    assert row["signature_count"] == 0 and row["raw_data_hex"] == body["raw_data_hex"]


def test_post_merge_block_fields_as_columns_on_real_blocks():
    prague = frames.evm_blocks(real("evm_eth_getblockbynumber_latest_full_execution_apis.json"))
    row = prague.iloc[0]
    assert (row["withdrawal_count"], row["blob_gas_used"], row["excess_blob_gas"]) == (0, 0, 0)
    assert row["parent_beacon_block_root"].startswith("0x346910f7e777c596")
    assert row["requests_hash"].startswith("0xe3b0c44298fc1c14")
    name = "evm_eth_getblockbynumber_shanghai_withdrawal_execution_apis.json"
    shanghai = frames.evm_blocks(real(name)).iloc[0]
    assert shanghai["withdrawal_count"] == 1  # before Cancun: no blob gas, no beacon root
    assert pd.isna(shanghai["blob_gas_used"]) and pd.isna(shanghai["parent_beacon_block_root"])
    assert pd.isna(shanghai["requests_hash"])
    withdrawals = frames.evm_block_withdrawals(real(name))
    assert withdrawals.to_dict("records") == [
        {
            "block_number": 0x27,
            "index": 0,
            "validator_index": 5,
            "address": "0x3ae75c08b4c907eb63a8960c45b86e1e9ab6123c",
            "amount_gwei": 100,
        }
    ]
    assert type(withdrawals["amount_gwei"][0]) is int  # exact, in gwei


def test_blob_and_set_code_transaction_fields_as_columns():
    """Real type-3 and type-4 transactions (eth_getTransactionByHash answers), as a block with
    full transactions carries them."""
    blob = real("evm_eth_gettransactionbyhash_blob_execution_apis.json")["result"]
    setcode = real("evm_eth_gettransactionbyhash_setcode_execution_apis.json")["result"]
    df = frames.evm_block_transactions([{"number": "0x3", "transactions": [blob, setcode]}])
    first, second = df.iloc[0], df.iloc[1]
    assert (first["type"], second["type"]) == (3, 4)
    assert first["max_fee_per_blob_gas_wei"] == 0x20000
    assert type(first["max_fee_per_blob_gas_wei"]) is int
    assert first["blob_versioned_hashes"] == blob["blobVersionedHashes"]
    assert pd.isna(first["authorization_list"]) and pd.isna(second["max_fee_per_blob_gas_wei"])
    assert second["authorization_list"] == setcode["authorizationList"]
    assert pd.isna(second["blob_versioned_hashes"])


def test_post_merge_frames_round_trip_through_parquet(tmp_path):
    import toolkit

    blob = real("evm_eth_gettransactionbyhash_blob_execution_apis.json")["result"]
    setcode = real("evm_eth_gettransactionbyhash_setcode_execution_apis.json")["result"]
    withdrawals = frames.evm_block_withdrawals(
        real("evm_eth_getblockbynumber_shanghai_withdrawal_execution_apis.json")
    )
    transactions = frames.evm_block_transactions([{"transactions": [blob, setcode]}])
    for name, made in (("w", withdrawals), ("t", transactions)):
        path = tmp_path / f"{name}.parquet"
        toolkit.to_parquet(made, path)
        back = toolkit.read_parquet(path)
        for column in ("amount_gwei", "max_fee_per_blob_gas_wei"):
            if column in made:
                assert list(back[column]) == list(made[column])
    back = toolkit.read_parquet(tmp_path / "t.parquet")
    assert list(back["blob_versioned_hashes"][0]) == blob["blobVersionedHashes"]
