"""The fault matrix: every fault the sandbox can inject ends, within a bounded time, either in
success after bounded retries or in a typed error that names the node (redacted) and the method."""

import time

import pytest

import toolkit
from toolkit.sandbox import DEMO

ALICE = DEMO.evm.accounts["alice"]
RETRYABLE = [
    ("rate-limit", toolkit.RateLimited),
    ("rate-limit-html", toolkit.RateLimited),
    ("rate-limit-rpc", toolkit.RateLimited),
    ("server-error", toolkit.HTTPStatusError),
    ("bad-gateway", toolkit.HTTPStatusError),
    ("unavailable", toolkit.HTTPStatusError),
    ("truncated", toolkit.MalformedResponse),
    ("html", toolkit.MalformedResponse),
    ("drop", toolkit.TransportError),
]

CALLS = {
    "ethereum-mainnet": lambda gw: gw.node("ethereum-mainnet").get_balance(ALICE),
    "tron-mainnet": lambda gw: gw.node("tron-mainnet").get_block_by_latest_num(1),
    "ton-mainnet": lambda gw: gw.node("ton-mainnet").get_token_data(DEMO.ton.jettons[0].address),
    "platform": lambda gw: gw.platform.list_nodes_page(),
}
METHODS = {
    "ethereum-mainnet": "eth_getBalance",
    "tron-mainnet": "wallet/getblockbylatestnum",
    "ton-mainnet": "api/v2/getTokenData",
    "platform": "v2/nodes/",
}


JSON_RPC_NODES = {"ethereum-mainnet"}
MATRIX = [
    (node, kind)
    for node in CALLS
    for kind, _ in RETRYABLE
    if kind != "rate-limit-rpc" or node in JSON_RPC_NODES  # a JSON-RPC shape, on JSON-RPC only
]


@pytest.mark.parametrize(("node", "kind"), MATRIX)
def test_a_passing_fault_is_retried_to_success(gateway, sandbox, node, kind):
    sandbox.faults.set(kind=kind, node=node, count=2, retry_after=0)
    started = time.monotonic()
    assert CALLS[node](gateway)
    assert time.monotonic() - started < 30  # no hang; speed is measured in bench/
    entry = gateway.ledger.entries[-1]
    assert (entry.status, entry.retries) == ("ok", 2)


@pytest.mark.parametrize(("kind", "error_type"), RETRYABLE)
def test_a_lasting_fault_ends_in_a_typed_error_naming_node_and_method(
    gateway, sandbox, kind, error_type
):
    info = sandbox.info
    node = "ethereum-mainnet" if kind == "rate-limit-rpc" else "tron-mainnet"
    sandbox.faults.set(kind=kind, node=node, retry_after=0, try_again_in="1ms")
    started = time.monotonic()
    with pytest.raises(error_type) as caught:
        CALLS[node](gateway)
    assert time.monotonic() - started < 5
    error = caught.value
    assert error.method == METHODS[node] and error.node == node
    assert error.attempts == 4  # the policy's bound
    text = str(error) + repr(error)
    assert node in text and METHODS[node] in text
    assert not any(secret in text for secret in [info["api_key"], *info["nodes"].values()])
    assert all(key.rsplit("/", 1)[-1] not in text for key in info["nodes"].values())


def test_a_wrong_content_type_with_a_json_body_is_read(gateway, sandbox):
    sandbox.faults.set(kind="wrong-content-type", node="tron-mainnet")
    assert gateway.node("tron-mainnet").get_block_by_latest_num(2)["block"]
    assert gateway.ledger.entries[-1].retries == 0


@pytest.mark.parametrize("node", list(CALLS))
def test_a_non_json_number_is_malformed_at_once_on_every_surface(gateway, sandbox, node):
    """NaN where a number (or the result) was: refused, and not asked again (it would repeat)."""
    sandbox.faults.set(kind="non-json-number", node=node)
    with pytest.raises(
        toolkit.MalformedResponse, match="NaN, which is not a JSON number"
    ) as caught:
        CALLS[node](gateway)
    assert caught.value.attempts == 1
    assert caught.value.method == METHODS[node] and node in caught.value.node


def test_retry_after_is_honoured(gateway, sandbox):
    sandbox.faults.set(kind="rate-limit", node="ethereum-mainnet", count=1, retry_after=1)
    started = time.monotonic()
    gateway.node("ethereum-mainnet").block_number()
    assert 1.0 <= time.monotonic() - started < 3


def test_try_again_in_is_honoured(gateway, sandbox):
    sandbox.faults.set(
        kind="rate-limit-rpc", node="ethereum-mainnet", count=1, try_again_in="300ms"
    )
    started = time.monotonic()
    gateway.node("ethereum-mainnet").block_number()
    # Waited at least the hint (the fast retries of this gateway would not); the upper bound
    # only guards against a hang, since a loaded machine may add seconds.
    assert 0.3 <= time.monotonic() - started < 30


def test_a_timeout_is_a_typed_error(sandbox):
    info = sandbox.info
    gw = toolkit.Gateway(
        info["platform_url"],
        info["api_key"],
        nodes=info["nodes"],
        timeout=0.2,
        retry=toolkit.RetryPolicy(attempts=2, backoff_s=0.01),
    )
    sandbox.reset_metering()
    sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=1.0)
    try:
        with pytest.raises(toolkit.Timeout) as caught:
            gw.node("ethereum-mainnet").block_number()
        # The timeout is the whole call's deadline: once spent, there is no time to retry.
        assert caught.value.attempts == 1
        entry = gw.ledger.entries[-1]
        # Sent but unanswered: not billed for sure, but the gateway may have billed it.
        assert (entry.status, entry.ru, entry.unconfirmed_ru) == ("Timeout", 0, 1)
        assert sandbox.metering()["ethereum-mainnet"]["ru"] == gw.ledger.counted_ru == 1
    finally:
        sandbox.faults.clear()
        time.sleep(1.2)  # the abandoned requests are still delayed in the sandbox: let them end


def test_errors_that_would_repeat_are_not_retried(gateway):
    tron = gateway.node("tron-mainnet")
    with pytest.raises(toolkit.AmbiguousAssetName):
        tron.get_asset_issue_by_name(DEMO.tron.ambiguous_name)
    assert gateway.ledger.entries[-1].retries == 0
    with pytest.raises(toolkit.RPCError):
        gateway.node("ethereum-mainnet").call_raw("eth_noSuchMethod")
    assert gateway.ledger.entries[-1].retries == 0


def test_ledger_bills_each_answered_attempt_like_the_sandbox(gateway, sandbox):
    sandbox.faults.set(kind="server-error", node="ethereum-mainnet", count=2)
    gateway.node("ethereum-mainnet").get_balance(ALICE, block="latest")
    sandbox.faults.set(kind="drop", node="tron-mainnet", count=1)
    gateway.node("tron-mainnet").get_block_by_latest_num(1)
    server = sandbox.metering()
    # Two 500s and the answer are billed; the dropped request may have been (the gateway got
    # it), so it counts apart, and the sandbox, billing on receipt, counts it too.
    assert (gateway.ledger.total_ru, gateway.ledger.unconfirmed_ru) == (3 + 1, 1)
    assert server["ethereum-mainnet"]["ru"] + server["tron-mainnet"]["ru"] == 5


TRANSPORTS = ("aiohttp", "httpx")


@pytest.fixture(scope="module")
def sandbox_process():
    """The sandbox in a process of its own (as `python -m toolkit sandbox` runs it): its server
    closes idle connections on its own clock, not between the client's steps."""
    import json
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "toolkit", "sandbox", "--head-pace", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield json.loads(process.stdout.readline())
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_connection_the_server_closes_when_idle_is_not_reused(sandbox_process):
    """Servers close a connection after 5 s idle (uvicorn, Node's http). A client that keeps it
    longer may send on it just as it closes: the call fails after it was sent (counted as maybe
    billed) and is sent again. With aiohttp's own 15 s, pauses of 4 and 4.9 s between runs of
    3,200 calls did that 11 times. The client drops idle connections sooner. Both transports
    take their pauses at once, each in a thread of its own (the pauses are most of the time)."""
    from concurrent.futures import ThreadPoolExecutor

    from toolkit.client._http import KEEPALIVE_S
    from toolkit.sandbox._server import SERVER_KEEPALIVE_S
    from toolkit.workloads._workload import Workload

    assert KEEPALIVE_S < SERVER_KEEPALIVE_S
    info = sandbox_process

    def runs_with_pauses(transport: str) -> toolkit.Gateway:
        gateway = toolkit.Gateway(
            info["platform_url"], info["api_key"], nodes=info["nodes"], async_transport=transport
        )
        eth = gateway.node("ethereum-mainnet")
        head = eth.head()
        addresses = [f"0x{index:040x}" for index in range(1, 65)]
        blocks = [head - 300 - block for block in range(50)]
        for pause in (0, 4.0, SERVER_KEEPALIVE_S - 0.1):  # 32 batches in flight: 32 connections
            time.sleep(pause)
            frame = Workload().grid(eth, "eth_getBalance", addresses, blocks).run(progress=False)
            assert frame["error"].isna().all(), transport
        return gateway

    with ThreadPoolExecutor(2) as pool:
        gateways = dict(zip(TRANSPORTS, pool.map(runs_with_pauses, TRANSPORTS), strict=True))
    for transport, gateway in gateways.items():
        assert gateway.ledger.unconfirmed_ru == 0, transport
        assert not [e for e in gateway.ledger.entries if e.retries], transport
        gateway.close()
