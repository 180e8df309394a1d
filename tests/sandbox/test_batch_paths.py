"""The sandbox's quicker paths through a request, held equal to the general ones on generated
batches (hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import STRICT_JSON, TEXT
from toolkit.sandbox import DEMO
from toolkit.sandbox import _jsonrpc as jsonrpc
from toolkit.sandbox._app import SandboxApp, _bound_in_batch
from toolkit.sandbox._jsonrpc import Call
from toolkit.sandbox._metering import Metering
from toolkit.sandbox._response import json_bytes
from toolkit.sandbox._world import World

NODE = "ethereum-mainnet"


@pytest.fixture(scope="module")
def gateway() -> SandboxApp:
    return SandboxApp(World(0, head_pace=0), None, None)


@pytest.fixture(scope="module")
def head(gateway: SandboxApp) -> int:
    head = gateway.world.head("ethereum")
    assert head is not None
    return head


# Addresses with balances that differ (so a call answered with another's binding shows), and
# text that is no address; blocks as tags, numbers around an archive head, and wrong values.
ADDRESSES = st.sampled_from(list(DEMO.evm.accounts.values())) | st.sampled_from(
    ["0x" + "00" * 20, "0x" + "ab" * 20, DEMO.evm.token]
)
BLOCKS = st.sampled_from(["latest", "earliest", "pending", "0x0", "0x"]) | st.integers(
    0, 30_000_000
).map(hex)
VALUES = ADDRESSES | BLOCKS | TEXT | st.integers() | st.none() | st.booleans() | STRICT_JSON
PARAMS = (
    st.tuples(ADDRESSES, BLOCKS).map(list)
    | st.tuples(ADDRESSES, st.sampled_from(["0x0", "0x2", "0x3"]), BLOCKS).map(list)
    | st.lists(VALUES, max_size=4)
    | st.dictionaries(st.text(max_size=5), VALUES, max_size=2)
)
METHODS = st.sampled_from(
    ["eth_getBalance", "eth_getStorageAt", "eth_blockNumber", "eth_chainId", "eth_nope", ""]
)
IDS = st.integers() | st.text(max_size=5) | st.floats(allow_nan=False) | st.none() | st.booleans()
ENVELOPES = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": IDS, "method": METHODS, "params": PARAMS}
)
# Mostly good envelopes of one or two methods (a workload's batches), and anything else.
BATCHES = st.lists(ENVELOPES | STRICT_JSON, min_size=2, max_size=30) | st.lists(
    st.fixed_dictionaries(
        {
            "jsonrpc": st.just("2.0"),
            "id": st.integers(0, 10**6),
            "method": st.sampled_from(["eth_getBalance", "eth_getStorageAt"]),
            "params": PARAMS,
        }
    ),
    min_size=2,
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(entries=BATCHES)
def test_a_batch_bound_together_answers_as_each_call_bound_alone(gateway, head, entries):
    endpoint = gateway.endpoints[NODE][("POST", "")]
    handlers = gateway.handlers["ethereum"]
    beyond = gateway.beyond["ethereum"]
    decoded = (True, entries)
    bound = _bound_in_batch(endpoint, decoded)
    together = jsonrpc.answer(decoded, gateway._dispatcher(endpoint, handlers, head, beyond, bound))
    alone = jsonrpc.answer(decoded, gateway._dispatcher(endpoint, handlers, head, beyond))
    assert together == alone
    # And each call alone in a request of its own, as the general path answers it.
    singly = [
        jsonrpc.answer((False, [entry]), gateway._dispatcher(endpoint, handlers, head, beyond))
        for entry in entries
    ]
    assert together == singly


def test_the_calls_of_a_good_batch_are_bound_ahead_and_a_bad_one_is_left_to_each_call(
    gateway, head
):
    endpoint = gateway.endpoints[NODE][("POST", "")]
    method = endpoint.methods["eth_getBalance"]
    alice, bob = DEMO.evm.accounts["alice"], DEMO.evm.accounts["bob"]
    good = [
        {"jsonrpc": "2.0", "id": i, "method": "eth_getBalance", "params": [who, hex(head - i)]}
        for i, who in enumerate([alice, bob, alice])
    ]
    bound = _bound_in_batch(endpoint, (True, good))
    for entry in good:
        params, call = bound[id(entry["params"])]
        assert params is entry["params"]
        assert call.arguments == method.bind(*params).arguments
    bad = [*good, {"jsonrpc": "2.0", "id": 9, "method": "eth_getBalance", "params": ["0xZZ"]}]
    assert _bound_in_batch(endpoint, (True, bad)) == {}
    assert _bound_in_batch(endpoint, (False, good[:1])) == {}  # one call: nothing to share


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(ENVELOPES | STRICT_JSON, min_size=1, max_size=20))
def test_the_calls_of_a_body_are_read_as_each_envelope_alone(entries):
    assert jsonrpc.calls_of((True, entries)) == [jsonrpc._call_of(entry) for entry in entries]


@settings(max_examples=200, deadline=None)
@given(
    calls=st.lists(
        st.tuples(st.sampled_from(["eth_getBalance", "eth_blockNumber", "", "nope"]), PARAMS),
        min_size=1,
        max_size=20,
    ),
    head=st.integers(128, 30_000_000),
)
def test_a_request_is_metered_as_its_calls_one_by_one(calls, head):
    together, one_by_one = Metering([NODE]), Metering([NODE])
    batch = [Call(method, params, i) for i, (method, params) in enumerate(calls)]
    together.record(NODE, batch, head)
    for call in batch:
        one_by_one.record(NODE, [call], head)
    used, expected = together.snapshot()[NODE], one_by_one.snapshot()[NODE]
    assert used["requests"] == 1 and expected["requests"] == len(batch)
    assert {**used, "requests": 0} == {**expected, "requests": 0}


SUCCESSES = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": IDS, "result": st.text(max_size=20) | STRICT_JSON}
)
REORDERED = SUCCESSES.map(lambda item: dict(reversed(item.items())))


@settings(max_examples=300, deadline=None)
@given(body=st.lists(SUCCESSES | REORDERED | STRICT_JSON, max_size=20) | STRICT_JSON)
def test_an_answer_is_written_as_the_encoder_writes_it(body):
    expected = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    assert json_bytes(body) == expected
