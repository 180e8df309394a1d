"""Benchmark: the TRON transaction-info frame against ``pandas.json_normalize``.

Generates realistic ``wallet/gettransactioninfobyblocknum`` records deterministically (TRC-20
transfers, plain TRX transfers, reverted and out-of-energy calls, calls with internal
transactions), then builds a frame from the same records both ways: best wall time of several
rounds in which the two take turns, and peak traced memory of one run each. Then the same
records into a Parquet file both ways: ``toolkit.to_parquet`` of our frame (exact ints as
decimals, zstd, its default) against ``json_normalize`` + ``DataFrame.to_parquet`` (fees as
float64, snappy, pandas' default). pyarrow cannot write ``json_normalize``'s
``internal_transactions`` column (an empty struct in ``callValueInfo``), so that side drops it,
and ``log`` too (ours keeps their counts): less work for it, not more. Prints markdown tables.

    python bench/bench_frames.py [--records 100000] [--runs 7] [--seed 7]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pandas as pd

import toolkit
from toolkit.frames import tron_transaction_infos

USDT = "41a614f803b6fd780986a42c78ec9c7f77e6ded13c"
ROUTER = "41e95812d8d5b5412d2b9f3a4d5a87ca1c5c51c1ed"
TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
FIRST_BLOCK = 62_000_000
FIRST_BLOCK_MS = 1_717_000_002_000
TRANSACTIONS_PER_BLOCK = 250


def generate_records(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """`count` transaction info records as TRON returns them (zero fields omitted)."""
    rng = random.Random(seed)

    def word() -> str:
        return f"{rng.getrandbits(256):064x}"

    records = []
    for index in range(count):
        block = index // TRANSACTIONS_PER_BLOCK
        record: dict[str, Any] = {
            "id": word(),
            "blockNumber": FIRST_BLOCK + block,
            "blockTimeStamp": FIRST_BLOCK_MS + 3000 * block,
            "contractResult": [""],
        }
        kind = rng.random()
        if kind < 0.30:  # TRX transfer: free bandwidth, or bandwidth paid in TRX
            if rng.random() < 0.5:
                record["receipt"] = {"net_usage": 268}
            else:
                record["fee"] = 268_000
                record["receipt"] = {"net_fee": 268_000}
        elif kind < 0.85:  # USDT transfer; dynamic energy adds a penalty on busy contracts
            energy = rng.choice((14_650, 29_650, 64_285))
            burned = rng.random() < 0.6
            record["fee"] = energy * 420 * burned + 345_000
            record["contract_address"] = USDT
            record["contractResult"] = [f"{1:064x}"]
            record["receipt"] = {
                "energy_usage_total": energy,
                "net_fee": 345_000,
                "result": "SUCCESS",
                **({"energy_fee": energy * 420} if burned else {"energy_usage": energy}),
                **({"energy_penalty_total": energy - 14_650} if energy > 14_650 else {}),
            }
            record["log"] = [
                {"address": USDT[2:], "topics": [TRANSFER_TOPIC, word(), word()], "data": word()}
            ]
        elif kind < 0.95:  # failed contract call
            out_of_energy = rng.random() < 0.5
            message = "Not enough energy" if out_of_energy else "REVERT opcode executed"
            record["fee"] = rng.randrange(1_000_000, 40_000_000)
            record["contract_address"] = ROUTER
            record["result"] = "FAILED"
            record["resMessage"] = message.encode().hex()
            record["receipt"] = {
                "energy_fee": record["fee"] - 345_000,
                "origin_energy_usage": rng.randrange(0, 5_000),
                "energy_usage_total": rng.randrange(10_000, 100_000),
                "net_fee": 345_000,
                "result": "OUT_OF_ENERGY" if out_of_energy else "REVERT",
            }
        else:  # swap through a router: several logs, internal transactions
            record["fee"] = rng.randrange(5_000_000, 80_000_000)
            record["contract_address"] = ROUTER
            record["contractResult"] = [word() + word()]
            record["receipt"] = {
                "energy_usage": rng.randrange(0, 50_000),
                "energy_fee": record["fee"] - 345_000,
                "origin_energy_usage": rng.randrange(0, 20_000),
                "energy_usage_total": rng.randrange(100_000, 400_000),
                "net_fee": 345_000,
                "result": "SUCCESS",
            }
            record["log"] = [
                {"address": USDT[2:], "topics": [TRANSFER_TOPIC, word(), word()], "data": word()}
                for _ in range(rng.randrange(2, 6))
            ]
            record["internal_transactions"] = [
                {
                    "hash": word(),
                    "caller_address": ROUTER,
                    "transferTo_address": USDT,
                    "callValueInfo": [{}],
                    "note": "63616c6c",  # "call"
                }
                for _ in range(rng.randrange(1, 4))
            ]
        records.append(record)
    return records


def best_times(builds: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    """Each build's best wall time over `runs` rounds in which the builds take turns, so that a
    busy moment of the machine hits them alike."""
    timings: dict[str, list[float]] = {name: [] for name in builds}
    for _ in range(runs):
        for name, build in builds.items():
            gc.collect()
            start = time.perf_counter()
            build()
            timings[name].append(time.perf_counter() - start)
    return {name: min(seconds) for name, seconds in timings.items()}


def peak_memory(build: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        build()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def compare(records: list[dict[str, Any]], runs: int) -> dict[str, dict[str, Any]]:
    """Time and memory of both ways on the same records, plus what each made of the fee."""
    contenders = {
        "toolkit `tron_transaction_infos`": (lambda: tron_transaction_infos(records), "fee_sun"),
        "`pandas.json_normalize`": (lambda: pd.json_normalize(records), "fee"),
    }
    seconds = best_times({name: build for name, (build, _) in contenders.items()}, runs)
    results = {}
    for name, (build, fee_column) in contenders.items():
        fees = build()[fee_column]
        exact = all(
            type(fee) is int and fee == record["fee"]
            for fee, record in zip(fees, records, strict=True)
            if "fee" in record
        )
        results[name] = {
            "seconds": seconds[name],
            "peak_bytes": peak_memory(build),
            "fee_dtype": str(fees.dtype),
            "exact": exact,
        }
    return results


OURS_PARQUET = "toolkit `tron_transaction_infos` + `toolkit.to_parquet`"
THEIRS_PARQUET = "`pandas.json_normalize` + `DataFrame.to_parquet`"
UNWRITABLE = ["internal_transactions", "log"]  # see the module doc


def compare_parquet(records: list[dict[str, Any]], runs: int) -> dict[str, dict[str, Any]]:
    """Records to a Parquet file both ways: time, peak traced memory, the file's size."""
    with tempfile.TemporaryDirectory(prefix="bench-frames-") as folder:
        ours_path = os.path.join(folder, "ours.parquet")
        theirs_path = os.path.join(folder, "theirs.parquet")
        contenders = {
            OURS_PARQUET: (
                lambda: toolkit.to_parquet(tron_transaction_infos(records), ours_path),
                ours_path,
            ),
            THEIRS_PARQUET: (
                lambda: (
                    pd.json_normalize(records)
                    .drop(columns=UNWRITABLE)
                    .to_parquet(theirs_path, index=False)
                ),
                theirs_path,
            ),
        }
        seconds = best_times({name: write for name, (write, _) in contenders.items()}, runs)
        return {
            name: {
                "seconds": seconds[name],
                "peak_bytes": peak_memory(write),
                "file_bytes": os.path.getsize(path),
            }
            for name, (write, path) in contenders.items()
        }


def parquet_table(results: dict[str, dict[str, Any]], records: int, runs: int) -> str:
    title = f"The same {records:,} records into a Parquet file, best of {runs} runs taken in turns"
    return _table(
        title,
        records,
        ["writer", "file (MiB)"],
        results,
        results[THEIRS_PARQUET]["seconds"],
        lambda result: [f"{result['file_bytes'] / 2**20:,.1f}"],
    )


def markdown_table(results: dict[str, dict[str, Any]], records: int, runs: int) -> str:
    return _table(
        f"{records:,} transaction info records, best of {runs} runs taken in turns",
        records,
        ["builder", "fee dtype", "fee exact Python int"],
        results,
        results["`pandas.json_normalize`"]["seconds"],
        lambda result: [result["fee_dtype"], "yes" if result["exact"] else "no"],
        aligned=False,
    )


def _table(
    title: str,
    records: int,
    names: list[str],
    results: dict[str, dict[str, Any]],
    baseline: float,
    cells: Callable[[dict[str, Any]], list[str]],
    *,
    aligned: bool = True,
) -> str:
    """A markdown table: name, time, rate, speed-up against `baseline`, peak memory, `cells`."""
    extra = "---:|" if aligned else "---|"
    lines = [
        title,
        "",
        f"| {names[0]} | best time (s) | records/s | speed-up | peak memory (MiB) | "
        + " | ".join(names[1:])
        + " |",
        "|---|---:|---:|---:|---:|" + extra * (len(names) - 1),
    ]
    for name, result in results.items():
        seconds = result["seconds"]
        lines.append(
            f"| {name} | {seconds:.3f} | {records / seconds:,.0f} | {baseline / seconds:.2f}x "
            f"| {result['peak_bytes'] / 2**20:,.1f} | " + " | ".join(cells(result)) + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    records = generate_records(args.records, args.seed)
    table = markdown_table(compare(records, args.runs), args.records, args.runs)
    print(table, flush=True)
    parquet = parquet_table(compare_parquet(records, args.runs), args.records, args.runs)
    print("\n" + parquet)
    return table + "\n\n" + parquet


if __name__ == "__main__":
    main()
