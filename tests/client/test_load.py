"""Load: independent clients hammer the sandbox for a bounded time, on loopback only. No call
fails, and the clients' ledgers add up to exactly what the server metered. The longer variant is
`python bench/load.py`; both run the same function."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_load", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_concurrent_clients_lose_nothing_and_ledgers_equal_metering(sandbox):
    sandbox.faults.clear()
    sandbox.reset_metering()
    result = _bench().run_load(sandbox, seconds=3.0, threads=6)
    assert not result["errors"] and result["failed"] == 0
    assert result["calls"] > 100
    assert result["client_ru"] == result["server_ru"] and result["calls"] == result["server_calls"]
