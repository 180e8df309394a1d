"""Planning a long event scan: a million blocks of one token's Transfers on the Developer plan
(100 blocks per ``eth_getLogs``), planned in chunks and priced before anything is sent, against
the lower bound of building the same 10,000 requests' params by hand (a list of dicts: no
validation, no pricing, no head). Printed as a markdown table; the target (at most 1 s for the
plan and its preview) is printed beside the measure with whether it is met.

Times are this process's CPU time (the other processes of a busy machine do not count), the
best of `--repeats` rounds in which the two take turns.

    python bench/bench_scan_plan.py [--blocks 1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

import toolkit
from toolkit.catalog import abi
from toolkit.sandbox import DEMO

DEVELOPER = toolkit.DEFAULT_PRICING.replace(plan_name="Developer")
TARGET_S = 1.0
CHUNK = 100  # the Developer plan's eth_getLogs cap


def ours(eth, head: int, blocks: int) -> int:
    work = toolkit.Workload().logs(
        eth, address=DEMO.evm.token, event="Transfer", from_block=head - blocks + 1, to_block=head
    )
    return work.preview().calls


def by_hand(head: int, blocks: int) -> int:
    topic = abi.event("Transfer(address,address,uint256)").topic0
    params = [
        {
            "address": DEMO.evm.token,
            "topics": [topic],
            "fromBlock": hex(start),
            "toBlock": hex(min(start + CHUNK - 1, head)),
        }
        for start in range(head - blocks + 1, head + 1, CHUNK)
    ]
    return len(params)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args(argv)
    eth = toolkit.connect(pricing=DEVELOPER).node("ethereum-mainnet")
    head = eth.head()
    best = {"ours": float("inf"), "hand": float("inf")}
    for _ in range(options.repeats):
        for name, work in (
            ("ours", lambda: ours(eth, head, options.blocks)),
            ("hand", lambda: by_hand(head, options.blocks)),
        ):
            started = time.process_time()
            calls = work()
            best[name] = min(best[name], time.process_time() - started)
    table = "\n".join(
        [
            "| contender | chunks | best CPU s | µs per chunk |",
            "|---|---:|---:|---:|",
            f"| ours: `Workload.logs` + `preview()` (validated, priced) | {calls:,} "
            f"| {best['ours']:.3f} | {best['ours'] / calls * 1e6:.1f} |",
            f"| the params built by hand (no validation, no pricing: lower bound) | {calls:,} "
            f"| {best['hand']:.3f} | {best['hand'] / calls * 1e6:.1f} |",
        ]
    )
    print(
        f"A scan of {options.blocks:,} blocks on the Developer plan, best of "
        f"{options.repeats} rounds (this process's CPU).\n"
    )
    print(table)
    if options.blocks == 1_000_000:
        met = "met" if best["ours"] <= TARGET_S else "not met"
    else:
        met = "not measured at this size"
    print(f"\nplanned and previewed: {best['ours']:.3f} s | <= {TARGET_S:g} s: {met}")
    return table


if __name__ == "__main__":
    main()
