"""What a run costs besides its calls: the garbage collector's passes, and the worker tasks."""

from __future__ import annotations

import asyncio
import gc

import toolkit
from toolkit.workloads._workload import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 21)]


class Watch:
    """A progress object (`run(progress=...)`) that notes, at each update (on the run's event
    loop, while it runs), the objects frozen out of the collector, the gen1 collections a full
    one waits for, and the run's worker tasks."""

    def __init__(self) -> None:
        self.frozen: list[int] = []
        self.full_threshold: list[int] = []
        self.workers: list[int] = []

    def update(self, n: int) -> None:
        self.frozen.append(gc.get_freeze_count())
        self.full_threshold.append(gc.get_threshold()[2])
        tasks = asyncio.all_tasks()
        self.workers.append(sum(t.get_coro().__qualname__ == "BulkRun._work" for t in tasks))


def balances(gateway: toolkit.Gateway) -> Workload:
    eth = gateway.node("ethereum-mainnet")
    return Workload().grid(eth, "eth_getBalance", ADDRESSES, [eth.head() - 300, eth.head() - 200])


def test_the_collector_walks_only_a_runs_own_objects_while_it_runs(make_gateway):
    work = balances(make_gateway())
    assert gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    watch = Watch()
    frame = work.run(progress=watch, batch_size=10)
    assert frame["error"].isna().all()
    # The workload's calls, the modules, this test's frames: all left out while it ran ...
    assert watch.frozen and min(watch.frozen) > 10_000
    assert min(watch.full_threshold) > 1_000_000  # ... and no full collection started
    assert gc.get_freeze_count() == 0  # all given back to the collector after
    assert gc.get_threshold() == thresholds


def test_a_process_that_set_its_collector_after_a_run_started_keeps_its_setting(make_gateway):
    work = balances(make_gateway())
    thresholds = gc.get_threshold()

    class SetsTheCollector(Watch):
        def update(self, n: int) -> None:
            gc.set_threshold(500, 5, 5)

    try:
        work.run(progress=SetsTheCollector(), batch_size=10)
        assert gc.get_threshold() == (500, 5, 5)
    finally:
        gc.set_threshold(*thresholds)


def test_a_process_that_froze_objects_itself_keeps_its_freeze(make_gateway):
    work = balances(make_gateway())
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        watch = Watch()
        work.run(progress=watch, batch_size=10)
        # (Frozen objects freed meanwhile leave the count: it may only go down.)
        assert max(watch.frozen) <= frozen  # the run froze nothing more ...
        assert gc.get_freeze_count() > frozen // 2  # ... and unfroze nothing of the process's
    finally:
        gc.unfreeze()


def test_a_run_starts_no_more_workers_than_it_has_units_to_send(make_gateway):
    work = balances(make_gateway())  # 40 calls: 4 batches of 10
    watch = Watch()
    work.run(progress=watch, batch_size=10, concurrency=32)
    assert max(watch.workers) == 4  # it started 32, 28 of them only to be cancelled


def test_calls_of_a_refused_batch_get_the_workers_the_concurrency_allows(refusing_node):
    node = toolkit.node(refusing_node.url, chain="ethereum", name="no-batches")
    work = Workload().grid(node, "eth_getBalance", ADDRESSES, ["latest"])
    watch = Watch()
    frame = work.run(progress=watch, batch_size=20, concurrency=8)  # one batch: one worker
    assert frame["error"].isna().all()
    assert refusing_node.requests.count("batch") == 1
    assert refusing_node.requests.count("eth_getBalance") == 20  # sent one by one, then ...
    assert max(watch.workers) == 8  # ... by as many workers as the concurrency allows
    node.close()
