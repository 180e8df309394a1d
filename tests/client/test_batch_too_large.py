"""A node that refuses a JSON-RPC batch as too large (geth over its ``--rpc.batch-request-limit``:
one -32600 "batch too large" error for the whole batch, go-ethereum ``rpc/handler.go``
`respondWithBatchTooLarge`): the calls go again in smaller batches, down to single calls, and
every request is billed as the gateway bills it. Over real loopback HTTP, against the sandbox
taught to refuse batches over a limit the same way."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

import toolkit
from toolkit.client._http import Answer
from toolkit.client._protocol import batch_request
from toolkit.sandbox import DEMO, Sandbox
from toolkit.workloads import Workload

ADDRESSES = list(DEMO.evm.accounts.values())[:10]  # funded: each balance differs
FAST_RETRY = toolkit.RetryPolicy(attempts=2, backoff_s=0.001)


@pytest.fixture(scope="module")
def limited() -> Iterator[Sandbox]:
    with Sandbox(seed=0, head_pace=0, batch_limit=3) as running:
        yield running


@pytest.fixture
def gateway(limited: Sandbox) -> Iterator[toolkit.Gateway]:
    limited.reset_metering()
    info = limited.info
    opened = toolkit.Gateway(
        info["platform_url"],
        info["api_key"],
        nodes=info["nodes"],
        sandbox=limited,
        retry=FAST_RETRY,
        cache=False,
    )
    yield opened
    opened.close()


def metered(sandbox: Sandbox) -> tuple[int, int, int]:
    """(requests, calls, RU) the sandbox metered, over every node."""
    usage = sandbox.metering().values()
    return (
        sum(u["requests"] for u in usage),
        sum(u["calls"] for u in usage),
        sum(u["ru"] for u in usage),
    )


def test_the_sandbox_refuses_a_batch_over_its_limit_as_geth_does(limited):
    limited.reset_metering()
    url = limited.info["nodes"]["ethereum-mainnet"]
    calls = [
        {"jsonrpc": "2.0", "id": 7 + i, "method": "eth_blockNumber", "params": []} for i in range(4)
    ]
    answer = httpx.post(url, json=calls).json()
    assert answer == [
        {"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": "batch too large"}}
    ]
    assert len(httpx.post(url, json=calls[:3]).json()) == 3  # at the limit: answered
    assert metered(limited)[:2] == (2, 7)  # the refused batch was received: billed as sent
    with pytest.raises(ValueError, match="batch_limit"):
        Sandbox(batch_limit=0)


def test_a_batch_refused_as_too_large_is_sent_again_in_smaller_batches(gateway, limited):
    node = gateway.node("ethereum-mainnet")
    calls = [("eth_getBalance", address, "latest") for address in ADDRESSES]
    expected = [node.call("eth_getBalance", address, "latest") for address in ADDRESSES]
    assert len(set(expected)) == len(ADDRESSES)
    limited.reset_metering()
    before = gateway.ledger.total_ru
    assert node.batch(calls) == expected
    # 10 refused, then 5 refused, then parts of 2, 2 and one alone, twice over.
    assert node.max_batch == 2 and node.accepts_batches is True
    requests, billed_calls, ru = metered(limited)
    assert (requests, billed_calls) == (8, 25)
    assert gateway.ledger.total_ru - before == ru == 25  # billed as the gateway billed
    refused = [e for e in gateway.ledger.entries if e.status == "BatchRefused"]
    assert len(refused) == 15 and all(e.ru == 1 and e.retries == 0 for e in refused)
    # Learned: the next batch goes in parts of two straight away, no refusal paid again.
    limited.reset_metering()
    assert node.batch(calls) == expected
    assert metered(limited)[:2] == (5, 10)


def test_each_call_receipt_counts_the_refused_batches_it_rode_in(gateway, limited):
    node = gateway.node("ethereum-mainnet")
    prepared = [node.prepare("eth_getBalance", address, "latest") for address in ADDRESSES[:4]]
    limited.reset_metering()
    results = node.send_batch(prepared, return_exceptions=True)
    assert not any(isinstance(result, Exception) for result in results)
    # 4 refused, then parts of 2: each call paid twice, as the sandbox metered.
    assert [call.receipt.ru for call in prepared] == [2, 2, 2, 2]
    assert sum(call.receipt.ru for call in prepared) == metered(limited)[2] == 8


def test_a_bulk_run_falls_back_to_smaller_batches_not_to_failures(gateway, limited):
    node = gateway.node("ethereum-mainnet")
    work = Workload().grid(node, "eth_getBalance", ADDRESSES, ["latest"])
    frame = work.run(progress=False, batch_size=10)
    assert frame["error"].isna().all()
    assert frame["value"].tolist() == [node.get_balance(a, "latest") for a in ADDRESSES]
    assert node.max_batch is not None and node.max_batch <= 3
    _, _, ru = metered(limited)
    assert frame["ru"].sum() + 10 == ru  # the rows' RU, refusals included, and the 10 checks


def test_the_async_client_falls_back_too(gateway):
    node = gateway.node("ethereum-mainnet")
    calls = [("eth_getBalance", address, "latest") for address in ADDRESSES[:5]]

    async def main():
        try:
            return await node.aio.batch(calls)
        finally:
            await node.aio.aclose()

    expected = [node.call("eth_getBalance", address, "latest") for address in ADDRESSES[:5]]
    assert asyncio.run(main()) == expected


def read_batch(status: int, body: bytes, calls: int = 3):
    wire = [("eth_blockNumber", [], None)] * calls
    _, interpret = batch_request(wire, "http://127.0.0.1/", {}, return_exceptions=True, node="n")
    return interpret(Answer(status, {}, body))


@pytest.mark.parametrize(
    "body",
    [
        # geth's answer when the batch holds no call with an id: null
        b'[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}]',
        # Besu's --rpc-max-batch-size refusal, as one object
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32602,'
        b'"message":"Number of requests in batch exceeds --rpc-max-batch-size."}}',
    ],
)
def test_a_lone_error_that_says_the_batch_is_too_large_refuses_its_size(body):
    with pytest.raises(toolkit.BatchRefused) as caught:
        read_batch(200, body)
    assert caught.value.too_large is True and caught.value.limit is None


def test_a_stated_limit_and_a_413_are_read_and_other_lone_errors_refuse_batches():
    stated = (
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch limit 2 exceeded"}}'
    )
    with pytest.raises(toolkit.BatchRefused) as caught:
        read_batch(200, stated)
    assert caught.value.too_large and caught.value.limit == 2
    with pytest.raises(toolkit.BatchRefused) as caught:
        read_batch(413, b"<html>413 Request Entity Too Large</html>")
    assert caught.value.too_large and caught.value.limit is None
    lone = b'[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches not allowed"}}]'
    with pytest.raises(toolkit.BatchRefused) as caught:
        read_batch(200, lone)
    assert not caught.value.too_large
    rate = b'[{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"rate limit"}}]'
    with pytest.raises(toolkit.RateLimited):  # the whole batch was rate limited: retried
        read_batch(200, rate)


def test_the_ledger_joins_a_run_whose_batch_was_refused_as_too_large(gateway, limited):
    """5 calls in a batch over the limit of 3: refused, then in parts of 2, 2 and 1 (the last
    sent alone). Every call's ledger entries, the refused batch's included, carry its params:
    what the ledger says each call cost is what its row says."""
    node = gateway.node("ethereum-mainnet")
    before = len(gateway.ledger)
    work = Workload().grid(node, "eth_getBalance", ADDRESSES[:5], ["latest"])
    frame = work.run(progress=False, batch_size=5)
    assert frame["error"].isna().all()
    entries = gateway.ledger.frame.iloc[before:]
    assert entries["note"].str.contains("sent alone").any()  # the part of one
    paid = entries.groupby("params")["ru"].sum()
    assert sorted(paid.index) == sorted(frame["params"])
    assert paid[frame["params"]].tolist() == frame["ru"].tolist()
    assert entries["ru"].sum() == metered(limited)[2]
