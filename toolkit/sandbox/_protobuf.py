"""Just enough protobuf to serialise a TRON transaction's `raw_data`, as java-tron does.

A TRON transaction id is the SHA-256 of its serialised `raw_data` (shown as `raw_data_hex`), so
the sandbox encodes the same message to make ids that a real TRON library can recompute. Only the
messages the sandbox emits are described; proto3 rules apply (zero and empty fields are omitted,
fields are written in field-number order).
"""

from __future__ import annotations

from typing import Any

# Contract value fields: (json key, field number, how the JSON value becomes bytes).
#   "bytes": hex text (addresses, call data, asset names), "int": varint.
CONTRACT_FIELDS: dict[str, tuple[tuple[str, int, str], ...]] = {
    "TransferContract": (
        ("owner_address", 1, "bytes"),
        ("to_address", 2, "bytes"),
        ("amount", 3, "int"),
    ),
    "TransferAssetContract": (
        ("asset_name", 1, "bytes"),
        ("owner_address", 2, "bytes"),
        ("to_address", 3, "bytes"),
        ("amount", 4, "int"),
    ),
    "ProposalDeleteContract": (("owner_address", 1, "bytes"), ("proposal_id", 2, "int")),
    "TriggerSmartContract": (
        ("owner_address", 1, "bytes"),
        ("contract_address", 2, "bytes"),
        ("call_value", 3, "int"),
        ("data", 4, "bytes"),
    ),
}
CONTRACT_TYPE_NUMBERS = {
    "TransferContract": 1,
    "TransferAssetContract": 2,
    "ProposalDeleteContract": 18,
    "TriggerSmartContract": 31,
}
TYPE_URL_PREFIX = "type.googleapis.com/protocol."


def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64 two's complement, as protobuf writes negative numbers
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _field(number: int, value: int | bytes) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value) if value else b""
    return _varint(number << 3 | 2) + _varint(len(value)) + value if value else b""


def contract_value(contract_type: str, value: dict[str, Any]) -> bytes:
    out = b""
    for key, number, kind in CONTRACT_FIELDS[contract_type]:
        if key in value:
            raw = value[key]
            out += _field(number, raw if kind == "int" else bytes.fromhex(raw))
    return out


def raw_data(raw: dict[str, Any]) -> bytes:
    """Serialise a `raw_data` object (hex-address form) as Transaction.raw."""
    contracts = b""
    for contract in raw["contract"]:
        kind = contract["type"]
        any_message = _field(1, (TYPE_URL_PREFIX + kind).encode()) + _field(
            2, contract_value(kind, contract["parameter"]["value"])
        )
        contracts += _field(11, _field(1, CONTRACT_TYPE_NUMBERS[kind]) + _field(2, any_message))
    return (
        _field(1, bytes.fromhex(raw["ref_block_bytes"]))
        + _field(4, bytes.fromhex(raw["ref_block_hash"]))
        + _field(8, raw["expiration"])
        + contracts
        + _field(14, raw["timestamp"])
        + _field(18, raw.get("fee_limit", 0))
    )
