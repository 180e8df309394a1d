"""The transport contract (`toolkit.client._http.Transport`): a transport written by a user, after
httpx's `MockTransport` (a function answers each request), carries real `Node` calls end to end,
sync and async, without subclassing anything; a tape records through it and replays without it;
what it says of an exchange that got no answer (`NoAnswer.sent`) decides the bill."""

from __future__ import annotations

import asyncio
import json

import pytest

import toolkit
from toolkit.client import _node
from toolkit.client._http import Answer, HTTPRequest, NoAnswer

from ..conftest import FAST_RETRY

URL = "https://eth.example.invalid/v2/SECRETKEY0123456789"


class FunctionTransport:
    """A transport by contract alone (no base class): `handler` answers each request."""

    def __init__(self, handler):
        self.handler = handler
        self.requests: list[HTTPRequest] = []
        self.closed = False

    def send(self, step):
        self.requests.append(step.request)
        return self.handler(step.request)

    async def asend(self, step):
        return self.send(step)

    def close(self):
        self.closed = True

    async def aclose(self):
        self.closed = True


def balance_of(request: HTTPRequest) -> Answer:
    body = request.json
    assert body["method"] == "eth_getBalance"
    answer = {"jsonrpc": "2.0", "id": body["id"], "result": "0x2a"}
    return Answer(200, {"content-type": "application/json"}, json.dumps(answer).encode())


@pytest.fixture
def network(monkeypatch):
    """The network transports the nodes make, replaced by a user's (the one place that decides
    tape or network still decides)."""
    made: list[FunctionTransport] = []

    def make(handler):
        def factory(*args, **kwargs):
            made.append(FunctionTransport(handler))
            return made[-1]

        monkeypatch.setattr(_node, "sync_transport", factory)
        monkeypatch.setattr(_node, "async_transport", factory)
        return made

    return make


def test_a_users_transport_carries_a_real_node_call_sync_and_async(network):
    made = network(balance_of)
    eth = toolkit.node(URL, chain="ethereum", name="eth", retry=FAST_RETRY)
    assert eth.get_balance("0x" + "11" * 20, "latest") == 42
    assert asyncio.run(eth.aio.get_balance("0x" + "11" * 20, "latest")) == 42
    assert len(made) == 2  # one for the blocking node, one for the async twin's loop
    assert [r.json["method"] for t in made for r in t.requests] == ["eth_getBalance"] * 2
    assert made[0].requests[0].url == URL  # the key reaches the transport, and only it
    entries = eth.meter.ledger.entries
    assert [(e.method, e.status, e.ru > 0) for e in entries] == [("eth_getBalance", "ok", True)] * 2
    eth.close()
    assert made[0].closed


@pytest.mark.parametrize(("sent", "unconfirmed"), [(False, 0), (True, 1)])
def test_what_a_transport_says_of_a_lost_request_decides_its_bill(network, sent, unconfirmed):
    def lost(request):
        return NoAnswer(toolkit.TransportError("the line went dead"), sent=sent)

    network(lost)
    eth = toolkit.node(URL, chain="ethereum", name="eth", retry=FAST_RETRY)
    with pytest.raises(toolkit.TransportError, match="the line went dead") as caught:
        eth.get_balance("0x" + "11" * 20, "latest")
    assert caught.value.attempts == FAST_RETRY.attempts  # retried, as any transport failure
    (entry,) = eth.meter.ledger.entries
    assert entry.ru == 0 and entry.sent is sent  # never sent: no attempt counts
    assert (entry.unconfirmed_ru > 0) is bool(unconfirmed)  # maybe billed only if it may have left
    assert "SECRETKEY" not in str(caught.value) + repr(entry)
    eth.close()


def test_a_tape_records_through_a_users_transport_and_replays_without_one(network, tmp_path):
    made = network(balance_of)
    tape = tmp_path / "calls.tape.gz"
    eth = toolkit.node(URL, chain="ethereum", name="eth", tape=tape, tape_mode="record")
    assert eth.get_balance("0x" + "11" * 20, "latest") == 42
    eth.close()
    assert len(made) == 1 and "SECRETKEY" not in tape.read_bytes().decode("latin-1")

    replayed = toolkit.node(URL, chain="ethereum", name="eth", tape=tape, tape_mode="replay")
    assert replayed.get_balance("0x" + "11" * 20, "latest") == 42
    assert len(made) == 1  # replaying made no network transport at all
    (entry,) = replayed.meter.ledger.entries
    assert entry.replayed and entry.ru == 0 and entry.recorded_ru > 0
    replayed.close()
