"""The sandbox reached in process (`InProcessTransport`): no socket, no thread, and the answers,
the metering and the faults of the same sandbox over loopback HTTP, byte for byte.

Two sandboxes of one seed with frozen heads see the same requests in the same order: one served
on loopback, one reachable in process only. What each answers is compared."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from urllib.parse import urlsplit

import httpx
import pytest

import toolkit
from tests.client.test_methods import CASES
from toolkit.client import _node, _transport
from toolkit.client._http import Answer, Delivery, HTTPRequest, NoAnswer, Send
from toolkit.client._identity import gateway_identity
from toolkit.client._inprocess import InProcessTransport, in_process_transport
from toolkit.client._network import sync_transport
from toolkit.sandbox import FaultKind, Sandbox
from toolkit.sandbox._app import MAX_BODY_BYTES

ONE_TRY = toolkit.RetryPolicy(attempts=1)
BLOCK_NUMBER = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}


@pytest.fixture
def wire():
    with Sandbox(seed=0, head_pace=0) as served:
        yield served


@pytest.fixture
def same_ids(monkeypatch):
    """`same_ids()` before each sandbox's calls: they are then sent with the same JSON-RPC ids.
    The ids come from one counter for the whole process, so the second sandbox's requests would
    otherwise carry other ids than the first's, and an answer that shows its id (a truncated
    body cut in the id's digits, once it has two) would differ for that reason alone."""
    return lambda: monkeypatch.setattr(_transport, "_request_ids", itertools.count(1))


@pytest.fixture
def local():
    """A sandbox reachable in process only: a gateway given it reaches its nodes so, as
    `connect()`'s does."""
    return Sandbox(seed=0, head_pace=0).in_process()


def _gateway(sandbox: Sandbox, **options) -> toolkit.Gateway:
    info = sandbox.info
    options = {"retry": ONE_TRY, "cache": False, **options}
    return toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox, **options
    )


def _step(request: HTTPRequest, timeout: float = 10.0) -> Send:
    return Send(request, time.monotonic() + timeout, Delivery())


class Recording(InProcessTransport):
    """The in-process transport, keeping each request and what it was answered."""

    def __init__(self, sandbox: Sandbox):
        super().__init__(sandbox)
        self.seen: list[tuple[HTTPRequest, Answer]] = []

    def send(self, step: Send):
        outcome = super().send(step)
        self.seen.append((step.request, outcome))
        return outcome


def _comparable(answer: Answer, port_text: str = "") -> tuple[int, dict[str, str], bytes]:
    headers = {k: v for k, v in answer.headers.items() if k not in ("date", "server")}
    content = answer.content
    if port_text:  # the platform lists nodes at the address it was asked at
        content = content.replace(port_text.encode(), b"127.0.0.1:0")
        headers["content-length"] = str(len(content))
    return answer.status_code, headers, content


def test_the_urls_name_port_0_and_only_they_are_reached_in_process(local, wire):
    url = local.info["nodes"]["ethereum-mainnet"]
    assert url.startswith("http://127.0.0.1:0/") and repr(local) == "<Sandbox seed=0 in process>"
    assert isinstance(in_process_transport(local, url), InProcessTransport)
    assert in_process_transport(local, wire.info["nodes"]["ethereum-mainnet"]) is None
    assert in_process_transport(None, url) is None
    # One gateway to the cache, datasets and tapes: what either kept, the other finds.
    served = wire.info["nodes"]["ethereum-mainnet"]
    assert gateway_identity(url, "ethereum") == gateway_identity(served, "ethereum")
    with pytest.raises(RuntimeError, match="in_process"):
        _ = Sandbox().port  # neither started nor in process


def test_every_catalog_method_answers_in_process_as_over_loopback(local, wire, monkeypatch):
    recording = Recording(local)
    monkeypatch.setattr(_node, "in_process_transport", lambda sandbox, url: recording)
    gateway = _gateway(local)
    for case in CASES:
        client = gateway.platform if case.node == "platform" else gateway.node(case.node)
        client.call(case.method, *case.args, **(case.kwargs or {}))
    # And the refusals: no key, a wrong key, a wrong path and method, no API key, a bad page,
    # a body nested too deep or too large.
    base, key = local.platform_url, local.world.nodes[0].key
    refusals = [
        HTTPRequest("POST", base + "/", json=BLOCK_NUMBER),
        HTTPRequest("POST", base + "/" + "0" * 32, json=BLOCK_NUMBER),
        HTTPRequest("GET", f"{base}/{key}/nowhere"),
        HTTPRequest("PATCH", f"{base}/{key}", json=BLOCK_NUMBER),
        HTTPRequest("GET", base + "/v2/nodes/"),
        HTTPRequest("GET", base + "/v2/nodes/", params={"page": 9}, headers=toolkit_bearer(local)),
        HTTPRequest("POST", f"{base}/{key}", json=_nested(100)),  # nested too deep
        HTTPRequest("POST", f"{base}/{key}", json={"pad": "x" * MAX_BODY_BYTES}),  # too large
    ]
    for request in refusals:
        recording.send(_step(request))
    assert {request.url.split("/")[3] for request, _ in recording.seen} >= {"v2", key}
    called = {e.method for e in gateway.ledger.entries}
    assert called == {case.method for case in CASES}

    port_text = f"127.0.0.1:{wire.port}"
    http = sync_transport(wire.platform_url, 10, trust_env=False)
    for request, answer in recording.seen:
        over_the_wire = request._replace(url=request.url.replace("127.0.0.1:0", port_text))
        answered = http.send(_step(over_the_wire))
        assert _comparable(answer) == _comparable(answered, port_text), request
    http.close()
    assert local.metering() == wire.metering()


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def toolkit_bearer(sandbox: Sandbox) -> dict[str, str]:
    return {"Authorization": f"Bearer {sandbox.world.api_key}"}


def _outcome(gateway: toolkit.Gateway, aio: bool = False):
    node = gateway.node("ethereum-mainnet")
    try:
        if aio:
            return asyncio.run(node.aio.call("eth_blockNumber"))
        return node.call("eth_blockNumber")
    except toolkit.GatewayError as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("aio", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("kind", [kind for kind in FaultKind if kind is not FaultKind.LATENCY])
def test_a_fault_befalls_a_call_in_process_as_over_loopback(local, wire, kind, aio, same_ids):
    outcomes, ledgers = [], []
    for sandbox in (local, wire):
        same_ids()
        sandbox.faults.set(kind=kind, node="ethereum-mainnet", count=1)
        gateway = _gateway(sandbox, async_transport="httpx")
        # the fault, then a good answer
        outcomes.append([_outcome(gateway, aio), _outcome(gateway, aio)])
        ledgers.append(
            [(e.method, e.ru, e.unconfirmed_ru, e.status) for e in gateway.ledger.entries]
        )
        gateway.close()
    assert outcomes[0] == outcomes[1]
    assert ledgers[0] == ledgers[1]
    assert local.metering() == wire.metering()
    secrets = [local.world.api_key, *(node.key for node in local.world.nodes)]
    assert not any(secret in repr(outcomes[0]) for secret in secrets)


def test_a_fault_s_delay_is_waited_and_one_past_the_deadline_is_a_timeout(local, wire):
    for sandbox in (local, wire):
        sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=0.2, count=1)
    started = time.monotonic()
    assert _outcome(_gateway(local)) == _outcome(_gateway(wire))
    assert time.monotonic() - started >= 0.4  # each waited its 0.2 s
    outcomes = []
    for sandbox, aio in [(local, False), (wire, False), (local, True), (wire, True)]:
        sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=5, count=1)
        started = time.monotonic()
        outcomes.append(_outcome(_gateway(sandbox, timeout=0.3, async_transport="httpx"), aio))
        assert time.monotonic() - started < 2  # only what was left of the deadline is slept
    assert outcomes[0] == outcomes[1] == outcomes[2] == outcomes[3]
    assert outcomes[0][0] == "Timeout"
    assert local.metering() == wire.metering()


def test_an_unforeseen_failure_is_the_wire_s_json_500(local, wire, monkeypatch, same_ids):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    outcomes = []
    for sandbox in (local, wire):
        same_ids()
        monkeypatch.setattr(sandbox.gateway, "_answer", broken)
        outcomes.append(_outcome(_gateway(sandbox)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == "HTTPStatusError" and "secret internals" not in outcomes[0][1]


def test_a_call_past_its_deadline_is_not_handed_over(local):
    step = Send(HTTPRequest("POST", local.info["nodes"]["ethereum-mainnet"]), 0.0, Delivery())
    passed = InProcessTransport(local).send(step)
    assert isinstance(passed, NoAnswer) and isinstance(passed.error, toolkit.Timeout)
    assert not passed.sent
    assert not step.delivery.may_have_left
    assert local.metering()["ethereum-mainnet"]["requests"] == 0


class _NoThreads:
    """A browser's Python: no thread can start."""

    def submit(self, *args, **kwargs):
        raise RuntimeError("can't start new thread")


def test_a_blocking_service_answers_off_the_caller_s_thread_or_in_it_where_none_starts(
    local, monkeypatch
):
    """Solana's simulator runs on a worker thread, as the server runs it (LiteSVM leaves its
    thread unable to run LAPACK with numpy 1.x: the floors' plots caught it), never the
    server's pool; where no thread can start, in the caller's."""

    def not_the_server_s(*args, **kwargs):
        raise AssertionError("the in-process transport used the server's thread pool")

    monkeypatch.setattr("toolkit.sandbox._app.run_in_threadpool", not_the_server_s)
    case = next(case for case in CASES if case.method == "simulateTransaction")
    solana = _gateway(local).node("solana-mainnet")
    assert solana.call(case.method, *case.args)["value"]["err"] is None
    assert "toolkit-sandbox-simulator" in {
        thread.name.rsplit("_", 1)[0] for thread in threading.enumerate()
    }
    monkeypatch.setattr("toolkit.sandbox._app._simulator", _NoThreads())
    threads = threading.active_count()
    assert solana.call(case.method, *case.args)["value"]["err"] is None
    assert threading.active_count() == threads


def test_calls_work_inside_a_running_event_loop_sync_and_async(local):
    gateway = _gateway(local)
    eth = gateway.node("ethereum-mainnet")

    async def notebook_cell():
        blocking = eth.head()  # a sync call where a loop runs, as in Jupyter
        awaited = int(await eth.aio.call("eth_blockNumber"), 16)
        gathered = await asyncio.gather(*(eth.aio.call("eth_chainId") for _ in range(20)))
        return blocking, awaited, gathered

    threads = threading.active_count()
    blocking, awaited, gathered = asyncio.run(notebook_cell())
    assert blocking == awaited and gathered == ["0x1"] * 20
    assert threading.active_count() == threads
    assert local.metering()["ethereum-mainnet"]["requests"] == 22


def test_threads_calling_at_once_are_served_one_at_a_time_and_each_metered(local):
    """As a server's one event loop serves them: 16 threads, 50 calls each."""
    from concurrent.futures import ThreadPoolExecutor

    local.world.clock.pace = 1.0  # the time of the requests clock moves again
    gateway = _gateway(local)
    nodes = [gateway.node(name) for name in ("ethereum-mainnet", "polygon-mainnet")]
    before = local.world.clock.utc()

    def client(worker: int) -> list[str]:
        return [nodes[(worker + i) % 2].call("eth_chainId") for i in range(50)]

    with ThreadPoolExecutor(16) as pool:
        answers = [a for batch in pool.map(client, range(16)) for a in batch]
    assert sorted(set(answers)) == ["0x1", "0x89"] and len(answers) == 800
    used = local.metering()
    assert sum(u["requests"] for u in used.values()) == 800 == sum(u["ru"] for u in used.values())
    assert (local.world.clock.utc() - before).total_seconds() == 800  # a second per request
    assert sum(e.ru for e in gateway.ledger.entries) == 800


def test_an_answer_over_the_size_bound_is_refused_as_on_the_wire(local):
    request = HTTPRequest("POST", local.info["nodes"]["ethereum-mainnet"], json=BLOCK_NUMBER)
    step = _step(request)._replace(max_bytes=10)
    refused = InProcessTransport(local).send(step)
    assert isinstance(refused, NoAnswer) and refused.status == 200 and refused.sent
    assert isinstance(refused.error, toolkit.MalformedResponse)


def test_another_process_is_given_the_address_of_the_sandbox_served_on_loopback(local):
    """A Dask worker cannot reach a sandbox in another process's memory: a node's spec (what a
    worker opens) names the sandbox served on loopback, started for it, with one meter."""
    spec = _gateway(local).node("ethereum-mainnet").spec()
    try:
        assert urlsplit(spec.url).port not in (None, 0)
        answer = httpx.post(spec.url, json=BLOCK_NUMBER, timeout=10)
        assert answer.json()["result"].startswith("0x")
        assert local.metering()["ethereum-mainnet"]["requests"] == 1
        assert (
            gateway_identity(spec.url, "ethereum")
            == _gateway(local).node("ethereum-mainnet").gateway
        )
    finally:
        local.stop()
