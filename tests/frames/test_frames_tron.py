"""TRON frames: asset issues, transaction info, blocks, the unsigned proposal-delete transaction."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import MappingProxyType

import pandas as pd
import pytest

from toolkit.frames import (
    FrameError,
    tron_asset_issues,
    tron_block_transactions,
    tron_blocks,
    tron_transaction,
    tron_transaction_infos,
)
from toolkit.frames._tron import (
    ASSET_COLUMNS,
    BLOCK_COLUMNS,
    BLOCK_TRANSACTION_COLUMNS,
    RECEIPT_FIELDS,
    TRANSACTION_COLUMNS,
    TRANSACTION_INFO_COLUMNS,
)

BENCH = Path(__file__).parents[2] / "bench" / "bench_frames.py"

# --- asset issues ------------------------------------------------------------------------------


def test_asset_list_by_name_decodes_hex_text_and_keeps_the_raw(load):
    df = tron_asset_issues(load("tron_asset_list_by_name"))
    assert tuple(df.columns) == ASSET_COLUMNS
    assert df["id"].tolist() == ["1002000", "1002814", "1000001"]
    assert df["name"].tolist()[:2] == ["BitTorrent", "Wink"]
    assert df["description"][1] == "WINk — Gaming on TRON"
    assert df["url"][1] == "https://www.wink.org"
    assert df["name_raw"][0] == "426974546f7272656e74"
    assert df["name"].dtype == "string" and df["name_raw"].dtype == "string"


def test_asset_text_that_is_not_utf8_is_readable_and_the_bytes_are_kept(load):
    df = tron_asset_issues(load("tron_asset_list_by_name"))
    assert df["name"][2] == "M\ufffdnze"
    assert bytes.fromhex(df["name_raw"][2]).decode("latin-1") == "Münze"
    assert df["url"].isna()[2]  # the record has no url at all


def test_asset_amounts_are_exact_and_human_units_use_precision(load):
    df = tron_asset_issues(load("tron_asset_list_by_name"))
    assert df["total_supply"].dtype == object
    assert df["total_supply"][2] == 2**64 + 1 and type(df["total_supply"][2]) is int
    assert df["total_supply_tokens"][0] == 990_000_000_000.0
    # TRON leaves zero fields out: no precision means 0 decimals, so the tokens are the units
    assert df["precision"][2] == 0 and df["total_supply_tokens"][2] == float(2**64 + 1)
    assert df["frozen_supply_total"].tolist() == [0, 150_000_000_000, 0]
    assert str(df["free_asset_net_limit"].dtype) == "Int64"
    assert df["start_time"][1] == pd.Timestamp("2019-08-01", tz="UTC")


def test_asset_by_id_bare_record_and_by_name_plain_text(load):
    by_id = tron_asset_issues(load("tron_asset_by_id"))
    assert len(by_id) == 1 and by_id["abbr"][0] == "BTT"
    visible = tron_asset_issues(load("tron_asset_by_name_visible"))
    assert visible["name"][0] == "BitTorrent" and visible["name_raw"][0] == "BitTorrent"
    assert visible["owner_address"][0].startswith("T")


def test_asset_hex_text_can_be_forced(load):
    raw = tron_asset_issues(load("tron_asset_by_id"), hex_text=False)
    assert raw["name"][0] == "426974546f7272656e74"
    # Two hex-looking plain names: auto-detection would decode them, the caller knows better.
    ambiguous = {"assetIssue": [{"id": "1", "name": "BEEF", "abbr": "CAFE"}]}
    assert tron_asset_issues(ambiguous, hex_text=False)["name"][0] == "BEEF"


@pytest.mark.parametrize("payload", [{}, {"assetIssue": []}, {"assetIssue": None}, []])
def test_asset_empty_responses_give_empty_frames_with_the_columns(payload):
    df = tron_asset_issues(payload)
    assert df.empty and tuple(df.columns) == ASSET_COLUMNS
    assert df["total_supply"].dtype == object and df["name"].dtype == "string"


def test_asset_error_and_wrong_shapes_raise_frame_error(load):
    error = {
        "Error": "class org.tron.core.exceptions.NonUniqueObjectException : To get more than one "
        "asset, please use getAssetIssueById syntax"
    }
    with pytest.raises(FrameError, match="NonUniqueObjectException"):
        tron_asset_issues(error)
    with pytest.raises(FrameError, match="asset issue"):
        tron_asset_issues({"unexpected": 1})
    with pytest.raises(FrameError, match="total_supply"):
        tron_asset_issues({"assetIssue": [{"id": "1", "total_supply": "lots"}]})


def test_asset_accepts_a_json_rpc_envelope(load):
    envelope = {"jsonrpc": "2.0", "id": 1, "result": load("tron_asset_list_by_name")}
    assert len(tron_asset_issues(envelope)) == 3


# --- transaction info ---------------------------------------------------------------------------


def test_transaction_info_columns_dtypes_and_values(load):
    df = tron_transaction_infos(load("tron_transaction_info_by_block"))
    assert tuple(df.columns) == TRANSACTION_INFO_COLUMNS
    assert df["fee_sun"].tolist() == [345000, pd.NA, 27255900, 13844850, 1100000]
    assert df["fee_sun"].dtype == object
    assert df["fee_trx"][2] == 27.2559
    assert str(df["energy_usage_total"].dtype) == "Int64"
    assert df["energy_usage_total"][2] == 64911
    assert df["receipt_result"].tolist() == ["SUCCESS", pd.NA, "OUT_OF_ENERGY", "REVERT", pd.NA]
    assert df["result"][3] == "FAILED" and pd.isna(df["result"][0])
    assert df["res_message"][3] == "REVERT opcode executed"
    assert df["log_count"].tolist() == [1, 0, 0, 0, 0]
    assert df["internal_tx_count"].tolist() == [0, 0, 0, 1, 0]
    assert df["contract_result"][1] == ""
    assert df["block_time"][3] == pd.Timestamp("2024-05-29 16:26:45", tz="UTC")
    assert df["block_number"].tolist() == [62000000] * 3 + [62000001] * 2


@pytest.mark.parametrize("payload", [[], {}, {"jsonrpc": "2.0", "id": 3, "result": []}])
def test_transaction_info_empty_block_and_num_below_one_give_empty_frames(payload, load):
    empty = tron_transaction_infos(payload)
    full = tron_transaction_infos(load("tron_transaction_info_by_block"))
    assert empty.empty
    assert empty.dtypes.to_dict() == full.dtypes.to_dict()


def test_transaction_info_keeps_fees_above_int64_exact_and_joins_results():
    record = {"id": "a", "fee": 2**70, "contractResult": ["01", "02"], "log": [{}, {}]}
    df = tron_transaction_infos(record)  # a single record, as gettransactioninfobyid returns
    assert df["fee_sun"][0] == 2**70
    assert df["fee_trx"][0] == 2**70 / 10**6
    assert df["contract_result"][0] == "01,02"
    assert df["log_count"][0] == 2


def test_transaction_info_fast_path_agrees_with_reading_each_record(load):
    records = load("tron_transaction_info_by_block") * 40
    records[7] = {**records[7], "fee": str(2**65)}  # a string forces the per-value path
    df = tron_transaction_infos(records)
    for row, record in zip(df.itertuples(), records, strict=True):
        receipt = record.get("receipt", {})
        fee = record.get("fee")
        assert _na_to_none(row.fee_sun) == (None if fee is None else int(fee))
        assert _na_to_none(row.net_fee) == receipt.get("net_fee")
        assert _na_to_none(row.receipt_result) == receipt.get("result")
        assert row.log_count == len(record.get("log", []))


def _na_to_none(value):
    return None if value is pd.NA else value


def _bench_records(count: int) -> list[dict]:
    spec = importlib.util.spec_from_file_location("bench_frames", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.generate_records(count)


def _assert_rows_read_each_record(df: pd.DataFrame, records: list) -> None:
    """Every int column cell is the record's value as an exact int (NA where it is absent)."""

    def exact(value):
        return None if value is None else int(value)

    for row, record in zip(df.to_dict("records"), records, strict=True):
        receipt = record.get("receipt") or {}
        assert _na_to_none(row["block_number"]) == exact(record.get("blockNumber"))
        fee = _na_to_none(row["fee_sun"])
        assert fee == exact(record.get("fee")) and type(fee) in (int, type(None))
        for field in RECEIPT_FIELDS:
            value = _na_to_none(row[field])
            assert value == exact(receipt.get(field)) and type(value) in (int, type(None))
        assert _na_to_none(row["receipt_result"]) == receipt.get("result")
        assert row["log_count"] == len(record.get("log", []))
        assert row["internal_tx_count"] == len(record.get("internal_transactions", []))


def test_transaction_info_bench_mix_is_read_record_by_record_with_int64_columns():
    records = _bench_records(3_000)  # some records lack fee, receipt fields, logs, results
    df = tron_transaction_infos(records)
    _assert_rows_read_each_record(df, records)
    assert df["fee_sun"].dtype == object
    assert {str(df[field].dtype) for field in (*RECEIPT_FIELDS, "block_number")} == {"Int64"}
    assert str(df["block_time"].dtype) == "datetime64[us, UTC]"


def test_transaction_info_odd_values_in_a_big_mix_keep_exact_ints_column_by_column():
    records = _bench_records(3_000)
    records[5] = {**records[5], "fee": 2**64 + 7}  # past int64: still exact
    records[9] = {**records[9], "receipt": {**records[9]["receipt"], "energy_fee": 2**63 + 5}}
    records[11] = {**records[11], "receipt": None}  # JSON null
    records[13] = {k: v for k, v in records[13].items() if k not in ("receipt", "blockTimeStamp")}
    records[17] = {**records[17], "blockNumber": str(records[17]["blockNumber"])}
    records[19] = {**records[19], "receipt": {**records[19]["receipt"], "net_usage": 268.0}}
    df = tron_transaction_infos(records)
    _assert_rows_read_each_record(df, records)
    assert df["fee_sun"][5] == 2**64 + 7 and df["fee_trx"][5] == (2**64 + 7) / 10**6
    assert df["energy_fee"].dtype == object and df["energy_fee"][9] == 2**63 + 5
    other_ints = [f for f in RECEIPT_FIELDS if f != "energy_fee"] + ["block_number"]
    assert {str(df[field].dtype) for field in other_ints} == {"Int64"}
    assert pd.isna(df["block_time"][13]) and not pd.isna(df["block_time"][14])


@pytest.mark.parametrize(
    ("field", "value"), [("energy_fee", 1.5), ("net_fee", True), ("energy_usage", "x")]
)
def test_transaction_info_a_bad_receipt_int_in_a_big_mix_names_its_field(field, value):
    records = _bench_records(500)
    records[7] = {**records[7], "receipt": {**records[7]["receipt"], field: value}}
    with pytest.raises(FrameError, match=f"receipt.{field}: expected an integer"):
        tron_transaction_infos(records)


def test_transaction_info_reads_mappings_that_are_not_dicts_alike():
    records = _bench_records(200)
    frozen = [MappingProxyType({**r, "receipt": MappingProxyType(r["receipt"])}) for r in records]
    pd.testing.assert_frame_equal(tron_transaction_infos(frozen), tron_transaction_infos(records))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([{"id": "a", "receipt": "SUCCESS"}], "receipt: expected a JSON object"),
        ([{"id": "a", "fee": True}], "fee: expected an integer"),
        ([{"id": "a", "log": 3}], "log: expected a JSON array"),
        ([1, 2], "expected an array of JSON objects"),
        ("oops", "expected an array of TRON transaction info records"),
    ],
)
def test_transaction_info_bad_shapes_raise_frame_error(payload, message):
    with pytest.raises(FrameError, match=message):
        tron_transaction_infos(payload)


# --- blocks -------------------------------------------------------------------------------------


def test_blocks_one_row_per_block(load):
    df = tron_blocks(load("tron_blocks_latest"))
    assert tuple(df.columns) == BLOCK_COLUMNS
    assert df["number"].tolist() == [62000000, 62000001]
    assert df["tx_count"].tolist() == [3, 0]  # the second block has no transactions key
    assert df["time"][0] == pd.Timestamp("2024-05-29 16:26:42", tz="UTC")
    assert df["witness_address"][1] == "4178c842ee63b253f8f0d2955bbc582c661a078c9d"


def test_block_transactions_flatten_the_contract(load):
    df = tron_block_transactions(load("tron_blocks_latest"))
    assert tuple(df.columns) == BLOCK_TRANSACTION_COLUMNS
    assert df["contract_type"].tolist() == [
        "TransferContract",
        "TriggerSmartContract",
        "TransferAssetContract",
    ]
    assert df["amount_sun"].tolist() == [2_500_000, 0, pd.NA]
    assert df["amount_trx"][0] == 2.5
    assert df["asset_name"][2] == "1002000" and df["asset_amount"][2] == 1000
    assert df["contract_address"][1] == "41a614f803b6fd780986a42c78ec9c7f77e6ded13c"
    assert df["fee_limit"][1] == 100_000_000 and pd.isna(df["fee_limit"][0])
    assert df["contract_ret"].tolist() == ["SUCCESS", "REVERT", "SUCCESS"]
    assert (df["block_number"] == 62000000).all()
    assert df["expiration"][0] == pd.Timestamp("2024-05-29 16:27:41", tz="UTC")


def test_blocks_accept_a_bare_block_and_empty_answers(load):
    block = load("tron_blocks_latest")["block"][0]
    assert tron_blocks(block)["number"].tolist() == [62000000]
    assert tron_blocks({}).empty and tron_block_transactions({"block": []}).empty


def test_unsigned_proposal_delete_transaction_is_one_row(load):
    df = tron_transaction(load("tron_proposal_delete"))
    assert tuple(df.columns) == TRANSACTION_COLUMNS
    assert len(df) == 1
    row = df.iloc[0]
    assert row["contract_type"] == "ProposalDeleteContract"
    assert row["proposal_id"] == 42
    assert row["signature_count"] == 0
    assert row["ref_block_bytes"] == "4ad8"
    assert row["timestamp"] == pd.Timestamp(1717000000982, unit="ms", tz="UTC")
    assert pd.isna(row["amount_sun"]) and pd.isna(row["contract_ret"])


def test_transaction_error_body_raises():
    with pytest.raises(FrameError, match="ContractValidateException"):
        tron_transaction({"Error": "ContractValidateException : Proposal[1] not exists"})


def test_transaction_info_is_the_same_without_pandas_private_fast_path(load, monkeypatch):
    import toolkit.frames._convert as common

    records = load("tron_transaction_info_by_block")
    fast = tron_transaction_infos(records)
    monkeypatch.setattr(common, "_dicts_to_array", None)
    public = tron_transaction_infos(records)
    pd.testing.assert_frame_equal(fast, public)
