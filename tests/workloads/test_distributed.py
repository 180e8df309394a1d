"""Workload.run(dataset=..., client=...) on a dask.distributed LocalCluster of 2 worker processes,
against the sandbox over loopback: one row per call, ledger == the sandbox's metering, a budget
never crossed, no key in task keys or logs, and a worker that dies or fails loses nothing and
pays nothing twice."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import threading
import time

import pandas as pd
import pytest

import toolkit
from toolkit.client import _tapefile
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


def kill_mid_partition(client, ready, killed: list[str]) -> None:
    """Once `ready()` gives the key of a running task (or True: any of the run's tasks), SIGKILL
    the process of the worker running it: its next calls are in flight, at the sandbox's slowed
    pace."""
    pids = client.run(os.getpid)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        wanted = ready()
        for worker, keys in client.processing().items() if wanted else ():
            for key in map(str, keys):
                if key == wanted or (wanted is True and key.startswith("toolkit-")):
                    killed.append(key)
                    os.kill(pids[worker], signal.SIGKILL)
                    return
        time.sleep(0.01)


def with_settled_calls(dataset, settled: int):
    """A `ready` for `kill_mid_partition`: the task whose write-ahead journal shows `settled`
    calls done (so rows of its are in the dataset by then)."""

    def ready() -> str | None:
        for journal in dataset.glob("_spending/*.wal"):
            with contextlib.suppress(FileNotFoundError):
                if journal.read_text().count('["s"') >= settled:
                    return "toolkit-" + journal.name.rsplit("-", 1)[0]
        return None

    return ready


def test_a_worker_killed_mid_partition_spends_only_what_is_left_of_its_slice(
    make_gateway, sandbox, dask_client, tmp_path
):
    """The retried task reads what the dead one wrote ahead: the gateway's meter stays within
    the budget, and the ledger bounds it (billed <= metered <= billed + may-have-been-billed)."""
    gateway = make_gateway()
    work = workload(gateway, blocks=8)  # 160 balances at 2 RU and 20 TRON blocks at 1 RU
    limit = gateway.ledger.counted_ru + 200
    gateway.set_budget(limit)
    sandbox.reset_metering()
    start = gateway.ledger.counted_ru
    sandbox.faults.set(kind="latency", delay=0.05)
    killed: list[str] = []
    killer = threading.Thread(
        target=kill_mid_partition,
        args=(dask_client, lambda: metered_ru(sandbox) >= 20, killed),
    )
    killer.start()
    try:
        frame = work.run(
            progress=False,
            dataset=tmp_path / "ds",
            client=dask_client,
            partition_size=30,
            batch_size=1,
            concurrency=2,
        )
    finally:
        killer.join()
        sandbox.faults.clear()
    assert killed, "no worker was killed mid-partition"
    metered = metered_ru(sandbox)
    billed = gateway.ledger.total_ru - start
    maybe = gateway.ledger.unconfirmed_ru
    assert billed <= metered <= billed + maybe
    assert metered <= limit - start  # the retry spent only what was left of its slice
    assert gateway.meter.in_flight_ru == 0
    refused = frame["error"].eq("BudgetExceeded").fillna(False)
    assert len(frame) == len(work) and refused.any() and frame.loc[~refused, "error"].isna().all()
    # every paid row is kept once: the dead attempt's rows and the retry's
    stored = toolkit.read_dataset(tmp_path / "ds")
    assert len(stored) == (~refused).sum()
    assert not stored.duplicated(["node", "method", "params"]).any()
    # and the retry sent again only what was in flight at the kill (2 calls at a time)
    sent = sum(
        usage["by_method"].get(method, {}).get("calls", 0)
        for usage in sandbox.metering().values()
        for method in ("eth_getBalance", "wallet/gettransactioninfobyblocknum")
    )
    assert (~refused).sum() <= sent <= (~refused).sum() + 2
    assert not list((tmp_path / "ds").glob("_spending/*.wal"))  # settled, then removed
    dask_client.wait_for_workers(2, timeout=60)


def test_a_task_dask_gives_up_on_is_settled_from_its_journal(
    make_gateway, sandbox, dask_client, tmp_path
):
    """With no retry allowed, the killed partition's task fails for good: the coordinator reads
    what it spent from its journal, and the rows it wrote are in the dataset."""
    gateway = make_gateway()
    work = workload(gateway, blocks=4)  # 100 calls
    gateway.set_budget(gateway.ledger.counted_ru + 1_000)
    sandbox.reset_metering()
    start = gateway.ledger.counted_ru
    allowed = dask_client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures)
    dask_client.run_on_scheduler(
        lambda dask_scheduler: setattr(dask_scheduler, "allowed_failures", 0)
    )
    sandbox.faults.set(kind="latency", delay=0.05)
    killed: list[str] = []
    killer = threading.Thread(
        target=kill_mid_partition,
        args=(dask_client, with_settled_calls(tmp_path / "ds", 6), killed),
    )
    killer.start()
    try:
        with pytest.raises(toolkit.WorkerFailed) as failed:
            work.run(
                progress=False,
                dataset=tmp_path / "ds",
                client=dask_client,
                partition_size=50,
                batch_size=1,
                concurrency=2,
            )
    finally:
        killer.join()
        sandbox.faults.clear()
        dask_client.run_on_scheduler(
            lambda dask_scheduler: setattr(dask_scheduler, "allowed_failures", allowed)
        )
    assert killed
    error = failed.value
    assert "KilledWorker" in str(error) and error.unknown == 50
    unknown = error.frame["error"].eq("WorkerFailed").fillna(False)
    assert unknown.sum() == 50 and error.frame.loc[unknown, "message"].str.contains("ledger").all()
    # the rows the dead partition wrote are in the dataset: a run again sends only the rest
    stored = toolkit.read_dataset(tmp_path / "ds")
    lost = error.frame[unknown]
    written = stored.merge(lost[["node", "method", "params"]], on=["node", "method", "params"])
    assert len(written) > 0
    metered = metered_ru(sandbox)
    billed = gateway.ledger.total_ru - start
    assert billed <= metered <= billed + gateway.ledger.unconfirmed_ru
    assert gateway.ledger.frame["status"].eq("worker died").any()
    assert gateway.meter.in_flight_ru == 0
    assert not list((tmp_path / "ds").glob("_spending/*.wal"))
    dask_client.wait_for_workers(2, timeout=60)


def test_a_stopped_run_settles_and_its_workers_send_nothing_more(
    make_gateway, sandbox, dask_client, tmp_path
):
    """An interrupt while the partitions run: the tasks are cancelled, the workers' next calls
    are refused unsent, and each reservation settles at what the journals said."""
    gateway = make_gateway()
    work = workload(gateway, blocks=8)
    gateway.set_budget(gateway.ledger.counted_ru + 1_000)
    sandbox.reset_metering()
    start = gateway.ledger.counted_ru
    sandbox.faults.set(kind="latency", delay=0.05)
    finished = threading.Event()

    def interrupt() -> None:
        deadline = time.monotonic() + 60
        while metered_ru(sandbox) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        if not finished.is_set():
            signal.raise_signal(signal.SIGINT)  # the notebook's stop button: the main thread

    interrupter = threading.Thread(target=interrupt)
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            try:
                work.run(
                    progress=False,
                    dataset=tmp_path / "ds",
                    client=dask_client,
                    partition_size=30,
                    batch_size=1,
                    concurrency=2,
                )
            finally:
                finished.set()
        assert gateway.meter.in_flight_ru == 0
        time.sleep(0.3)  # the calls in flight at the stop end
        stopped_at = metered_ru(sandbox)
        time.sleep(0.5)
        assert metered_ru(sandbox) == stopped_at < len(work) * 2  # nothing more was sent
    finally:
        interrupter.join()
        sandbox.faults.clear()
    billed = gateway.ledger.total_ru - start
    assert billed <= stopped_at <= billed + gateway.ledger.unconfirmed_ru
    # The ledger says the run was stopped: an entry for what the journals had not accounted for
    # when the stop came ("stopped"), or the calls the workers refused after it (DatasetError:
    # "not sent (0 RU): the run was stopped"; the dataset here is sound). Which, is the
    # machine's timing: every call in flight may have been entered before the journals were read.
    assert gateway.ledger.frame["status"].isin(["stopped", "DatasetError"]).any()


def test_workers_over_their_file_size_limit_say_what_was_kept_and_where(
    make_gateway, sandbox, dask_client, tmp_path
):
    """No file a worker writes may pass 1,500 bytes: no Parquet file of rows fits, and the
    write-ahead journal fills after a few calls. The paid rows come back in the error's frame,
    the calls that could not be written ahead are not sent, and everything settles."""
    gateway = make_gateway()
    work = workload(gateway, blocks=4)  # 100 calls
    gateway.set_budget(gateway.ledger.counted_ru + 1_000)
    sandbox.reset_metering()
    start = gateway.ledger.counted_ru
    original = dask_client.run(resource.getrlimit, resource.RLIMIT_FSIZE)
    hard = next(iter(original.values()))[1]
    dask_client.run(resource.setrlimit, resource.RLIMIT_FSIZE, (1_500, hard))
    try:
        with pytest.raises(toolkit.WorkerFailed) as failed:
            work.run(
                progress=False,
                dataset=tmp_path / "ds",
                client=dask_client,
                partition_size=30,
                batch_size=1,
                concurrency=2,
            )
    finally:
        for worker, limits in original.items():
            dask_client.run(resource.setrlimit, resource.RLIMIT_FSIZE, limits, workers=[worker])
    error = failed.value
    assert isinstance(error, toolkit.DatasetError) and error.path == str(tmp_path / "ds")
    assert "File too large" in str(error) and str(tmp_path / "ds") in str(error)
    frame = error.frame
    assert len(frame) == len(work)
    answered = frame["error"].isna()
    # what was paid is kept in the error's frame, and what reached the dataset is of it
    assert error.answered == answered.sum() > 0
    stored = toolkit.read_dataset(tmp_path / "ds")
    kept = set(zip(stored["node"], stored["method"], stored["params"], strict=True))
    paid = frame[answered]
    assert kept <= set(zip(paid["node"], paid["method"], paid["params"], strict=True))
    # the calls whose spending could not be written ahead were not sent, at 0 RU, nor those
    # left once the dataset could not be written (they would have been paid for and kept
    # nowhere but in memory)
    ahead = frame["error"].eq("DatasetError").fillna(False)
    assert ahead.any() and frame.loc[ahead, "ru"].eq(0).all()
    why = frame.loc[ahead, "message"]
    assert why.str.contains("could not be written ahead|not sent: the dataset at").all()
    assert why.str.contains("could not be written ahead").any()
    assert error.not_sent == (~answered).sum() and error.unknown == 0
    # the ledger bounds the gateway's meter, and the budget holds nothing more
    metered = metered_ru(sandbox)
    billed = gateway.ledger.total_ru - start
    assert billed <= metered <= billed + gateway.ledger.unconfirmed_ru
    assert frame["ru"].sum() <= billed
    assert gateway.meter.in_flight_ru == 0
    assert str(error).count("partition") >= 1 and error.causes


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


def tape_parses() -> tuple[int, int]:
    """In a worker: how many replayed tapes it has made, and how many files it parsed."""
    info = _tapefile.calls_of.cache_info()
    return info.hits + info.misses, info.misses


def test_workers_replay_a_tape_recorded_in_one_process(sandbox, dask_client, tmp_path):
    info = sandbox.info
    tape = tmp_path / "run.tape.gz"
    recorder = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], tape=tape, tape_mode="record"
    )
    recorded = workload(recorder).run(progress=False)
    recorder.close()
    sandbox.reset_metering()
    replay = toolkit.connect(tape=tape, tape_mode="replay")
    work = workload(replay)
    before = dask_client.run(tape_parses)
    frame = work.run(progress=False, dataset=tmp_path / "ds", client=dask_client, partition_size=20)
    assert metered_ru(sandbox) == 0  # nothing reached the gateway: the workers read the tape
    # Each partition's task brought a copy of the tape; each worker parsed the file once.
    done = {
        worker: [a - b for a, b in zip(now, before[worker], strict=True)]
        for worker, now in dask_client.run(tape_parses).items()
    }
    assert sum(copies for copies, _ in done.values()) >= -(-len(work) // 20) > len(done)
    assert all(parses <= 1 for _, parses in done.values()), done
    columns = ["node", "method", "params", "result", "value", "error"]
    pd.testing.assert_frame_equal(frame[columns], recorded[columns])
    assert frame["ru"].sum() == 0 and replay.ledger.total_ru == 0
    # What each call cost when recorded (heads aside: each worker prices with its own).
    ledger = replay.ledger.frame
    for method in ("eth_getBalance", "wallet/gettransactioninfobyblocknum"):
        was = recorded.loc[recorded["method"] == method, "ru"].sum()
        assert ledger.loc[ledger["method"] == method, "recorded_ru"].sum() == was > 0


def test_a_run_on_a_cluster_is_recorded_by_its_workers_and_replays_in_one_process(
    sandbox, dask_client, tmp_path
):
    info = sandbox.info
    tape = tmp_path / "cluster.tape.gz"
    recorder = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], tape=tape, tape_mode="record"
    )
    work = workload(recorder)
    recorded = work.run(progress=False, dataset=tmp_path / "a", client=dask_client)
    assert not list(tape.parent.glob("*.parts*"))  # the run took in what each worker recorded
    recorder.close()
    sandbox.reset_metering()
    replay = toolkit.connect(tape=tape, tape_mode="replay")
    frame = workload(replay).run(progress=False, dataset=tmp_path / "b")
    assert metered_ru(sandbox) == 0
    columns = ["node", "method", "params", "result", "value", "error"]
    pd.testing.assert_frame_equal(frame[columns], recorded[columns])


def test_a_scan_on_the_cluster_keeps_one_row_per_chunk_and_splits_refusals_on_the_next_run(
    dask_client, tmp_path
):
    """A partition splits nothing (its rows are one per call it was given: a split there lost
    rows); the refused chunks are rows, and the next run splits them from the dataset, on the
    cluster or here, sending only the parts."""
    from tests.workloads.test_log_scans import ONE_TRY, CappedLogNode, _logs_of_block

    capped = CappedLogNode()
    capped.cap = 40
    try:
        with toolkit.node(capped.url, chain="ethereum", retry=ONE_TRY) as eth:

            def scan() -> Workload:
                return Workload().logs(eth, from_block=100, to_block=299, blocks_per_call=50)

            dataset = tmp_path / "scan"
            with pytest.warns(RuntimeWarning, match="4 of 4 calls failed: 4 LogRangeRefused"):
                first = scan().run(progress=False, dataset=dataset, client=dask_client)
            assert len(first) == 4 and len(capped.asked) == 4
            capped.asked.clear()
            second = scan().run(progress=False, dataset=dataset, client=dask_client)
            assert second["error"].isna().all() and len(second) == 8  # each chunk in two
            # Alchemy's refusal proposes a third of the range (`_with_range`): taken.
            parts = [(a, a + 16) for a in range(100, 300, 50)]
            parts += [(a + 17, a + 49) for a in range(100, 300, 50)]
            assert sorted(capped.asked) == sorted(parts)
            capped.asked.clear()
            local = scan().run(progress=False, dataset=dataset)
            assert capped.asked == [] and list(local["params"]) == list(second["params"])
            truth = [log for n in range(100, 300) for log in _logs_of_block(n)]
            assert sum(map(len, local["result"])) == len(truth)
    finally:
        capped.close()
