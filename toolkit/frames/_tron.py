"""TRON (wallet/asset chain) responses as frames: asset issues, transaction info, blocks.

TRON's HTTP API is protobuf rendered as JSON, so fields equal to zero or empty are simply absent;
they become NA (or a count of 0 for absent lists). Amounts are in sun (1 TRX = 10**6 sun) and times
in milliseconds since the epoch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._convert import (
    SUN_PER_TRX,
    FrameError,
    IntBlock,
    Values,
    amount_columns,
    as_list,
    as_mapping,
    as_records,
    big_int_column,
    column_mappings,
    columns_from_rows,
    count_column,
    decimals_scale,
    decode_hex_text,
    decoded_text_column,
    describe,
    describe_keys,
    dict_table,
    exact_ints,
    field_table,
    float_column,
    frame,
    int_column,
    int_value,
    looks_like_hex,
    text_column,
    text_value,
    to_units,
    units_column,
    unwrap_envelope,
    utc_column,
)
from ._runs import each, flattened, takes_runs

ASSET_TEXT_FIELDS = ("name", "abbr", "description", "url")
_ASSET_FIELDS = frozenset(
    {"id", "owner_address", "total_supply", "trx_num", "num", "start_time", "end_time"}
    | {"precision", "free_asset_net_limit", "public_free_asset_net_limit", "frozen_supply"}
    | set(ASSET_TEXT_FIELDS)
)
ASSET_COLUMNS = (
    "id",
    "name",
    "abbr",
    "owner_address",
    "total_supply",
    "precision",
    "total_supply_tokens",
    "trx_num",
    "num",
    "start_time",
    "end_time",
    "description",
    "url",
    "free_asset_net_limit",
    "public_free_asset_net_limit",
    "frozen_supply_total",
    "name_raw",
    "abbr_raw",
    "description_raw",
    "url_raw",
)
_ASSET_SCHEMA = {
    "id": "text",
    "owner_address": "text",
    "trx_num": "int",
    "num": "int",
    "start_time": "time_ms",
    "end_time": "time_ms",
    "free_asset_net_limit": "int",
    "public_free_asset_net_limit": "int",
}

RECEIPT_FIELDS = (
    "energy_usage",
    "energy_fee",
    "origin_energy_usage",
    "energy_usage_total",
    "energy_penalty_total",
    "net_usage",
    "net_fee",
)
_TRANSACTION_INFO_INT_KEYS = ("blockNumber", "blockTimeStamp", "fee")  # first: one block
_TRANSACTION_INFO_KEYS = (
    *_TRANSACTION_INFO_INT_KEYS,
    *("id", "contractResult", "receipt", "log", "contract_address", "result", "resMessage"),
    "internal_transactions",
)
_TRANSACTION_INFO_FIELDS = frozenset(_TRANSACTION_INFO_KEYS)
_RECEIPT_KEYS = (*RECEIPT_FIELDS, "result")  # the ints first: one block
_RECEIPT_INT_NAMES = tuple(f"receipt.{field}" for field in RECEIPT_FIELDS)  # as errors say
TRANSACTION_INFO_COLUMNS = (
    "id",
    "block_number",
    "block_time",
    "fee_sun",
    "fee_trx",
    *RECEIPT_FIELDS,
    "receipt_result",
    "result",
    "res_message",
    "contract_address",
    "log_count",
    "internal_tx_count",
    "contract_result",
)

BLOCK_COLUMNS = (
    "number",
    "block_id",
    "time",
    "witness_address",
    "parent_hash",
    "tx_trie_root",
    "version",
    "tx_count",
)
_BLOCK_SCHEMA = {
    "number": "int",
    "block_id": "text",
    "time": "time_ms",
    "witness_address": "text",
    "parent_hash": "text",
    "tx_trie_root": "text",
    "version": "int",
    "tx_count": "int",
}

_TRANSACTION_SCHEMA = {
    "tx_id": "text",
    "contract_type": "text",
    "owner_address": "text",
    "to_address": "text",
    "amount_sun": "big_int",
    "asset_name": "text",
    "asset_amount": "big_int",
    "contract_address": "text",
    "proposal_id": "int",
    "contract_ret": "text",
    "expiration": "time_ms",
    "timestamp": "time_ms",
    "fee_limit": "big_int",
    "ref_block_bytes": "text",
    "ref_block_hash": "text",
    "signature_count": "int",
    "raw_data_hex": "text",
}
TRANSACTION_COLUMNS = (*list(_TRANSACTION_SCHEMA)[:5], "amount_trx", *list(_TRANSACTION_SCHEMA)[5:])
BLOCK_TRANSACTION_COLUMNS = ("block_number", "block_id", *TRANSACTION_COLUMNS)


# --- payload shapes ------------------------------------------------------------------------------


def tron_records(
    payload: Any, *, list_key: str | None, record_fields: frozenset[str], what: str
) -> list[Mapping[str, Any]]:
    """The records of a TRON response: a bare array, ``{list_key: [...]}`` or one bare record.

    ``{}`` means "nothing" (TRON's answer to an out-of-range query) and a ``{"Error": ...}`` body
    raises with TRON's message.
    """
    payload = unwrap_envelope(payload)
    if isinstance(payload, list):
        return as_records(payload, what)
    if not isinstance(payload, Mapping):
        raise FrameError(f"expected {what}, got {describe(payload)}")
    if "Error" in payload:
        raise FrameError(f"TRON answered with an error: {text_value(payload['Error'], 'Error')}")
    if list_key is not None and list_key in payload:
        return as_records(payload[list_key], list_key)
    if not payload:
        return []
    if record_fields.isdisjoint(payload):
        raise FrameError(f"expected {what}, got {describe_keys(payload)}")
    return [payload]


# --- asset issues --------------------------------------------------------------------------------


@takes_runs("asset-issue", "asset-issue-list", combine=each)
def tron_asset_issues(payload: Any, *, hex_text: bool | None = None) -> pd.DataFrame:
    """TRON asset issue (TRC-10 token) records, one row per token.

    Accepts the responses of ``wallet/getassetissuebyname``, ``getassetissuelistbyname`` and
    ``getassetissuebyid``: ``{"assetIssue": [...]}``, a bare record, a list of records, ``{}``
    (no rows), or any of them in a JSON-RPC envelope.

    `hex_text` says whether name, abbr, description and url are hex of UTF-8 (as when the request
    had ``visible: false``). None (default) decides from the payload: hex when every non-empty one
    of those values is hex. Pass it explicitly for short all-hex names such as ``"BEEF"``.

    Columns: id, name, abbr (string), owner_address (string), total_supply (exact int, smallest
    units), precision (Int64; 0 when the record leaves it out, as protobuf JSON does with zeros),
    total_supply_tokens (float, total_supply / 10**precision), trx_num,
    num (Int64, the exchange ratio), start_time, end_time (UTC), description, url (string),
    free_asset_net_limit, public_free_asset_net_limit (Int64, 0 when left out),
    frozen_supply_total (exact int, sum of frozen_amount, 0 when nothing is frozen), name_raw,
    abbr_raw, description_raw, url_raw (the text as received; the readable column is NA where it is
    not hex, and undecodable bytes show as U+FFFD).
    """
    records = tron_records(
        payload, list_key="assetIssue", record_fields=_ASSET_FIELDS, what="TRON asset issue records"
    )
    columns = columns_from_rows(records, _ASSET_SCHEMA)
    for limit in ("free_asset_net_limit", "public_free_asset_net_limit"):  # zero when left out
        columns[limit] = int_column([r.get(limit, 0) for r in records], limit)
    raw_texts = {f: [text_value(r.get(f), f) for r in records] for f in ASSET_TEXT_FIELDS}
    if hex_text is None:
        hex_text = _all_hex(raw_texts)
    for field, raw in raw_texts.items():
        columns[field] = text_column([decode_hex_text(v) for v in raw] if hex_text else raw, field)
        columns[f"{field}_raw"] = text_column(raw, field)

    supplies = exact_ints([r.get("total_supply") for r in records], "total_supply")
    # Protobuf JSON leaves out zero fields: a record without a precision has precision 0.
    precisions = exact_ints([r.get("precision", 0) for r in records], "precision")
    columns["total_supply"] = big_int_column(supplies, "total_supply")
    columns["precision"] = int_column(precisions, "precision")
    columns["total_supply_tokens"] = float_column(
        to_units(s, decimals_scale(p)) for s, p in zip(supplies, precisions, strict=True)
    )
    frozen = [_frozen_total(r.get("frozen_supply")) for r in records]
    columns["frozen_supply_total"] = big_int_column(frozen, "frozen_supply")
    return frame(columns, ASSET_COLUMNS)


def _all_hex(raw_texts: Mapping[str, list[str | None]]) -> bool:
    values = [v for column in raw_texts.values() for v in column if v]
    return bool(values) and all(looks_like_hex(v) for v in values)


def _frozen_total(frozen_supply: Any) -> int:
    entries = as_records(frozen_supply, "frozen_supply")
    amounts = exact_ints([e.get("frozen_amount") for e in entries], "frozen_supply.frozen_amount")
    return sum(a for a in amounts if a is not None)


# --- transaction info -----------------------------------------------------------------------------


@takes_runs("transaction-info-list", combine=flattened)
def tron_transaction_infos(payload: Any) -> pd.DataFrame:
    """Transaction info records (``wallet/gettransactioninfobyblocknum``), one row per transaction.

    Accepts the bare array TRON returns (``[]`` for an empty block), ``{}`` (TRON's answer for
    ``num <= 0``; no rows), a single record (``gettransactioninfobyid``), or an envelope.

    Columns: id (string), block_number (Int64), block_time (UTC), fee_sun (exact int), fee_trx
    (float), energy_usage, energy_fee, origin_energy_usage, energy_usage_total,
    energy_penalty_total, net_usage, net_fee (Int64, from `receipt`), receipt_result (string:
    SUCCESS, REVERT, OUT_OF_ENERGY...; often NA for plain transfers), result (string: FAILED, or
    NA when it succeeded), res_message (string, `resMessage` decoded from hex), contract_address
    (string), log_count, internal_tx_count (Int64, 0 when absent), contract_result (string: the
    `contractResult` entries joined with ",").
    """
    # Gather every field in one C-level pass, then build each typed column with whole-column
    # numpy work: no per-row pandas calls. Int fields are parsed as blocks, record by record:
    # each record's values sit together in memory, so this visits them together rather than
    # once per column, which is what counts on large blocks (see bench/bench_frames.py).
    # TRON's bare array of exact dicts (the usual answer) needs no other check.
    table = dict_table(payload, _TRANSACTION_INFO_KEYS) if type(payload) is list else None
    if table is None:
        records = tron_records(
            payload,
            list_key=None,
            record_fields=_TRANSACTION_INFO_FIELDS,
            what="an array of TRON transaction info records",
        )
        table = field_table(records, _TRANSACTION_INFO_KEYS)
    raw = {field: table[:, i] for i, field in enumerate(_TRANSACTION_INFO_KEYS)}
    receipts = _receipt_table(raw["receipt"])
    # Columns are built in the order of the frame, so the first bad value is the one reported.
    ints = IntBlock(table[:, : len(_TRANSACTION_INFO_INT_KEYS)], _TRANSACTION_INFO_INT_KEYS)
    receipt_ints = IntBlock(receipts[:, : len(RECEIPT_FIELDS)], _RECEIPT_INT_NAMES)
    columns = {
        "id": text_column(raw["id"], "id"),
        "block_number": int_column(ints["blockNumber"], "blockNumber"),
        "block_time": utc_column(ints["blockTimeStamp"], "blockTimeStamp"),
    }
    columns["fee_sun"], columns["fee_trx"] = amount_columns(ints["fee"], SUN_PER_TRX, "fee")
    for field in RECEIPT_FIELDS:
        columns[field] = int_column(receipt_ints[f"receipt.{field}"], f"receipt.{field}")
    columns["receipt_result"] = text_column(receipts[:, -1], "receipt.result")
    columns["result"] = text_column(raw["result"], "result")
    columns["res_message"] = decoded_text_column(raw["resMessage"], "resMessage", decode_hex_text)
    columns["contract_address"] = text_column(raw["contract_address"], "contract_address")
    columns["log_count"] = count_column(raw["log"], "log")
    columns["internal_tx_count"] = count_column(
        raw["internal_transactions"], "internal_transactions"
    )
    columns["contract_result"] = text_column(
        _contract_results(raw["contractResult"]), "contractResult"
    )
    return frame(columns, TRANSACTION_INFO_COLUMNS)


def _receipt_table(values: Any) -> Any:
    """The `receipt` objects as a table: a row each, the `_RECEIPT_KEYS` as columns."""
    table = dict_table(values, _RECEIPT_KEYS)
    if table is None:  # JSON nulls, missing receipts, or something that is not an object
        table = field_table(column_mappings(values, "receipt"), _RECEIPT_KEYS)
    return table


def _contract_results(values: Values) -> list[Any]:
    """`contractResult` arrays as text: the single element, or the elements joined with ","."""
    # The usual shape (one hex string) inline: a call per record would cost more than the work.
    return [v[0] if type(v) is list and len(v) == 1 else _joined(v) for v in values]


def _joined(value: Any) -> str | None:
    parts = [text_value(v, "contractResult") for v in as_list(value, "contractResult")]
    return ",".join(p for p in parts if p is not None) if parts else None


# --- blocks and transactions ----------------------------------------------------------------------

_BLOCK_FIELDS = frozenset({"blockID", "block_header", "transactions"})
_TRANSACTION_FIELDS = frozenset({"txID", "raw_data", "raw_data_hex", "signature", "ret"})


@takes_runs("block-list", "tron-block", combine=each)
def tron_blocks(payload: Any) -> pd.DataFrame:
    """Blocks (``wallet/getblockbylatestnum`` and friends), one row per block.

    Accepts ``{"block": [...]}``, a bare block (``getnowblock``), a list of blocks, ``{}`` (no
    rows), or an envelope.

    Columns: number (Int64), block_id (string), time (UTC), witness_address, parent_hash,
    tx_trie_root (string), version (Int64), tx_count (Int64).
    """
    rows = [_block_fields(block) for block in _blocks(payload)]
    return frame(columns_from_rows(rows, _BLOCK_SCHEMA), BLOCK_COLUMNS)


@takes_runs("block-list", "tron-block", combine=each)
def tron_block_transactions(payload: Any) -> pd.DataFrame:
    """The transactions of blocks (same inputs as `tron_blocks`), one row per transaction.

    Columns: block_number (Int64), block_id (string), then the columns of `tron_transaction`.
    """
    rows = []
    for block in _blocks(payload):
        block_fields = _block_fields(block)
        for tx in as_records(block.get("transactions"), "transactions"):
            row = _transaction_fields(tx)
            row["block_number"] = block_fields["number"]
            row["block_id"] = block_fields["block_id"]
            rows.append(row)
    schema = {"block_number": "int", "block_id": "text", **_TRANSACTION_SCHEMA}
    return _transactions_frame(rows, schema, BLOCK_TRANSACTION_COLUMNS)


@takes_runs("unsigned-transaction")
def tron_transaction(payload: Any) -> pd.DataFrame:
    """A transaction object, such as the unsigned one ``wallet/proposaldelete`` returns: one row.

    A list of transactions gives one row each; ``{}`` gives no rows.

    Columns: tx_id, contract_type, owner_address, to_address (string), amount_sun (exact int: the
    TRX `amount`, or `call_value` of a contract call), amount_trx (float), asset_name (string, the
    TRC-10 token of a TransferAssetContract, hex decoded), asset_amount (exact int, in the token's
    units), contract_address (string), proposal_id (Int64), contract_ret (string, from `ret`),
    expiration, timestamp (UTC), fee_limit (exact int, sun), ref_block_bytes, ref_block_hash
    (string), signature_count (Int64), raw_data_hex (string). Only the first contract of a
    transaction is read: TRON transactions carry exactly one.
    """
    txs = tron_records(
        payload,
        list_key=None,
        record_fields=_TRANSACTION_FIELDS,
        what="a TRON transaction object",
    )
    rows = [_transaction_fields(tx) for tx in txs]
    return _transactions_frame(rows, _TRANSACTION_SCHEMA, TRANSACTION_COLUMNS)


def _blocks(payload: Any) -> list[Mapping[str, Any]]:
    return tron_records(payload, list_key="block", record_fields=_BLOCK_FIELDS, what="TRON blocks")


def _block_fields(block: Mapping[str, Any]) -> dict[str, Any]:
    header = as_mapping(block.get("block_header"), "block_header")
    raw = as_mapping(header.get("raw_data"), "block_header.raw_data")
    return {
        "number": int_value(raw.get("number"), "block_header.raw_data.number"),
        "block_id": block.get("blockID"),
        "time": raw.get("timestamp"),
        "witness_address": raw.get("witness_address"),
        "parent_hash": raw.get("parentHash"),
        "tx_trie_root": raw.get("txTrieRoot"),
        "version": raw.get("version"),
        "tx_count": len(as_list(block.get("transactions"), "transactions")),
    }


def _transaction_fields(tx: Mapping[str, Any]) -> dict[str, Any]:
    raw = as_mapping(tx.get("raw_data"), "raw_data")
    contracts = as_records(raw.get("contract"), "raw_data.contract")
    contract = contracts[0] if contracts else {}
    parameter = as_mapping(contract.get("parameter"), "contract.parameter")
    value = as_mapping(parameter.get("value"), "contract.parameter.value")
    rets = as_records(tx.get("ret"), "ret")
    amount = int_value(value.get("amount"), "contract.parameter.value.amount")
    asset_name = text_value(value.get("asset_name"), "contract.parameter.value.asset_name")
    is_asset_transfer = asset_name is not None
    call_value = value.get("call_value")
    return {
        "tx_id": tx.get("txID"),
        "contract_type": contract.get("type"),
        "owner_address": value.get("owner_address"),
        "to_address": value.get("to_address"),
        "amount_sun": None if is_asset_transfer else _first_present(amount, call_value),
        "asset_name": _printable_hex_or_raw(asset_name),
        "asset_amount": amount if is_asset_transfer else None,
        "contract_address": value.get("contract_address"),
        "proposal_id": value.get("proposal_id"),
        "contract_ret": rets[0].get("contractRet") if rets else None,
        "expiration": raw.get("expiration"),
        "timestamp": raw.get("timestamp"),
        "fee_limit": raw.get("fee_limit"),
        "ref_block_bytes": raw.get("ref_block_bytes"),
        "ref_block_hash": raw.get("ref_block_hash"),
        "signature_count": len(as_list(tx.get("signature"), "signature")),
        "raw_data_hex": tx.get("raw_data_hex"),
    }


def _transactions_frame(rows: list[dict[str, Any]], schema: dict[str, str], order) -> pd.DataFrame:
    columns = columns_from_rows(rows, schema)
    amounts = exact_ints([row["amount_sun"] for row in rows], "amount_sun")
    columns["amount_trx"] = units_column(amounts, SUN_PER_TRX)
    return frame(columns, order)


def _first_present(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _printable_hex_or_raw(text: str | None) -> str | None:
    """Asset names travel as hex when ``visible`` is false; ids like "1002000" stay as they are."""
    if text is None or not looks_like_hex(text):
        return text
    decoded = decode_hex_text(text)
    return decoded if decoded and decoded.isprintable() and "\ufffd" not in decoded else text
