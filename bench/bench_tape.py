"""Benchmark: a notebook-like session replayed from a tape, beside the same session against the
sandbox (in a process of its own, over loopback HTTP), measured in turns in one run.

The session: a head, a balance, a batch, TRON and TON REST calls, the platform's node list, and a
workload of `--calls` balances and 50 TRON transaction infos. It is recorded once; then each
round runs it against the sandbox and from the tape (no socket), and the best round of each
counts. The target: replaying is at least as fast as the sandbox (issue: notebooks from tapes run
at least as fast as against the sandbox). Also reported: the tape's size, compressed.

    python bench/bench_tape.py [--calls 2000] [--rounds 3] [--quick]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_bulk import start_sandbox  # this folder: the sandbox in a process of its own

import toolkit
from toolkit.workloads._workload import Workload


def session(gateway: toolkit.Gateway, calls: int) -> int:
    """What a notebook does; returns how many calls it made."""
    eth, tron, ton = (gateway.node(n) for n in ("ethereum-mainnet", "tron-mainnet", "ton-mainnet"))
    head = eth.head()
    addresses = [f"0x{index:040x}" for index in range(1, calls // 10 + 1)]
    eth.get_balance(addresses[0], head - 300)
    eth.batch([("eth_getBalance", a, hex(head - 10)) for a in addresses[:5]])
    tron.call("wallet/getnowblock")
    ton.call("api/v2/getMasterchainInfo")
    gateway.nodes()
    work = Workload().grid(eth, "eth_getBalance", addresses, range(head - 1_000, head - 1_010, -1))
    work.each(tron, "wallet/gettransactioninfobyblocknum", range(1_000, 1_050), param="num")
    frame = work.run(progress=False)
    assert frame["error"].isna().all(), frame["error"].value_counts()
    return len(gateway.ledger)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="300 calls, 2 rounds")
    options = parser.parse_args(argv)
    calls, rounds = (300, 2) if options.quick else (options.calls, options.rounds)
    process, info = start_sandbox()
    best: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory() as workdir:
            tape = Path(workdir) / "session.tape.gz"

            def live() -> toolkit.Gateway:
                return toolkit.Gateway(
                    info["platform_url"], info["api_key"], nodes=info["nodes"], cache=False
                )

            recorder = toolkit.Gateway(
                info["platform_url"], info["api_key"], nodes=info["nodes"], tape=tape,
                tape_mode="record",
            )  # fmt: skip
            made = session(recorder, calls)
            recorder.close()
            size = tape.stat().st_size
            contenders = {
                "against the sandbox (loopback HTTP)": live,
                "replayed from the tape (no socket)": lambda: toolkit.connect(
                    tape=tape, tape_mode="replay"
                ),
            }
            for _ in range(rounds):
                for name, connect in contenders.items():  # in turns
                    gateway = connect()
                    started = time.perf_counter()
                    session(gateway, calls)
                    seconds = time.perf_counter() - started
                    gateway.close()
                    best[name] = min(best.get(name, seconds), seconds)
    finally:
        process.terminate()
        process.wait(timeout=10)
    live_s, replay_s = best.values()
    ratio = replay_s / live_s
    verdict = "met" if ratio <= 1.0 else "NOT met"
    lines = [
        f"A notebook-like session of {made:,} calls (best of {rounds} rounds, in turns); the "
        f"tape holds it in {size / 1024:,.0f} KiB",
        "",
        "| contender | seconds | calls/s |",
        "|---|---:|---:|",
        *(f"| {name} | {s:.2f} | {made / s:,.0f} |" for name, s in best.items()),
        "",
        f"Replay ÷ sandbox time: {ratio:.2f} (target at most 1.0: {verdict}).",
    ]
    report = "\n".join(lines)
    print(report, flush=True)
    return report


if __name__ == "__main__":
    main()
