"""Benchmark: the embedded sandbox reached in process (no socket, no thread) beside the same
sandbox over loopback HTTP, measured in turns in one run.

One `Sandbox` in this process, served on loopback by its uvicorn thread (what other processes
and clients reach) and reachable in process (`InProcessTransport`, what `connect()` uses).
Each contender makes `--calls` blocking calls, one at a time as a notebook does, cycling
through a mix of surfaces: EVM JSON-RPC reads on three chains, a TRON REST call and a TON REST
call (the response cache off). The best of
`--rounds` rounds counts. The target: in process at least 2x as fast. The sandbox's
meter must count the same requests and RU for both.

    python bench/bench_in_process.py [--calls 10000] [--rounds 3] [--quick]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import toolkit
from toolkit.sandbox import DEMO, Sandbox

ALICE = DEMO.evm.accounts["alice"]
MIX: list[tuple[str, str, tuple]] = [
    ("ethereum-mainnet", "eth_blockNumber", ()),
    ("polygon-mainnet", "eth_getBalance", (ALICE, "latest")),
    ("arbitrum-mainnet", "eth_chainId", ()),
    ("tron-mainnet", "wallet/getnowblock", ()),
    ("ton-mainnet", "api/v2/getMasterchainInfo", ()),
]
IN_PROCESS = "in process (`InProcessTransport`, no socket)"
LOOPBACK = "loopback HTTP (uvicorn thread, httpx)"


def gateway(sandbox: Sandbox, port: int) -> toolkit.Gateway:
    """A handle on `sandbox` at `port`: 0 is reached in process (as `connect()` reaches its
    sandbox), the served port over loopback HTTP."""
    info = sandbox.info
    served = f"127.0.0.1:{sandbox.port}"

    def at(url: str) -> str:
        return url.replace(served, f"127.0.0.1:{port}")

    nodes = {name: at(url) for name, url in info["nodes"].items()}
    return toolkit.Gateway(
        at(info["platform_url"]), info["api_key"], nodes=nodes, sandbox=sandbox, cache=False
    )


def run(handle: toolkit.Gateway, calls: int) -> float:
    nodes = [(handle.node(name), method, params) for name, method, params in MIX]
    for node, method, params in nodes:  # clients made and connected before the clock starts
        node.call(method, *params)
    started = time.perf_counter()
    for index in range(calls):
        node, method, params = nodes[index % len(nodes)]
        node.call(method, *params)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1,000 calls, 1 round")
    options = parser.parse_args(argv)
    calls, rounds = (1_000, 1) if options.quick else (options.calls, options.rounds)
    best: dict[str, float] = {}
    metered: dict[str, tuple[int, int]] = {}
    with Sandbox(seed=0, head_pace=0) as sandbox:
        sandbox.in_process()  # served on loopback and reachable in process: one meter
        contenders: dict[str, Callable[[], toolkit.Gateway]] = {
            IN_PROCESS: lambda: gateway(sandbox, 0),
            LOOPBACK: lambda: gateway(sandbox, sandbox.port),
        }
        for _ in range(rounds):
            for name, make in contenders.items():  # in turns
                handle = make()
                sandbox.reset_metering()
                seconds = run(handle, calls)
                used = sandbox.metering().values()
                metered[name] = (sum(u["requests"] for u in used), sum(u["ru"] for u in used))
                handle.close()
                best[name] = min(best.get(name, seconds), seconds)
    ratio = best[LOOPBACK] / best[IN_PROCESS]
    verdict = "met" if ratio >= 2.0 else "NOT met"
    lines = [
        f"{calls:,} blocking calls, one at a time, over {len(MIX)} methods of four chains "
        f"(best of {rounds} round{'s' * (rounds > 1)}, in turns; the same sandbox)",
        "",
        "| contender | seconds | calls/s | µs per call | metered requests | metered RU |",
        "|---|---:|---:|---:|---:|---:|",
        *(
            f"| {name} | {s:.2f} | {calls / s:,.0f} | {s / calls * 1e6:,.0f} | "
            f"{metered[name][0]:,} | {metered[name][1]:,} |"
            for name, s in best.items()
        ),
        "",
        f"Loopback ÷ in-process time: {ratio:.1f}x (target at least 2x: {verdict}).",
    ]
    assert metered[IN_PROCESS] == metered[LOOPBACK], metered  # one meter, the same requests
    report = "\n".join(lines)
    print(report, flush=True)
    return report


if __name__ == "__main__":
    main()
