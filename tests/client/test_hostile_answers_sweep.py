"""A property-based sweep of hostile answers through the real transport: a loopback HTTP server
answers with what hypothesis makes (any status, odd headers, bytes that are not JSON, JSON of any
shape where an envelope or a result belongs, error objects of the wrong types, batches with
missing, extra or repeated ids, bodies that echo the key). Whatever comes back, a call returns a
value of its kind or raises a `GatewayError`: never another exception, never a key in its text,
and the meter settles (nothing left reserved, one ledger entry per call)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit
from toolkit.catalog import RESULT_KINDS

KEY = "5e4d3c2b1a0f9e8d7c6b5a4938271605"
ALICE = "0x" + "ab" * 20
STATUSES = [
    200,
    200,
    200,
    201,
    204,
    301,
    400,
    401,
    402,
    403,
    404,
    413,
    429,
    500,
    502,
    503,
    504,
    520,
]

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**300), max_value=2**300)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["0x1", "0x", "0xzz", "0x" + "f" * 70, KEY, f"https://x/{KEY}", "latest"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["id", "result", "error", "jsonrpc", "code", "message", "data", "Error"]
            )
            | st.text(max_size=6),
            children,
            max_size=5,
        )
    ),
    max_leaves=14,
)
ERRORS = st.fixed_dictionaries(
    {},
    optional={
        "code": st.integers(-(2**70), 2**70) | st.text(max_size=5) | st.none() | st.floats(),
        "message": st.text(max_size=30) | st.just(f"limit for {KEY}") | st.integers() | st.none(),
        "data": JSON_VALUES,
    },
)
IDS = st.integers(0, 5) | st.text(max_size=3) | st.none() | st.floats(allow_nan=False)


@st.composite
def envelopes(draw, wanted_id):
    envelope = {}
    if draw(st.booleans()):
        envelope["jsonrpc"] = draw(st.sampled_from(["2.0", "1.0", 2]))
    envelope["id"] = wanted_id if draw(st.integers(0, 3)) else draw(IDS)
    kind = draw(st.sampled_from(["result", "error", "both", "neither"]))
    if kind in ("result", "both"):
        envelope["result"] = draw(JSON_VALUES | st.sampled_from(["0x10", "0x0"]))
    if kind in ("error", "both"):
        envelope["error"] = draw(ERRORS | JSON_VALUES)
    return envelope


def _text(value) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


@st.composite
def hostile_answers(draw, ids):
    """(status, headers, body) for a request whose envelopes carry `ids` (one, or a batch)."""
    status = draw(st.sampled_from(STATUSES))
    headers = {}
    if draw(st.booleans()):
        headers["Content-Type"] = draw(
            st.sampled_from(["application/json", "text/html", "text/plain", "application/x-what"])
        )
    if draw(st.integers(0, 3)) == 0:
        headers["Retry-After"] = draw(st.sampled_from(["0", "-1", "1e9", "soon", "NaN", "0.01"]))
    form = draw(st.sampled_from(["envelope", "batch", "json", "bytes", "echo", "html"]))
    if form == "envelope":
        body = _text(draw(envelopes(ids[0])))
    elif form == "batch":
        items = [draw(envelopes(i)) for i in ids]
        items += draw(st.lists(envelopes(draw(IDS)), max_size=2))  # extra or repeated ids
        body = _text(draw(st.permutations(items)))
    elif form == "json":
        body = _text(draw(JSON_VALUES))
    elif form == "echo":
        body = f'{{"error": {{"code": "x", "message": "bad key {KEY} at /{KEY}/"}}}}'.encode()
    elif form == "html":
        body = f"<html><body>429 Too Many Requests /{KEY}</body></html>".encode()
    else:
        body = draw(st.binary(max_size=64))
    return status, headers, body


class Answers:
    """What the loopback server answers next (hypothesis sets it per example)."""

    def __init__(self):
        self.next = (200, {}, b"{}")
        self.ids: list = []

    def __call__(self, request):
        body = request[3]
        try:
            sent = json.loads(body)
        except ValueError:
            sent = None
        items = sent if isinstance(sent, list) else [sent]
        self.ids = [item.get("id") for item in items if isinstance(item, dict)]
        status, answer_headers, content = self.next
        if callable(content):
            content = content(self.ids)
        return status, answer_headers, content


@pytest.fixture(scope="module")
def hostile():
    from .conftest import LoopbackServer

    answers = Answers()
    server = LoopbackServer(answers)
    node, tron = (
        toolkit.node(
            f"{server.url}/{KEY}",
            chain=chain,
            cache=False,
            retry=toolkit.RetryPolicy(attempts=2, backoff_s=0.0, backoff_max_s=0.0, max_wait_s=0.0),
            timeout=5,
        )
        for chain in ("ethereum", "tron")
    )
    answers.tron = tron
    yield answers, node
    tron.close()
    node.close()
    server.close()


def _check(node, outcome, kind):
    if isinstance(outcome, BaseException):
        assert isinstance(outcome, toolkit.GatewayError), repr(outcome)
        assert KEY not in str(outcome) and KEY not in repr(outcome)
    elif kind == "quantity":
        assert type(outcome) is int and 0 <= outcome < 2**256
    assert node.meter.in_flight_ru == 0  # every reservation settled


SWEEP = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SWEEP
@given(data=st.data())
def test_any_answer_to_one_call_is_a_value_or_a_gateway_error(hostile, data):
    answers, node = hostile
    status, headers, body = data.draw(answers_for_one())
    # Pin the envelope id to what the client sent, so that well-formed answers get read too.
    answers.next = (status, headers, lambda ids: body.replace(b'"__ID__"', _text(ids[0])))
    before = len(node.ledger.entries)
    try:
        outcome = node.get_balance(ALICE)
    except Exception as error:  # checked: only GatewayErrors may come out
        outcome = error
    _check(node, outcome, "quantity")
    assert len(node.ledger.entries) == before + 1


@st.composite
def answers_for_one(draw):
    return draw(hostile_answers(["__ID__"]))


def with_ids(body: bytes):
    """The body with the ids the client sent in place of ``"__ID0__"`` and ``"__ID1__"``."""

    def content(ids):
        text = body
        for position, sent in enumerate(ids[:2]):
            text = text.replace(b'"__ID%d__"' % position, _text(sent))
        return text

    return content


def _batches_as_new(node) -> None:
    """The node's batch goes whole, as sent: no example before (this module's node is shared)
    taught it a size limit, or that it takes no batches."""
    node._core.batches.max_batch = None
    node._core.batches.accepts_batches = None


@SWEEP
@given(data=st.data())
def test_any_answer_to_a_batch_is_values_or_gateway_errors(hostile, data):
    answers, node = hostile
    status, headers, body = data.draw(hostile_answers(["__ID0__", "__ID1__"]))

    answers.next = (status, headers, with_ids(body))
    _batches_as_new(node)
    before = len(node.ledger.entries)
    try:
        outcome = node.batch(
            [("eth_getBalance", ALICE, "latest"), ("eth_getBalance", "0x" + "cd" * 20, "latest")],
            return_exceptions=True,
        )
    except Exception as error:
        outcome = error
    if isinstance(outcome, list):
        assert len(outcome) == 2
        for item in outcome:
            if not isinstance(item, BaseException):
                assert isinstance(item, str | int | dict | list | type(None)), repr(item)
                assert not (isinstance(item, float) and not math.isfinite(item))
            _check(node, item, "any")
    else:
        _check(node, outcome, "any")
    # A batch: one entry per call; a batch refused as too large (a 413, say) is sent again in
    # parts, each call alone here: one entry more per call.
    assert len(node.ledger.entries) in (before, before + 2, before + 4)


@SWEEP
@given(data=st.data())
def test_any_answer_to_a_mixed_batch_is_values_or_gateway_errors(hostile, data):
    """The batch `toolkit.web3` sends: a catalog method and one outside the catalog."""
    answers, node = hostile
    status, headers, body = data.draw(hostile_answers(["__ID0__", "__ID1__"]))

    answers.next = (status, headers, with_ids(body))
    _batches_as_new(node)
    before = len(node.ledger.entries)
    calls = [("eth_getBalance", [ALICE, "latest"]), ("eth_feeHistory", ["0x1", "latest", []])]
    try:
        outcome = node._run(node._core.call_raw_batch(calls))
    except Exception as error:
        outcome = error
    if isinstance(outcome, list):
        assert len(outcome) == 2
        for item in outcome:
            if not isinstance(item, BaseException):
                assert isinstance(item, str | int | dict | list | bool | type(None)), repr(item)
            _check(node, item, "any")
        if not isinstance(outcome[0], BaseException):
            # The catalog call's result is checked against its kind and left as the wire has it:
            # web3.py, which sends this batch, formats results itself.
            assert RESULT_KINDS["quantity"].check(outcome[0]), outcome[0]
    else:
        _check(node, outcome, "any")
    # A batch: one entry per call; a batch refused as too large (a 413, say) is sent again in
    # parts, each call alone here: one entry more per call.
    assert len(node.ledger.entries) in (before, before + 2, before + 4)


def test_a_well_formed_answer_to_a_mixed_batch_is_its_results_as_sent(hostile):
    """The sweep's case that says what a good answer gives: each result as the wire has it."""
    answers, node = hostile
    _batches_as_new(node)
    body = b'[{"id": "__ID0__", "result": "0x10"}, {"id": "__ID1__", "result": "0x10"}]'

    answers.next = (200, {}, with_ids(body))
    calls = [("eth_getBalance", [ALICE, "latest"]), ("eth_feeHistory", ["0x1", "latest", []])]
    assert node._run(node._core.call_raw_batch(calls)) == ["0x10", "0x10"]


@SWEEP
@given(data=st.data())
def test_any_answer_to_a_tron_rest_call_is_a_value_or_a_gateway_error(hostile, data):
    answers, _ = hostile
    node = answers.tron
    status, headers, body = data.draw(hostile_answers([1]))
    answers.next = (status, headers, body)
    before = len(node.ledger.entries)
    try:
        outcome = node.get_block_by_latest_num(2)
    except Exception as error:
        outcome = error
    _check(node, outcome, "any")
    assert len(node.ledger.entries) == before + 1
