"""The shared conventions: exact ints, NA for missing, UTC times, hex text, FrameError."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.frames import FrameError
from toolkit.frames._convert import (
    IntBlock,
    big_int_column,
    decode_hex_text,
    exact_ints,
    int_column,
    int_value,
    text_column,
    units_column,
    unwrap_envelope,
    utc_column,
)


def test_frame_error_is_a_value_error():
    assert issubclass(FrameError, ValueError)


def test_unwrap_envelope_returns_the_result_and_leaves_other_payloads_alone():
    assert unwrap_envelope({"jsonrpc": "2.0", "id": 1, "result": [1, 2]}) == [1, 2]
    assert unwrap_envelope({"jsonrpc": "2.0", "id": 1, "result": None}) is None
    assert unwrap_envelope({"ok": True, "result": 5}) == {"ok": True, "result": 5}
    assert unwrap_envelope([1]) == [1]


def test_unwrap_envelope_raises_for_an_error_response():
    with pytest.raises(FrameError, match="error answer"):
        unwrap_envelope({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "x"}})


def test_an_error_answer_without_jsonrpc_is_still_an_error_and_its_reason_is_whole():
    reason = (
        "daily request count exceeded, request rate limited; upgrade your plan at the console "
        "to raise the limit or wait until the next UTC day"
    )
    for payload in (
        {"id": 1, "error": {"code": -32005, "message": reason}},  # no "jsonrpc"
        {"error": {"code": "rate_limited", "message": reason}},  # the platform's shape
        {"error": reason},
    ):
        with pytest.raises(FrameError) as caught:
            unwrap_envelope(payload)
        assert reason in str(caught.value)  # never cut before the reason
    # toncenter's {"ok": false} is the TON frame's to read (it knows the code)
    assert unwrap_envelope({"ok": False, "error": "x", "code": 409})["code"] == 409


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (5, 5),
        ("123", 123),
        ("-7", -7),
        ("0x1bc16d674ec80000", 2 * 10**18),
        (str(2**70), 2**70),
        (1e3, 1000),
        (None, None),
    ],
)
def test_int_value_accepts_numbers_and_numeric_text(value, expected):
    assert int_value(value, "f") == expected


@pytest.mark.parametrize("value", [True, 1.5, "1.5", "0x", "ten", " 1", [1], {"a": 1}, "9" * 5000])
def test_int_value_rejects_everything_else_with_frame_error(value):
    with pytest.raises(FrameError, match="f: expected an integer"):
        int_value(value, "f")


def test_decode_hex_text_never_raises_on_bad_utf8_or_bad_hex():
    assert decode_hex_text("426974546f7272656e74") == "BitTorrent"
    assert decode_hex_text("4dfc6e7a65") == "M\ufffdnze"  # Latin-1 "Münze"
    assert decode_hex_text("abc") is None  # odd length
    assert decode_hex_text("zz") is None
    assert decode_hex_text(None) is None


def test_int_column_is_int64_with_na_and_falls_back_to_exact_objects_beyond_int64():
    small = int_column([1, None, float("nan"), 3], "f")
    assert str(small.dtype) == "Int64"
    assert small.isna().tolist() == [False, True, True, False]
    big = int_column([1, 2**64 + 1, None], "f")
    assert big.dtype == object
    assert big[1] == 2**64 + 1 and type(big[1]) is int
    assert big[2] is pd.NA


@pytest.mark.parametrize(
    "rows",
    [
        [[1, None, 7], [float("nan"), 5, -3], [2**53 - 1, 0, None]],  # the one-pass way
        [[1, None, 7], [2**64 + 1, 5, "12"], [2**53, 0.0, None]],  # column by column
        [[None, None, None]],
    ],
)
def test_int_block_columns_are_the_one_column_builders(rows):
    table = np.empty((len(rows), 3), dtype=object)
    table[:] = rows
    wide = np.empty((len(rows), 5), dtype=object)  # a slice of a wider field table, as TRON's
    wide[:, 1:4] = table
    block = IntBlock(wide[:, 1:4], ["a", "b", "c"])
    for i, field in enumerate("abc"):
        expected = int_column(table[:, i], field)
        got = int_column(block[field], field)
        assert type(got) is type(expected) and str(got.dtype) == str(expected.dtype)
        assert [_none(v) for v in got] == [_none(v) for v in expected]
        assert utc_column(block[field], field).equals(utc_column(table[:, i], field))


def test_int_block_reports_a_bad_value_when_its_column_is_asked_for():
    table = np.array([[1, True], [2, 3]], dtype=object)
    block = IntBlock(table, ["good", "bad"])  # nothing raises yet
    assert int_column(block["good"], "good").tolist() == [1, 2]
    with pytest.raises(FrameError, match="bad: expected an integer, got bool"):
        int_column(block["bad"], "bad")


def _none(value):
    return None if value is pd.NA else value


def test_big_int_column_keeps_python_ints_exactly():
    column = big_int_column([2**200, "0x10", "12", None], "f")
    assert column.tolist() == [2**200, 16, 12, pd.NA]
    assert all(type(v) is int for v in column[:3])


def test_exact_ints_returns_a_new_list():
    values = [1, 2]
    result = exact_ints(values, "f")
    result.append(3)
    assert values == [1, 2]


def test_text_column_is_string_dtype_and_writes_ints_in_decimal():
    column = text_column(["a", None, 7], "f")
    assert column.dtype == "string"
    assert column.tolist() == ["a", pd.NA, "7"]
    with pytest.raises(FrameError, match="f: expected text"):
        text_column(["a", {"b": 1}], "f")


def test_utc_column_from_milliseconds_and_seconds_with_nat_for_missing_or_absurd():
    times = utc_column([1717000002000, None, 10**17, 2**70], "t")
    assert str(times.tz) == "UTC"
    assert times[0] == pd.Timestamp("2024-05-29 16:26:42", tz="UTC")
    assert times[1:].isna().all()
    seconds = utc_column([1743811200], "t", unit="s")
    assert seconds[0] == pd.Timestamp("2025-04-05", tz="UTC")


@given(st.integers(min_value=-(2**80), max_value=2**80))
def test_units_column_matches_exact_python_division(amount):
    # The vectorised path and the per-value path must give the same correctly rounded float.
    for scale in (10**6, 10**9, 10**18):
        assert units_column([amount, None], scale)[0] == amount / scale
        assert math.isnan(units_column([amount, None], scale)[1])


def test_amounts_already_missing_as_pd_na_give_nan_units():
    """A column that an earlier step filled with pd.NA (an explicit null balance) converts too:
    float() refuses pd.NA, which the fast path used to pass it."""
    from toolkit.frames._convert import units_column

    units = units_column(np.array([pd.NA, 5, None], dtype=object), 10, "balance")
    assert np.isnan(units[0]) and units[1] == 0.5 and np.isnan(units[2])
