"""EVM results as frames: balances across blocks, ``debug_printBlock`` dumps, Bor root hashes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ._convert import (
    WEI_PER_ETH,
    FrameError,
    as_iterable,
    columns_from_rows,
    describe,
    frame,
    int_value,
    object_column,
    text_column,
    text_value,
    units_column,
    unwrap_envelope,
)


def quantity(value: Any) -> int:
    """An exact int from a JSON-RPC hex quantity (``"0x1bc16d674ec80000"``) or an int.

    Also accepts a response envelope around the quantity. Raises FrameError for anything else,
    including block tags such as ``"latest"``.
    """
    value = unwrap_envelope(value)
    if isinstance(value, str) and not value[:2].lower() == "0x":
        raise FrameError(f"expected a 0x-prefixed hex quantity, got {describe(value)}")
    number = int_value(value, "quantity")
    if number is None:
        raise FrameError("expected a hex quantity, got null")
    return number


# --- balances ----------------------------------------------------------------------------------

BALANCE_COLUMNS = ("address", "block", "wei", "eth")


def balances_frame(records: Iterable[Any]) -> pd.DataFrame:
    """Balances of addresses across blocks, one row per record, in the order given.

    Each record is ``(address, block, wei)`` or a mapping with those keys (``balance`` is accepted
    for ``wei``). `block` is an int or hex quantity (resolve tags like "latest" first); `wei` is
    the ``eth_getBalance`` result (hex quantity, its envelope, or an int).

    Columns: address (string), block (Int64), wei (exact int), eth (float, wei / 10**18).
    """
    rows = [_balance_row(record) for record in as_iterable(records, "(address, block, wei)")]
    columns = columns_from_rows(rows, {"address": "text", "block": "int", "wei": "big_int"})
    columns["eth"] = units_column([row["wei"] for row in rows], WEI_PER_ETH)
    return frame(columns, BALANCE_COLUMNS)


def _balance_row(record: Any) -> dict[str, Any]:
    if isinstance(record, Mapping):
        address, block = record.get("address"), record.get("block")
        wei = record.get("wei", record.get("balance"))
    else:
        address, block, wei = _triple(record, "(address, block, wei)")
    return {
        "address": address,
        "block": None if block is None else quantity(block),
        "wei": None if wei is None else quantity(wei),
    }


def _triple(record: Any, what: str) -> Sequence[Any]:
    if isinstance(record, str | bytes) or not isinstance(record, Sequence) or len(record) != 3:
        raise FrameError(f"expected records shaped {what}, got {describe(record)}")
    return record


# --- debug_printBlock ----------------------------------------------------------------------------

PRINT_BLOCK_COLUMNS = (
    "number",
    "hash",
    "parent_hash",
    "miner",
    "timestamp",
    "gas_limit",
    "gas_used",
    "base_fee",
    "tx_count",
    "uncle_count",
    "size",
)
_PRINT_BLOCK_SCHEMA = {
    "number": "int",
    "hash": "text",
    "parent_hash": "text",
    "miner": "text",
    "timestamp": "time_s",
    "gas_limit": "int",
    "gas_used": "int",
    "base_fee": "big_int",
    "tx_count": "int",
    "uncle_count": "int",
    "size": "text",
}

_BLOCK_LINE = re.compile(r"Block\(#(\d+)\)(?::\s*Size:\s*(.*?))?\s*\{?\s*")
_HEADER_LINE = re.compile(r"Header\((?:0x)?([0-9a-fA-F]*)\):?\s*")
_PAIR = re.compile(r"\s*([A-Za-z][A-Za-z0-9 ]{0,40}?)\s*:\s*(.*?)\s*")
# Go's Header.String() prints "TxSha <hash>" without the colon.
_PAIR_WITHOUT_COLON = re.compile(r"\s*([A-Z][A-Za-z0-9]{0,40})\s+([0-9a-fA-Fx]+)\s*")
_SECTION = re.compile(r"\s*(Transactions|Uncles)\s*:\s*")
_TX_LINE = re.compile(r"\s*TX\(")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Go prints numbers with %v, so never with leading zeros; "0000000000000042" is hex (a nonce).
_DECIMAL = re.compile(r"0|[1-9][0-9]{0,79}")
_GO_NIL = "<nil>"


def print_block_frame(text: str | Iterable[str]) -> pd.DataFrame:
    """Header fields of ``debug_printBlock`` dumps, one row per dump; the raw text is kept.

    Parses geth's ``Block.String()`` layout (``Block(#N): Size: ... {``, ``Header(<hash>):``,
    ``Key: value`` lines, ``Transactions:`` with one ``TX(...)`` per transaction, ``Uncles:``) and
    is tolerant of other layouts: every ``Key: value`` line before ``Transactions:`` becomes a
    column named in snake_case (``ParentHash`` -> ``parent_hash``), decimal values as exact ints
    and anything else as text. Fields a dump lacks are NA.

    Accepts one dump, its JSON-RPC envelope, or an iterable of dumps.

    Columns: number (Int64), hash, parent_hash, miner (string: Coinbase or Miner), timestamp (UTC,
    from Time in seconds), gas_limit, gas_used (Int64), base_fee (exact int, wei), tx_count,
    uncle_count (Int64; NA when the dump has no such section), size (string, e.g. "1.23 kB"),
    then every other parsed field (string, or object when it holds numbers), then raw (string,
    the whole dump).
    """
    text = unwrap_envelope(text)
    dumps = [text] if isinstance(text, str) else list(as_iterable(text, "debug_printBlock dumps"))
    rows = [_parse_dump(text_value(dump, "debug_printBlock")) for dump in dumps]
    columns = columns_from_rows(rows, _PRINT_BLOCK_SCHEMA)
    extra = list(dict.fromkeys(k for row in rows for k in row["fields"]))
    for key in extra:
        if key not in _PRINT_BLOCK_SCHEMA and key != "raw":
            values = [row["fields"].get(key) for row in rows]
            is_text = all(v is None or isinstance(v, str) for v in values)
            columns[key] = text_column(values, key) if is_text else object_column(values)
    columns["raw"] = text_column([row["raw"] for row in rows], "raw")
    return frame(columns)


def _parse_dump(raw: str | None) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    row: dict[str, Any] = {"raw": raw, "fields": fields}
    section = "header"
    counts = {"Transactions": 0, "Uncles": 0}
    for line in (raw or "").splitlines():
        if match := _SECTION.fullmatch(line):
            section = match[1]
        elif section == "Transactions":
            counts[section] += bool(_TX_LINE.match(line))
        elif section == "Uncles":
            counts[section] += bool(_HEADER_LINE.match(line.strip()))
        elif match := _BLOCK_LINE.fullmatch(line.strip()):
            row["number"] = int(match[1])
            row["size"] = match[2] or None
        elif match := _HEADER_LINE.fullmatch(line.strip()):
            row.setdefault("hash", match[1] or None)
        elif match := _PAIR.fullmatch(line) or _PAIR_WITHOUT_COLON.fullmatch(line):
            fields.setdefault(_snake_case(match[1]), _field_value(match[2]))
    if section != "header":
        row["tx_count"] = counts["Transactions"]
        row["uncle_count"] = counts["Uncles"] if section == "Uncles" else None
    _known_fields(row, fields)
    return row


def _known_fields(row: dict[str, Any], fields: dict[str, Any]) -> None:
    """Fill the documented columns from the parsed fields, whatever the dump called them."""
    aliases = {
        "number": ("number",),
        "hash": ("hash",),
        "parent_hash": ("parent_hash",),
        "miner": ("coinbase", "miner"),
        "timestamp": ("time", "timestamp"),
        "gas_limit": ("gas_limit",),
        "gas_used": ("gas_used",),
        "base_fee": ("base_fee", "base_fee_per_gas"),
        "size": ("size",),
    }
    for column, names in aliases.items():
        if row.get(column) is None:
            row[column] = next((fields[n] for n in names if fields.get(n) is not None), None)
        if isinstance(row[column], str) and _PRINT_BLOCK_SCHEMA[column] != "text":
            row[column] = _hex_or_none(row[column])


def _snake_case(key: str) -> str:
    return _CAMEL_BOUNDARY.sub("_", key.strip()).replace(" ", "_").lower()


def _field_value(value: str) -> int | str | None:
    if value == _GO_NIL or not value:
        return None
    return int(value) if _DECIMAL.fullmatch(value) else value


def _hex_or_none(value: str) -> int | None:
    # A dump may print a number as a 0x quantity; anything else is not a number.
    try:
        return quantity(value)
    except FrameError:
        return None


# --- bor_getRootHash -------------------------------------------------------------------------

ROOT_HASH_COLUMNS = ("from_block", "to_block", "blocks", "root_hash", "root_hash_0x")


def root_hashes(records: Iterable[Any]) -> pd.DataFrame:
    """``bor_getRootHash`` results for block ranges, one row per range.

    Each record is ``(from, to, root_hash)`` or a mapping with keys ``from_block``/``from``,
    ``to_block``/``to`` and ``root_hash``; the root hash is the result (64 hex characters with no
    ``0x``) or its envelope.

    Columns: from_block, to_block (Int64), blocks (Int64, to - from + 1), root_hash (string, as
    returned), root_hash_0x (string, with the 0x prefix).
    """
    rows = [_root_hash_row(record) for record in as_iterable(records, "(from, to, root_hash)")]
    schema = {
        "from_block": "int",
        "to_block": "int",
        "blocks": "int",
        "root_hash": "text",
        "root_hash_0x": "text",
    }
    return frame(columns_from_rows(rows, schema), ROOT_HASH_COLUMNS)


def _root_hash_row(record: Any) -> dict[str, Any]:
    if isinstance(record, Mapping):
        first = record.get("from_block", record.get("from"))
        last = record.get("to_block", record.get("to"))
        root = record.get("root_hash")
    else:
        first, last, root = _triple(record, "(from, to, root_hash)")
    first, last = int_value(first, "from_block"), int_value(last, "to_block")
    root = text_value(unwrap_envelope(root), "root_hash")
    return {
        "from_block": first,
        "to_block": last,
        "blocks": None if first is None or last is None else last - first + 1,
        "root_hash": root,
        "root_hash_0x": None if root is None else "0x" + root.removeprefix("0x"),
    }
