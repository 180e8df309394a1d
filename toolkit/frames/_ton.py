"""TON token data (``api/v2/getTokenData``) as frames, in the spec's shape and toncenter's."""

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
}
_TOKEN_FIELDS = frozenset(
    {"name", "symbol", "decimals", "totalSupply", "total_supply", "mintable", "burnable"}
    | {"address", "admin_address", "jetton_content", "contract_type"}
)


def ton_token_data(payload: Any, *, address: str | list[str] | None = None) -> pd.DataFrame:
    """Token (jetton) data, one row per token.

    Accepts the spec's flat record (``{name, symbol, decimals, totalSupply, mintable, burnable,
    address}``), toncenter v2's current ``{"ok": true, "result": {"@type":
    "ext.tokens.jettonMasterData", address, contract_type, total_supply (a decimal string),
    mintable, admin_address, jetton_content: {type, data}, jetton_wallet_code}}``, its older form
    (no address, total_supply a JSON number), the bare `result` of either, a JSON-RPC envelope, or
    a list of any of these. ``{"ok": false, ...}`` raises with toncenter's error.

    Columns: address, name, symbol (string), decimals (Int64; toncenter sends it as text),
    total_supply (exact int, smallest units), supply (float, total_supply / 10**decimals),
    mintable, burnable (boolean), admin_address, contract_type (string, e.g. jetton_master),
    content_type (string: onchain/offchain), uri, image, description (string, from the content).

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
    content = as_mapping(record.get("jetton_content"), "jetton_content")
    data = content.get("data")
    # Off-chain content is often just the metadata URI as a string.
    metadata = {"uri": data} if isinstance(data, str) else as_mapping(data, "jetton_content.data")

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
        "content_type": text_value(content.get("type"), "jetton_content.type"),
        "uri": field("uri"),
        "image": field("image"),
        "description": field("description"),
    }


def _token_record(item: Any) -> Mapping[str, Any]:
    if not isinstance(item, Mapping):
        raise FrameError(f"expected TON token data (an object), got {describe(item)}")
    if "ok" in item:
        if item["ok"] is not True:
            error = text_value(item.get("error"), "error")
            code = repr(item.get("code"))[:20]
            raise FrameError(f"toncenter answered with an error (code {code}): {error}")
        return as_mapping(item.get("result"), "result")
    if item and _TOKEN_FIELDS.isdisjoint(item):
        raise FrameError(f"expected TON token data, got {describe_keys(item)}")
    return item
