"""Contract reads and events as frames, decoded by their signatures (`toolkit.catalog.abi`).

    frames.evm_reads(work.run(), "balanceOf(address)(uint256)")    # one row per eth_call
    frames.evm_events(work.run(), event="Transfer")                 # one row per log

Every ABI value gets a typed column: exact ints (``Int64`` up to 64 bits, Python ints in an object
column beyond), checksummed addresses and text as ``string``, bools as ``boolean``, bytes as 0x
hex text, arrays as tuples in an object column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ..catalog import abi
from ..catalog.encoding import check_evm_address, to_checksum_address
from ._convert import (
    FrameError,
    as_iterable,
    columns_from_rows,
    describe,
    frame,
    int_value,
    unwrap_envelope,
)
from ._runs import Answer, flattened, takes_runs

EVM_EVENTS = abi.EVENTS


def event_of(event: Any) -> abi.Event:
    """An event by its name in `EVM_EVENTS`, its signature or its ABI JSON fragment."""
    if isinstance(event, abi.Event):
        return event
    if isinstance(event, str) and event in EVM_EVENTS:
        event = EVM_EVENTS[event]
    try:
        return abi.event(event)
    except ValueError as error:
        names = ", ".join(EVM_EVENTS)
        raise FrameError(f"event: {error} (or one of the names {names})") from None


def _kind(abi_type: abi.AbiType) -> str:
    """The column kind (`columns_from_rows`) of an ABI value."""
    if abi_type.dims:
        return "object"
    base = abi_type.base
    if base.startswith(("uint", "int")):
        return "int" if int(base.removeprefix("u")[3:]) < 64 else "big_int"
    if base == "bool":
        return "bool"
    return "text"


def _cell(value: Any) -> Any:
    """An ABI value as its column holds it: bytes as 0x hex text."""
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, tuple):
        return tuple(_cell(v) for v in value)
    return value


# --- events --------------------------------------------------------------------------------------

EVENT_COLUMNS = ("block_number", "log_index", "transaction_hash", "address", "event")


@takes_runs("log-list", combine=flattened)
def evm_events(payload: Any, event: Any = "Transfer", *, blocks: Any = None) -> pd.DataFrame:
    """Event logs decoded by the event's signature, one row per log of that event, in order.

    `payload`: ``eth_getLogs`` answers (a list of logs, an envelope) or the frame of a run (a
    `Workload.logs` scan: every chunk's logs). `event`: a name of `EVM_EVENTS` ("Transfer",
    "Approval": ERC-20's; "ERC721Transfer", "ERC721Approval", "ApprovalForAll"), a signature
    with ``indexed`` marks (``"Transfer(address indexed from,address indexed to,uint256
    value)"``) or an ABI JSON fragment.

    Columns: block_number, log_index (Int64), transaction_hash, address (the contract,
    checksummed), event (its name), then one column per argument by its name. An indexed
    argument of a dynamic type (string, bytes, an array) is only its Keccak hash in the log:
    that hash, as text.

    Logs of other events (another topic0, or the same topic0 with another number of indexed
    arguments, as ERC-721's Transfer beside ERC-20's) are left out, and so are logs the node
    marked ``removed`` (a reorganisation took them back); ``frame.attrs["skipped"]`` counts
    them, and ``frame.attrs["undecodable"]`` the logs of this event whose data does not decode.

    `blocks`: the blocks' times, as a frame of `evm_blocks` (its number and time columns) or a
    mapping of block number to time; a ``time`` column (UTC) then follows block_number, NA for
    a block it does not hold.
    """
    parsed = event_of(event)
    topic0, topics_wanted = parsed.topic0, 1 + sum(p.indexed for p in parsed.inputs)
    names = parsed.argument_names
    rows = []
    skipped = undecodable = 0
    for log in as_iterable(unwrap_envelope(payload) or [], "logs"):
        if not isinstance(log, Mapping):
            raise FrameError(f"logs: expected a log object, got {describe(log)}")
        topics = log.get("topics") or []
        if not isinstance(topics, list):
            raise FrameError(f"topics: expected an array, got {describe(topics)}")
        if (
            len(topics) != topics_wanted
            or not isinstance(topics[0], str)
            or topics[0].lower() != topic0
            or log.get("removed") is True
        ):
            skipped += 1
            continue
        try:
            values = parsed.decode_log(topics, log.get("data") or "0x")
        except ValueError:
            undecodable += 1
            continue
        address = log.get("address")
        row = {
            "block_number": int_value(log.get("blockNumber"), "blockNumber"),
            "log_index": int_value(log.get("logIndex"), "logIndex"),
            "transaction_hash": log.get("transactionHash"),
            "address": _checksummed(address),
            "event": parsed.name,
        }
        row.update({name: _cell(values[name]) for name in names})
        rows.append(row)
    schema = {
        "block_number": "int",
        "log_index": "int",
        "transaction_hash": "text",
        "address": "text",
        "event": "text",
        **{
            name: _kind(p.type) if not _hashed(p) else "text"
            for name, p in zip(names, parsed.inputs, strict=True)
        },
    }
    result = frame(columns_from_rows(rows, schema), (*EVENT_COLUMNS, *names))
    if blocks is not None:
        result.insert(1, "time", _block_times(blocks, result["block_number"]))
    result.attrs.update(skipped=skipped, undecodable=undecodable, event=parsed.signature)
    return result


def _block_times(blocks: Any, numbers: pd.Series) -> pd.Series:
    if isinstance(blocks, pd.DataFrame):
        if not {"number", "time"} <= set(blocks.columns):
            raise FrameError("blocks: expected a frame of evm_blocks (number and time columns)")
        blocks = dict(zip(blocks["number"].tolist(), blocks["time"].tolist(), strict=True))
    if not isinstance(blocks, Mapping):
        raise FrameError(
            f"blocks: expected an evm_blocks frame or a mapping, got {describe(blocks)}"
        )
    # The unit evm_blocks gives its times (whole seconds, as microseconds).
    times = pd.to_datetime(numbers.map(blocks.get).astype(object), utc=True)
    return times.astype("datetime64[us, UTC]").reset_index(drop=True)


def _hashed(param: abi.AbiParam) -> bool:
    return param.indexed and (param.type.is_dynamic or bool(param.type.dims))


def _checksummed(address: Any) -> Any:
    if isinstance(address, str) and len(address) == 42:
        try:
            return to_checksum_address(check_evm_address(address.lower()))
        except ValueError:
            return address
    return address


# --- contract reads ------------------------------------------------------------------------------


def _reads_of(answers: list[Answer]) -> tuple[Any, dict[str, Any]]:
    """Every eth_call of a run, failed ones included: (to, block, data, result, error)."""
    records = []
    for answer in answers:
        call = answer.arguments.get("call")
        call = call if isinstance(call, Mapping) else {}
        records.append(
            (
                call.get("to"),
                answer.arguments.get("block"),
                call.get("data"),
                answer.result,
                answer.error,
            )
        )
    return records, {}


@takes_runs("eth_call", combine=_reads_of)
def evm_reads(records: Iterable[Any], signature: Any) -> pd.DataFrame:
    """Contract reads decoded by the function's signature, one row per call of that function.

    `records`: the frame of a run (`Workload.reads` plans it), or ``(address, block, call data,
    result)`` records (a fifth item: the error's name of a failed call). `signature`:
    ``"balanceOf(address)(uint256)"`` or an ABI JSON fragment, as for ``eth.read``.

    Columns: address (the contract, checksummed), block (Int64; NA for a tag such as
    "latest"), one column per input (by its name, else arg0, arg1...) read back from the call
    data, one per output (by its name, else ``value``, or value0, value1...), and error (the
    failure's name; NA where the call was answered). Outputs are NA where the call failed or
    answered data that does not decode (error ``undecodable``). Calls of other functions (another
    selector) are left out.
    """
    try:
        function = abi.function(signature)
    except ValueError as error:
        raise FrameError(f"signature: {error}") from None
    selector = "0x" + function.selector.hex()
    input_names = _column_names(function.inputs, "arg")
    output_names = function.output_names
    rows = []
    for record in as_iterable(records, "(address, block, data, result)"):
        address, block, data, result, failure = _read_record(record)
        if not isinstance(data, str) or data[:10].lower() != selector:
            continue
        row: dict[str, Any] = {
            "address": _checksummed(address),
            "block": _block_number(block),
            "error": failure,
        }
        try:
            arguments = abi.decode([p.type for p in function.inputs], bytes.fromhex(data[10:]))
        except ValueError:
            arguments = (None,) * len(function.inputs)
        row.update({name: _cell(v) for name, v in zip(input_names, arguments, strict=True)})
        if failure is None and result is not None:
            try:
                output = function.decode_output(result)
                values = output if len(function.outputs) > 1 else (output,)
                row.update({name: _cell(v) for name, v in zip(output_names, values, strict=True)})
            except ValueError:
                row["error"] = "undecodable"
        rows.append(row)
    schema = {
        "address": "text",
        "block": "int",
        **{n: _kind(p.type) for n, p in zip(input_names, function.inputs, strict=True)},
        **{n: _kind(p.type) for n, p in zip(output_names, function.outputs, strict=True)},
        "error": "text",
    }
    return frame(columns_from_rows(rows, schema), tuple(schema))


def _column_names(params: Sequence[abi.AbiParam], stem: str) -> tuple[str, ...]:
    return tuple(p.name or f"{stem}{i}" for i, p in enumerate(params))


def _read_record(record: Any) -> tuple[Any, Any, Any, Any, Any]:
    if (
        isinstance(record, str | bytes)
        or not isinstance(record, Sequence)
        or len(record) not in (4, 5)
    ):
        raise FrameError(
            f"expected records shaped (address, block, data, result), got {describe(record)}"
        )
    address, block, data, result, *rest = record
    return address, block, data, result, rest[0] if rest else None


def _block_number(block: Any) -> int | None:
    if isinstance(block, int) and not isinstance(block, bool):
        return block
    if isinstance(block, str) and block[:2] == "0x" and len(block) < 66:
        return int(block, 16)
    if isinstance(block, Mapping):
        return _block_number(block.get("blockNumber"))
    return None
