"""Building blocks shared by every frame function.

The rules they enforce are the toolkit's data conventions:

- exact integers: big values stay Python ints in object columns, never floats;
- missing keys and JSON nulls become NA, never KeyError;
- times are timezone-aware UTC timestamps;
- a value of the wrong JSON type raises `FrameError` naming the field, never a bare
  KeyError/TypeError/AttributeError.

Frames are built column by column: gather one field's raw values across all records (a list, or
`field_table` for many fields of many records at once), hand them to a column builder, and make
the DataFrame once at the end. No pandas work happens per row, which is what makes the frames fast
on 100,000-record responses.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Integral
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype

from .._errors import GatewayError
from ..catalog.encoding import parse_quantity

# A column's values: a list, or a 1-d numpy array of objects (a column of a table already read).
Values = Sequence[Any] | np.ndarray

try:  # private to pandas (its C code for DataFrame(list_of_dicts)); the public way is the fallback
    from pandas._libs.lib import dicts_to_array as _dicts_to_array  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a pandas without it
    _dicts_to_array = None

WEI_PER_ETH = 10**18
SUN_PER_TRX = 10**6
LAMPORTS_PER_SOL = 10**9

_DECIMAL = re.compile(r"-?[0-9]+")
_HEX_TEXT = re.compile(r"(?:[0-9a-fA-F]{2})*")
_EMPTY: Mapping[str, Any] = {}

# pandas cannot hold timestamps outside about 1677..2262 at every resolution; values outside that
# window are junk in practice (a TRON asset's end_time of 10**17 ms, say) and become NaT.
_MIN_MS = pd.Timestamp.min.value // 10**6 + 1
_MAX_MS = pd.Timestamp.max.value // 10**6 - 1
_MS_PER_UNIT = {"ms": 1, "s": 1000}
_NAT = np.iinfo(np.int64).min  # NaT as a datetime64 integer
# Every integer up to 2**53 is exact as a float, and so is every power of ten up to 10**22.
_EXACT_FLOAT_INT = 2**53
_EXACT_FLOAT_SCALE = 10**22


class FrameError(GatewayError, ValueError):
    """A payload does not have the shape a frame function expects.

    The message says which shape was expected and which field (if any) held an unusable value.
    """


def describe(value: Any) -> str:
    """A short description of a JSON value for error messages (never the whole value)."""
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


def describe_keys(mapping: Mapping[Any, Any]) -> str:
    """The first few keys of an object, for "expected ... got an object with keys ..." messages."""
    keys = sorted(str(key) for key in mapping)
    return f"an object with keys {keys[:8]}{' ...' if len(keys) > 8 else ''}"


# --- payload shapes ------------------------------------------------------------------------------


def unwrap_envelope(payload: Any) -> Any:
    """The `result` of a JSON-RPC response envelope; any other payload is returned unchanged.

    Responses saved to disk often keep the ``{"jsonrpc", "id", "result"}`` envelope, while the
    clients return the bare result: both are accepted everywhere. An error answer raises with its
    whole reason, whether or not it carries ``"jsonrpc"`` (proxies and gateways often leave it
    out); toncenter's ``{"ok": false, ...}`` is left to the TON frame, which reads its code.
    """
    if not isinstance(payload, Mapping):
        return payload
    if payload.get("error") is not None and "ok" not in payload:
        raise FrameError(f"the payload is an error answer: {_error_reason(payload['error'])}")
    if "jsonrpc" in payload and "result" in payload:
        return payload["result"]
    return payload


def _error_reason(error: Any) -> str:
    """An error object's code and message in full (the reason is what the reader needs)."""
    if isinstance(error, Mapping):
        message = error.get("message")
        reason = str(message) if message is not None else describe(dict(error))
        code = error.get("code")
        return reason if code is None else f"{reason} (code {code})"
    return str(error)


def is_missing(value: Any) -> bool:
    """JSON null, or the NaN that stands for a missing key in `field_table` columns."""
    return value is None or (type(value) is float and math.isnan(value))


def as_mapping(value: Any, field: str) -> Mapping[str, Any]:
    """`value` as a JSON object; null or missing is an empty one."""
    if is_missing(value):
        return _EMPTY
    if isinstance(value, Mapping):
        return value
    raise FrameError(f"{field}: expected a JSON object, got {describe(value)}")


def as_records(value: Any, field: str) -> list[Mapping[str, Any]]:
    """`value` as a list of JSON objects; null or missing is an empty list."""
    if is_missing(value):
        return []
    if not isinstance(value, list):
        raise FrameError(f"{field}: expected an array of JSON objects, got {describe(value)}")
    # Checking the set of types runs in C: the common case costs almost nothing.
    if not set(map(type, value)) <= {dict} and not all(isinstance(v, Mapping) for v in value):
        bad = next(item for item in value if not isinstance(item, Mapping))
        raise FrameError(f"{field}: expected an array of JSON objects, found {describe(bad)}")
    return value


def as_list(value: Any, field: str) -> list[Any]:
    """`value` as a JSON array; null or missing is an empty list."""
    if is_missing(value):
        return []
    if isinstance(value, list):
        return value
    raise FrameError(f"{field}: expected a JSON array, got {describe(value)}")


def as_iterable(records: Any, what: str) -> Iterable[Any]:
    """An iterable of records given by the caller (not JSON text, not a single object)."""
    if isinstance(records, str | bytes | Mapping) or not isinstance(records, Iterable):
        raise FrameError(f"expected an iterable of {what}, got {describe(records)}")
    return records


# --- scalar coercion ---------------------------------------------------------------------------


def int_value(value: Any, field: str) -> int | None:
    """An exact int from a JSON number or a decimal / ``0x`` hex string; None stays None.

    Big numbers often travel as strings (Solana token amounts, TON supplies, EVM quantities).
    Integral floats are accepted (a JSON encoder may write ``1e3``); anything else raises.
    """
    if value is None or type(value) is int:
        return value
    if isinstance(value, Integral) and not isinstance(value, bool):  # numpy ints too
        return int(value)
    if isinstance(value, str):
        if _DECIMAL.fullmatch(value):
            try:
                return int(value)
            except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
                pass
        elif value[:2] in ("0x", "0X"):
            try:
                return parse_quantity(value)
            except ValueError:
                pass
    elif isinstance(value, float) and value.is_integer():
        return int(value)
    raise FrameError(f"{field}: expected an integer, got {describe(value)}")


def text_value(value: Any, field: str) -> str | None:
    """Text from a JSON string; an integer is written in decimal; None stays None."""
    if value is None or type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise FrameError(f"{field}: expected text, got {describe(value)}")


def bool_value(value: Any, field: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise FrameError(f"{field}: expected true or false, got {describe(value)}")


def decode_hex_text(raw: str | None) -> str | None:
    """UTF-8 text from its hex form; None when `raw` is not hex.

    Bytes that are not valid UTF-8 become U+FFFD so the readable column never raises; the caller
    keeps the raw hex beside it for the exact bytes.
    """
    if raw is None:
        return None
    try:
        data = bytes.fromhex(raw.removeprefix("0x"))
    except ValueError:
        return None
    return data.decode("utf-8", errors="replace")


def looks_like_hex(text: str) -> bool:
    """Whether `text` is whole bytes of hex digits (the empty string counts)."""
    return bool(_HEX_TEXT.fullmatch(text))


def decimals_scale(decimals: int | None) -> int | None:
    """``10**decimals`` for a token's decimal places; None when unknown or absurd (not 0..255)."""
    if decimals is None or not 0 <= decimals <= 255:
        return None
    return 10**decimals


def to_units(amount: int | None, scale: int | None) -> float:
    """`amount / scale` as a float for human units (ETH, TRX, SOL); NaN when missing."""
    if amount is None or scale is None:
        return math.nan
    try:
        return amount / scale  # int / int is correctly rounded, unlike float(amount) / scale
    except OverflowError:  # beyond every float; the exact column beside this one keeps it
        return _infinity_like(amount)


def _infinity_like(value: int) -> float:
    # not math.copysign(math.inf, value): that converts `value` to a float, and overflows too
    return math.inf if value > 0 else -math.inf


def json_text(value: Any) -> str | None:
    """Text for a value that may be a string or any JSON structure (Solana `err`, say)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=repr)


# --- columns -------------------------------------------------------------------------------------
#
# Builders take one column's raw JSON values (a list, or a column of `field_table`) and
# check them a whole column at a time: `set(map(type, ...))` and numpy run in C, and values are
# only walked one by one in Python when something needs converting or reporting. JSON null, a
# missing key and NaN (which Python's json module accepts) all count as missing.


def field_table(records: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> np.ndarray:
    """The raw values of `fields` across `records`, in one C pass, as one C-contiguous object
    table: a row per record, a column per field. Missing keys come out as NaN, which the
    builders treat as missing.

    Fields next to each other in `fields` are next to each other in memory, so whole-table work
    on a slice of columns (`IntBlock`) walks each record's values together.
    """
    table = dict_table(records, fields)
    if table is not None:
        return table
    records = [r if type(r) is dict else dict(r) for r in records]
    if _dicts_to_array is not None:
        return _dicts_to_array(records, list(fields))
    return pd.DataFrame(records, columns=list(fields), dtype=object).to_numpy(dtype=object)


def dict_table(values: Values, fields: Sequence[str]) -> np.ndarray | None:
    """`field_table` of `values` if every one is an exact dict, else None (nothing converted)."""
    if _dicts_to_array is None:  # pragma: no cover - a pandas without it
        return None
    try:
        # The routine behind DataFrame(list_of_dicts), minus the copies and checks around it,
        # which cost more than the routine on the hot path of large responses. It
        # takes a list of exact dicts and raises TypeError on anything else, so the common case
        # costs no check of its own.
        return _dicts_to_array(_as_list(values), list(fields))
    except TypeError:
        return None


def _as_list(values: Values) -> list[Any]:
    if type(values) is list:
        return values
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def column_mappings(values: Values, field: str) -> list[Mapping[str, Any]]:
    """A column of nested JSON objects (like TRON's `receipt`), missing ones as empty objects."""
    if set(map(type, values)) == {dict}:
        return list(values)
    return [as_mapping(v, field) for v in values]


def text_column(values: Values, field: str) -> pd.api.extensions.ExtensionArray:
    """A ``string`` column (NA for missing)."""
    column = _objects(values)
    try:
        return pd.arrays.StringArray(column)  # accepts only str and missing values
    except ValueError:
        missing = pd.isna(column)
        texts = [None if m else text_value(v, field) for v, m in zip(column, missing, strict=True)]
        return pd.arrays.StringArray(_objects(texts))


def exact_ints(values: Values, field: str) -> list[int | None]:
    """A new list of `values` as exact ints, None where missing; FrameError on anything else."""
    column, missing, _ = _parse_ints(values, field)
    return [None if m else v for v, m in zip(column, missing, strict=True)]


def big_int_column(values: Values, field: str) -> np.ndarray:
    """Exact Python ints in an object column, NA for missing: wei, sun, lamports, supplies."""
    return _exact_objects(_parse_ints(values, field))


def int_column(values: Values, field: str) -> pd.api.extensions.ExtensionArray | np.ndarray:
    """A nullable ``Int64`` column, or exact ints in an object column if a value exceeds int64.

    Counts, block numbers and energy never exceed int64 on a real chain; keeping the exact value
    when a payload says otherwise beats raising or rounding.
    """
    return _int_array(values if isinstance(values, _Ints) else _parse_ints(values, field))


def _int_array(ints: _Ints) -> pd.api.extensions.ExtensionArray | np.ndarray:
    if ints.int64 is None:
        return _exact_objects(ints)
    return pd.arrays.IntegerArray(ints.int64, ints.missing)


class IntBlock:
    """The columns of an object `table` (rows by `fields`) parsed as exact ints, all at once.

    The type check and the conversion to floats are one C pass each over the whole table, row by
    row: each record's values sit together in memory, so they are visited together, where a
    pass per column would go through every record once per field (on large responses, memory
    traffic is what these passes cost). When some value is not a plain int below 2**53,
    each column is parsed on its own when it is asked for, as the one-column builders do: it
    decides for itself between ``Int64`` and exact ints, and a bad value raises when (and as)
    its column is built. Build columns with `int_column`, `amount_columns` and `utc_column` of
    ``block[field]``; `fields` name the columns in error messages.
    """

    def __init__(self, table: np.ndarray, fields: Sequence[str]) -> None:
        self._block = np.asarray(table, dtype=object)  # a slice of a field table: not copied
        if self._block.ndim != 2 or self._block.shape[1] != len(fields):
            shape = self._block.shape
            raise ValueError(f"expected a table of {len(fields)} columns, got {shape}")
        self._fields = list(fields)
        self._parsed = self._fast(self._block)

    def __getitem__(self, field: str) -> _Ints:
        i = self._fields.index(field)
        if self._parsed is not None:
            return self._parsed[i]
        return _parse_ints(self._block[:, i], field)

    @staticmethod
    def _fast(block: np.ndarray) -> list[_Ints] | None:
        # infer_dtype and astype walk a 2-d slice as it lies in memory, record by record.
        if not block.size or infer_dtype(block, skipna=True) not in ("integer", "empty"):
            return None
        floats = _floats_if_exact(block)
        if floats is None:
            return None
        # Column-major from here: each column's numbers contiguous, as IntegerArray keeps them.
        floats = np.asfortranarray(floats)
        missing = np.isnan(floats)
        numbers = np.where(missing, 0, floats).astype(np.int64, order="F")
        return [_Ints(block[:, i], missing[:, i], numbers[:, i]) for i in range(block.shape[1])]


def units_column(amounts: Sequence[Any], scale: int | None, field: str = "amount") -> np.ndarray:
    """Human units (float64, NaN for missing) of exact integer amounts: ETH, TRX, SOL, tokens."""
    return _units(_parse_ints(amounts, field), scale)


def amount_columns(
    amounts: Sequence[Any], scale: int | None, field: str
) -> tuple[np.ndarray, np.ndarray]:
    """`big_int_column` and `units_column` of the same amounts, parsed once."""
    ints = amounts if isinstance(amounts, _Ints) else _parse_ints(amounts, field)
    return _exact_objects(ints), _units(ints, scale)


def utc_column(values: Values, field: str, unit: str = "ms") -> pd.arrays.DatetimeArray:
    """UTC timestamps from epoch integers in `unit` ("ms" for TRON, "s" for EVM); NaT if missing.

    Values outside the range pandas can represent become NaT rather than raising.
    """
    factor = _MS_PER_UNIT[unit]
    low, high = _MIN_MS // factor, _MAX_MS // factor
    objects, missing, numbers = values if isinstance(values, _Ints) else _parse_ints(values, field)
    if numbers is None:  # some value beyond int64, so certainly out of range: drop those first
        flags = (not m and low <= v <= high for v, m in zip(objects, missing, strict=True))
        in_range = np.fromiter(flags, dtype=bool, count=len(objects))
        missing = ~in_range
        numbers = np.where(in_range, objects, 0).astype(np.int64)
    missing = missing | (numbers < low) | (numbers > high)
    # Microseconds (what pd.to_datetime(..., unit="ms") gives) with NaT where missing, made
    # directly: to_datetime's checks cost more than the conversion on a few thousand rows.
    micros = np.where(missing, _NAT, numbers * (factor * 1000))
    return pd.array(micros.view("M8[us]")).tz_localize("UTC")


class _Ints(NamedTuple):
    """A parsed column of exact ints."""

    objects: np.ndarray  # Python ints where present, anything where missing; do not modify
    missing: np.ndarray
    int64: np.ndarray | None  # the same values, or None when one does not fit in int64


def _parse_ints(values: Values, field: str) -> _Ints:
    column = (
        values.astype(object, copy=False) if isinstance(values, np.ndarray) else _objects(values)
    )
    # infer_dtype is one C pass; "integer" means every present value is an int (never a bool).
    all_ints = infer_dtype(column, skipna=True) in ("integer", "empty")
    if all_ints and (floats := _floats_if_exact(column)) is not None:
        # Every value is below 2**53, where floats hold ints exactly: the cheap way to int64.
        missing = np.isnan(floats)
        return _Ints(column, missing, np.where(missing, 0, floats).astype(np.int64))
    column = column.copy()
    missing = pd.isna(column)
    if not all_ints:
        present = (int_value(v, field) for v, m in zip(column, missing, strict=True) if not m)
        column[~missing] = np.fromiter(present, dtype=object, count=int((~missing).sum()))
    try:
        return _Ints(column, missing, np.where(missing, 0, column).astype(np.int64))
    except OverflowError:
        return _Ints(column, missing, None)


def _floats_if_exact(column: np.ndarray) -> np.ndarray | None:
    """`column` as float64 (NaN where missing) if every value is below 2**53 in magnitude."""
    try:
        floats = column.astype(np.float64)
    except (OverflowError, TypeError):  # past float64, or pd.NA (which float() refuses)
        return None
    # fmax skips NaN; `<` rather than `<=` because 2**53 + 1 rounds down to 2**53.
    largest = np.fmax.reduce(np.abs(floats), axis=None, initial=0.0)
    return floats if largest < _EXACT_FLOAT_INT else None


def _exact_objects(ints: _Ints) -> np.ndarray:
    column = ints.objects.copy()
    column[ints.missing] = pd.NA
    return column


def _units(ints: _Ints, scale: int | None) -> np.ndarray:
    numbers, missing = ints.int64, ints.missing
    exact = numbers is not None and np.abs(numbers).max(initial=0) < _EXACT_FLOAT_INT
    if numbers is not None and exact and scale is not None and scale <= _EXACT_FLOAT_SCALE:
        # Both operands are exact doubles, so IEEE division rounds the true quotient just as
        # `to_units` does: the same floats, without a Python call per value.
        units: np.ndarray = np.true_divide(numbers, scale)
        units[missing] = np.nan
        return units
    values = zip(ints.objects, missing, strict=True)
    return float_column(math.nan if m else to_units(v, scale) for v, m in values)


def bool_column(values: Values, field: str) -> pd.api.extensions.ExtensionArray:
    """A nullable ``boolean`` column."""
    column = _objects(values)
    missing = pd.isna(column)
    flags = [None if m else bool_value(v, field) for v, m in zip(column, missing, strict=True)]
    return pd.array(flags, dtype="boolean")


def float_column(values: Iterable[float]) -> np.ndarray:
    return np.fromiter(values, dtype=np.float64)


def number_column(values: Values, field: str) -> np.ndarray:
    """float64 of JSON numbers that are measurements, not amounts (a CPU rate, a latency); NaN
    for missing. Exact amounts never go here: they are `big_int_column`'s."""
    return float_column(math.nan if is_missing(v) else _number(v, field) for v in values)


def _number(value: Any, field: str) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an int beyond every float
            return _infinity_like(value)
    raise FrameError(f"{field}: expected a number, got {describe(value)}")


def object_column(values: Values) -> np.ndarray:
    """An object column (lists, dicts, bytes...), NA for missing."""
    column = _objects(values)
    column[pd.isna(column)] = pd.NA
    return column


def count_column(values: Values, field: str) -> pd.api.extensions.ExtensionArray:
    """``Int64`` lengths of JSON arrays; a missing array counts as 0 (TRON omits empty lists)."""
    # One pass for the usual case; whatever is not a list is looked at again, all together.
    counts = np.array([len(v) if type(v) is list else -1 for v in values], dtype=np.int64)
    others = np.flatnonzero(counts < 0)
    if len(others):
        rest = _objects(values)[others]
        present = ~pd.isna(rest)
        counts[others] = 0
        counts[others[present]] = [len(as_list(v, field)) for v in rest[present]]
    return pd.arrays.IntegerArray(counts, np.zeros(len(counts), dtype=bool))


def decoded_text_column(
    values: Values, field: str, decode: Callable[[str], str | None]
) -> pd.api.extensions.ExtensionArray:
    """A ``string`` column of `decode` applied to each present text value."""
    column = _objects(values)
    present = ~pd.isna(column)
    texts: Values = column[present]  # often a few: TRON's resMessage is there only for failed calls
    if not set(map(type, texts)) <= {str}:
        texts = [text_value(v, field) for v in texts]
    column[present] = np.fromiter(map(decode, texts), dtype=object, count=len(texts))
    return pd.arrays.StringArray(column)  # missing values (None, NaN) become NA


def _objects(values: Values) -> np.ndarray:
    """A new 1-d object array of `values` (lists and dicts stay single cells)."""
    if isinstance(values, np.ndarray):
        return values.astype(object)  # a copy: builders write into it
    return np.fromiter(values, dtype=object, count=len(values))


_BUILDERS = {
    "text": text_column,
    "int": int_column,
    "big_int": big_int_column,
    "bool": bool_column,
    "float": number_column,
    "time_ms": utc_column,
    "time_s": lambda values, field: utc_column(values, field, unit="s"),
    "object": lambda values, field: object_column(values),
}


def columns_from_rows(rows: Sequence[Mapping[str, Any]], schema: Mapping[str, str]) -> dict:
    """Typed columns from row dicts: `schema` maps column name to a kind of `_BUILDERS`."""
    return {
        name: _BUILDERS[kind]([row.get(name) for row in rows], name)
        for name, kind in schema.items()
    }


def frame(columns: Mapping[str, Any], order: Sequence[str] | None = None) -> pd.DataFrame:
    """One DataFrame from prepared columns (in `order` when given), with a fresh RangeIndex."""
    names = columns.keys() if order is None else order
    # Every column is freshly built, so pandas need not copy it.
    return pd.DataFrame({name: _values(columns[name]) for name in names}, copy=False)


def _values(column: Any) -> Any:
    if isinstance(column, pd.Index):  # a DatetimeIndex would lend the frame its own index
        return column.array
    if isinstance(column, np.ndarray) and column.dtype == object:
        # A bare object array of strings would be re-inferred as text; object means object.
        return pd.Series(column, dtype=object, copy=False)
    return column
