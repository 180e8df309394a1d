"""Benchmark: bulk workloads, ours against the usual ways, measured side by side in one run.

1. 1,000 ``eth_getBalance`` against Anvil (a real EVM node), 50 addresses at 20 old blocks:
   ``Workload.grid`` + ``run`` (the async engine, batches of 100; the response cache off, as
   the goal states, and on, emptied before each round) against web3.py sync, web3.py
   ``AsyncWeb3`` + ``asyncio.gather``, and one raw JSON-RPC batch of 1,000 sent by a kept-alive
   ``httpx.Client`` (the lower bound: no validation, pricing or ledger, and no client set-up,
   which was most of a bare ``httpx.post``'s time). Beside them, the toolkit's own CPU per call of
   a fresh run (the CPU time of this process, in which Anvil has no share: it runs in its own).
2. 1,000 TRON REST calls (``wallet/gettransactioninfobyblocknum``) against the sandbox, served by
   its own process so that client and server do not share a core: ``Workload.run`` against a
   plain httpx sync loop and raw aiohttp at the same concurrency (32).
3. The same two workloads re-run from the response cache: in the same process (the answers
   this process read or stored lately are in memory) and through a new handle on the cache file
   (what a new kernel sees: every answer read from SQLite). A re-run takes a few ms, so the
   EVM re-runs take turns with the raw lower bound in rounds of their own (at least
   `RERUN_ROUNDS`), and goal 2's ratio compares times from the same rounds.

Times are the best of `--repeats` rounds in which the contenders take turns, after a warm-up
round (ours starts each first run from an empty cache). Memory is the peak of Python allocations
traced by ``tracemalloc`` during one extra, untimed run of each (allocations inside C libraries,
aiohttp's parser or SQLite, are not seen). Prints markdown tables.

    python bench/bench_bulk.py [--calls 1000] [--repeats 5] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import pandas as pd

import toolkit
from toolkit.workloads._workload import Workload

ROOT = Path(__file__).resolve().parents[1]
ANVIL = ROOT / ".tools" / "node_modules" / ".bin" / "anvil"
CONCURRENCY = 32
RERUN_ROUNDS = 15  # the cached re-runs and the lower bound, taking turns (see evm_rows)
OURS_EVM = "ours: Workload.run (async engine, batches of 100, cache off)"
OURS_EVM_CACHE = "ours: the same, the response cache on (emptied first)"
WEB3_GATHER = "web3.py AsyncWeb3 + asyncio.gather"
LOWER_BOUND = "raw kept-alive httpx.Client, one batch of all (lower bound)"
LEAST_ON_COLUMNS = "the least run on columns (`columnar_sketch`: no pricing, budget or ledger)"
GRID_AGAIN = "the grid planned again (its validations remembered)"
FRAME_ALONE = "the run's frame alone, made from its ready columns"
OURS_TRON = "ours: Workload.run (async engine, 32 in flight, cache off)"
OURS_TRON_CACHE = "ours: the same, the response cache on (emptied first)"
RAW_AIOHTTP = "raw aiohttp, 32 in flight"


@dataclass
class Row:
    name: str
    seconds: float
    calls: int
    peak_kib: float | None = None
    note: str = ""

    @property
    def rate(self) -> float:
        return self.calls / self.seconds


@dataclass
class Contender:
    name: str
    run: Callable[[], object]
    prepare: Callable[[], None] = lambda: None
    note: str = ""


def measure(contenders: list[Contender], calls: int, repeats: int) -> dict[str, Row]:
    """Each contender's best wall time over `repeats` rounds, the contenders taking turns within
    a round (so a server slowing down or speeding up affects them alike), after one warm-up run
    each; then the tracemalloc peak of one more, untimed run of each."""
    best = {c.name: float("inf") for c in contenders}
    for round_number in range(repeats + 1):
        for contender in contenders:
            contender.prepare()
            gc.collect()
            started = time.perf_counter()
            contender.run()
            elapsed = time.perf_counter() - started
            if round_number > 0:  # round 0 warms up: imports, connections, server caches
                best[contender.name] = min(best[contender.name], elapsed)
    rows = {}
    for contender in contenders:
        contender.prepare()
        gc.collect()
        tracemalloc.start()
        contender.run()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows[contender.name] = Row(
            contender.name, best[contender.name], calls, peak / 1024, contender.note
        )
    return rows


def table(title: str, rows: list[Row], reference: Row | None = None) -> str:
    lines = [f"**{title}**", ""]
    against = f" | vs {reference.name}" if reference else ""
    lines.append(f"| client | seconds | calls/s | peak KiB (tracemalloc){against} | note |")
    lines.append("|---|---:|---:|---:|" + ("---:|" if reference else "") + "---|")
    for row in rows:
        ratio = f" | {row.rate / reference.rate:.2f}x" if reference else ""
        peak = f"{row.peak_kib:,.0f}" if row.peak_kib is not None else "-"
        lines.append(
            f"| {row.name} | {row.seconds:.3f} | {row.rate:,.0f} | {peak}{ratio} | {row.note} |"
        )
    return "\n".join(lines)


# --- servers ------------------------------------------------------------------------------------


def start_anvil(workdir: str) -> tuple[subprocess.Popen, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [str(ANVIL), "--host", "127.0.0.1", "--port", str(port), "--cache-path", workdir],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HOME": workdir},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            rpc(url, "eth_chainId")
            return process, url
        except httpx.TransportError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("Anvil did not start") from None
            time.sleep(0.05)


def start_sandbox() -> tuple[subprocess.Popen, dict]:
    process = subprocess.Popen(
        [sys.executable, "-m", "toolkit", "sandbox", "--head-pace", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    return process, json.loads(process.stdout.readline())


def forget_validations() -> None:
    """A first run validates every call: forget the calls validated in earlier rounds, which a
    re-run (the cached rows) is allowed to remember."""
    from toolkit.catalog import _model

    _model.forget_validations()


def rpc(url: str, method: str, *params: object) -> object:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    return httpx.post(url, json=body, timeout=10).json()["result"]


# --- 1. eth_getBalance on Anvil ----------------------------------------------------------------


def evm_section(calls: int, repeats: int, workdir: str, smoke: bool = False) -> tuple[str, str]:
    process, url = start_anvil(workdir)
    try:
        rpc(url, "anvil_mine", hex(400))
        head = int(rpc(url, "eth_blockNumber"), 16)
        # 50 addresses x 20 old blocks (the node is not the bottleneck), as the goal states.
        addresses = [rpc(url, "eth_accounts")[0]] + [f"0x{i:040x}" for i in range(1, 50)]
        blocks = [head - 300 + i for i in range(max(1, calls // len(addresses)))]
        return evm_rows(url, addresses, blocks, repeats, workdir, smoke)
    finally:
        process.terminate()
        process.wait(timeout=10)


def evm_rows(
    url: str, addresses: list[str], blocks: list[int], repeats: int, workdir: str, smoke: bool
):
    # A smoke run (`--quick`) makes one round of each kind: each round collects the garbage of
    # the whole process first, which made most of its time at fifteen.
    rerun_rounds = repeats if smoke else max(repeats, RERUN_ROUNDS)
    cpu_rounds = repeats if smoke else max(repeats, 3)
    from web3 import AsyncHTTPProvider, AsyncWeb3, HTTPProvider, Web3

    pairs = [(address, block) for address in addresses for block in blocks]
    n = len(pairs)
    cache_file = Path(workdir) / "evm-cache.sqlite"
    eth = toolkit.node(url, chain="ethereum", name="anvil", cache=cache_file)
    w3 = Web3(HTTPProvider(url))

    def ours(batch_size: int = 100, node: toolkit.Node | None = None) -> pd.DataFrame:
        work = Workload().grid(node or eth, "eth_getBalance", addresses, blocks)
        frame = work.run(progress=False, batch_size=batch_size, concurrency=CONCURRENCY)
        assert frame["error"].isna().all(), frame["message"].dropna().head()
        return frame

    def web3_sync() -> None:
        for address, block in pairs:
            w3.eth.get_balance(Web3.to_checksum_address(address), block)

    def web3_async() -> None:
        async def main():
            aw3 = AsyncWeb3(AsyncHTTPProvider(url))
            await asyncio.gather(
                *(aw3.eth.get_balance(Web3.to_checksum_address(a), b) for a, b in pairs)
            )
            await aw3.provider.disconnect()

        asyncio.run(main())

    def singles(client_class: Callable[[], object]) -> None:
        """32 single calls in flight with a raw client: what batching off costs at best."""

        async def main():
            limit = asyncio.Semaphore(CONCURRENCY)
            async with client_class() as client:

                async def one(index: int, address: str, block: int):
                    body = {
                        "jsonrpc": "2.0",
                        "id": index,
                        "method": "eth_getBalance",
                        "params": [address, hex(block)],
                    }
                    async with limit:
                        return await post_json(client, url, body)

                await asyncio.gather(*(one(i, a, b) for i, (a, b) in enumerate(pairs)))

        asyncio.run(main())

    # The strongest honest bound: one client, connected once and kept alive across rounds (the
    # warm-up round opens its connection), one batch of every call, the body made once.
    raw_client = httpx.Client(timeout=30)
    raw_body = [
        {"jsonrpc": "2.0", "id": i, "method": "eth_getBalance", "params": [a, hex(b)]}
        for i, (a, b) in enumerate(pairs)
    ]

    def raw_batch() -> None:
        answers = raw_client.post(url, json=raw_body).json()
        assert len(answers) == n

    def clear_cache() -> None:
        eth.cache.clear()
        eth.forget_head()
        forget_validations()

    # httpx's own pool queues calls for long under load: a generous deadline, as this row
    # measures throughput, not deadlines.
    plain = toolkit.node(
        url, chain="ethereum", name="anvil", cache=False, async_transport="httpx", timeout=600
    )
    unbatched = toolkit.node(url, chain="ethereum", name="anvil", cache=False)
    uncached = toolkit.node(url, chain="ethereum", name="anvil", cache=False)

    def cold_start() -> None:  # what a first run pays: the head, and every validation
        uncached.forget_head()
        forget_validations()

    sketch, close_sketch = columnar_sketch(url, addresses, blocks)

    measured = measure(
        [
            Contender(OURS_EVM, lambda: ours(node=uncached), cold_start),
            Contender(OURS_EVM_CACHE, ours, clear_cache),
            Contender("ours: batching off (aiohttp, 32 in flight)", lambda: ours(1, unbatched)),
            Contender("ours: batching off, plain httpx.AsyncClient", lambda: ours(1, plain)),
            Contender("raw aiohttp, batching off, 32 in flight", lambda: singles(aiohttp_session)),
            Contender(
                "raw httpx.AsyncClient over httpx_aiohttp.AiohttpTransport, batching off",
                lambda: singles(httpx_over_aiohttp),
            ),
            Contender("web3.py sync", web3_sync),
            Contender(WEB3_GATHER, web3_async),
            Contender(LEAST_ON_COLUMNS, sketch),
            Contender(LOWER_BOUND, raw_batch),
        ],
        n,
        repeats,
    )
    rows = list(measured.values())
    first, web3_gather, bound = measured[OURS_EVM], measured[WEB3_GATHER], measured[LOWER_BOUND]
    least = measured[LEAST_ON_COLUMNS]
    with_cache = measured[OURS_EVM_CACHE]
    clear_cache()
    ru_before = eth.ledger.total_ru
    frame = ours()  # a clean first run fills the cache for section 3
    spent_first = eth.ledger.total_ru - ru_before
    ru_before = eth.ledger.total_ru
    # What any re-run of these calls makes, whatever it does between: the calls a workload
    # holds (a `PlannedCall` each, public) and the frame pandas builds of its columns.
    columns = {name: frame[name].array for name in frame.columns}
    grid = (addresses, blocks)
    # The re-runs take a few ms: they take turns with the lower bound in rounds of their own,
    # more of them, so that both sides of the ratio are measured alike, side by side.
    cached, from_disk, spent_from_disk, references = cached_reruns(
        ours,
        lambda cache: toolkit.node(url, chain="ethereum", name="anvil", cache=cache),
        n,
        rerun_rounds,
        cache_file,
        references=[
            Contender(LOWER_BOUND, raw_batch),
            Contender(GRID_AGAIN, lambda: Workload().grid(eth, "eth_getBalance", *grid)),
            Contender(FRAME_ALONE, lambda: pd.DataFrame(columns, copy=False)),
        ],
    )
    rerun_bound = references[LOWER_BOUND]
    rerun_floor = references[GRID_AGAIN].seconds + references[FRAME_ALONE].seconds
    spent_again = eth.ledger.total_ru - ru_before + spent_from_disk
    title = (
        f"1. {n:,} eth_getBalance on Anvil ({len(addresses)} addresses x {len(blocks)} blocks), "
        f"best of {repeats} rounds"
    )
    own_cpu = own_cpu_per_call(lambda: ours(node=uncached), cold_start, n, cpu_rounds)
    sketch_cpu = own_cpu_per_call(sketch, lambda: None, n, cpu_rounds)
    close_sketch()
    text = table(title, rows, reference=web3_gather)
    # Each target printed beside the least it can be here, measured in the same rounds; the
    # cached re-run's target was dropped (see docs/benchmarks.md, "Targets dropped").
    ratio = first.rate / bound.rate
    text += (
        "\n\n| ratio | measured | the least it can be here | target |\n|---|---|---|---|\n"
        f"| fresh {n:,}-call Workload / kept-alive raw one-batch client (rate) | "
        f"{ratio:.2f}x | {least.rate / bound.rate:.2f}x (the least run on "
        f"columns) | >= 0.9x: {'met' if ratio >= 0.9 else 'not met'} |\n"
        f"| cached re-run / kept-alive raw one-batch client (time) | "
        f"{cached.seconds / rerun_bound.seconds:.2f}x | {rerun_floor / rerun_bound.seconds:.2f}x "
        f"(the grid planned again, {references[GRID_AGAIN].seconds * 1000:.2f} ms, and its frame "
        f"alone, {references[FRAME_ALONE].seconds * 1000:.2f} ms) | dropped (was <= 0.1x) |\n"
        f"| the toolkit's own CPU per fresh call (this process's CPU time, Anvil's not in it; "
        f"best of {cpu_rounds}) | {own_cpu * 1e6:.1f} µs | {sketch_cpu * 1e6:.1f} µs (the "
        "same calls run on columns at the least, `columnar_sketch`) | <= 15 µs: "
        f"{'met' if own_cpu <= 15e-6 else 'not met'} |"
    )
    text += (
        f"\n\nours / lower bound: {first.rate / bound.rate:.2f} "
        f"({with_cache.rate / bound.rate:.2f} with the cache on; the least run on columns "
        f"{least.rate / bound.rate:.2f}); "
        f"ours / AsyncWeb3+gather: {first.rate / web3_gather.rate:.1f}x (target 10x); "
        f"cached re-run / lower bound's time: {cached.seconds / rerun_bound.seconds:.2f} "
        f"({from_disk.seconds / rerun_bound.seconds:.2f} through a new "
        f"handle on the file; best of {rerun_rounds} rounds each, the lower bound "
        f"{rerun_bound.seconds * 1000:.1f} ms in them)"
    )
    cache_row = cache_table_row(
        f"{n:,} eth_getBalance (Anvil)", with_cache, cached, from_disk, spent_first, spent_again
    )
    for client in (eth, plain, unbatched, uncached):
        client.close()
    raw_client.close()
    return text, cache_row


def own_cpu_per_call(
    run: Callable[[], None], prepare: Callable[[], None], calls: int, repeats: int
) -> float:
    """The best CPU time of this process per call over `repeats` runs after a warm-up (each run
    prepared as a first run): the toolkit's own work, and its HTTP client's, without the
    server's, which runs in a process of its own."""
    best = float("inf")
    for round_number in range(repeats + 1):
        prepare()
        gc.collect()
        started = time.process_time()
        run()
        if round_number > 0:
            best = min(best, (time.process_time() - started) / calls)
    return best


def cached_reruns(
    run: Callable[..., object],
    open_node: Callable[[object], toolkit.Node],
    n: int,
    repeats: int,
    cache_file: Path,
    references: Sequence[Contender] = (),
) -> tuple[Row, Row, int, dict[str, Row]]:
    """The cached re-run in this process (answers in memory), and through a new handle on the
    same cache file each round (every answer read from SQLite, as in a new kernel), taking turns
    with `references`; the RU the second kind spent (the first's is in its node's ledger); and
    the references' rows by name."""
    from toolkit.client._cache import ResponseCache

    handles: list[toolkit.Node] = []

    def new_handle() -> None:
        handles.append(open_node(ResponseCache(cache_file)))

    rows = measure(
        [
            Contender("cached", run),
            Contender("from disk", lambda: run(node=handles[-1]), new_handle),
            *references,
        ],
        n,
        repeats,
    )
    spent = sum(handle.ledger.total_ru for handle in handles)
    for handle in handles:
        handle.cache.close()
        handle.close()
    return rows["cached"], rows["from disk"], spent, {c.name: rows[c.name] for c in references}


def cache_table_row(
    name: str, first: Row, cached: Row, from_disk: Row, spent_first: int, spent_again: int
) -> str:
    return (
        f"| {name} | {first.seconds:.3f} | {cached.seconds:.4f} "
        f"| {first.seconds / cached.seconds:.0f}x | {from_disk.seconds:.4f} | {spent_first:,} "
        f"| {spent_again} | {cached.peak_kib:,.0f} |"
    )


def columnar_sketch(
    url: str, addresses: list[str], blocks: list[int]
) -> tuple[Callable[[], None], Callable[[], None]]:
    """The least a run of the grid's calls costs when it works on columns rather than on an
    object per call: each distinct value checked and written as JSON once, one params text per
    call, batch bodies of 100 joined from them, sent by aiohttp (32 in flight at most), the
    answers decoded and put in id order, the values typed, and a frame of the run's main columns.
    Not a client: nothing is priced, budgeted or written to a ledger. It runs on the toolkit's
    background loop, its connections kept between runs as ours are. Returns (run, close)."""
    import aiohttp
    import numpy as np
    import pandas as pd

    from toolkit.catalog.encoding import check_evm_address
    from toolkit.client._loop import run_sync

    session: list[aiohttp.ClientSession] = []

    async def run() -> None:
        if not session:
            session.append(aiohttp.ClientSession())
        address_text = {a: json.dumps(check_evm_address(a).lower()) for a in addresses}
        block_text = {b: f'"{hex(b)}"' for b in blocks}
        params = [f"[{address_text[a]},{block_text[b]}]" for a in addresses for b in blocks]
        headers = {"content-type": "application/json"}
        limit = asyncio.Semaphore(CONCURRENCY)

        async def batch(start: int) -> list[str]:
            body = ",".join(
                f'{{"jsonrpc":"2.0","id":{start + i},"method":"eth_getBalance","params":{text}}}'
                for i, text in enumerate(params[start : start + 100])
            )
            async with limit, session[0].post(url, data=f"[{body}]", headers=headers) as answer:
                answers = json.loads(await answer.read())
            answers.sort(key=lambda a: a["id"])
            return [a["result"] for a in answers]

        parts = await asyncio.gather(*(batch(s) for s in range(0, len(params), 100)))
        results = [result for part in parts for result in part]
        n = len(results)
        frame = pd.DataFrame(
            {
                "node": pd.array(["anvil"] * n, dtype="string"),
                "method": pd.array(["eth_getBalance"] * n, dtype="string"),
                "params": pd.array(params, dtype="string"),
                "result": pd.Series(results, dtype=object),
                "value": pd.Series([int(r, 16) for r in results], dtype=object),
                "ru": np.ones(n, np.int64),
            }
        )
        assert len(frame) == len(addresses) * len(blocks)

    async def close() -> None:
        if session:
            await session.pop().close()

    return lambda: run_sync(run()), lambda: run_sync(close())


def aiohttp_session():
    import aiohttp

    return aiohttp.ClientSession()


def httpx_over_aiohttp():
    from httpx_aiohttp import AiohttpTransport

    return httpx.AsyncClient(transport=AiohttpTransport())


async def post_json(client, url: str, body: dict) -> object:
    if isinstance(client, httpx.AsyncClient):
        return (await client.post(url, json=body)).json()
    async with client.post(url, json=body) as answer:
        return await answer.json()


# --- 2. TRON REST on the sandbox ---------------------------------------------------------------


def tron_section(calls: int, repeats: int, workdir: str) -> tuple[str, str]:
    process, info = start_sandbox()
    try:
        return tron_rows(info, calls, repeats, workdir)
    finally:
        process.terminate()
        process.wait(timeout=10)


def tron_rows(info: dict, n: int, repeats: int, workdir: str):
    import aiohttp

    base = info["nodes"]["tron-mainnet"]
    cache_file = Path(workdir) / "tron-cache.sqlite"
    gateway = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], cache=cache_file
    )
    tron = gateway.node("tron-mainnet")
    head = tron.head()
    numbers = range(head - 100 - n, head - 100)
    url = base + "/wallet/gettransactioninfobyblocknum"
    httpx.post(base + "/wallet/getblockbylatestnum", json={"num": 1})  # server warm

    def ours(node: toolkit.Node = tron) -> None:
        work = Workload().each(node, "wallet/gettransactioninfobyblocknum", numbers, param="num")
        frame = work.run(progress=False, concurrency=CONCURRENCY)
        assert frame["error"].isna().all(), frame["message"].dropna().head()

    def httpx_sync() -> None:
        with httpx.Client() as client:
            for number in numbers:
                client.post(url, json={"num": number}).json()

    def raw_aiohttp() -> None:
        async def main():
            limit = asyncio.Semaphore(CONCURRENCY)
            async with aiohttp.ClientSession() as session:

                async def one(number: int):
                    async with limit, session.post(url, json={"num": number}) as answer:
                        return await answer.json()

                await asyncio.gather(*(one(number) for number in numbers))

        asyncio.run(main())

    def clear_cache() -> None:
        gateway.cache.clear()
        forget_validations()

    uncached = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], cache=False
    ).node("tron-mainnet")
    measured = measure(
        [
            Contender(OURS_TRON, lambda: ours(node=uncached), forget_validations),
            Contender(OURS_TRON_CACHE, ours, clear_cache),
            Contender("plain httpx sync loop", httpx_sync),
            Contender(RAW_AIOHTTP, raw_aiohttp),
        ],
        n,
        repeats,
    )
    rows = list(measured.values())
    first, bound = measured[OURS_TRON], measured[RAW_AIOHTTP]
    with_cache = measured[OURS_TRON_CACHE]
    clear_cache()
    ru_before = gateway.ledger.total_ru
    ours()  # a clean first run fills the cache for section 3
    spent_first = gateway.ledger.total_ru - ru_before
    ru_before = gateway.ledger.total_ru
    cached, from_disk, spent_from_disk, _ = cached_reruns(
        ours,
        lambda cache: toolkit.Gateway(
            info["platform_url"], info["api_key"], nodes=info["nodes"], cache=cache
        ).node("tron-mainnet"),
        n,
        repeats,
        cache_file,
    )
    spent_again = gateway.ledger.total_ru - ru_before + spent_from_disk
    title = f"2. {n:,} TRON REST calls on the sandbox, best of {repeats} rounds"
    text = table(title, rows, reference=bound)
    text += (
        f"\n\nours / raw aiohttp: {first.rate / bound.rate:.2f} (target 0.8; "
        f"{with_cache.rate / bound.rate:.2f} with the cache on)"
    )
    cache_row = cache_table_row(
        f"{n:,} TRON gettransactioninfobyblocknum (sandbox)",
        with_cache,
        cached,
        from_disk,
        spent_first,
        spent_again,
    )
    uncached.close()
    gateway.close()
    return text, cache_row


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=None, help="1,000, or 200 with --quick")
    # Five rounds: a single run of ours or of the lower bound varies by a third from one round to
    # the next on a 2-core machine (25 to 38 ms for the same cache-off run in one session).
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--quick", action="store_true", help="200 calls, one timed round (a smoke check)"
    )
    options = parser.parse_args(argv)
    repeats = 1 if options.quick else options.repeats
    if options.calls is None:
        options.calls = 200 if options.quick else 1000
    parts = []
    with tempfile.TemporaryDirectory(prefix="bench-bulk-") as workdir:
        cache_rows = []
        if ANVIL.exists():
            text, row = evm_section(options.calls, repeats, workdir, smoke=options.quick)
            parts.append(text)
            cache_rows.append(row)
        else:
            parts.append("1. skipped: Anvil is not installed (`make anvil`)")
        text, row = tron_section(options.calls, repeats, workdir)
        parts.append(text)
        cache_rows.append(row)
    parts.append(
        "\n".join(
            [
                "**3. The same workloads re-run from the response cache**",
                "",
                "| workload | first run s | cached re-run s | speed-up | re-run, new handle s "
                "| RU first | RU re-runs | peak KiB re-run |",
                "|---|---:|---:|---:|---:|---:|---:|---:|",
                *cache_rows,
            ]
        )
    )
    report = "\n\n".join(parts)
    print(report)
    return report


if __name__ == "__main__":
    main()
