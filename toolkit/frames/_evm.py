"""EVM results as frames: balances across blocks, ``debug_printBlock`` dumps, Bor root hashes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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
from ._runs import flattened, records, takes_runs


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


@takes_runs("eth_getBalance", combine=records("address", "block"))
def evm_balances(records: Iterable[Any]) -> pd.DataFrame:
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

# Klaytn and older geth nodes print it through spew, so it may follow "(*types.Block)(0x...)(".
_BLOCK_LINE = re.compile(
    r"(?:\(\*types\.Block\)\(0x[0-9a-fA-F]+\)\()?Block\(#(\d+)\)(?::\s*Size:\s*(.*?))?\s*\{?\s*"
)
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


@takes_runs("debug_printBlock")
def evm_printed_blocks(text: str | Iterable[str]) -> pd.DataFrame:
    """Header fields of ``debug_printBlock`` dumps, one row per dump; the raw text is kept.

    Reads what geth-based nodes (Arbitrum Nitro among them) really answer: Go's ``spew.Sdump`` of
    the ``*types.Block`` (``(*types.Block)(0x...)({``, ``header: (*types.Header)(0x...)({``,
    ``ParentHash: (common.Hash) (len=32 cap=32) 0x...``, ``Number: (*big.Int)(0x...)(N)``,
    ``GasLimit: (uint64) N``, hex dumps for byte fields, ``transactions: (types.Transactions)``).
    Field names are matched whatever their case (geth prints ``ParentHash``, its fork go-quai
    ``parentHash``); where a fork prints a list (go-quai's per-region ``number``), the last entry
    (the block's own level) is taken. Older nodes print ``Block.String()`` instead (``Block(#N):
    Size: ... {``, ``Header(<hash>):``, ``Key: value`` lines, ``Transactions:`` with one ``TX(...)``
    per transaction, ``Uncles:``), with or without spew's ``(*types.Block)(0x...)(`` in front:
    that is read too. In both, every other header field becomes a column named in snake_case
    (``TxHash`` -> ``tx_hash``), decimal values as exact ints and anything else as text (byte
    fields as 0x hex). Whatever a dump lacks, or holds in a form that is not the column's
    (a pointer address where a hash would be, ``<nil>``), is NA, never a fragment of the dump.

    Accepts one dump, its JSON-RPC envelope, or an iterable of dumps.

    Columns: number (Int64), hash (string; NA when the dump holds only a pointer to it, as geth
    1.13 and later do), parent_hash, miner (string: Coinbase or Miner), timestamp (UTC, from Time in
    seconds), gas_limit, gas_used (Int64), base_fee (exact int, wei), tx_count, uncle_count (Int64;
    NA when the dump has no such section), size (string, e.g. "1.23 KiB"), then every other parsed
    field (string, or object when it holds numbers), then raw (string, the whole dump).
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
    if raw is not None and _SPEW_BLOCK.match(raw):
        return _parse_spew_dump(raw)
    return _parse_compact_dump(raw)


def _parse_compact_dump(raw: str | None) -> dict[str, Any]:
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
    """Fill the documented columns from the parsed fields, whatever the dump called them, and
    keep only values of the column's shape (a dump's fragment is not a hash or a number)."""
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
        shape = _TEXT_SHAPES.get(column)
        if shape is not None and not (
            isinstance(row[column], str) and shape.fullmatch(row[column])
        ):
            row[column] = None


# --- spew.Sdump -------------------------------------------------------------------------------

# Go's spew prints every value as "(type) value": the type in balanced parentheses, then for
# pointers "(0xaddress)" and the pointee in parentheses, for arrays, slices and strings a
# "(len=N cap=M)" prefix, for structs, slices and maps an indented block closed by "}".
_SPEW_BLOCK = re.compile(r"\s*\(\*types\.Block\)\(0x[0-9a-fA-F]+\)\(\{\s*\n")
_SPEW_FIELD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*): (.*)")
_SPEW_LENGTHS = re.compile(r"\((?:len=\d+)?\s*(?:cap=\d+)?\)\s*")
# A row of spew's hex dump of a byte array: offset, up to 16 bytes, then |ascii|.
_SPEW_HEXDUMP = re.compile(r"[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2})+)\s*\|.*\|")
_GO_ADDRESS = re.compile(r"0x[0-9a-fA-F]+|<nil>")
_HASH = re.compile(r"(?:0x)?[0-9a-fA-F]{64}")
_TEXT_SHAPES = {"hash": _HASH, "parent_hash": _HASH, "miner": re.compile(r"(?:0x)?[0-9a-fA-F]{40}")}


@dataclass
class _GoValue:
    """One value of a spew dump: its field name (None for elements of a list), Go type, the text
    printed after the type (None when the value is a block of children), and the children."""

    name: str | None
    type: str
    text: str | None = None
    children: list[_GoValue] = field(default_factory=list)

    def child(self, name: str) -> _GoValue | None:
        return next((c for c in self.children if c.name and _snake_case(c.name) == name), None)


def _parse_spew_dump(raw: str) -> dict[str, Any]:
    block = _spew_tree(raw)
    header = block.child("header") or _GoValue(None, "")
    fields: dict[str, Any] = {}
    row: dict[str, Any] = {"raw": raw, "fields": fields}
    for value in header.children:
        if value.name is None or value.name.startswith("_"):
            continue
        text = _spew_scalar(value, lists=_snake_case(value.name) in _LAST_OF_LIST)
        if text is not None:
            fields.setdefault(_snake_case(value.name), _field_value(text))
    # geth keeps the block hash and size in caches on the block; older versions print the hash,
    # newer ones only a pointer to it (not a hash, so NA).
    row["hash"] = _spew_scalar(header.child("hash") or block.child("hash") or _GoValue(None, ""))
    row["size"] = _spew_size(block.child("size"))
    row["tx_count"] = _spew_count(block.child("transactions"))
    row["uncle_count"] = _spew_count(block.child("uncles"))
    fields.pop("hash", None)
    _known_fields(row, fields)
    return row


# Header fields a geth fork may print as one value per level of its chain (go-quai's regions):
# the last one is the block's own.
_LAST_OF_LIST = frozenset({"number", "parent_hash"})


def _spew_tree(raw: str) -> _GoValue:
    """The dump as a tree of `_GoValue`; lines it cannot read become text leaves, never errors."""
    root = _GoValue(None, "dump")
    stack = [root]
    for line in raw.splitlines():
        item = line.strip().removesuffix(",")
        if not item:
            continue
        if item.startswith("}"):
            if len(stack) > 1:
                stack.pop()
            continue
        match = _SPEW_FIELD.fullmatch(item)
        name, rest = (match[1], match[2]) if match else (None, item)
        value, opens = _spew_value(name, rest)
        stack[-1].children.append(value)
        if opens:
            stack.append(value)
    return root.children[0] if root.children else root


def _spew_value(name: str | None, text: str) -> tuple[_GoValue, bool]:
    """One printed value, and whether it opens a block of children."""
    type_name, rest = _balanced(text)
    if type_name is None:
        return _GoValue(name, "", text), False
    if rest.startswith("("):  # a pointer: (0xaddress) then the pointee, or (<nil>)
        address, rest = _balanced(rest)
        if address is None or not _GO_ADDRESS.fullmatch(address):
            return _GoValue(name, type_name, text), False
        if address == "<nil>" or not rest:
            return _GoValue(name, type_name, "<nil>" if address == "<nil>" else address), False
        if rest == "({":
            return _GoValue(name, type_name), True
        pointee, _ = _balanced(rest)
        rest = pointee if pointee is not None else rest
    rest = _SPEW_LENGTHS.sub("", rest.strip(), count=1) if rest.strip().startswith("(") else rest
    rest = rest.strip()
    if rest == "{":
        return _GoValue(name, type_name), True
    return _GoValue(name, type_name, rest), False


def _balanced(text: str) -> tuple[str | None, str]:
    """The content of the parenthesised group `text` starts with, and what follows it."""
    if not text.startswith("("):
        return None, text
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return text[1:index], text[index + 1 :]
    return None, text


def _spew_scalar(value: _GoValue, *, lists: bool = False) -> str | None:
    """The value as one piece of text: a scalar as printed, a byte array's hex dump as 0x hex, an
    atomic cache by its content; lists only when `lists` (then their last element). None when
    the value is none of these (a struct, <nil>)."""
    if value.text is not None:
        return None if value.text in ("<nil>", "") else value.text
    if not value.children:
        return None
    rows = [_SPEW_HEXDUMP.fullmatch(c.text or "") for c in value.children if c.name is None]
    if all(rows) and len(rows) == len(value.children):
        return "0x" + "".join(row[1].replace(" ", "") for row in rows if row)
    content = value.child("v")  # sync/atomic.Value and atomic.Pointer keep their content in v
    if content is not None:
        return _spew_scalar(content)
    if lists and all(c.name is None for c in value.children):
        return _spew_scalar(value.children[-1])
    return None


def _spew_size(value: _GoValue | None) -> str | None:
    """The block's cached size: common.StorageSize prints itself ("1.23 KiB"); geth 1.13 and later
    keep a uint64 of bytes, 0 until computed."""
    text = _spew_scalar(value) if value is not None else None
    if text is None or not text[:1].isdigit():
        return None
    if _DECIMAL.fullmatch(text):
        return _storage_size(int(text)) if int(text) else None
    return text


def _storage_size(size: int) -> str:
    """go-ethereum's `common.StorageSize` text for a number of bytes."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size > scale:
            return f"{size / scale:.2f} {unit}"
    return f"{size:.2f} B"


def _spew_count(value: _GoValue | None) -> int | None:
    """How many elements a slice holds: spew prints a nil slice as <nil>, an empty one as {}."""
    if value is None:
        return None
    if value.text is not None:
        return 0 if value.text == "<nil>" else None
    return len(value.children)


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


@takes_runs("root-hash", combine=records("from", "to"))
def evm_root_hashes(records: Iterable[Any]) -> pd.DataFrame:
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


_ROOT_HASH = re.compile(r"(0x)?[0-9a-fA-F]{64}")


def _root_hash_row(record: Any) -> dict[str, Any]:
    if isinstance(record, Mapping):
        first = record.get("from_block", record.get("from"))
        last = record.get("to_block", record.get("to"))
        root = record.get("root_hash")
    else:
        first, last, root = _triple(record, "(from, to, root_hash)")
    first, last = int_value(first, "from_block"), int_value(last, "to_block")
    root = text_value(unwrap_envelope(root), "root_hash")
    if root is not None and not _ROOT_HASH.fullmatch(root):
        # A 2020-era node answered in base64: it is no hex root, and "0x" + it would look like one.
        raise FrameError(
            f"root_hash of blocks {first}-{last} must be 64 hex digits (0x optional), "
            f"got {describe(root)}"
        )
    return {
        "from_block": first,
        "to_block": last,
        "blocks": None if first is None or last is None else last - first + 1,
        "root_hash": root,
        "root_hash_0x": None if root is None else "0x" + root.removeprefix("0x"),
    }


# --- blocks and logs (eth_getBlockByNumber, eth_getLogs) -----------------------------------------

EVM_BLOCK_COLUMNS = (
    "number",
    "hash",
    "parent_hash",
    "time",
    "miner",
    "gas_used",
    "gas_limit",
    "base_fee_wei",
    "size",
    "tx_count",
    "withdrawal_count",
    "blob_gas_used",
    "excess_blob_gas",
    "parent_beacon_block_root",
    "requests_hash",
)
_EVM_BLOCK_SCHEMA = {
    "number": "int",
    "hash": "text",
    "parent_hash": "text",
    "time": "time_s",
    "miner": "text",
    "gas_used": "int",
    "gas_limit": "int",
    "base_fee_wei": "big_int",
    "size": "int",
    "tx_count": "int",
    "withdrawal_count": "int",
    "blob_gas_used": "big_int",
    "excess_blob_gas": "big_int",
    "parent_beacon_block_root": "text",
    "requests_hash": "text",
}
EVM_TRANSACTION_COLUMNS = (
    "block_number",
    "index",
    "hash",
    "from",
    "to",
    "value_wei",
    "value_eth",
    "gas",
    "gas_price_wei",
    "max_fee_per_gas_wei",
    "max_priority_fee_per_gas_wei",
    "max_fee_per_blob_gas_wei",
    "blob_versioned_hashes",
    "authorization_list",
    "nonce",
    "type",
    "input",
)
_EVM_TRANSACTION_SCHEMA = {
    "block_number": "int",
    "index": "int",
    "hash": "text",
    "from": "text",
    "to": "text",
    "value_wei": "big_int",
    "gas": "int",
    "gas_price_wei": "big_int",
    "max_fee_per_gas_wei": "big_int",
    "max_priority_fee_per_gas_wei": "big_int",
    "max_fee_per_blob_gas_wei": "big_int",
    "nonce": "int",
    "type": "int",
    "input": "text",
}
EVM_LOG_COLUMNS = (
    "block_number",
    "log_index",
    "transaction_hash",
    "address",
    "topic0",
    "topic1",
    "topic2",
    "topic3",
    "data",
    "removed",
)
_EVM_LOG_SCHEMA = {
    "block_number": "int",
    "log_index": "int",
    "transaction_hash": "text",
    "address": "text",
    **{f"topic{i}": "text" for i in range(4)},
    "data": "text",
    "removed": "bool",
}


def _evm_block_list(payload: Any) -> list[Mapping[str, Any]]:
    payload = unwrap_envelope(payload)
    if payload is None:  # eth_getBlockByNumber above the head
        return []
    blocks = payload if isinstance(payload, list) else [payload]
    for block in blocks:
        if not isinstance(block, Mapping):
            raise FrameError(f"expected a block object, got {describe(block)}")
    return blocks


@takes_runs("evm-block")
def evm_blocks(payload: Any) -> pd.DataFrame:
    """Blocks as ``eth_getBlockByNumber`` answers them, one row per block.

    Accepts a block, a list of blocks, null (no rows: a block above the head) or an envelope.

    Columns: number (Int64), hash, parent_hash (string), time (UTC), miner (string), gas_used,
    gas_limit (Int64), base_fee_wei (exact int; NA before London), size, tx_count (Int64),
    withdrawal_count (Int64; NA before Shanghai, 0 for a block without withdrawals),
    blob_gas_used, excess_blob_gas (exact ints; NA before Cancun), parent_beacon_block_root (NA
    before Cancun), requests_hash (NA before Prague). `evm_block_withdrawals` lists withdrawals.
    """
    rows = []
    for block in _evm_block_list(payload):
        transactions, withdrawals = block.get("transactions"), block.get("withdrawals")
        rows.append(
            {
                "number": block.get("number"),
                "hash": block.get("hash"),
                "parent_hash": block.get("parentHash"),
                "time": int_value(block.get("timestamp"), "timestamp"),
                "miner": block.get("miner"),
                "gas_used": block.get("gasUsed"),
                "gas_limit": block.get("gasLimit"),
                "base_fee_wei": block.get("baseFeePerGas"),
                "size": block.get("size"),
                "tx_count": len(transactions) if isinstance(transactions, list) else None,
                "withdrawal_count": len(withdrawals) if isinstance(withdrawals, list) else None,
                "blob_gas_used": block.get("blobGasUsed"),
                "excess_blob_gas": block.get("excessBlobGas"),
                "parent_beacon_block_root": block.get("parentBeaconBlockRoot"),
                "requests_hash": block.get("requestsHash"),
            }
        )
    return frame(columns_from_rows(rows, _EVM_BLOCK_SCHEMA), EVM_BLOCK_COLUMNS)


EVM_WITHDRAWAL_COLUMNS = ("block_number", "index", "validator_index", "address", "amount_gwei")
_EVM_WITHDRAWAL_SCHEMA = {
    "block_number": "int",
    "index": "int",
    "validator_index": "int",
    "address": "text",
    "amount_gwei": "big_int",
}


@takes_runs("evm-block")
def evm_block_withdrawals(payload: Any) -> pd.DataFrame:
    """The validator withdrawals of blocks (same inputs as `evm_blocks`), one row per
    withdrawal: block_number, index, validator_index (Int64), address (string), amount_gwei
    (exact int: withdrawals are counted in gwei, not wei). Blocks before Shanghai have none."""
    rows = []
    for block in _evm_block_list(payload):
        for withdrawal in as_iterable(block.get("withdrawals") or [], "withdrawals"):
            if not isinstance(withdrawal, Mapping):
                raise FrameError(f"withdrawals: expected an object, got {describe(withdrawal)}")
            rows.append(
                {
                    "block_number": block.get("number"),
                    "index": withdrawal.get("index"),
                    "validator_index": withdrawal.get("validatorIndex"),
                    "address": withdrawal.get("address"),
                    "amount_gwei": withdrawal.get("amount"),
                }
            )
    return frame(columns_from_rows(rows, _EVM_WITHDRAWAL_SCHEMA), EVM_WITHDRAWAL_COLUMNS)


@takes_runs("evm-block")
def evm_block_transactions(payload: Any) -> pd.DataFrame:
    """The transactions of blocks (same inputs as `evm_blocks`), one row per transaction.

    A block fetched with ``full=False`` lists only hashes: those rows have the hash and NA
    elsewhere. Columns: block_number, index (Int64), hash, from, to (string; NA for a contract
    creation), value_wei (exact int), value_eth (float), gas (Int64), gas_price_wei (exact int: the
    price paid, which nodes also give for EIP-1559 transactions), max_fee_per_gas_wei,
    max_priority_fee_per_gas_wei (exact ints; NA for legacy and access-list transactions, which
    carry no such caps), max_fee_per_blob_gas_wei (exact int; blob transactions only),
    blob_versioned_hashes (the list of hashes of a blob transaction), authorization_list (the
    list of an EIP-7702 set-code transaction, as the node gave it), nonce, type (Int64: 0 legacy,
    1 access list, 2 EIP-1559, 3 blob, 4 set code), input.
    """
    rows = []
    for block in _evm_block_list(payload):
        number = block.get("number")
        for index, tx in enumerate(as_iterable(block.get("transactions") or [], "transactions")):
            if isinstance(tx, str):
                rows.append({"block_number": number, "index": index, "hash": tx})
                continue
            if not isinstance(tx, Mapping):
                raise FrameError(f"transactions: expected a hash or an object, got {describe(tx)}")
            rows.append(
                {
                    "block_number": tx.get("blockNumber", number),
                    "index": tx.get("transactionIndex", index),
                    "hash": tx.get("hash"),
                    "from": tx.get("from"),
                    "to": tx.get("to"),
                    "value_wei": tx.get("value"),
                    "gas": tx.get("gas"),
                    "gas_price_wei": tx.get("gasPrice"),
                    "max_fee_per_gas_wei": tx.get("maxFeePerGas"),
                    "max_priority_fee_per_gas_wei": tx.get("maxPriorityFeePerGas"),
                    "max_fee_per_blob_gas_wei": tx.get("maxFeePerBlobGas"),
                    "blob_versioned_hashes": tx.get("blobVersionedHashes"),
                    "authorization_list": tx.get("authorizationList"),
                    "nonce": tx.get("nonce"),
                    "type": tx.get("type"),
                    "input": tx.get("input"),
                }
            )
    columns = columns_from_rows(rows, _EVM_TRANSACTION_SCHEMA)
    columns["value_eth"] = units_column([row.get("value_wei") for row in rows], WEI_PER_ETH)
    for name in ("blob_versioned_hashes", "authorization_list"):  # lists: kept whole, NA if absent
        columns[name] = object_column([row.get(name) for row in rows])
    return frame(columns, EVM_TRANSACTION_COLUMNS)


@takes_runs("log-list", combine=flattened)
def evm_logs(payload: Any) -> pd.DataFrame:
    """Event logs as ``eth_getLogs`` answers them, one row per log.

    Columns: block_number, log_index (Int64), transaction_hash, address (string), topic0 to
    topic3 (string, NA where a log has fewer topics), data (string), removed (boolean).
    """
    rows = []
    for log in as_iterable(unwrap_envelope(payload) or [], "logs"):
        if not isinstance(log, Mapping):
            raise FrameError(f"logs: expected a log object, got {describe(log)}")
        topics = log.get("topics") or []
        if not isinstance(topics, list):
            raise FrameError(f"topics: expected an array, got {describe(topics)}")
        row = {
            "block_number": log.get("blockNumber"),
            "log_index": log.get("logIndex"),
            "transaction_hash": log.get("transactionHash"),
            "address": log.get("address"),
            "data": log.get("data"),
            "removed": log.get("removed"),
        }
        row.update({f"topic{i}": topic for i, topic in enumerate(topics[:4])})
        rows.append(row)
    return frame(columns_from_rows(rows, _EVM_LOG_SCHEMA), EVM_LOG_COLUMNS)
