"""Throughput at a plan's ceiling: the sandbox, in a process of its own, enforces each node's
request rate (`python -m toolkit sandbox --plan Developer --rate-limit NODE=CALLS_PER_S`), and a
workload of single calls runs against it for a while. Printed as a markdown table: the calls a
second answered, as a share of the ceiling, and the 429 answers the sandbox sent, side by side
with the baselines (no client limit, the default before a plan set one; one limiter shared by
the handle's nodes, what a plan's name set before).

    python bench/bench_ceiling.py [--seconds 60]

Scenarios: one node at 25 calls a second (the Developer plan), one at 250, and one workload over
both under one budget (ceilings summed: 275).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings

import httpx

import toolkit
from toolkit.sandbox import DEMO

SLOW, FAST = "ethereum-mainnet", "arbitrum-mainnet"
CEILINGS = {SLOW: 25.0, FAST: 250.0}
DEVELOPER = toolkit.DEFAULT_PRICING.replace(plan_name="Developer")


class Served:
    """The sandbox in its own process, on the Developer plan with FAST at 250 calls a second."""

    def __enter__(self) -> Served:
        command = [
            sys.executable, "-m", "toolkit", "sandbox", "--plan", "Developer",
            "--rate-limit", f"{FAST}={CEILINGS[FAST]:g}", "--head-pace", "0",
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.info = json.loads(self.process.stdout.readline())
        self.http = httpx.Client(
            timeout=10, headers={"Authorization": f"Bearer {self.info['api_key']}"}
        )
        return self

    def limits(self) -> dict[str, dict]:
        return self.http.get(self.info["platform_url"] + "/_sandbox/limits").json()["nodes"]

    def refused(self) -> dict[str, int]:
        return {name: node["refused"] for name, node in self.limits().items()}

    def wait_until_whole(self, nodes: list[str]) -> None:
        """Wait until each node's whole allowance is back (a baseline's batches overdraw it):
        every run starts alike."""
        while waits := [self.limits()[name]["whole_in_s"] for name in nodes]:
            if max(waits) == 0:
                return
            time.sleep(max(waits) + 0.05)

    def metered(self) -> dict[str, dict]:
        return self.http.get(self.info["platform_url"] + "/_sandbox/metering").json()

    def __exit__(self, *exc_info: object) -> None:
        self.http.close()
        self.process.terminate()
        self.process.wait(timeout=10)


def run(
    served: Served, nodes: list[str], seconds: float, batch_size: int, budget: bool, **options
) -> dict:
    """One workload of eth_getBalance calls, `seconds` of each node's ceiling, over `nodes` of
    one handle, sent in batches of `batch_size`, under one budget of what the preview says when
    `budget` (a baseline runs without: the client counts each 429 as billed, so its refusals
    would end the run early); what it achieved."""
    info = served.info
    gateway = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], cache=False, **options
    )
    work = toolkit.Workload()
    alice = DEMO.evm.accounts["alice"]
    for name in nodes:
        calls = round(CEILINGS[name] * seconds)
        work.each(gateway.node(name), "eth_getBalance", [alice] * calls, param="address")
    if budget:
        gateway.set_budget(work.preview(fetch_heads=False).ru_high)
    served.wait_until_whole(nodes)
    refused_before, metered_before = served.refused(), served.metered()
    started = time.perf_counter()
    with warnings.catch_warnings():  # a baseline's failures are counted in the table
        warnings.simplefilter("ignore")
        results = work.run(progress=False, batch_size=batch_size, concurrency=32)
    elapsed = time.perf_counter() - started
    refused_after, metered_after = served.refused(), served.metered()
    answered = int(results["error"].isna().sum())
    ceiling = sum(CEILINGS[name] for name in nodes)
    ru = sum(metered_after[n]["ru"] - metered_before[n]["ru"] for n in nodes)
    gateway.close()
    return {
        "rate": answered / elapsed,
        "share": answered / elapsed / ceiling,
        "refused": sum(refused_after[n] - refused_before[n] for n in nodes),
        "failed": len(results) - answered,
        "why": ", ".join(f"{n} {e}" for e, n in results["error"].value_counts().items()),
        "ledger_matches": gateway.ledger.total_ru == ru,
    }


SCENARIOS = [
    # (scenario, nodes, batch size): the run's default batches of 100, and single calls
    ("one node, Developer plan", [SLOW], 100),
    ("one node, Developer plan", [SLOW], 1),
    ("one node, 250 calls/s", [FAST], 100),
    ("two nodes, one workload, one budget", [SLOW, FAST], 100),
]
CLIENTS = [
    # (client, under a budget, its options, run for two nodes only). The toolkit is told the
    # plan, and the one node whose ceiling is not the plan's: each node is held to its own.
    (
        "toolkit: each node at its ceiling by default",
        True,
        {"pricing": DEVELOPER, "rate_limit": {FAST: CEILINGS[FAST]}},
        False,
    ),
    ("baseline: no client limit (the default before)", False, {"rate_limit": None}, False),
    ("baseline: one limiter for the handle (`rate_limit=275`)", False, {"rate_limit": 275.0}, True),
]


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="each run's length")
    options = parser.parse_args(argv)
    rows = [
        "| scenario | batch | client | budget | ceiling (calls/s) | achieved (calls/s) "
        "| % of ceiling | 429 answers | failed calls | ledger RU = metered RU |",
        "|---|---:|---|---|---:|---:|---:|---:|---|---|",
    ]
    with Served() as served:
        run(served, [FAST], 0.2, 1, False)  # a process's first run pays for its imports
        for scenario, nodes, batch_size in SCENARIOS:
            ceiling = sum(CEILINGS[name] for name in nodes)
            for client, budget, settings, two_only in CLIENTS:
                if two_only and len(nodes) < 2:
                    continue
                measured = run(served, nodes, options.seconds, batch_size, budget, **settings)
                failed = f"{measured['failed']} ({measured['why']})" if measured["failed"] else "0"
                rows.append(
                    f"| {scenario} | {batch_size} | {client} | {'yes' if budget else 'no'} "
                    f"| {ceiling:g} "
                    f"| {measured['rate']:.1f} | {measured['share']:.1%} | {measured['refused']} "
                    f"| {failed} | {'yes' if measured['ledger_matches'] else 'no'} |"
                )
    table = "\n".join(rows)
    print(
        f"Runs of {options.seconds:g} s of each node's ceiling (eth_getBalance, 32 requests in "
        "flight; a batch of N counts N calls), the sandbox in its own process on loopback.\n"
    )
    print(table)
    return table


if __name__ == "__main__":
    main()
