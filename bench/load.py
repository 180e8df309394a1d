"""Load on the sandbox: independent clients (threads with sync clients, one async client) for a
bounded time on loopback. Prints calls, throughput, errors, and ledger vs server metering.

    python bench/load.py [--seconds 20] [--threads 8]

The test suite runs the same function for 3 seconds (tests/client/test_load.py).
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time

import toolkit
from toolkit.sandbox import DEMO, Sandbox


def run_load(sandbox: Sandbox, seconds: float, threads: int, rounds: int | None = None) -> dict:
    """Run the load; return counts, the gateways' ledgers and the server's metering.

    Each client repeats its round until `seconds` have passed, or exactly `rounds` times when
    given (the test's fixed workload: its outcome does not depend on how fast the machine is)."""
    info = sandbox.info
    deadline = time.monotonic() + seconds
    gateways = [
        toolkit.Gateway(info["platform_url"], info["api_key"], nodes=info["nodes"])
        for _ in range(threads + 1)
    ]
    errors: list[BaseException] = []

    def more(done: int) -> bool:
        return done < rounds if rounds is not None else time.monotonic() < deadline

    alice = DEMO.evm.accounts["alice"]

    def sync_client(gw: toolkit.Gateway) -> None:
        eth, tron = gw.node("ethereum-mainnet"), gw.node("tron-mainnet")
        done = 0
        try:
            while more(done):
                eth.get_balance(alice, block="latest")
                tron.get_block_by_latest_num(1)
                done += 1
        except BaseException as error:  # reported, not swallowed
            errors.append(error)

    async def async_client(gw: toolkit.Gateway) -> None:
        ton = gw.node("ton-mainnet").aio
        address = DEMO.ton.jettons[0].address
        done = 0
        while more(done):
            await asyncio.gather(*(ton.get_token_data(address) for _ in range(8)))
            done += 1

    started = time.monotonic()
    workers = [threading.Thread(target=sync_client, args=(gw,)) for gw in gateways[:threads]]
    for worker in workers:
        worker.start()
    asyncio.run(async_client(gateways[-1]))
    for worker in workers:
        worker.join(timeout=seconds + 30 if rounds is None else None)
    elapsed = time.monotonic() - started
    entries = [entry for gw in gateways for entry in gw.ledger.entries]
    server = sandbox.metering()
    return {
        "clients": len(gateways),
        "seconds": elapsed,
        "calls": len(entries),
        "failed": sum(entry.status != "ok" for entry in entries) + len(errors),
        "errors": errors,
        "client_ru": sum(entry.ru for entry in entries),
        "server_ru": sum(usage["ru"] for usage in server.values()),
        "server_calls": sum(usage["calls"] for usage in server.values()),
    }


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--threads", type=int, default=8)
    options = parser.parse_args(argv)
    with Sandbox(seed=0) as sandbox:
        result = run_load(sandbox, options.seconds, options.threads)
    table = "\n".join(
        [
            "| clients | seconds | calls | calls/s | failed | client ledger RU "
            "| server metered RU |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {result['clients']} | {result['seconds']:.1f} | {result['calls']:,} "
            f"| {result['calls'] / result['seconds']:,.0f} | {result['failed']} "
            f"| {result['client_ru']:,} | {result['server_ru']:,} |",
        ]
    )
    print(table)
    return table


if __name__ == "__main__":
    main()
