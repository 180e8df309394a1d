"""TON answers as frames: token data (``api/v2/getTokenData``, in the spec's shape and toncenter's),
the masterchain head (``getMasterchainInfo``) and an address's forms (``detectAddress``).

toncenter wraps every answer as ``{"ok": true, "result": ...}`` (a JSON-RPC envelope may sit around
that, with ``id`` and ``jsonrpc``) and fails as ``{"ok": false, "code", "error"}``: every frame here
reads all of these, and the bare ``result``, and raises with toncenter's error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._convert import (
    FrameError,
    as_mapping,
    columns_from_rows,
    decimals_scale,
    describe,
    describe_keys,
    float_column,
    frame,
    int_value,
    text_value,
    to_units,
    unwrap_envelope,
)
from ._runs import listed_with, takes_runs

TOKEN_COLUMNS = (
    "address",
    "name",
    "symbol",
    "decimals",
    "total_supply",
    "supply",
    "mintable",
    "burnable",
    "admin_address",
    "contract_type",
    "content_type",
    "uri",
    "image",
    "description",
    "balance",
    "owner_address",
    "jetton_address",
    "collection_address",
    "index",
    "next_item_index",
    "init",
)
_TOKEN_SCHEMA = {
    "address": "text",
    "name": "text",
    "symbol": "text",
    "decimals": "int",
    "total_supply": "big_int",
    "mintable": "bool",
    "burnable": "bool",
    "admin_address": "text",
    "contract_type": "text",
    "content_type": "text",
    "uri": "text",
    "image": "text",
    "description": "text",
    "balance": "big_int",
    "owner_address": "text",
    "jetton_address": "text",
    "collection_address": "text",
    "index": "big_int",
    "next_item_index": "big_int",
    "init": "bool",
}
_TOKEN_FIELDS = frozenset(
    {"name", "symbol", "decimals", "totalSupply", "total_supply", "mintable", "burnable"}
    | {"address", "admin_address", "jetton_content", "contract_type"}
    | {"balance", "owner", "jetton", "jetton_wallet_code"}  # a jetton wallet
    | {"init", "index", "owner_address", "collection_address", "content"}  # an NFT item
    | {"next_item_index", "collection_content"}  # an NFT collection
)
# Where each kind of token data keeps its content ({type, data}): a jetton master's
# jetton_content, an NFT collection's collection_content, an NFT item's content (toncenter's
# pytonlib `get_token_data`; an item of a collection gets the collection's answer for it).
_CONTENT_KEYS = ("jetton_content", "collection_content", "content")


@takes_runs("token-data", combine=listed_with("address", "address"))
def ton_token_data(payload: Any, *, address: str | list[str] | None = None) -> pd.DataFrame:
    """Token data, one row per token: a jetton master, a jetton wallet, an NFT collection or an
    NFT item, whichever the address is (toncenter's ``contract_type`` says which).

    Accepts the spec's flat record (``{name, symbol, decimals, totalSupply, mintable, burnable,
    address}``), toncenter v2's current ``{"ok": true, "result": {"@type":
    "ext.tokens.jettonMasterData", address, contract_type, total_supply (a decimal string),
    mintable, admin_address, jetton_content: {type, data}, jetton_wallet_code}}``, its older form
    (no address, total_supply a JSON number), the bare `result` of either, a JSON-RPC envelope, or
    a list of any of these. ``{"ok": false, ...}`` raises with toncenter's error.

    Columns: address, name, symbol (string), decimals (Int64; toncenter sends it as text),
    total_supply (exact int, smallest units), supply (float, total_supply / 10**decimals),
    mintable, burnable (boolean), admin_address, contract_type (string, e.g. jetton_master),
    content_type (string: onchain/offchain), uri, image, description (string, from the content:
    a jetton's ``jetton_content``, a collection's ``collection_content``, an item's ``content``;
    off-chain content is its URI), balance (exact int: a jetton wallet's), owner_address (a
    wallet's ``owner``, an NFT's or a collection's ``owner_address``), jetton_address (a wallet's
    master), collection_address, index (an NFT item's), next_item_index (a collection's), init
    (boolean: an NFT item is initialised). A column a kind does not have is NA.

    toncenter's older answers do not repeat the token's address: pass the `address` you asked for
    (a list, one per payload, for a list of payloads) to fill that column where the answer has
    none.
    """
    payload = unwrap_envelope(payload)
    payloads = payload if isinstance(payload, list) else [payload]
    addresses = address if isinstance(address, list) else [address] * len(payloads)
    if len(addresses) != len(payloads):
        raise FrameError(f"{len(addresses)} addresses given for {len(payloads)} payloads")
    rows = []
    for item, asked in zip(payloads, addresses, strict=True):
        row = _token_row(item)
        if row is not None:
            row["address"] = row["address"] or asked
            rows.append(row)
    columns = columns_from_rows(rows, _TOKEN_SCHEMA)
    columns["supply"] = float_column(
        to_units(row["total_supply"], decimals_scale(row["decimals"])) for row in rows
    )
    return frame(columns, TOKEN_COLUMNS)


def _token_row(item: Any) -> dict[str, Any] | None:
    record = _token_record(unwrap_envelope(item))
    if not record:
        return None
    key = next((key for key in _CONTENT_KEYS if record.get(key) is not None), "jetton_content")
    content = as_mapping(record.get(key), key)
    data = content.get("data")
    # Off-chain content is often just the metadata URI as a string.
    metadata = {"uri": data} if isinstance(data, str) else as_mapping(data, f"{key}.data")

    def field(name: str) -> Any:
        value = record.get(name)
        return metadata.get(name) if value is None else value

    supply = record.get("totalSupply", record.get("total_supply"))
    return {
        "address": record.get("address"),
        "name": field("name"),
        "symbol": field("symbol"),
        "decimals": int_value(field("decimals"), "decimals"),
        "total_supply": int_value(supply, "total_supply"),
        "mintable": record.get("mintable"),
        "burnable": record.get("burnable"),
        "admin_address": record.get("admin_address"),
        "contract_type": record.get("contract_type"),
        "content_type": text_value(content.get("type"), f"{key}.type"),
        "uri": field("uri"),
        "image": field("image"),
        "description": field("description"),
        "balance": int_value(record.get("balance"), "balance"),
        "owner_address": record.get("owner_address", record.get("owner")),
        "jetton_address": record.get("jetton"),
        "collection_address": record.get("collection_address"),
        "index": int_value(record.get("index"), "index"),
        "next_item_index": int_value(record.get("next_item_index"), "next_item_index"),
        "init": record.get("init"),
    }


def _token_record(item: Any) -> Mapping[str, Any]:
    return toncenter_result(item, _TOKEN_FIELDS, "TON token data")


def toncenter_result(item: Any, fields: frozenset[str], what: str) -> Mapping[str, Any]:
    """The record of one toncenter answer: the ``result`` of ``{"ok": true, ...}`` (inside a
    JSON-RPC envelope or not), or a bare record that has at least one of `fields`; ``{}`` is
    an empty record. ``{"ok": false, ...}`` raises with toncenter's code and error."""
    item = unwrap_envelope(item)
    if not isinstance(item, Mapping):
        raise FrameError(f"expected {what} (an object), got {describe(item)}")
    if "ok" in item:
        if item["ok"] is not True:
            error = text_value(item.get("error"), "error")
            code = repr(item.get("code"))[:20]
            raise FrameError(f"toncenter answered with an error (code {code}): {error}")
        return as_mapping(item.get("result"), "result")
    if item and fields.isdisjoint(item):
        raise FrameError(f"expected {what}, got {describe_keys(item)}")
    return item


def _toncenter_results(payload: Any, fields: frozenset[str], what: str) -> list[Mapping[str, Any]]:
    """The non-empty records of one answer or of a list of answers."""
    payload = unwrap_envelope(payload)
    items = payload if isinstance(payload, list) else [payload]
    return [record for item in items if (record := toncenter_result(item, fields, what))]


# --- getMasterchainInfo ---------------------------------------------------------------------------

_BLOCK_ID_SCHEMA = {
    "workchain": "int",
    "shard": "text",
    "seqno": "int",
    "root_hash": "text",
    "file_hash": "text",
}
MASTERCHAIN_COLUMNS = (
    "seqno",
    "workchain",
    "shard",
    "root_hash",
    "file_hash",
    "state_root_hash",
    "init_seqno",
    "init_workchain",
    "init_shard",
    "init_root_hash",
    "init_file_hash",
    "extra",
)
_MASTERCHAIN_SCHEMA = {
    **_BLOCK_ID_SCHEMA,
    "state_root_hash": "text",
    **{f"init_{part}": kind for part, kind in _BLOCK_ID_SCHEMA.items()},
    "extra": "text",
}
_MASTERCHAIN_FIELDS = frozenset({"last", "init", "state_root_hash"})


@takes_runs("masterchain-info")
def ton_masterchain_info(payload: Any) -> pd.DataFrame:
    """The masterchain head as ``getMasterchainInfo`` answers it, one row per answer.

    Accepts toncenter's ``{"ok": true, "result": {"@type": "blocks.masterchainInfo", "last",
    "state_root_hash", "init"}}`` (REST GET), the same in a JSON-RPC envelope (``jsonRPC``), the
    bare result, or a list of any of these.

    Columns: seqno (Int64: TON's head), workchain (Int64, -1 for the masterchain), shard (string,
    toncenter's signed decimal: "-9223372036854775808" is the whole masterchain), root_hash,
    file_hash (string, base64), state_root_hash (string), then init_seqno, init_workchain,
    init_shard, init_root_hash, init_file_hash (the zero state the node follows; real answers give
    its shard as "0"), extra (string, toncenter's ``@extra`` request tag; NA when absent).
    """
    rows = []
    for record in _toncenter_results(payload, _MASTERCHAIN_FIELDS, "TON masterchain info"):
        row = {"state_root_hash": record.get("state_root_hash"), "extra": record.get("@extra")}
        for prefix, key in (("", "last"), ("init_", "init")):
            block = as_mapping(record.get(key), key)
            row.update({f"{prefix}{part}": block.get(part) for part in _BLOCK_ID_SCHEMA})
        rows.append(row)
    return frame(columns_from_rows(rows, _MASTERCHAIN_SCHEMA), MASTERCHAIN_COLUMNS)


# --- detectAddress ---------------------------------------------------------------------------

ADDRESS_FORM_COLUMNS = (
    "raw_form",
    "workchain",
    "bounceable",
    "non_bounceable",
    "bounceable_b64",
    "non_bounceable_b64",
    "given_type",
    "test_only",
)
_ADDRESS_FORM_SCHEMA = {
    "raw_form": "text",
    "workchain": "int",
    "bounceable": "text",
    "non_bounceable": "text",
    "bounceable_b64": "text",
    "non_bounceable_b64": "text",
    "given_type": "text",
    "test_only": "bool",
}
_ADDRESS_FORM_FIELDS = frozenset({"raw_form", "bounceable", "non_bounceable", "given_type"})


@takes_runs("address-forms")
def ton_address_forms(payload: Any) -> pd.DataFrame:
    """Every form of addresses as ``detectAddress`` answers them, one row per answer.

    Accepts toncenter's current answer (``"@type": "ext.utils.detectedAddress"``, each variant an
    ``ext.utils.detectedAddressVariant`` with ``b64`` and ``b64url``), its older one (the same
    without ``@type``), either in a JSON-RPC envelope or bare, or a list of any of these.

    Columns: raw_form (string, ``<workchain>:<64 hex>``), workchain (Int64, from the raw form),
    bounceable, non_bounceable (string, URL-safe user-friendly forms: ``EQ...``, ``UQ...``),
    bounceable_b64, non_bounceable_b64 (string, the same in standard base64 with ``+`` and
    ``/``), given_type (string: raw_form, friendly_bounceable, friendly_non_bounceable), test_only
    (boolean: the address given was a testnet form).
    """
    rows = []
    for record in _toncenter_results(payload, _ADDRESS_FORM_FIELDS, "TON address forms"):
        raw = text_value(record.get("raw_form"), "raw_form")
        row = {
            "raw_form": raw,
            "workchain": _workchain(raw),
            "given_type": record.get("given_type"),
            "test_only": record.get("test_only"),
        }
        for key in ("bounceable", "non_bounceable"):
            variant = as_mapping(record.get(key), key)
            row[key] = variant.get("b64url")
            row[f"{key}_b64"] = variant.get("b64")
        rows.append(row)
    return frame(columns_from_rows(rows, _ADDRESS_FORM_SCHEMA), ADDRESS_FORM_COLUMNS)


def _workchain(raw: str | None) -> int | None:
    workchain, colon, _ = (raw or "").partition(":")
    return int_value(workchain, "raw_form") if colon and workchain else None
