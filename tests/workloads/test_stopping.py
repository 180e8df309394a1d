"""A stopped run keeps what was paid: a real SIGINT to the main thread while `Workload.run()`
waits (what a notebook's stop button sends), and a cancel of `await work.arun()`. Every call
has its row in ``work.last_result``; those that did not finish say ``Interrupted``, and their
``ru`` and ``unconfirmed_ru`` are what the sandbox metered. `run` raises one short line."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import threading
import time
import traceback
from collections.abc import Iterator

import pytest

import toolkit
from toolkit.workloads import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 81)]
DELAY = 0.05  # the sandbox's latency: 80 calls, 4 at a time, take about a second


def metered(sandbox) -> tuple[int, int]:
    """(calls, RU) the sandbox metered, once the requests a stop left behind have arrived: a
    request the client gave up on may still be on its way into the server."""
    time.sleep(DELAY * 3)
    usage = sandbox.metering()
    return sum(u["calls"] for u in usage.values()), sum(u["ru"] for u in usage.values())


@pytest.fixture
def slow_balances(make_gateway, sandbox):
    """A gateway, 80 balance calls at "latest" (1 RU each, no head needed), a warm connection
    and a clean meter, then a sandbox that answers `DELAY` late."""
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES, ["latest"])
    Workload().add(eth, "web3_clientVersion").run(progress=False)  # the client exists
    gateway.ledger.clear()
    sandbox.reset_metering()
    sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=DELAY)
    gc.collect()  # no finalizer should run (and swallow the interrupt) while the run waits
    yield gateway, work
    sandbox.faults.clear()
    time.sleep(DELAY * 2)  # what the sandbox still holds is answered before the next test


# The stop comes once the sandbox has seen this many requests, not after a time: four go out at
# once, so the fifth means a call had finished, and the other 72 take most of a second.
# Under three xdist workers on two cores (2026-12-06) these tests failed in two CI runs of four:
# the gateway had spent 80 RU, yet every row said Interrupted. The stop had come as the run
# collected its workers, after the last call: the run lost every row it had paid for (fixed, and
# tested below; `make test` stays at two workers until three have run clean again).
STOP_AT_REQUESTS = 8


def requests_seen(sandbox) -> int:
    return sandbox.metering().get("ethereum-mainnet", {}).get("requests", 0)


@contextlib.contextmanager
def interrupt_main_thread_mid_run(sandbox) -> Iterator[None]:
    """SIGINT to the main thread, as the stop button does (ipykernel signals the kernel), once
    the run is `STOP_AT_REQUESTS` requests in; none once the block is left."""
    left = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + 30
        while requests_seen(sandbox) < STOP_AT_REQUESTS and time.monotonic() < deadline:
            if left.wait(0.002):
                return
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        left.set()
        watcher.join()


def check_the_rows_are_what_was_paid(frame, work, sandbox, gateway) -> tuple[int, int]:
    """Every call has a row; finished or Interrupted; the rows' RU is what the sandbox metered
    and what the ledger counts. Returns (finished, in flight at the stop)."""
    assert len(frame) == len(work)
    assert frame["params"].tolist() == [f'["{a}","latest"]' for a in ADDRESSES]
    finished = frame["error"].isna().to_numpy(bool)
    interrupted = frame["error"].eq("Interrupted").fillna(False).to_numpy(bool)
    assert (finished | interrupted).all()
    assert 0 < finished.sum() < len(work), "the stop should land mid-run"
    assert frame["ru"][finished].eq(1).all()
    spent = (frame["ru"] + frame["unconfirmed_ru"]).to_numpy()
    in_flight = int((interrupted & (spent > 0)).sum())
    assert in_flight >= 1  # four at a time, each answered DELAY late: some were out
    assert (frame.loc[interrupted & (spent > 0), "unconfirmed_ru"] == 1).all()  # maybe billed
    messages = set(frame.loc[interrupted, "message"])
    assert "not sent: the run was stopped first" in messages
    summary = frame.attrs["summary"]
    assert (summary["interrupted"], summary["failed"]) == (int(interrupted.sum()), 0)
    calls, ru = metered(sandbox)
    assert calls == int((spent > 0).sum())  # one metered call per row that went out
    assert ru == int(spent.sum()) == gateway.ledger.counted_ru
    assert gateway.meter.in_flight_ru == 0
    return int(finished.sum()), in_flight


def test_a_sigint_during_run_keeps_every_finished_row_and_says_so_in_one_line(
    slow_balances, sandbox
):
    gateway, work = slow_balances
    with interrupt_main_thread_mid_run(sandbox), pytest.raises(toolkit.RunStopped) as stopped:
        work.run(progress=False, concurrency=4, batch_size=1)
    assert isinstance(stopped.value, KeyboardInterrupt)  # code that stops on Ctrl-C still does
    frame = work.last_result
    assert stopped.value.result is frame
    finished, in_flight = check_the_rows_are_what_was_paid(frame, work, sandbox, gateway)

    message = str(stopped.value)
    assert "\n" not in message
    assert message == (
        f"stopped after {finished} of 80 calls; {finished} rows kept in work.last_result; "
        f"the other {80 - finished} rows say error 'Interrupted' ({in_flight} were in flight: "
        f"{in_flight} RU may have been billed)"
    )
    # Short: raised from run() itself, without the interrupt's traceback through the threads
    # run_sync waited in.
    frames = traceback.extract_tb(stopped.value.__traceback__)
    assert [f.name for f in frames][-1] == "run" and len(frames) <= 2
    assert stopped.value.__suppress_context__ and stopped.value.__cause__ is None

    # Provenance counts what the stop may have cost too, not only what was billed.
    record = toolkit.provenance(gateway)
    assert record.unconfirmed_ru == in_flight and record.stopped == in_flight
    assert record.counted_ru == gateway.ledger.counted_ru
    assert f"+ {in_flight} that may have been (sent, no answer)" in str(record)


def test_a_stopped_run_into_a_dataset_keeps_its_rows_and_record_there(
    slow_balances, sandbox, tmp_path
):
    gateway, work = slow_balances
    dataset = tmp_path / "balances"
    with interrupt_main_thread_mid_run(sandbox), pytest.raises(toolkit.RunStopped) as stopped:
        work.run(progress=False, concurrency=4, batch_size=1, dataset=dataset)
    frame = work.last_result
    finished, _ = check_the_rows_are_what_was_paid(frame, work, sandbox, gateway)
    assert f"rows kept in work.last_result and in the dataset at {dataset};" in str(stopped.value)

    stored = toolkit.read_dataset(dataset)
    assert sorted(stored["params"]) == sorted(frame.loc[frame["error"].isna(), "params"])
    [record] = stored.attrs["runs"]  # a stopped run has its record, with what it did
    assert record["summary"]["interrupted"] == 80 - finished
    assert record["summary"]["unconfirmed_ru"] == frame["unconfirmed_ru"].sum()

    sandbox.faults.clear()
    resumed = work.run(progress=False, dataset=dataset)
    assert resumed["error"].isna().all()
    assert resumed.attrs["summary"]["from_dataset"] == finished
    assert work.last_result is resumed


def test_a_cancelled_arun_raises_cancelled_error_once_its_rows_are_kept(slow_balances, sandbox):
    gateway, work = slow_balances

    async def cancel_it() -> asyncio.CancelledError:
        task = asyncio.create_task(work.arun(progress=False, concurrency=4, batch_size=1))
        while requests_seen(sandbox) < STOP_AT_REQUESTS:
            await asyncio.sleep(0.002)
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as cancelled:
            await task
        return cancelled.value

    cancelled = asyncio.run(cancel_it())
    finished, _ = check_the_rows_are_what_was_paid(work.last_result, work, sandbox, gateway)
    [note] = cancelled.__notes__  # what `run` would have said
    assert note.startswith(f"stopped after {finished} of 80 calls; {finished} rows kept in")


def test_a_run_stopped_before_it_sent_a_call_still_has_a_row_for_each(make_gateway, sandbox):
    """Stopped while it fetched the head its archive calls are priced by: nothing was sent."""
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    eth.forget_head()
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:5], [head - 300])
    sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=1.0)

    async def cancel_it() -> None:
        task = asyncio.create_task(work.arun(progress=False))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(cancel_it())
        frame = work.last_result
        assert len(frame) == 5 and frame["error"].eq("Interrupted").all()
        assert frame["message"].eq("not sent: the run was stopped first").all()
        assert frame["ru"].sum() == frame["unconfirmed_ru"].sum() == 0
        assert frame.attrs["summary"]["interrupted"] == 5
    finally:
        sandbox.faults.clear()
        time.sleep(1.0)


def test_a_stop_as_the_last_calls_finish_keeps_every_row_it_paid_for(
    make_gateway, sandbox, monkeypatch
):
    """The stop lands while the run collects its workers, after its last call was answered (a
    stop button pressed as a run ends): every row was paid for and is kept, none says
    Interrupted. (Under load this once lost all 80 rows of a run, each paid.)"""
    import types

    from toolkit.workloads import _bulk

    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:8], ["latest"])

    stops = [asyncio.Task.cancel]  # one stop, at the first gathering of the workers

    def gather_once_stopped(*tasks, **options):
        if stops:
            stops.pop()(asyncio.current_task())
        return asyncio.gather(*tasks, **options)

    stopping = types.SimpleNamespace(**{**vars(asyncio), "gather": gather_once_stopped})
    monkeypatch.setattr(_bulk, "asyncio", stopping)

    async def run_it() -> None:
        with pytest.raises(asyncio.CancelledError):
            await work.arun(progress=False, concurrency=4, batch_size=1)

    asyncio.run(run_it())
    frame = work.last_result
    assert frame is not None and frame["error"].isna().all(), frame["error"].value_counts()
    assert frame["ru"].sum() == gateway.ledger.counted_ru == 8
