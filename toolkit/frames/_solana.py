"""Solana ``simulateTransaction`` results as frames.

Every function accepts the result as real nodes send it, ``{"context": {"slot", "apiVersion"},
"value": {...}}``, the bare value object the spec shows, or either inside a JSON-RPC envelope.
Lamports are exact ints (1 SOL = 10**9 lamports); token amounts arrive as decimal strings and become
exact ints too.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..catalog.encoding import b58decode
from ._convert import (
    LAMPORTS_PER_SOL,
    FrameError,
    as_iterable,
    as_list,
    as_mapping,
    as_records,
    big_int_column,
    columns_from_rows,
    decimals_scale,
    describe,
    describe_keys,
    exact_ints,
    float_column,
    frame,
    int_value,
    json_text,
    text_column,
    text_value,
    to_units,
    units_column,
    unwrap_envelope,
)
from ._runs import each, takes_runs

_VALUE_FIELDS = frozenset(
    {"err", "logs", "unitsConsumed", "accounts", "returnData", "innerInstructions", "fee"}
    | {"preBalances", "postBalances", "preTokenBalances", "postTokenBalances"}
    | {"loadedAddresses", "replacementBlockhash", "loadedAccountsDataSize"}
)


@dataclass(frozen=True)
class _Simulation:
    slot: int | None
    api_version: str | None
    value: Mapping[str, Any]


def _simulation(payload: Any) -> _Simulation:
    payload = unwrap_envelope(payload)
    if not isinstance(payload, Mapping):
        raise FrameError(f"expected a simulateTransaction result object, got {describe(payload)}")
    if "context" in payload or "value" in payload:
        context = as_mapping(payload.get("context"), "context")
        value = payload.get("value")
        if not isinstance(value, Mapping):
            raise FrameError(f"value: expected the simulation result object, got {describe(value)}")
        slot = int_value(context.get("slot"), "context.slot")
        return _Simulation(slot, text_value(context.get("apiVersion"), "context.apiVersion"), value)
    if payload and _VALUE_FIELDS.isdisjoint(payload):
        raise FrameError(f"expected a simulateTransaction result, got {describe_keys(payload)}")
    return _Simulation(None, None, payload)


def _account_keys(
    value: Mapping[str, Any], account_keys: Iterable[str] | None
) -> list[str | None] | None:
    """The keys that account indexes refer to: the transaction's keys, then the loaded ones.

    Solana numbers accounts across the static keys of the message followed by the addresses loaded
    from lookup tables (writable, then readonly), which the result reports in `loadedAddresses`.
    """
    if account_keys is None:
        return None
    keys = [text_value(k, "account_keys") for k in as_iterable(account_keys, "account keys")]
    loaded = as_mapping(value.get("loadedAddresses"), "loadedAddresses")
    for group in ("writable", "readonly"):
        keys += [
            text_value(k, f"loadedAddresses.{group}") for k in as_list(loaded.get(group), group)
        ]
    return keys


def _key_at(keys: list[str | None] | None, index: int | None) -> str | None:
    if keys is None or index is None or not 0 <= index < len(keys):
        return None
    return keys[index]


def _decode_data(data: Any, field: str) -> tuple[str | None, bytes | None]:
    """(encoding, bytes) of Solana's ``[text, encoding]`` pair or a legacy base58 string.

    ``base64+zstd`` data is returned still compressed: the encoding column says so.
    """
    if data is None:
        return None, None
    text: str | None
    encoding: str | None
    if isinstance(data, str):
        text, encoding = data, "base58"
    else:
        pair = as_list(data, field)
        if len(pair) != 2:
            raise FrameError(f"{field}: expected [data, encoding], got {describe(data)}")
        text, encoding = text_value(pair[0], field), text_value(pair[1], field)
    if not text:
        return encoding, None if text is None else b""
    try:
        if encoding in ("base64", "base64+zstd"):
            return encoding, base64.b64decode(text, validate=True)
        if encoding == "base58":
            return encoding, b58decode(text)
    except (binascii.Error, ValueError) as exc:
        raise FrameError(f"{field}: not valid {encoding}: {describe(text)}") from exc
    return encoding, None


# --- summary -----------------------------------------------------------------------------------

SUMMARY_COLUMNS = (
    "slot",
    "api_version",
    "success",
    "err",
    "units_consumed",
    "fee_lamports",
    "fee_sol",
    "replacement_blockhash",
    "last_valid_block_height",
    "log_count",
)


@takes_runs("simulation", combine=each)
def solana_simulation_summary(payload: Any) -> pd.DataFrame:
    """One row describing a simulation.

    Columns: slot (Int64, from the context; NA for a bare value), api_version (string), success
    (boolean: `err` is null; NA when `err` is absent), err (string: the error as JSON text, or the
    error string itself; NA on success), units_consumed (Int64), fee_lamports (exact int), fee_sol
    (float), replacement_blockhash (string), last_valid_block_height (Int64), log_count (Int64).
    """
    sim = _simulation(payload)
    value = sim.value
    err = value.get("err")
    replacement = as_mapping(value.get("replacementBlockhash"), "replacementBlockhash")
    fee = int_value(value.get("fee"), "fee")
    row = {
        "slot": sim.slot,
        "api_version": sim.api_version,
        "success": (err is None) if "err" in value else None,
        "err": json_text(err),
        "units_consumed": value.get("unitsConsumed"),
        "fee_lamports": fee,
        "replacement_blockhash": replacement.get("blockhash"),
        "last_valid_block_height": replacement.get("lastValidBlockHeight"),
        "log_count": len(as_list(value.get("logs"), "logs")),
    }
    schema = {
        "slot": "int",
        "api_version": "text",
        "success": "bool",
        "err": "text",
        "units_consumed": "int",
        "fee_lamports": "big_int",
        "replacement_blockhash": "text",
        "last_valid_block_height": "int",
        "log_count": "int",
    }
    columns = columns_from_rows([row], schema)
    columns["fee_sol"] = units_column([fee], LAMPORTS_PER_SOL)
    return frame(columns, SUMMARY_COLUMNS)


# --- logs ----------------------------------------------------------------------------------------

LOG_KINDS = ("invoke", "consumed", "success", "failed", "log", "data", "return", "other")
LOG_COLUMNS = (
    "index",
    "depth",
    "invocation",
    "program_id",
    "kind",
    "message",
    "units_consumed",
    "units_budget",
    "text",
)

# Digit counts are bounded so that int() never meets a number too long to convert.
_INVOKE = re.compile(r"Program (\S+) invoke \[(\d{1,9})\]")
_CONSUMED = re.compile(r"Program (\S+) consumed (\d{1,30}) of (\d{1,30}) compute units")
_SUCCESS = re.compile(r"Program (\S+) success")
_FAILED = re.compile(r"Program (\S+) failed: (.*)", re.DOTALL)
_RETURN = re.compile(r"Program return: (\S+) ?(.*)", re.DOTALL)
_MESSAGE_PREFIXES = {"Program log: ": "log", "Program data: ": "data"}


@takes_runs("simulation", combine=each)
def solana_simulation_logs(payload: Any) -> pd.DataFrame:
    """The simulation's log lines, parsed; also accepts a plain list of log lines.

    The program of each line is tracked with a call stack across lines, so a ``Program log:``
    line is attributed to the program that was running when it was written.

    Columns: index (Int64, line number), depth (Int64: the invoke depth, 1 for a top-level
    instruction's program; 0 outside any program), invocation (Int64: which invoke, counting
    from 0, the line belongs to), program_id (string), kind (category: invoke, consumed, success,
    failed, log, data, return, other), message (string: the text of a log, the base64 of data and
    return, the reason of a failure, the whole line for other), units_consumed, units_budget
    (Int64, on consumed lines), text (string, the raw line).
    """
    payload = unwrap_envelope(payload)
    lines = payload if isinstance(payload, list) else _simulation(payload).value.get("logs")
    texts = [text_value(line, "logs") for line in as_list(lines, "logs")]
    rows = _parse_logs(texts)
    schema = {
        "index": "int",
        "depth": "int",
        "invocation": "int",
        "program_id": "text",
        "message": "text",
        "units_consumed": "int",
        "units_budget": "int",
        "text": "text",
    }
    columns = columns_from_rows(rows, schema)
    columns["kind"] = pd.Categorical([row["kind"] for row in rows], categories=LOG_KINDS)
    return frame(columns, LOG_COLUMNS)


def _parse_logs(lines: list[str | None]) -> list[dict[str, Any]]:
    stack: list[tuple[str, int]] = []  # (program id, invocation number) of each running frame
    invocations = 0
    rows = []
    for index, line in enumerate(lines):
        text = line or ""
        row: dict[str, Any] = {"index": index, "text": line, "kind": "other", "message": line}
        if match := _INVOKE.fullmatch(text):
            depth = int(match[2])
            # Truncated or malformed logs can skip levels: trust the depth the line states.
            del stack[max(depth - 1, 0) :]
            stack.append((match[1], invocations))
            invocations += 1
            row.update(kind="invoke", message=None)
        elif kind := next((k for p, k in _MESSAGE_PREFIXES.items() if text.startswith(p)), None):
            row.update(kind=kind, message=text.split(": ", 1)[1])
        elif match := _RETURN.fullmatch(text):
            row.update(kind="return", program_id=match[1], message=match[2])
        elif match := _CONSUMED.fullmatch(text):
            row.update(kind="consumed", program_id=match[1], message=None)
            row.update(units_consumed=int(match[2]), units_budget=int(match[3]))
        elif match := _SUCCESS.fullmatch(text):
            row.update(kind="success", program_id=match[1], message=None)
        elif match := _FAILED.fullmatch(text):
            row.update(kind="failed", program_id=match[1], message=match[2])
        row["depth"] = len(stack)
        if stack:
            row.setdefault("program_id", stack[-1][0])
            row["invocation"] = stack[-1][1]
        if row["kind"] in ("success", "failed") and stack:
            stack.pop()
        rows.append(row)
    return rows


# --- balances ------------------------------------------------------------------------------------

BALANCE_COLUMNS = (
    "index",
    "account",
    "pre_lamports",
    "post_lamports",
    "delta_lamports",
    "pre_sol",
    "post_sol",
    "delta_sol",
)


@takes_runs("simulation", combine=each)
def solana_simulation_balances(
    payload: Any, account_keys: Iterable[str] | None = None
) -> pd.DataFrame:
    """SOL balances before and after the simulation, one row per account index.

    `account_keys` (the transaction's account keys, in message order) fills the `account` column;
    addresses from `loadedAddresses` are appended to them, as Solana numbers accounts that way.

    Columns: index (Int64), account (string, NA without keys), pre_lamports, post_lamports,
    delta_lamports (exact int; NA where a side is missing), pre_sol, post_sol, delta_sol (float).
    """
    value = _simulation(payload).value
    pre = exact_ints(as_list(value.get("preBalances"), "preBalances"), "preBalances")
    post = exact_ints(as_list(value.get("postBalances"), "postBalances"), "postBalances")
    count = max(len(pre), len(post))
    pre += [None] * (count - len(pre))
    post += [None] * (count - len(post))
    delta = [None if a is None or b is None else b - a for a, b in zip(pre, post, strict=True)]
    keys = _account_keys(value, account_keys)
    columns: dict[str, Any] = {
        "index": pd.array(range(count), dtype="Int64"),
        "account": text_column([_key_at(keys, i) for i in range(count)], "account_keys"),
    }
    for name, amounts in (("pre", pre), ("post", post), ("delta", delta)):
        columns[f"{name}_lamports"] = big_int_column(amounts, f"{name}_lamports")
        columns[f"{name}_sol"] = units_column(amounts, LAMPORTS_PER_SOL)
    return frame(columns, BALANCE_COLUMNS)


TOKEN_BALANCE_COLUMNS = (
    "account_index",
    "account",
    "mint",
    "owner",
    "program_id",
    "decimals",
    "pre_amount",
    "post_amount",
    "delta",
    "delta_ui",
)


@takes_runs("simulation", combine=each)
def solana_simulation_token_balances(
    payload: Any, account_keys: Iterable[str] | None = None
) -> pd.DataFrame:
    """Token balances before and after, one row per (account index, mint).

    Columns: account_index (Int64), account (string, from `account_keys` as in
    `solana_simulation_balances`), mint, owner, program_id (string), decimals (Int64), pre_amount,
    post_amount (exact int from `uiTokenAmount.amount`; NA when the account held no such token on
    that side), delta (exact int; a missing side counts as 0, as for a token account the
    transaction creates or closes), delta_ui (float, delta / 10**decimals).
    """
    value = _simulation(payload).value
    entries: dict[tuple[int | None, str | None], dict[str, Any]] = {}
    for side in ("pre", "post"):
        field = f"{side}TokenBalances"
        for entry in as_records(value.get(field), field):
            parsed = _token_entry(entry, field)
            key = (parsed["account_index"], parsed["mint"])
            row = entries.setdefault(key, {"pre_amount": None, "post_amount": None})
            amount = parsed.pop("amount")
            row.update({k: v for k, v in parsed.items() if v is not None})
            row[f"{side}_amount"] = amount
    rows = sorted(entries.values(), key=_token_row_order)
    keys = _account_keys(value, account_keys)
    for row in rows:
        row["account"] = _key_at(keys, row.get("account_index"))
        pre, post = row["pre_amount"], row["post_amount"]
        row["delta"] = None if pre is None and post is None else (post or 0) - (pre or 0)
    schema = {
        "account_index": "int",
        "account": "text",
        "mint": "text",
        "owner": "text",
        "program_id": "text",
        "decimals": "int",
        "pre_amount": "big_int",
        "post_amount": "big_int",
        "delta": "big_int",
    }
    columns = columns_from_rows(rows, schema)
    columns["delta_ui"] = float_column(
        to_units(row["delta"], decimals_scale(row.get("decimals"))) for row in rows
    )
    return frame(columns, TOKEN_BALANCE_COLUMNS)


def _token_entry(entry: Mapping[str, Any], field: str) -> dict[str, Any]:
    amount = as_mapping(entry.get("uiTokenAmount"), f"{field}.uiTokenAmount")
    return {
        "account_index": int_value(entry.get("accountIndex"), f"{field}.accountIndex"),
        "mint": text_value(entry.get("mint"), f"{field}.mint"),
        "owner": entry.get("owner"),
        "program_id": entry.get("programId"),
        "decimals": int_value(amount.get("decimals"), f"{field}.uiTokenAmount.decimals"),
        "amount": int_value(amount.get("amount"), f"{field}.uiTokenAmount.amount"),
    }


def _token_row_order(row: dict[str, Any]) -> tuple:
    index, mint = row.get("account_index"), row.get("mint")
    return (index is None, index or 0, mint or "")


# --- accounts ----------------------------------------------------------------------------------

ACCOUNT_COLUMNS = (
    "index",
    "address",
    "found",
    "lamports",
    "sol",
    "owner",
    "executable",
    "rent_epoch",
    "space",
    "data_encoding",
    "data",
    "data_len",
    "data_program",
    "data_parsed",
)


@takes_runs("simulation", combine=each)
def solana_simulation_accounts(
    payload: Any, addresses: Iterable[str] | None = None
) -> pd.DataFrame:
    """The post-simulation accounts requested with ``config.accounts``, one row per request.

    `addresses` (the requested addresses, in request order) fills the `address` column.

    Columns: index (Int64), address (string), found (boolean: false where the node returned
    null), lamports (exact int), sol (float), owner (string), executable (boolean), rent_epoch
    (exact int: often 2**64 - 1), space (Int64), data_encoding (string: base64, base64+zstd,
    base58 or jsonParsed), data (bytes, decoded from base64/base58; base64+zstd stays compressed),
    data_len (Int64, bytes), data_program (string) and data_parsed (object) for jsonParsed data.
    """
    value = _simulation(payload).value
    keys = None
    if addresses is not None:
        keys = [text_value(a, "addresses") for a in as_iterable(addresses, "addresses")]
    rows = []
    for index, entry in enumerate(as_list(value.get("accounts"), "accounts")):
        account = as_mapping(entry, "accounts[]")
        data = account.get("data")
        row = {
            "index": index,
            "address": _key_at(keys, index),
            "found": entry is not None,
            "lamports": int_value(account.get("lamports"), "accounts[].lamports"),
            "owner": account.get("owner"),
            "executable": account.get("executable"),
            "rent_epoch": account.get("rentEpoch"),
            "space": account.get("space"),
        }
        if isinstance(data, Mapping):
            row.update(data_encoding="jsonParsed", data_parsed=data.get("parsed"))
            row.update(data_program=data.get("program"), data_len=data.get("space"))
        else:
            encoding, raw = _decode_data(data, "accounts[].data")
            row.update(data_encoding=encoding, data=raw, data_len=None if raw is None else len(raw))
        rows.append(row)
    schema = {
        "index": "int",
        "address": "text",
        "found": "bool",
        "lamports": "big_int",
        "owner": "text",
        "executable": "bool",
        "rent_epoch": "big_int",
        "space": "int",
        "data_encoding": "text",
        "data": "object",
        "data_len": "int",
        "data_program": "text",
        "data_parsed": "object",
    }
    columns = columns_from_rows(rows, schema)
    columns["sol"] = units_column([row["lamports"] for row in rows], LAMPORTS_PER_SOL)
    return frame(columns, ACCOUNT_COLUMNS)


# --- inner instructions -----------------------------------------------------------------------

INNER_INSTRUCTION_COLUMNS = (
    "instruction_index",
    "inner_index",
    "program_id_index",
    "program_id",
    "program",
    "stack_height",
    "accounts",
    "data",
    "parsed_type",
    "parsed",
)


@takes_runs("simulation", combine=each)
def solana_simulation_inner_instructions(
    payload: Any, account_keys: Iterable[str] | None = None
) -> pd.DataFrame:
    """Inner instructions (CPI calls), one row per inner instruction.

    Handles both encodings: compiled (``programIdIndex``, account indexes, base58 ``data``) and
    jsonParsed (``programId``, ``program``, ``parsed``). With `account_keys` (as in
    `solana_simulation_balances`) the program id of compiled instructions is filled in.

    Columns: instruction_index (Int64, the top-level instruction), inner_index (Int64, position
    within it), program_id_index (Int64), program_id, program (string), stack_height (Int64),
    accounts (object: the list as given, indexes or addresses), data (string, base58),
    parsed_type (string, ``parsed.type``), parsed (object).
    """
    value = _simulation(payload).value
    keys = _account_keys(value, account_keys)
    rows = []
    for group in as_records(value.get("innerInstructions"), "innerInstructions"):
        outer = int_value(group.get("index"), "innerInstructions[].index")
        instructions = as_records(group.get("instructions"), "innerInstructions[].instructions")
        for position, instruction in enumerate(instructions):
            program_index = int_value(instruction.get("programIdIndex"), "programIdIndex")
            parsed = instruction.get("parsed")
            parsed_type = parsed.get("type") if isinstance(parsed, Mapping) else None
            program_id = instruction.get("programId")
            if program_id is None:
                program_id = _key_at(keys, program_index)
            rows.append(
                {
                    "instruction_index": outer,
                    "inner_index": position,
                    "program_id_index": program_index,
                    "program_id": program_id,
                    "program": instruction.get("program"),
                    "stack_height": instruction.get("stackHeight"),
                    "accounts": as_list(instruction.get("accounts"), "accounts") or None,
                    "data": instruction.get("data"),
                    "parsed_type": parsed_type,
                    "parsed": parsed,
                }
            )
    schema = {
        "instruction_index": "int",
        "inner_index": "int",
        "program_id_index": "int",
        "program_id": "text",
        "program": "text",
        "stack_height": "int",
        "accounts": "object",
        "data": "text",
        "parsed_type": "text",
        "parsed": "object",
    }
    return frame(columns_from_rows(rows, schema), INNER_INSTRUCTION_COLUMNS)


# --- return data -------------------------------------------------------------------------------

RETURN_DATA_COLUMNS = ("program_id", "data_base64", "data", "data_hex", "data_utf8", "data_len")


@takes_runs("simulation", combine=each)
def solana_simulation_return_data(payload: Any) -> pd.DataFrame:
    """The simulation's return data: one row, or none when `returnData` is null.

    Also accepts the bare ``{"programId", "data"}`` object.

    Columns: program_id (string), data_base64 (string, as received), data (bytes), data_hex
    (string, no prefix), data_utf8 (string; NA when the bytes are not UTF-8), data_len (Int64).
    """
    payload = unwrap_envelope(payload)
    if isinstance(payload, Mapping) and "programId" in payload:
        returned = payload
    else:
        returned = as_mapping(_simulation(payload).value.get("returnData"), "returnData")
    rows = []
    if returned:
        encoded = as_list(returned.get("data"), "returnData.data")
        _, data = _decode_data(encoded or None, "returnData.data")
        rows.append(
            {
                "program_id": returned.get("programId"),
                "data_base64": encoded[0] if encoded else None,
                "data": data,
                "data_hex": None if data is None else data.hex(),
                "data_utf8": _utf8_or_none(data),
                "data_len": None if data is None else len(data),
            }
        )
    schema = {
        "program_id": "text",
        "data_base64": "text",
        "data": "object",
        "data_hex": "text",
        "data_utf8": "text",
        "data_len": "int",
    }
    return frame(columns_from_rows(rows, schema), RETURN_DATA_COLUMNS)


def _utf8_or_none(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None
