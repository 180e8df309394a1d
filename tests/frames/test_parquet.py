"""Exact Parquet: every frame the toolkit makes comes back from a file as it was written, and the
files open as decimals (not pickles) in pyarrow, DuckDB and polars."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

import toolkit
from toolkit import frames
from toolkit._redact import register_url

FRAME_KINDS = [
    "evm_balances",
    "evm_events",
    "evm_reads",
    "evm_blocks",
    "evm_block_transactions",
    "evm_block_withdrawals",
    "evm_logs",
    "evm_printed_blocks",
    "evm_root_hashes",
    "tron_asset_issues",
    "tron_account",
    "tron_account_assets",
    "tron_node_info",
    "tron_node_peers",
    "tron_blocks",
    "tron_block_transactions",
    "tron_transaction_infos",
    "ton_token_data",
    "ton_masterchain_info",
    "ton_address_forms",
    "platform_nodes",
    "solana_simulation_summary",
    "solana_simulation_balances",
    "solana_simulation_accounts",
    "solana_simulation_logs",
    "solana_simulation_inner_instructions",
    "solana_simulation_token_balances",
    "workload_run",
    "workload_preview",
    "ledger_frame",
    "ledger_summary",
    "fixture_solana_simulation_logs",
    "fixture_solana_simulation_return_data",
    "fixture_simulation_failed",
    "fixture_platform_nodes",
    "fixture_tron_transaction_infos",
    "fixture_tron_asset_issues",
    "fixture_ton_token_data",
    "fixture_tron_transaction",
]


def _round_trip(frame: pd.DataFrame, path, **options) -> pd.DataFrame:
    toolkit.to_parquet(frame, path, **options)
    return toolkit.read_parquet(path)


def _object_columns(frame: pd.DataFrame) -> list[str]:
    return [name for name in frame.columns if frame[name].dtype == np.dtype(object)]


def _int_columns(frame: pd.DataFrame) -> list[str]:
    """Object columns of exact ints (at least one present, the rest missing)."""
    found = []
    for name in _object_columns(frame):
        present = [v for v in frame[name] if v is not pd.NA and v is not None]
        if present and all(type(v) is int for v in present):
            found.append(name)
    return found


def _decimals(values: pd.Series) -> list[Decimal | None]:
    return [None if v is pd.NA or v is None else Decimal(v) for v in values]


def test_every_frame_function_is_covered(toolkit_frames):
    made = {name.removeprefix("fixture_") for name in toolkit_frames}
    assert set(frames.__all__) - made <= {
        "EVM_EVENTS",  # the events evm_events knows by name
        "LOG_KINDS",
        "NODE_STATUSES",
        "RUN_METHODS",  # reading a workload run's frame, not frames
        "Answer",
        "run_answers",
        "FrameError",
        "ParquetError",
        "from_arrow",
        "human_number",  # display helpers, not frames
        "quantity",
        "read_parquet",
        "readable",
        "to_arrow",
        "to_parquet",
    }
    assert sorted(toolkit_frames) == sorted(FRAME_KINDS)


@pytest.mark.parametrize("kind", FRAME_KINDS)
def test_every_toolkit_frame_round_trips_exactly(kind, toolkit_frames, tmp_path):
    frame = toolkit_frames[kind]
    before = datetime.now(UTC)
    back = _round_trip(frame, tmp_path / f"{kind}.parquet")
    assert_frame_equal(back, frame, check_exact=True)
    for column in _object_columns(frame):
        # Exact means the same Python types too: ints stay ints, not Decimals or floats.
        assert [type(v) for v in back[column]] == [type(v) for v in frame[column]], column
    written = back.attrs.pop("parquet")
    assert back.attrs == json.loads(json.dumps(frame.attrs))
    assert written["toolkit_version"] == toolkit.__version__
    at = datetime.fromisoformat(written["written_at"])
    assert before - timedelta(seconds=1) <= at <= datetime.now(UTC)


@pytest.mark.parametrize(
    "kind", ["evm_balances", "tron_transaction_infos", "solana_simulation_balances", "workload_run"]
)
def test_big_int_columns_are_decimals_in_the_file(kind, toolkit_frames, tmp_path):
    frame = toolkit_frames[kind]
    path = tmp_path / "f.parquet"
    toolkit.to_parquet(frame, path)
    schema = pq.read_schema(path)
    big = {
        "evm_balances": "wei",
        "tron_transaction_infos": "fee_sun",
        "solana_simulation_balances": "pre_lamports",
        "workload_run": "ru",
    }[kind]
    if kind == "workload_run":  # ru is int64; the raw results are JSON text
        assert schema.field("ru").type == pa.int64()
        assert schema.field("result").type == pa.string()
        return
    assert schema.field(big).type == pa.decimal128(38, 0)
    table = pq.read_table(path)
    expected = [None if v is pd.NA else Decimal(v) for v in frame[big]]
    assert table.column(big).to_pylist() == expected


def test_to_arrow_gives_the_table_and_from_arrow_reads_it(toolkit_frames):
    frame = toolkit_frames["evm_balances"]
    table = frames.to_arrow(frame)
    assert isinstance(table, pa.Table)
    assert table.num_rows == len(frame)
    assert table.column_names == list(frame.columns)
    assert table.schema.field("wei").type == pa.decimal128(38, 0)
    assert b"toolkit" in table.schema.metadata
    assert_frame_equal(frames.from_arrow(table), frame)


# --- edge values ------------------------------------------------------------------------------


def _edge_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "int64_edge": pd.Series([2**63 - 1, -(2**63), pd.NA, 0], dtype=object),
            "u64": pd.Series([2**64, 2**64 - 1, pd.NA, -(2**64)], dtype=object),
            "d128_max": pd.Series([10**38 - 1, -(10**38 - 1), 1, pd.NA], dtype=object),
            "d256": pd.Series([10**38, -(2**200), 10**76 - 1, pd.NA], dtype=object),
            "u256": pd.Series([2**255, 2**256 - 1, -(2**255), pd.NA], dtype=object),
            "none_missing": pd.Series([None, 2**70, None, 3], dtype=object),
            "all_na": pd.Series([pd.NA] * 4, dtype=object),
            "Int64": pd.array([1, None, -(2**63), 2**63 - 1], dtype="Int64"),
            "utc": pd.to_datetime([0, None, 1_700_000_000_123, -1], unit="ms", utc=True),
            "text": pd.array(["a", None, "ünï", ""], dtype="string"),
            "flag": pd.array([True, None, False, True], dtype="boolean"),
            "bool": [True, False, True, False],
            "float": [0.5, np.nan, -np.inf, -0.0],
            "bytes": pd.Series([b"\x00\xff", pd.NA, b"", b"abc"], dtype=object),
            "json": pd.Series([{"a": [1, 2**80]}, None, "x", pd.NA], dtype=object),
            "category": pd.Categorical(["ok", None, "ok", "failed"], categories=["ok", "failed"]),
        }
    )


def test_edge_values_round_trip(tmp_path):
    frame = _edge_frame()
    back = _round_trip(frame, tmp_path / "edge.parquet")
    assert_frame_equal(back, frame, check_exact=True)
    assert back["none_missing"][0] is None and back["all_na"][0] is pd.NA
    assert back["json"][1] is None and back["json"][3] is pd.NA
    assert back["u256"][1] == 2**256 - 1 and type(back["u256"][1]) is int


def test_each_width_gets_its_arrow_type(tmp_path):
    path = tmp_path / "edge.parquet"
    toolkit.to_parquet(_edge_frame(), path)
    schema = pq.read_schema(path)
    assert schema.field("int64_edge").type == pa.decimal128(38, 0)
    assert schema.field("u64").type == pa.decimal128(38, 0)
    assert schema.field("d128_max").type == pa.decimal128(38, 0)
    assert schema.field("d256").type == pa.decimal256(76, 0)
    # uint256 values past 10**76 fit no Arrow decimal: exact decimal text
    assert schema.field("u256").type == pa.string()
    assert schema.field("Int64").type == pa.int64()
    assert schema.field("utc").type == pa.timestamp(frames_unit(_edge_frame()["utc"]), tz="UTC")


def frames_unit(series: pd.Series) -> str:
    return series.dtype.unit


def test_wide_ints_as_text(tmp_path):
    frame = _edge_frame()
    back = _round_trip(frame, tmp_path / "edge.parquet", wide_ints="text")
    assert_frame_equal(back, frame, check_exact=True)
    schema = pq.read_schema(tmp_path / "edge.parquet")
    assert schema.field("d256").type == pa.string()
    assert schema.field("u64").type == pa.decimal128(38, 0)
    with pytest.raises(ValueError, match="wide_ints"):
        toolkit.to_parquet(frame, tmp_path / "x.parquet", wide_ints="float")


@pytest.mark.parametrize(
    "make",
    [
        lambda: frames.evm_balances([]),
        lambda: frames.tron_transaction_infos([]),
        lambda: frames.solana_simulation_logs([]),
        lambda: frames.tron_asset_issues({"assetIssue": []}),
        lambda: frames.platform_nodes([]),
        lambda: _edge_frame().iloc[:0],
        lambda: pd.DataFrame(),
    ],
)
def test_empty_frames_round_trip(make, tmp_path):
    frame = make()
    assert len(frame) == 0
    assert_frame_equal(_round_trip(frame, tmp_path / "empty.parquet"), frame)


def test_other_indexes_round_trip(toolkit_frames, tmp_path):
    ledger = toolkit_frames["ledger_frame"].set_index("time")
    assert_frame_equal(_round_trip(ledger, tmp_path / "a.parquet"), ledger)
    by_two = toolkit_frames["ledger_frame"].set_index(["node", "method"])
    assert_frame_equal(_round_trip(by_two, tmp_path / "b.parquet"), by_two)
    sliced = toolkit_frames["evm_balances"].iloc[1:]
    assert_frame_equal(_round_trip(sliced, tmp_path / "c.parquet"), sliced)


def test_values_parquet_cannot_keep_exactly_are_refused(tmp_path):
    for odd in [(1, 2), {1, 2}, {1: "a"}, Decimal("1.5"), object()]:
        frame = pd.DataFrame({"x": pd.Series(["ok", odd], dtype=object)})
        with pytest.raises(frames.ParquetError, match="x"):
            toolkit.to_parquet(frame, tmp_path / "x.parquet")


def test_attrs_become_json_with_urls_redacted(tmp_path):
    frame = pd.DataFrame({"a": [1]})
    frame.attrs = {
        "summary": {"ru": np.int64(3), "seconds": 0.5},
        "when": pd.Timestamp("2025-01-01", tz="UTC"),
        "node": "https://nd-1.example.com/abcdef0123456789",
    }
    back = _round_trip(frame, tmp_path / "a.parquet")
    back.attrs.pop("parquet")
    assert back.attrs == {
        "summary": {"ru": 3, "seconds": 0.5},
        "when": "2025-01-01T00:00:00+00:00",
        "node": "https://nd-1.example.com/***",
    }


def test_attrs_with_a_url_scheme_in_capitals_are_redacted(tmp_path):
    frame = pd.DataFrame({"a": [1]})
    frame.attrs = {"node": "HTTPS://nd-1.example.com/abcdef0123456789"}
    back = _round_trip(frame, tmp_path / "a.parquet")
    assert back.attrs["node"] == "https://nd-1.example.com/***"


# --- no key is ever written -------------------------------------------------------------------


def test_no_node_url_or_key_reaches_the_file(tmp_path):
    gw = toolkit.connect()
    revealed = frames.platform_nodes(gw.nodes(), reveal_endpoints=True)
    urls = list(gw.sandbox.info["nodes"].values())
    keys = [url.rstrip("/").rsplit("/", 1)[1] for url in urls]
    assert revealed["https_endpoint"].str.contains(keys[0], regex=False).any()
    revealed.attrs["gateway"] = {"nodes": dict(gw.sandbox.info["nodes"]), "key": keys[0]}
    path = tmp_path / "nodes.parquet"
    with pytest.warns(UserWarning, match="https_endpoint"):
        toolkit.to_parquet(revealed, path, compression="none")
    raw = path.read_bytes()
    for secret in [*urls, *keys, gw.sandbox.info["api_key"]]:
        assert secret.encode() not in raw
    back = toolkit.read_parquet(path)
    assert back["https_endpoint"].str.contains("***", regex=False).all()
    # The frame shown by default (no keys in it) is kept exactly, warning-free.
    shown = frames.platform_nodes(gw.nodes())
    assert_frame_equal(_round_trip(shown, tmp_path / "shown.parquet"), shown)


def test_a_registered_secret_in_plain_data_is_scrubbed(tmp_path):
    url = "https://nd-9.example.com/0f0e0d0c0b0a09080706050403020100"
    register_url(url)
    frame = pd.DataFrame(
        {
            "text": pd.array([f"see {url}", "fine"], dtype="string"),
            "objects": pd.Series([url, "fine"], dtype=object),
            "json": pd.Series([{"u": url}, [1]], dtype=object),
        }
    )
    path = tmp_path / "s.parquet"
    with pytest.warns(UserWarning, match="text, objects, json"):
        toolkit.to_parquet(frame, path, compression="none")
    assert b"0f0e0d0c0b0a0908" not in path.read_bytes()


# --- other readers ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", FRAME_KINDS)
def test_files_open_in_duckdb(kind, toolkit_frames, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    frame = toolkit_frames[kind]
    path = tmp_path / "f.parquet"
    toolkit.to_parquet(frame, path)
    connection = duckdb.connect()
    table = connection.sql(f"SELECT * FROM read_parquet('{path}')").to_arrow_table()
    assert table.num_rows == len(frame)
    assert table.column_names == list(frame.columns)
    for name in _int_columns(frame):
        assert pa.types.is_decimal(table.schema.field(name).type), name
        rows = connection.execute(f"SELECT \"{name}\" FROM read_parquet('{path}')").fetchall()
        assert [v for (v,) in rows] == _decimals(frame[name]), name


@pytest.mark.parametrize("kind", FRAME_KINDS)
def test_files_open_in_polars(kind, toolkit_frames, tmp_path):
    polars = pytest.importorskip("polars")
    frame = toolkit_frames[kind]
    path = tmp_path / "f.parquet"
    toolkit.to_parquet(frame, path)
    read = polars.read_parquet(path)
    assert read.shape == frame.shape
    for name in _int_columns(frame):
        assert isinstance(read.schema[name], polars.Decimal), name
        assert read[name].to_list() == _decimals(frame[name]), name


def test_big_ints_add_up_exactly_in_duckdb_and_polars(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    polars = pytest.importorskip("polars")
    wei = [2**64 + i for i in range(10)] + [-(10**30)]
    frame = pd.DataFrame({"wei": pd.Series(wei, dtype=object)})
    path = tmp_path / "wei.parquet"
    toolkit.to_parquet(frame, path)
    # A connection of its own: a result left unread on duckdb's default one fails the next test
    # in this process that uses it.
    connection = duckdb.connect()
    (total,) = connection.execute(f"SELECT sum(wei) FROM read_parquet('{path}')").fetchone()
    assert total == Decimal(sum(wei))
    assert polars.read_parquet(path)["wei"].sum() == Decimal(sum(wei))


def test_wide_ints_as_text_are_exact_in_duckdb_and_polars(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    polars = pytest.importorskip("polars")
    values = [10**38, 2**255, -(2**200)]
    frame = pd.DataFrame({"u256": pd.Series(values, dtype=object)})
    path = tmp_path / "u256.parquet"
    toolkit.to_parquet(frame, path, wide_ints="text")
    rows = duckdb.connect().execute(f"SELECT u256 FROM read_parquet('{path}')").fetchall()
    assert [int(v) for (v,) in rows] == values
    assert [int(v) for v in polars.read_parquet(path)["u256"]] == values


def test_a_foreign_file_with_integer_decimals_reads_as_ints(tmp_path):
    table = pa.table({"wei": pa.array([Decimal(2**70), None], type=pa.decimal128(38, 0))})
    pq.write_table(table, tmp_path / "foreign.parquet")
    back = toolkit.read_parquet(tmp_path / "foreign.parquet")
    assert list(back["wei"]) == [2**70, pd.NA]
    assert type(back["wei"][0]) is int


def test_import_toolkit_does_not_import_pyarrow():
    code = "import sys, toolkit; toolkit.Workload; print('pyarrow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- property ---------------------------------------------------------------------------------

_BIG = st.integers(min_value=-(2**300), max_value=2**300)


@st.composite
def _frames(draw):
    n = draw(st.integers(min_value=0, max_value=12))
    missing = draw(st.sampled_from([pd.NA, None]))
    big = draw(st.lists(st.one_of(_BIG, st.just(missing)), min_size=n, max_size=n))
    small = draw(
        st.lists(st.one_of(st.integers(-(2**63), 2**63 - 1), st.none()), min_size=n, max_size=n)
    )
    text = draw(st.lists(st.one_of(st.text(max_size=8), st.none()), min_size=n, max_size=n))
    flags = draw(st.lists(st.one_of(st.booleans(), st.none()), min_size=n, max_size=n))
    floats = draw(st.lists(st.floats(allow_nan=True), min_size=n, max_size=n))
    millis = draw(
        st.lists(st.one_of(st.integers(-(10**15), 10**15), st.none()), min_size=n, max_size=n)
    )
    json_values = st.recursive(
        st.one_of(st.none(), st.booleans(), _BIG, st.text(max_size=4)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
        ),
        max_leaves=6,
    )
    mixed = draw(st.lists(json_values, min_size=n, max_size=n))
    return pd.DataFrame(
        {
            "big": pd.Series(big, dtype=object),
            "small": pd.array(small, dtype="Int64"),
            "text": pd.array(text, dtype="string"),
            "flag": pd.array(flags, dtype="boolean"),
            "float": np.array(floats, dtype=np.float64),
            "time": pd.to_datetime(pd.array(millis, dtype="Int64"), unit="ms", utc=True),
            "mixed": pd.Series(mixed, dtype=object),
        }
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(frame=_frames(), wide_ints=st.sampled_from(["decimal256", "text"]))
def test_any_frame_of_these_kinds_round_trips(frame, wide_ints, tmp_path):
    back = _round_trip(frame, tmp_path / "p.parquet", wide_ints=wide_ints)
    assert_frame_equal(back, frame, check_exact=True)
    assert [type(v) for v in back["big"]] == [type(v) for v in frame["big"]]


# --- keys in labels, index names and categories -------------------------------------------------
LABEL_KEY = "1e2d3c4b5a6978870a1b2c3d4e5f6a7b"
LABEL_URL = f"https://nd-10.example.com/{LABEL_KEY}"


def _written(frame, path):
    with pytest.warns(UserWarning, match="were written as") as caught:
        toolkit.to_parquet(frame, path, compression="none")
    assert LABEL_KEY.encode() not in path.read_bytes()
    return " ".join(str(w.message) for w in caught), toolkit.read_parquet(path)


def test_a_key_in_a_column_label_is_scrubbed(tmp_path):
    register_url(LABEL_URL)
    calls = pd.DataFrame(
        {"endpoint": [LABEL_URL, LABEL_URL, "https://x.example.com"], "ru": [1, 2, 3]}
    )
    pivot = calls.pivot_table(columns="endpoint", values="ru", aggfunc="sum")  # a pivot by endpoint
    message, back = _written(pivot, tmp_path / "pivot.parquet")
    assert "column labels" in message and LABEL_KEY not in message
    assert list(back.columns) == ["https://nd-10.example.com/***", "https://x.example.com"]
    assert back.iloc[0].tolist() == [3, 3]


def test_a_key_in_an_index_name_is_scrubbed(tmp_path):
    register_url(LABEL_URL)
    frame = pd.DataFrame({"ru": [1, 2]}, index=pd.Index([5, 6], name=f"calls of {LABEL_URL}"))
    message, back = _written(frame, tmp_path / "index.parquet")
    assert "index names" in message
    assert back.index.name == "calls of https://nd-10.example.com/***"
    assert back["ru"].tolist() == [1, 2]


@pytest.mark.parametrize("text_dtype", [object, "string"])
def test_a_key_in_category_values_is_scrubbed(tmp_path, text_dtype):
    register_url(LABEL_URL)
    endpoints = pd.Series([LABEL_URL, "https://x.example.com", LABEL_URL], dtype=text_dtype)
    frame = pd.DataFrame({"endpoint": endpoints.astype("category"), "ru": [1, 2, 3]})
    frame.index = pd.CategoricalIndex([LABEL_URL, "a", "b"])
    message, back = _written(frame, tmp_path / "cat.parquet")
    assert "endpoint" in message and "index level 0" in message
    shown = [
        "https://nd-10.example.com/***",
        "https://x.example.com",
        "https://nd-10.example.com/***",
    ]
    assert back["endpoint"].astype(str).tolist() == shown
    assert isinstance(back["endpoint"].dtype, pd.CategoricalDtype)
    assert LABEL_KEY not in str(back.index.tolist())


def test_labels_or_categories_that_become_one_are_refused(tmp_path):
    other = "https://nd-10.example.com/6f7c3cb81ea5026c05739ea2cd1d825f"
    register_url(LABEL_URL)
    register_url(other)
    pivot = pd.DataFrame({LABEL_URL: [1], other: [2]})
    with pytest.raises(toolkit.frames.ParquetError, match="rename") as caught:
        toolkit.to_parquet(pivot, tmp_path / "two.parquet")
    assert LABEL_KEY not in str(caught.value)
    categories = pd.DataFrame({"endpoint": pd.Categorical([LABEL_URL, other])})
    with pytest.raises(toolkit.frames.ParquetError, match="rename") as caught:
        toolkit.to_parquet(categories, tmp_path / "two.parquet")
    assert LABEL_KEY not in str(caught.value)
    assert not (tmp_path / "two.parquet").exists()
