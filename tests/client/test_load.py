"""Load: independent clients hammer the sandbox at once, on loopback only. No call fails, and the
clients' ledgers add up to exactly what the server metered. The test runs a fixed number of rounds
(a slow machine makes it slower, never wrong); `python bench/load.py` runs the same function for a
fixed time and prints the throughput."""

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
    threads, rounds = 6, 10
    result = _bench().run_load(sandbox, seconds=0, threads=threads, rounds=rounds)
    assert not result["errors"] and result["failed"] == 0
    # Each thread: two calls a round; the async client: eight concurrent calls a round.
    assert result["calls"] == threads * rounds * 2 + rounds * 8
    assert result["client_ru"] == result["server_ru"] and result["calls"] == result["server_calls"]
