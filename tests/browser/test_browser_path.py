"""The browser path in this process, under a browser tab's limits (tests/browser/harness.py): no new
thread, socket or process, no module without a Pyodide 314 build, ``NODE_GATEWAY_BROWSER=1``. The
sync API, `Workload.run` (inside a running event loop too), progress and the widgets work on the
in-process sandbox and from a tape, and start nothing the harness refuses."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import subprocess
import threading

import pytest
import tqdm.auto

import toolkit
from tests.browser.conftest import harness
from toolkit import NeedsCPython
from toolkit.client import run_sync
from toolkit.widgets import LedgerView
from toolkit.widgets._live import DELAY
from toolkit.workloads import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 21)]


def balances(gateway) -> Workload:
    return Workload().grid(
        gateway.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES, ["latest"]
    )


@pytest.fixture(autouse=True)
def _tqdm_as_it_was(monkeypatch):
    # The browser path turns tqdm's monitor thread off for the process; not for other tests.
    monkeypatch.setattr(tqdm.auto.tqdm, "monitor_interval", tqdm.auto.tqdm.monitor_interval)


def test_the_harness_refuses_what_a_browser_tab_cannot_do(browser_like):
    with pytest.raises(RuntimeError, match="can't start new thread"):
        threading.Thread(target=print).start()
    with pytest.raises(OSError):
        socket.socket()
    with pytest.raises(OSError):
        socket.socketpair()  # as a selector event loop makes to wake itself up
    with pytest.raises(OSError):
        subprocess.run(["true"], check=False)
    assert importlib.util.find_spec("tkinter") is None  # pure stdlib, not in Pyodide's zip
    assert not harness.importable("solders")  # compiled, and no Pyodide build
    assert not harness.importable("Cryptodome")  # pycryptodomex: the same (pytoniq-core's)
    assert all(map(harness.importable, ["numpy", "pandas", "tqdm", "ipywidgets", "toolkit"]))
    assert all(map(harness.importable, ["_json", "math", "select", "asyncio", "sqlite3"]))
    assert [line.split(",")[0] for line in browser_like] == ["thread", "socket", "socket"]
    assert __file__ in browser_like[0] and harness.unfound == ["tkinter"]
    assert harness.processes[0].startswith("subprocess.Popen, from ")


def test_connect_reaches_the_sandbox_in_process_even_once_it_is_served_for_another():
    from toolkit.sandbox import shared_sandbox

    shared_sandbox()  # served on loopback, as a Dask worker's need does (another test's, say)
    with harness.armed() as refused:
        assert toolkit.connect().node("ethereum-mainnet").block_number() > 0
    assert refused == []  # no socket: before, connect() took the served URLs


def test_sync_calls_on_the_in_process_sandbox_in_and_out_of_a_running_loop(browser_like, page_loop):
    eth = toolkit.connect().node("ethereum-mainnet")
    assert eth.block_number() > 0

    async def cell():
        return eth.block_number(), await eth.aio.block_number()

    assert all(page_loop.run_until_complete(cell()))
    assert browser_like == []


def test_workload_run_with_its_progress_bar_inside_the_pages_running_loop(browser_like, page_loop):
    work = balances(toolkit.connect())

    async def cell():
        loop = asyncio.get_running_loop()
        blocking = work.run()  # a tqdm bar, with no monitor thread
        assert asyncio.get_running_loop() is loop  # the page's loop runs on after it
        return blocking, await work.arun(progress=False)

    blocking, awaited = page_loop.run_until_complete(cell())
    assert len(blocking) == 20 and blocking["error"].isna().all()
    assert blocking["value"].tolist() == awaited["value"].tolist()
    assert balances(toolkit.connect()).run(progress=False)["error"].isna().all()  # no loop
    assert browser_like == []


def test_a_blocking_call_that_would_wait_for_the_network_says_to_await_instead(
    browser_like, page_loop
):
    settled = []

    async def waits_for_the_page():
        try:
            await asyncio.get_running_loop().create_future()  # only the page could end it
        finally:
            settled.append("settled")

    async def cell():
        with pytest.raises(NeedsCPython, match=r"await work\.arun\(\)"):
            run_sync(waits_for_the_page())
        return asyncio.get_running_loop()

    assert page_loop.run_until_complete(cell()) is page_loop
    assert settled == ["settled"]  # cancelled, its cleanup run, before the error
    assert browser_like == []


def test_a_tape_replays_sync_calls_and_a_workload(tmp_path, page_loop):
    tape = tmp_path / "calls.tape.gz"
    recording = toolkit.connect(tape=tape, tape_mode="record", sandbox=True)
    expected = balances(recording).run(progress=False)["value"].tolist()
    block = recording.node("ethereum-mainnet").block_number()
    recording.close()
    with harness.armed() as refused:
        replaying = toolkit.connect(tape=tape, tape_mode="replay")

        async def cell():
            return replaying.node("ethereum-mainnet").block_number(), balances(replaying).run()

        replayed_block, frame = page_loop.run_until_complete(cell())
        assert replaying.sandbox is None and replaying.ledger.total_ru == 0
    assert (replayed_block, frame["value"].tolist()) == (block, expected)
    assert refused == []


def test_the_ledger_view_redraws_on_the_pages_loop_and_at_once_with_none(browser_like, page_loop):
    gw = toolkit.connect()
    view = LedgerView(gw.meter)
    before = view.totals.value

    async def cell():
        balances(gw).run(progress=False)
        drawn_at_once = view.totals.value
        await asyncio.sleep(DELAY + 0.25)  # the page's loop goes on: the view redraws
        return drawn_at_once, view.totals.value

    at_once, later = page_loop.run_until_complete(cell())
    assert at_once == before and later != before and "20 calls" in later
    gw.node("ethereum-mainnet").block_number()  # no running loop to wait on: drawn now
    assert "21 calls" in view.totals.value
    assert browser_like == []


def test_a_run_into_a_dataset_with_a_response_cache_and_a_rate_limit(
    browser_like, page_loop, tmp_path
):
    gw = toolkit.connect(cache=tmp_path / "answers.sqlite", rate_limit=1000)
    work = balances(gw)

    async def cell():
        return work.run(dataset=tmp_path / "balances", progress=False)

    frame = page_loop.run_until_complete(cell())
    stored = toolkit.read_dataset(tmp_path / "balances")
    assert len(stored) == len(frame) == 20 and stored["error"].isna().all()
    assert browser_like == []


class StopButton:
    """A progress bar whose second update is the stop button pressed (Pyodide raises
    KeyboardInterrupt in the running code, as CPython does on SIGINT)."""

    def __init__(self):
        self.updates = 0

    def update(self, n):
        self.updates += 1
        if self.updates == 2:
            raise KeyboardInterrupt


def test_the_stop_button_keeps_the_finished_rows_and_the_next_run_is_whole(browser_like, page_loop):
    gw = toolkit.connect()
    work = balances(gw)

    async def cell():
        with pytest.raises(toolkit.RunStopped) as stopped:
            work.run(progress=StopButton(), concurrency=1, batch_size=1)
        return stopped.value.result, work.run(progress=False)

    kept, again = page_loop.run_until_complete(cell())
    assert len(kept) == 20 and 0 < kept["error"].notna().sum() < 20
    assert set(kept["error"].dropna()) == {"Interrupted"}
    assert len(again) == 20 and again["error"].isna().all()
    assert browser_like == []


def test_run_sync_inside_a_coroutine_it_runs_says_to_await(browser_like):
    async def inner():
        return 1

    async def outer():
        with pytest.raises(RuntimeError, match="await the async API"):
            run_sync(inner())
        return 2

    assert run_sync(outer()) == 2
    assert browser_like == []


def test_a_kernel_keeps_the_names_it_read_for_the_next_kernel_of_its_environment(
    tmp_path, monkeypatch
):
    """Each browser-like kernel of `make test` would read every distribution's files again
    (`pyodide_names`, `pure_names`): the first keeps what it read in $NODE_GATEWAY_HARNESS_NAMES
    and the next ones read that back, the same names."""
    reads = []

    def pure() -> frozenset[str]:
        reads.append("read")
        return harness._pure_names()

    monkeypatch.delenv(harness.NAMES_FOLDER, raising=False)
    fresh = harness._kept("pure", pure)
    monkeypatch.setenv(harness.NAMES_FOLDER, str(tmp_path))
    assert harness._kept("pure", pure) == fresh == harness._kept("pure", pure)
    assert len(reads) == 2  # unset, then the first with the folder; the third read it back
    assert [path.name.split("-")[0] for path in tmp_path.iterdir()] == ["pure"]
    assert "toolkit" in fresh and "pandas" not in fresh  # pure-Python, and compiled
