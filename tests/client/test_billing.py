"""One billing model, shared by the client and the sandbox (`toolkit.catalog.BILLING`): the
ledger equals the sandbox's metering and the budget is never crossed when calls time out, are
cancelled or interrupted, when the budget changes under load, when the head moves, for raw calls,
drip-fed answers and refusals. (Answers of the wrong shape: `test_malformed_answers`.)"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import socket
import threading
import time

import httpx
import pytest

import toolkit
from toolkit.catalog import BILLING, Fate, charge, fate_of_status
from toolkit.client._ratelimit import Turn
from toolkit.sandbox import DEMO, Sandbox

from ..conftest import FAST_RETRY

ALICE = next(iter(DEMO.evm.accounts.values()))


def metered(sandbox, node: str | None = None) -> int:
    usage = sandbox.metering()
    return usage[node]["ru"] if node else sum(u["ru"] for u in usage.values())


def metered_once_settled(sandbox, expected: int, node: str | None = None) -> int:
    """The sandbox's count once requests already sent have been received: a request the client
    gave up on may still be on its way into the server's loop when the client moves on."""
    deadline = time.monotonic() + 5
    while metered(sandbox, node) < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return metered(sandbox, node)


def settle_delayed(sandbox, seconds: float) -> None:
    """Let requests the client gave up on finish inside the sandbox before the next test."""
    sandbox.faults.clear()
    time.sleep(seconds)


# --- the model itself ---------------------------------------------------------------------------


def test_the_billing_table_says_what_is_billed_and_what_is_counted():
    assert charge(Fate.ANSWERED, 1, 1) == (1, 0)
    assert charge(Fate.ANSWERED, 1, 2) == (1, 1)  # likely 1, may have been 2
    assert charge(Fate.UNANSWERED, 1, 2) == (0, 2)
    assert charge(Fate.NOT_SENT, 2, 2) == charge(Fate.REFUSED, 2, 2) == (0, 0)
    assert [fate_of_status(s) for s in (200, 404, 429, 500, 401, 403, 503)] == [
        Fate.ANSWERED, Fate.ANSWERED, Fate.ANSWERED, Fate.ANSWERED,
        Fate.REFUSED, Fate.REFUSED, Fate.UNANSWERED,
    ]  # fmt: skip
    assert {f for f, rule in BILLING.items() if rule.counted} == {Fate.ANSWERED, Fate.UNANSWERED}


# --- timeouts, cancellation, interrupts ----------------------------------------------------------


def test_a_timed_out_call_counts_against_the_budget_as_the_gateway_bills_it(make_gateway, sandbox):
    gateway = make_gateway(budget=2, timeout=0.3)
    eth = gateway.node("ethereum-mainnet")
    sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=1.0)
    try:
        for _ in range(2):
            with pytest.raises(toolkit.Timeout):
                eth.block_number()
        with pytest.raises(toolkit.BudgetExceeded):
            eth.block_number()  # two may-have-been-billed calls used the 2 RU budget up
        entries = gateway.ledger.entries
        assert [(e.status, e.ru, e.unconfirmed_ru) for e in entries] == [
            ("Timeout", 0, 1), ("Timeout", 0, 1), ("BudgetExceeded", 0, 0),
        ]  # fmt: skip
        assert (
            metered_once_settled(sandbox, 2, "ethereum-mainnet") == gateway.ledger.counted_ru == 2
        )
        assert gateway.meter.in_flight_ru == 0
    finally:
        settle_delayed(sandbox, 1.0)


async def _once_received(sandbox, node: str, count: int) -> None:
    """Until the sandbox has metered `count` requests to `node` (it meters on receipt, before a
    fault's delay): the moment a call is surely sent, however slow the machine is."""
    deadline = time.monotonic() + 10
    while metered(sandbox, node) < count:
        assert time.monotonic() < deadline, "the request never reached the sandbox"
        await asyncio.sleep(0.01)


@pytest.mark.parametrize("how", ["timeout", "task.cancel"])
def test_a_cancelled_call_settles_its_reservation_and_says_cancelled(make_gateway, sandbox, how):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")

    async def cancel_three() -> None:
        await eth.aio.client_version()  # warm up: the client and its connection exist
        gateway.ledger.clear()
        sandbox.reset_metering()
        gateway.set_budget(1 + 3)  # the warm-up spent 1
        sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=1.5)
        for sent in range(1, 4):
            # Cancelled while the sandbox delays the answer, so once the request was received:
            # by a timeout that expires then, or by the caller.
            if how == "timeout":
                with pytest.raises(TimeoutError):
                    async with asyncio.timeout(None) as expiry:
                        task = asyncio.ensure_future(eth.aio.block_number())
                        await _once_received(sandbox, "ethereum-mainnet", sent)
                        expiry.reschedule(asyncio.get_running_loop().time())
                        await task
            else:
                task = asyncio.create_task(eth.aio.block_number())
                await _once_received(sandbox, "ethereum-mainnet", sent)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task

    try:
        asyncio.run(cancel_three())
        entries = gateway.ledger.entries
        assert [(e.status, e.ru, e.unconfirmed_ru) for e in entries] == [("cancelled", 0, 1)] * 3
        assert gateway.meter.in_flight_ru == 0  # every reservation settled
        assert (
            metered_once_settled(sandbox, 3, "ethereum-mainnet") == gateway.ledger.counted_ru == 3
        )
        with pytest.raises(toolkit.BudgetExceeded):  # the 3 RU were (maybe) spent, not leaked
            eth.block_number()
    finally:
        settle_delayed(sandbox, 1.5)


def test_an_interrupt_during_a_workload_run_settles_every_call(make_gateway, sandbox):
    gateway = make_gateway(budget=100)
    eth = gateway.node("ethereum-mainnet")
    work = toolkit.Workload()
    for _ in range(20):
        work.add(eth, "eth_getBalance", ALICE, "latest")
    # Warm up: the background loop's HTTP client exists, so the run's requests leave at once.
    toolkit.Workload().add(eth, "web3_clientVersion").run(progress=False)
    gateway.ledger.clear()
    sandbox.reset_metering()
    sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=1.0)
    gc.collect()  # no finalizer should run (and swallow the interrupt) while the run waits
    # The notebook's interrupt button sends SIGINT: KeyboardInterrupt in the main thread. Sent
    # once the sandbox has the first four calls (a fixed 0.4 s could come before the run waited,
    # on a busy machine), so while the main thread surely waits for the run.
    stop_watching = threading.Event()

    def interrupt_once_four_are_in_flight() -> None:
        deadline = time.monotonic() + 10
        while metered(sandbox, "ethereum-mainnet") < 4:
            if stop_watching.wait(0.01) or time.monotonic() > deadline:
                return
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Thread(target=interrupt_once_four_are_in_flight, daemon=True)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            work.run(progress=False, concurrency=4, batch_size=1)
        entries = gateway.ledger.entries
        assert entries, "the calls in flight are in the ledger"
        assert {e.status for e in entries} == {"cancelled"}
        assert gateway.meter.in_flight_ru == 0
        assert gateway.budget.spent == 1 + gateway.ledger.counted_ru
        assert gateway.ledger.counted_ru == metered_once_settled(sandbox, 4) == 4  # none after
    finally:
        stop_watching.set()
        timer.join()
        settle_delayed(sandbox, 1.0)


def test_a_lower_budget_set_under_load_holds_for_calls_not_yet_sent(make_gateway, sandbox):
    gateway = make_gateway(budget=100, rate_limit=20)  # calls leave 50 ms apart
    eth = gateway.node("ethereum-mainnet")

    async def load() -> list:
        calls = [asyncio.create_task(eth.aio.block_number()) for _ in range(12)]
        await asyncio.sleep(0.08)
        gateway.set_budget(4)
        return await asyncio.gather(*calls, return_exceptions=True)

    results = asyncio.run(load())
    refused = [r for r in results if isinstance(r, toolkit.BudgetExceeded)]
    assert len(refused) == 12 - 4
    assert metered(sandbox) == gateway.ledger.total_ru == 4  # never past the new limit
    assert gateway.meter.in_flight_ru == 0 and gateway.budget.spent == 4


def test_set_budget_refuses_a_limit_below_what_was_spent(gateway):
    eth = gateway.node("ethereum-mainnet")
    eth.block_number()
    eth.block_number()
    with pytest.raises(toolkit.ValidationError, match=r"budget.*at least the 2 RU"):
        gateway.set_budget(1)


@pytest.mark.parametrize(
    ("setting", "value", "rule"),
    [
        ("budget", float("nan"), "type"),
        ("budget", -1, "min"),
        ("budget", "10", "type"),
        ("timeout", "1", "type"),
        ("timeout", 0, "min"),
        ("timeout", float("inf"), "min"),
        ("head_ttl_s", -1, "min"),
        ("retry", 3, "type"),
        ("pricing", {}, "type"),
    ],
)
def test_bad_settings_are_refused_when_the_handle_is_made(setting, value, rule):
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.connect(sandbox=True, **{setting: value})
    assert (caught.value.param, caught.value.rule) == (setting, rule)


# --- the head moves while calls are under way --------------------------------------------------


@pytest.fixture(scope="module")
def moving_sandbox():
    with Sandbox(seed=0, clock="wall") as running:  # heads advance at real block times
        yield running


def test_archive_pricing_under_a_moving_head_never_crosses_the_budget(moving_sandbox):
    info = moving_sandbox.info
    gateway = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], budget=10, timeout=5
    )
    arb = gateway.node("arbitrum-mainnet")  # 4 blocks a second
    head = arb.head()
    block = head - 120  # full now; archive (128 behind) two seconds later
    estimate = arb.estimate("eth_getBalance", ALICE, block, fetch_head=False)
    assert (estimate.low, estimate.high) == (1, 2) and "2 RU is reserved" in estimate.reason
    time.sleep(2.5)  # the cached head is still fresh (10 s), but the chain moved on
    sent = 0
    with pytest.raises(toolkit.BudgetExceeded):
        while True:
            arb.get_balance(ALICE, block=block)
            sent += 1
    server = metered(moving_sandbox, "arbitrum-mainnet")
    assert server <= 10 - 1  # the head fetch was the first RU
    assert gateway.ledger.total_ru <= server <= gateway.ledger.counted_ru
    assert sent == 4
    gateway.close()


# --- raw calls, refusals, deterministic bad answers ---------------------------------------------


class CountingLimiter(toolkit.RateLimiter):
    def __init__(self) -> None:
        super().__init__(10_000)
        self.booked = 0

    def take(self, calls: int = 1) -> Turn:
        self.booked += calls
        return super().take(calls)


def test_call_raw_is_priced_by_its_catalog_rule_and_rate_limited(make_gateway, sandbox):
    limiter = CountingLimiter()
    gateway = make_gateway(rate_limit=limiter)
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    old = hex(head - 1000)
    assert eth.call_raw("eth_getBalance", [ALICE, old]) == eth.call("eth_getBalance", ALICE, old)
    raw = gateway.ledger.entries[-2]
    assert (raw.method, raw.ru, raw.archive) == ("eth_getBalance", 2, True)
    assert limiter.booked == 3  # the head, the raw call and the catalog call
    assert gateway.ledger.total_ru == metered(sandbox) == 1 + 2 + 2


def test_refused_requests_are_free_and_a_503_may_have_been_billed(make_gateway, sandbox):
    gateway = make_gateway()
    good = sandbox.info["nodes"]["ethereum-mainnet"]
    # A wrong key that looks like one: it is registered as a secret for the rest of the run, and
    # a run of zeros would then be scrubbed out of every later answer that holds one.
    wrong = "5eedbad" + "c0ffee" * 4 + "1"
    bad_key = toolkit.node(good.rsplit("/", 1)[0] + "/" + wrong, chain="ethereum", cache=False)
    with pytest.raises(toolkit.HTTPStatusError) as caught:
        bad_key.block_number()
    assert caught.value.status == 403 and bad_key.ledger.total_ru == 0
    stopped = next(n for n in sandbox.world.nodes if not n.serving)
    url = f"{sandbox.platform_url.rstrip('/')}/{stopped.key}"
    stopped_node = toolkit.node(url, chain=stopped.chain, cache=False, retry=FAST_RETRY)
    with pytest.raises(toolkit.HTTPStatusError) as caught:
        stopped_node.call("eth_blockNumber")
    # A stopped node and an overloaded one both answer 503: the client cannot tell them apart, so
    # each attempt may have been billed (counted, shown apart); the sandbox bills no stopped node.
    assert caught.value.status == 503 and caught.value.attempts == FAST_RETRY.attempts
    assert (stopped_node.ledger.total_ru, stopped_node.ledger.unconfirmed_ru) == (0, 4)
    assert metered(sandbox) == 0
    sandbox.faults.set(kind="unavailable", node="ethereum-mainnet", count=2)
    gateway.node("ethereum-mainnet").block_number()  # two 503s, retried, then answered
    # The sandbox bills what the client counts: the 503s it was told to give, and the answer.
    assert (gateway.ledger.total_ru, gateway.ledger.unconfirmed_ru) == (1, 2)
    assert gateway.ledger.counted_ru == metered(sandbox) == 3


def _drip_server(part: str = "body") -> tuple[socket.socket, threading.Event]:
    """A server that sends headers, then one byte of body every 0.2 s, for 10 s; with `part`
    "headers", the status line, then one header line every 0.2 s, for 10 s (each read of the
    client gets a line in time, so only a deadline on the whole call stops it)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    def drip(conn: socket.socket) -> None:
        if part == "headers":
            return drip_headers(conn)
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n"
            )
            for _ in range(50):
                if stop.wait(0.2):
                    return
                try:
                    conn.sendall(b" ")
                except OSError:
                    return

    def drip_headers(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n")
            for number in range(50):
                if stop.wait(0.2):
                    return
                try:
                    conn.sendall(b"x-drip-%d: 1\r\n" % number)
                except OSError:
                    return

    threading.Thread(target=serve, daemon=True).start()
    return listener, stop


@pytest.mark.parametrize("part", ["body", "headers"])
@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_the_timeout_bounds_the_whole_call_against_a_dripping_server(flavour, part):
    listener, stop = _drip_server(part)
    port = listener.getsockname()[1]
    eth = toolkit.node(f"http://127.0.0.1:{port}/key", chain="ethereum", timeout=1.0)
    started = time.monotonic()
    try:
        with pytest.raises(toolkit.Timeout):
            if flavour == "sync":
                eth.block_number()
            else:
                asyncio.run(eth.aio.block_number())
        assert time.monotonic() - started < 3  # 1 s deadline; each read alone would last 10 s
        entry = eth.ledger.entries[-1]
        assert (entry.status, entry.ru, entry.unconfirmed_ru) == ("Timeout", 0, 1)
    finally:
        stop.set()
        listener.close()


def _server_that_never_accepts() -> tuple[socket.socket, list[socket.socket]]:
    """A listening socket that accepts nobody, its backlog full: the kernel drops a new
    connection's SYN, and connecting waits, as to a gateway behind a firewall that drops them."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    queued = []
    for _ in range(4):
        queued.append(socket.socket())
        queued[-1].setblocking(False)
        queued[-1].connect_ex(listener.getsockname())
    probe = socket.socket()
    probe.settimeout(0.5)
    try:
        probe.connect(listener.getsockname())
    except TimeoutError:
        return listener, queued
    finally:
        probe.close()
    for sock in (listener, *queued):
        sock.close()
    pytest.skip("this kernel accepts connections past a full backlog")


@pytest.mark.parametrize("flavour", ["sync", "aiohttp", "httpx", "workload"])
def test_a_call_whose_deadline_passes_while_connecting_was_never_sent(flavour):
    """Nothing reached the gateway: no RU billed, none maybe billed, and the ledger says it was
    not sent, on the blocking path, both async stacks and a bulk run alike."""
    listener, queued = _server_that_never_accepts()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/key"
    stack = {"async_transport": flavour} if flavour in ("aiohttp", "httpx") else {}
    eth = toolkit.node(url, chain="ethereum", cache=False, timeout=1.0, budget=10, **stack)
    try:
        if flavour == "workload":
            work = toolkit.Workload().grid(eth, "eth_getBalance", [ALICE], [1, 2])
            frame = work.run(progress=False)
            assert frame["error"].tolist() == ["Timeout"] * 2
            assert frame["ru"].sum() == frame["unconfirmed_ru"].sum() == 0
        else:
            with pytest.raises(toolkit.Timeout, match="ConnectTimeout"):
                if flavour == "sync":
                    eth.block_number()
                else:
                    asyncio.run(eth.aio.block_number())
        entries = eth.ledger.entries
        assert entries and all(
            (e.status, e.ru, e.unconfirmed_ru, e.sent) == ("Timeout", 0, 0, False) for e in entries
        )
        assert eth.ledger.counted_ru == 0 and eth.meter.in_flight_ru == 0
    finally:
        eth.close()
        for sock in (listener, *queued):
            sock.close()


@pytest.mark.parametrize("flavour", ["sync", "aiohttp", "httpx"])
def test_a_call_stopped_while_connecting_was_never_sent(flavour):
    """A cancel (async) or an interrupt (the notebook's button: SIGINT) before the request could
    leave is free too; once it may have left, it counts as maybe billed (the tests above)."""
    listener, queued = _server_that_never_accepts()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/key"
    stack = {} if flavour == "sync" else {"async_transport": flavour}
    eth = toolkit.node(url, chain="ethereum", cache=False, timeout=10, budget=10, **stack)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    try:
        if flavour == "sync":
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                eth.block_number()
            expected = "interrupted"
        else:

            async def cancelled() -> None:
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(eth.aio.block_number(), 0.5)

            asyncio.run(cancelled())
            expected = "cancelled"
        entries = eth.ledger.entries
        assert [(e.status, e.ru, e.unconfirmed_ru, e.sent) for e in entries] == [
            (expected, 0, 0, False)
        ]
        assert eth.meter.in_flight_ru == 0 and eth.ledger.counted_ru == 0
    finally:
        timer.cancel()
        eth.close()
        for sock in (listener, *queued):
            sock.close()


@pytest.mark.parametrize(
    ("make", "param"),
    [
        (lambda gw: gw.node("ethereum-mainnet").batch([42]), "calls"),
        (lambda gw: gw.node("ethereum-mainnet").batch(42), "calls"),
        (lambda gw: gw.node("ethereum-mainnet").call_raw(42), "method"),
        (lambda gw: gw.node(42), "name"),
        (lambda gw: toolkit.node(42), "url"),
    ],
)
def test_misshapen_calls_are_validation_errors_naming_the_parameter(gateway, make, param):
    with pytest.raises(toolkit.ValidationError) as caught:
        make(gateway)
    assert caught.value.param == param
    assert gateway.ledger.entries == []


@pytest.mark.parametrize(
    ("dies_in", "unconfirmed"),
    [
        ("Response.iter_bytes", 1),  # the request went out: it may have been billed
        ("Client.stream", 0),  # before anything was sent: free
    ],
)
def test_a_worker_thread_dying_mid_call_settles_its_reservation(
    make_gateway, monkeypatch, dies_in, unconfirmed
):
    gateway = make_gateway(budget=5)
    eth = gateway.node("ethereum-mainnet")

    def die(*args, **kwargs):
        raise SystemExit("the worker thread is told to end")

    owner, name = dies_in.split(".")
    monkeypatch.setattr(getattr(httpx, owner), name, die)
    died = []
    worker = threading.Thread(target=lambda: died.append(_run_or_exit(eth.block_number)))
    worker.start()
    worker.join()
    assert died == ["SystemExit"]
    assert gateway.meter.in_flight_ru == 0
    entry = gateway.ledger.entries[-1]
    assert (entry.status, entry.ru, entry.unconfirmed_ru) == ("SystemExit", 0, unconfirmed)


def _run_or_exit(call) -> str:
    try:
        call()
    except SystemExit as ended:
        return type(ended).__name__
    return "returned"
