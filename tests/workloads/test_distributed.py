"""Workload.run(dataset=..., client=...) on a dask.distributed LocalCluster of 2 worker processes,
against the sandbox over loopback: one row per call, ledger == the sandbox's metering, a budget
never crossed, no key in task keys or logs, and a worker that dies loses nothing."""

from __future__ import annotations

import contextlib
import os
import threading
import time

import pandas as pd
import pytest

import toolkit
from toolkit.workloads._workload import Workload

distributed = pytest.importorskip("distributed")

ADDRESSES = [f"0x{index:040x}" for index in range(1, 21)]


@pytest.fixture(scope="module")
def dask_client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def metered_ru(sandbox) -> int:
    return sum(usage["ru"] for usage in sandbox.metering().values())


def workload(gateway, blocks: int = 5) -> Workload:
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    head, tron_head = eth.head(), tron.head()
    work = Workload()
    work.grid(eth, "eth_getBalance", ADDRESSES, [head - 2_000 + 250 * i for i in range(blocks)])
    work.each(
        tron, "wallet/gettransactioninfobyblocknum", range(tron_head - 20, tron_head), param="num"
    )
    return work


def test_every_call_is_one_row_and_the_ledger_is_the_metering(
    make_gateway, sandbox, dask_client, tmp_path
):
    gateway = make_gateway()
    work = workload(gateway)
    frame = work.run(progress=False, dataset=tmp_path / "ds", client=dask_client, partition_size=15)
    assert len(frame) == len(work) == 120 and frame["error"].isna().all()
    stored = toolkit.read_dataset(tmp_path / "ds")
    assert len(stored) == len(work)
    assert not stored.duplicated(["node", "method", "params"]).any()
    # the workers' entries are in the notebook's ledger, and they are what the gateway metered
    assert gateway.ledger.total_ru == metered_ru(sandbox)
    assert gateway.ledger.frame["method"].eq("eth_getBalance").sum() == 100

    # the same answers as a run in this process
    local = work.run(progress=False)
    pd.testing.assert_series_equal(frame["value"], local["value"])
    assert list(frame["params"]) == list(local["params"])

    # and a run again into the dataset sends nothing
    before = metered_ru(sandbox)
    again = work.run(progress=False, dataset=tmp_path / "ds", client=dask_client)
    assert metered_ru(sandbox) == before and again.attrs["summary"]["from_dataset"] == 120


def test_a_budget_smaller_than_the_workload_is_never_crossed(
    make_gateway, sandbox, dask_client, tmp_path
):
    gateway = make_gateway()
    work = workload(gateway)
    limit = gateway.ledger.counted_ru + 70
    gateway.set_budget(limit)
    frame = work.run(progress=False, dataset=tmp_path / "ds", client=dask_client, partition_size=10)
    refused = frame["error"].eq("BudgetExceeded").fillna(False)
    assert refused.any() and frame.loc[~refused, "error"].isna().all()
    assert metered_ru(sandbox) <= limit
    assert gateway.ledger.counted_ru == metered_ru(sandbox) <= limit
    assert gateway.meter.in_flight_ru == 0  # every slice settled
    assert len(toolkit.read_dataset(tmp_path / "ds")) == (~refused).sum()

    gateway.set_budget(None)
    rest = work.run(progress=False, dataset=tmp_path / "ds", client=dask_client)
    assert rest["error"].isna().all()
    assert len(toolkit.read_dataset(tmp_path / "ds")) == len(work)
    assert gateway.ledger.counted_ru == metered_ru(sandbox)


def test_no_key_in_task_keys_or_logs(make_gateway, sandbox, dask_client, tmp_path):
    gateway = make_gateway()
    work = workload(gateway, blocks=1)
    keys = [url.rstrip("/").rsplit("/", 1)[-1] for url in sandbox.info["nodes"].values()]
    assert all(len(key) >= 16 for key in keys)
    work.run(progress=False, dataset=tmp_path / "ds", client=dask_client, partition_size=10)

    def task_keys(dask_scheduler):
        return sorted({str(record[0]) for record in dask_scheduler.transition_log})

    names = dask_client.run_on_scheduler(task_keys)
    logs = str(dask_client.get_worker_logs()) + str(dask_client.get_scheduler_logs())
    assert any(name.startswith("toolkit-") for name in names)
    for key in keys:
        assert key not in logs
        assert not any(key in name for name in names)


def test_a_worker_that_dies_loses_nothing(make_gateway, sandbox, dask_client, tmp_path):
    gateway = make_gateway()
    work = workload(gateway, blocks=8)  # 180 calls
    sandbox.faults.set(kind="latency", delay=0.05)
    killed: list[str] = []

    def kill_a_worker_with_rows_written():
        """Once a partition has written its first rows, kill the worker that runs it."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for file in (tmp_path / "ds").rglob("part-*.parquet"):
                # part-<run>-p<i>-<attempt>-<n>-<gateway>.parquet is written by task
                # toolkit-<run>-p<i>
                key = "toolkit-" + file.name.removeprefix("part-").rsplit("-", 3)[0]
                for worker, keys in dask_client.processing().items():
                    if key in map(str, keys):
                        killed.append(key)
                        # the worker dies before it can answer: the scheduler's link to it closes
                        with contextlib.suppress(distributed.comm.CommClosedError):
                            dask_client.run(os._exit, 1, workers=[worker])
                        return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_a_worker_with_rows_written)
    killer.start()
    try:
        frame = work.run(
            progress=False,
            dataset=tmp_path / "ds",
            client=dask_client,
            partition_size=30,
            rows_per_file=5,
            batch_size=1,
            concurrency=2,
        )
    finally:
        killer.join()
        sandbox.faults.clear()
    assert killed, "no worker was killed while it had rows written"
    assert frame["error"].isna().all() and len(frame) == len(work)
    stored = toolkit.read_dataset(tmp_path / "ds")
    assert len(stored) == len(work)
    assert not stored.duplicated(["node", "method", "params"]).any()
    # the killed partition ran again and kept the rows its first attempt wrote
    prefix = killed[0].removeprefix("toolkit-")
    attempts = {f.name.split("-")[-3] for f in (tmp_path / "ds").rglob(f"part-{prefix}-*")}
    assert len(attempts) == 2
    # what the dead worker spent after its last file may be missing from the ledger, never more
    assert gateway.ledger.counted_ru <= metered_ru(sandbox)
    dask_client.wait_for_workers(2, timeout=60)


def test_a_cluster_run_needs_a_dataset(make_gateway, dask_client):
    gateway = make_gateway()
    work = workload(gateway, blocks=1)
    with pytest.raises(toolkit.ValidationError, match="dataset"):
        work.run(progress=False, client=dask_client)


def test_the_workers_share_the_rate_limit(make_gateway, sandbox, dask_client, tmp_path):
    """Two workers at the full rate each would take half the time: together they keep it."""
    rate, calls = 20, 60
    gateway = make_gateway(rate_limit=rate)
    eth = gateway.node("ethereum-mainnet")
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:12], range(100, 105))
    started = time.monotonic()
    frame = work.run(
        progress=False, dataset=tmp_path / "ds", client=dask_client, partition_size=15, batch_size=1
    )
    elapsed = time.monotonic() - started
    assert frame["error"].isna().all() and len(frame) == calls
    # each worker's limiter lets its first call go at once; after that, `rate` calls per second
    assert elapsed >= (calls - 2) / rate
