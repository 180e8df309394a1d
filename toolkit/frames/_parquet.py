"""Frames to Arrow and Parquet and back, exactly.

Parquet has no column type for Python ints past int64, and pandas writes object columns of them
either not at all (`OverflowError`) or as floats. Here every column is given an Arrow type that
any Parquet reader (pyarrow, DuckDB, polars, Spark) understands, and the pandas dtype it came from
is recorded in the file's schema metadata, so that `read_parquet` gives back the same frame
(`pandas.testing.assert_frame_equal` holds):

- object columns of Python ints (wei, sun, lamports, supplies): ``decimal128(38, 0)``, or
  ``decimal256(76, 0)`` when a value has more than 38 digits; read back as Python ints. Integers
  of more than 76 digits (uint256 values from about 2**252 up) exceed every Arrow decimal and are
  stored as their decimal text, read back as ints;
- object columns of text: ``string``; of bytes: ``binary``; of JSON values (lists, dicts, mixed
  results): their JSON text, read back with `json.loads`; with nothing in them: ``null``;
- every other dtype (``Int64``, ``boolean``, ``string``, floats, UTC times, categories,
  ``ArrowDtype``): its natural Arrow type, read back as the same dtype;
- `frame.attrs` (the provenance: a workload's summary, nodes by name, heads, RU), with the toolkit
  version and the time written under ``attrs["parquet"]``, go into the schema metadata as JSON
  (key ``toolkit``) and come back into `frame.attrs`. Registered secrets (node URLs, access and
  API keys) are scrubbed from every value and from the metadata, and URLs in `attrs` lose their
  path, so no key is ever written.

pyarrow is imported on first use, never by ``import toolkit``.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from datetime import UTC, date, datetime
from numbers import Integral
from os import PathLike
from typing import TYPE_CHECKING, Any, TypeGuard, cast

import numpy as np
import pandas as pd

from .._errors import GatewayError
from .._redact import REDACTED, is_url, redact_url, registered_secrets
from .._version import __version__

if TYPE_CHECKING:
    import pyarrow as pa

METADATA_KEY = b"toolkit"
FORMAT = 1
_DIGITS_128 = 38
_DIGITS_256 = 76
# The values that mean "missing" in an object column, by name.
_MISSING = {"NA": pd.NA, "None": None, "NaN": math.nan, "NaT": pd.NaT}


class ParquetError(GatewayError, ValueError):
    """A frame holds something Parquet cannot keep exactly, or a file is not one to read.

    A GatewayError like every error the toolkit raises on purpose, and a ValueError as before."""


# --- writing --------------------------------------------------------------------------------------


def to_arrow(frame: pd.DataFrame, *, wide_ints: str = "decimal256") -> pa.Table:
    """`frame` as a `pyarrow.Table` that `from_arrow` turns back into the same frame.

    Big-int object columns become decimals, provenance (`frame.attrs`) goes into the schema
    metadata, secrets are scrubbed (see the module's notes). Raises `ParquetError` for a column
    that cannot be kept exactly (tuples, sets or other Python objects in an object column).

    `wide_ints` says how a column of ints with more than 38 digits is stored: ``"decimal256"``
    (``decimal256(76, 0)``; pyarrow reads it exactly, but DuckDB reads it as DOUBLE, rounded, and
    polars refuses it) or ``"text"`` (decimal digits, exact everywhere). Ints past 76 digits are
    always text.
    """
    if wide_ints not in ("decimal256", "text"):
        raise ParquetError(f"wide_ints must be 'decimal256' or 'text', got {wide_ints!r}")
    import pyarrow as pa

    if not isinstance(frame, pd.DataFrame):
        raise ParquetError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    names = [_column_name(name) for name in frame.columns]
    if len(set(map(str, names))) != len(names):
        raise ParquetError("column names must be unique (as text) to be written to Parquet")
    scrubbed: list[str] = []
    names = _scrub_labels(names, "column labels", scrubbed)
    arrays, fields, columns = [], [], []
    index_meta: dict[str, Any]
    if _is_default_range(frame.index):
        index_meta = {"kind": "range", "start": frame.index.start, "step": frame.index.step}
        index_meta["name"] = _scrub_labels([frame.index.name], "index names", scrubbed)[0]
        levels = []
    else:
        levels = [frame.index.get_level_values(i) for i in range(frame.index.nlevels)]
        index_names = [_column_name(n) for n in frame.index.names]
        index_meta = {
            "kind": "columns",
            "names": _scrub_labels(index_names, "index names", scrubbed),
        }
    for position, values in enumerate(levels):
        array, meta, hidden = _encode(
            pd.Series(values, copy=False), f"index level {position}", wide_ints
        )
        arrays.append(array)
        fields.append(pa.field(f"__index_level_{position}__", array.type))
        index_meta.setdefault("levels", []).append(meta)
        scrubbed += [f"index level {position}"] if hidden else []
    for name, position in zip(names, range(frame.shape[1]), strict=True):
        series = frame.iloc[:, position]
        array, meta, hidden = _encode(series, str(name), wide_ints)
        arrays.append(array)
        fields.append(pa.field(str(name), array.type))
        columns.append({"name": name, **meta})
        scrubbed += [str(name)] if hidden else []
    if scrubbed:
        warnings.warn(
            f"secrets (node URLs or keys) in {', '.join(scrubbed)} were written as {REDACTED}",
            UserWarning,
            stacklevel=3,
        )
    attrs = _json_safe(dict(frame.attrs))
    attrs["parquet"] = {
        "toolkit_version": __version__,
        "written_at": datetime.now(UTC).isoformat(),
        "format": FORMAT,
    }
    metadata = {"format": FORMAT, "columns": columns, "index": index_meta, "attrs": attrs}
    text = json.dumps(metadata, separators=(",", ":"), allow_nan=True)
    for secret in _secrets():
        text = text.replace(secret, REDACTED)
    schema = pa.schema(fields, metadata={METADATA_KEY: text.encode()})
    return pa.Table.from_arrays(arrays, schema=schema)


def to_parquet(
    frame: pd.DataFrame,
    path: str | PathLike[str],
    *,
    compression: str = "zstd",
    wide_ints: str = "decimal256",
) -> None:
    """Write `frame` to a Parquet file that `read_parquet` reads back exactly.

    Big ints are decimals and the provenance is in the schema metadata, so the file also opens
    directly in pyarrow, DuckDB and polars. `compression` is any codec pyarrow writes ("zstd",
    "snappy", "none", ...); `wide_ints` as in `to_arrow` ("text" for files meant for DuckDB or
    polars when a column holds ints of more than 38 digits). Each page carries a checksum (CRC32,
    part of the Parquet format), which `read_parquet` checks: a page damaged on disk is an error,
    never other values.
    """
    import pyarrow.parquet as pq

    table = to_arrow(frame, wide_ints=wide_ints)
    pq.write_table(table, path, compression=compression, write_page_checksum=True)


def _column_name(name: Any) -> Any:
    if name is None or isinstance(name, str) or (type(name) is int):
        return name
    if isinstance(name, Integral) and not isinstance(name, bool):
        return int(name)
    raise ParquetError(f"column and index names must be text or ints, got {name!r}")


def _scrub_labels(names: list[Any], what: str, scrubbed: list[str]) -> list[Any]:
    """`names` (column labels or index names) with registered secrets replaced, noting `what`
    in `scrubbed` when one was: a pivot by endpoint makes node URLs into labels. Two labels
    that become one once scrubbed (two keys on one host) are refused: rename them first."""
    secrets = _secrets()
    cleaned = []
    for name in names:
        if isinstance(name, str) and any(secret in name for secret in secrets):
            for secret in secrets:
                name = name.replace(secret, REDACTED)
            if what not in scrubbed:
                scrubbed.append(what)
        cleaned.append(name)
    if len(set(map(str, cleaned))) != len(names) and len(set(map(str, names))) == len(names):
        raise ParquetError(
            f"{what} hold node URLs or keys that read the same once the keys are hidden "
            f"({', '.join(sorted({str(n) for n in cleaned if REDACTED in str(n)}))}): rename "
            "them (to node names, say) before writing"
        )
    return cleaned


def _is_default_range(index: pd.Index) -> TypeGuard[pd.RangeIndex]:
    return isinstance(index, pd.RangeIndex)


def _encode(series: pd.Series, label: str, wide_ints: str) -> tuple[pa.Array, dict[str, Any], bool]:
    """(Arrow array, metadata for reading it back, whether a secret was scrubbed)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = series.dtype
    if dtype == np.dtype(object):
        return _encode_objects(series.to_numpy(dtype=object), label, wide_ints)
    meta = {"dtype": _dtype_meta(dtype)}
    array = pa.array(series, from_pandas=True)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        array, hidden = _scrub_text(array)
        return array, meta, hidden
    if pa.types.is_dictionary(array.type) and _is_text_type(array.type.value_type):
        # Categories: the dictionary, and the categories in the metadata (scrubbed with it).
        dictionary, hidden = _scrub_text(array.dictionary)
        if hidden:
            if len(pc.unique(dictionary)) != len(dictionary):
                raise ParquetError(
                    f"{label}: categories that are node URLs or keys read the same once the keys "
                    "are hidden: rename the categories (to node names, say) before writing"
                )
            array = pa.DictionaryArray.from_arrays(
                array.indices, dictionary, ordered=array.type.ordered
            )
        return array, meta, hidden
    return array, meta, False


def _is_text_type(kind: pa.DataType) -> bool:
    import pyarrow as pa

    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or getattr(pa.types, "is_string_view", lambda _: False)(kind)
    )


def _dtype_meta(dtype: Any) -> dict[str, Any]:
    if isinstance(dtype, pd.StringDtype):
        na = "NA" if dtype.na_value is pd.NA else "NaN"
        return {"name": "string", "storage": dtype.storage, "na_value": na}
    if isinstance(dtype, pd.ArrowDtype):
        return {"name": "arrow", "type": str(dtype.pyarrow_dtype)}
    if isinstance(dtype, pd.CategoricalDtype):
        categories = _json_safe(dtype.categories.tolist())
        return {"name": "category", "ordered": bool(dtype.ordered), "categories": categories}
    return {"name": str(dtype)}


def _encode_objects(
    values: np.ndarray, label: str, wide_ints: str
) -> tuple[pa.Array, dict[str, Any], bool]:
    import pyarrow as pa

    missing = pd.isna(values)
    present = values[~missing]
    sentinels = {_missing_name(value) for value in values[missing]}
    types = set(map(type, present))
    meta: dict[str, Any] = {"dtype": {"name": "object"}}
    if len(sentinels) <= 1:
        meta["missing"] = next(iter(sentinels), "NA")
        mask = missing
        if not types:
            return pa.nulls(len(values)), {**meta, "kind": "null"}, False
        if all(_is_int_type(t) for t in types):
            return (*_encode_ints(values, mask, present, meta, wide_ints), False)
        if types == {str}:
            array, hidden = _scrub_text(pa.array(values, type=pa.string(), mask=mask))
            return array, {**meta, "kind": "text"}, hidden
        if types <= {bytes}:
            array = pa.array(values, type=pa.binary(), mask=mask)
            return array, {**meta, "kind": "bytes"}, _bytes_hold_secret(present)
    # JSON values of any mix; the missing values that are not the column's null are JSON too.
    null = "NA" if "NA" in sentinels or not sentinels else sorted(sentinels)[0]
    texts = np.empty(len(values), dtype=object)
    for i, (value, is_missing) in enumerate(zip(values, missing, strict=True)):
        if is_missing and _missing_name(value) == null:
            texts[i] = None
        else:
            texts[i] = _json_text(value, label)
    array, hidden = _scrub_text(pa.array(texts, type=pa.string()))
    return array, {**meta, "missing": null, "kind": "json"}, hidden


def _missing_name(value: Any) -> str:
    if value is pd.NA:
        return "NA"
    if value is None:
        return "None"
    if value is pd.NaT:
        return "NaT"
    return "NaN"


def _is_int_type(kind: type) -> bool:
    return kind is int or (issubclass(kind, Integral) and not issubclass(kind, bool | np.bool_))


def _encode_ints(
    values: np.ndarray,
    mask: np.ndarray,
    present: np.ndarray,
    meta: dict[str, Any],
    wide_ints: str,
) -> tuple[pa.Array, dict[str, Any]]:
    import pyarrow as pa

    biggest = max((abs(int(v)) for v in present), default=0)
    digits = len(str(biggest))
    ints = [None if m else int(v) for v, m in zip(values, mask, strict=True)]
    if digits <= _DIGITS_128:
        return pa.array(ints, type=pa.decimal128(_DIGITS_128, 0)), {**meta, "kind": "int"}
    if digits <= _DIGITS_256 and wide_ints == "decimal256":
        return pa.array(ints, type=pa.decimal256(_DIGITS_256, 0)), {**meta, "kind": "int"}
    texts = [None if v is None else str(v) for v in ints]
    return pa.array(texts, type=pa.string()), {**meta, "kind": "int_text"}


_JSON_SCALARS = (str, int, float, bool, type(None))


def _json_text(value: Any, label: str) -> str:
    _check_json(value, label)
    return json.dumps(value, separators=(",", ":"), allow_nan=True)


def _check_json(value: Any, label: str) -> None:
    """Raise unless `value` is made only of what JSON keeps exactly."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return
    if kind is list:
        for item in value:
            _check_json(item, label)
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise ParquetError(f"{label}: a dict key {key!r} is not text; JSON would change it")
            _check_json(item, label)
        return
    raise ParquetError(
        f"{label}: holds a {kind.__name__} value, which Parquet cannot keep exactly (object "
        "columns may hold ints, text, bytes, or JSON values: dicts, lists, numbers, text, bools)"
    )


def _scrub_text(array: pa.Array) -> tuple[pa.Array, bool]:
    """`array` (text) with every registered secret replaced, and whether one was found."""
    import pyarrow as pa
    import pyarrow.compute as pc

    secrets = _secrets()
    # One pass looks for any of them (a session registers a secret per node); the text is
    # rewritten only where one is found, which is rare.
    found = bool(secrets) and bool(
        pc.any(pc.match_substring_regex(array, _any_of(secrets))).as_py()
    )
    if found:
        for secret in secrets:  # a secret inside another is gone once the other is replaced
            array = pc.replace_substring(array, secret, REDACTED)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return array, found


def _any_of(texts: list[str]) -> str:
    """A regular expression (RE2, Arrow's) that matches any of `texts` literally: every ASCII
    character but a letter or a digit written as its code, which RE2 reads as itself."""
    return "|".join(
        "".join(c if c.isalnum() or not c.isascii() else f"\\x{ord(c):02x}" for c in text)
        for text in texts
    )


def _secrets() -> list[str]:
    """The registered secrets that hide something: a URL with no path (a platform's address,
    which is registered whole) shows only scheme and host, as `redact_url` does, so it stays."""
    return [secret for secret in registered_secrets() if redact_url(secret) != secret]


def _bytes_hold_secret(values: np.ndarray) -> bool:
    secrets = [s.encode() for s in _secrets()]
    if any(secret in value for value in values for secret in secrets):
        raise ParquetError("a bytes column holds a registered secret (a node URL or key)")
    return False


def _json_safe(value: Any) -> Any:
    """`attrs` as JSON values: dataclasses as dicts, times as ISO text, numpy scalars as
    numbers, URLs without their path, anything else as its text."""
    if is_dataclass(value) and not isinstance(value, type):
        return _json_safe(asdict(value))
    if isinstance(value, Mapping):
        return {str(_json_safe(k)): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_json_safe(v) for v in value]
    if isinstance(value, str):
        return redact_url(value) if is_url(value) else value
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, np.generic):
        return _json_safe(value.item())
    if isinstance(value, datetime | date | pd.Timestamp):
        return value.isoformat()
    if value is pd.NA or value is pd.NaT:
        return None
    return _json_safe(str(value))


# --- reading --------------------------------------------------------------------------------------


def read_parquet(path: str | PathLike[str]) -> pd.DataFrame:
    """The frame `to_parquet` wrote to `path`, exactly, with its provenance in `frame.attrs`.

    A Parquet file written by anything else is read too: integer decimals (scale 0) become Python
    ints in object columns, everything else what pyarrow makes of it.

    A file that is torn (a copy or a write cut short), damaged (a page whose checksum does not
    match), or not Parquet is a `ParquetError` naming it.
    """
    import pyarrow.parquet as pq

    try:
        return from_arrow(pq.read_table(path, page_checksum_verification=True))
    except (FileNotFoundError, PermissionError, IsADirectoryError, ParquetError):
        raise  # not a damaged file: the error says what it is
    except (OSError, ValueError, KeyError, TypeError) as error:  # ArrowInvalid: a ValueError
        raise ParquetError(
            f"{os.fspath(path)} cannot be read ({error}): it is torn or damaged, or not a "
            "Parquet file; write it again from where it came from"
        ) from None


def from_arrow(table: pa.Table) -> pd.DataFrame:
    """The frame a `pyarrow.Table` from `to_arrow` (or `read_parquet`'s file) holds."""
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        return _foreign(table)
    meta = json.loads(raw)
    if meta.get("format") != FORMAT:
        raise ParquetError(f"unknown toolkit Parquet format {meta.get('format')!r}")
    index_meta = meta["index"]
    levels = len(index_meta.get("levels", [])) if index_meta["kind"] == "columns" else 0
    data = {}
    for position, column in enumerate(meta["columns"]):
        data[position] = _decode(table.column(levels + position), column)
    frame = pd.DataFrame(data, copy=False)
    frame.columns = pd.Index([column["name"] for column in meta["columns"]])
    if not meta["columns"]:
        frame = pd.DataFrame(index=pd.RangeIndex(table.num_rows))
    if index_meta["kind"] == "range":
        start, step = index_meta["start"], index_meta["step"]
        stop = start + step * table.num_rows
        frame.index = pd.RangeIndex(start, stop, step, name=index_meta["name"])
    else:
        arrays = [
            pd.Index(_decode(table.column(i), level), copy=False)
            for i, level in enumerate(index_meta["levels"])
        ]
        if len(arrays) == 1:
            frame.index = arrays[0].rename(index_meta["names"][0])
        else:
            frame.index = pd.MultiIndex.from_arrays(arrays, names=index_meta["names"])
    if not meta["columns"] and index_meta["kind"] == "range":
        frame.columns = pd.RangeIndex(0)
    frame.attrs = meta["attrs"]
    return frame


def _decode(column: pa.ChunkedArray, meta: Mapping[str, Any]) -> pd.Series:

    dtype = meta["dtype"]
    name = dtype["name"]
    if name == "object":
        return pd.Series(_decode_objects(column, meta), dtype=object, copy=False)
    if name == "string":
        na_value = cast(Any, _MISSING[dtype["na_value"]])  # the one the file was written with
        target = pd.StringDtype(storage=dtype["storage"], na_value=na_value)
        # pandas' documented hook for Arrow data (ExtensionDtype.__from_arrow__), not in its stubs
        return pd.Series(target.__from_arrow__(column), copy=False)  # type: ignore[attr-defined]
    if name == "arrow":
        return pd.Series(pd.arrays.ArrowExtensionArray(column), copy=False)
    if name == "category":
        # From the metadata: a file with no rows has no dictionary to take them from.
        categories = pd.Index(dtype["categories"])
        values = column.to_pandas().astype(object).where(lambda s: s.notna(), None)
        return pd.Series(
            pd.Categorical(values, categories=categories, ordered=dtype["ordered"]), copy=False
        )
    other = pd.api.types.pandas_dtype(name)
    if hasattr(other, "__from_arrow__"):
        return pd.Series(other.__from_arrow__(column), copy=False)
    return column.to_pandas().astype(other)


def _decode_objects(column: pa.ChunkedArray, meta: Mapping[str, Any]) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = meta["kind"]
    missing = _MISSING[meta["missing"]]
    out = np.empty(len(column), dtype=object)
    if kind == "null":
        out[:] = [missing] * len(column)
        return out
    if kind == "int" and column.null_count < len(column):
        try:  # most columns fit in int64: one C pass
            values = pc.cast(column, pa.int64()).to_pylist()
        except pa.ArrowInvalid:
            values = [None if v is None else int(v) for v in column.to_pylist()]
    elif kind == "int_text":
        values = [None if v is None else int(v) for v in column.to_pylist()]
    elif kind == "json":
        values = column.to_pylist()
        out[:] = [missing if v is None else json.loads(v) for v in values]
        return out
    else:
        values = column.to_pylist()
    out[:] = [missing if v is None else v for v in values]
    return out


def _foreign(table: pa.Table) -> pd.DataFrame:
    """A Parquet file not written by the toolkit: integer decimals become exact ints."""
    import pyarrow as pa

    frame = table.to_pandas()
    for name, field in zip(table.column_names, table.schema, strict=True):
        kind = field.type
        if (pa.types.is_decimal(kind)) and kind.scale == 0:
            meta = {"kind": "int", "missing": "NA"}
            frame[name] = pd.Series(_decode_objects(table.column(name), meta), dtype=object)
    return frame
