"""The transaction-info benchmark runs; its frame keeps exact ints where json_normalize cannot."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "bench_frames.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_frames", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_records_are_deterministic_and_varied(bench):
    records = bench.generate_records(2000, seed=3)
    assert records == bench.generate_records(2000, seed=3)
    assert records != bench.generate_records(2000, seed=4)
    results = {r.get("receipt", {}).get("result") for r in records}
    assert {None, "SUCCESS", "REVERT", "OUT_OF_ENERGY"} <= results
    assert any("fee" not in r for r in records)
    assert any("internal_transactions" in r for r in records)


def test_frame_is_exact_where_json_normalize_is_not(bench):
    # Speed is measured by `make bench` (bench/bench_frames.py), not asserted in a unit test.
    results = bench.compare(bench.generate_records(2_000), runs=1)
    ours = results["toolkit `tron_transaction_infos`"]
    baseline = results["`pandas.json_normalize`"]
    assert ours["exact"] and ours["fee_dtype"] == "object"
    assert not baseline["exact"]  # missing fees make json_normalize's column float64


def test_main_prints_a_markdown_table(bench, capsys):
    table = bench.main(["--records", "500", "--runs", "1"])
    assert capsys.readouterr().out.strip() == table
    lines = table.splitlines()
    assert lines[0] == "500 transaction info records, best of 1 runs taken in turns"
    assert lines[2].startswith("| builder | best time (s) |")
    assert len(lines[2:6]) == 4 and lines[6] == ""  # header, rule, toolkit, json_normalize
    assert lines[7].startswith("The same 500 records into a Parquet file")
    assert lines[9].startswith("| writer | best time (s) |")
    assert [line.split(" | ")[0] for line in lines[11:]] == [
        "| toolkit `tron_transaction_infos` + `toolkit.to_parquet`",
        "| `pandas.json_normalize` + `DataFrame.to_parquet`",
    ]
