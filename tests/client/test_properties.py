"""Properties of the client checked on generated inputs (hypothesis): budgets, answer reading
(any body is JSON or a MalformedResponse, nesting read up to the limit and refused beyond)."""

import asyncio
import json
import math

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit
from tests.strategies import PYTHON_JSON, STRICT_JSON, TEXT, json_values
from toolkit.client._answers import parse_json
from toolkit.client._ledger import Budget


@settings(max_examples=50, deadline=None)
@given(limit=st.integers(0, 50), prices=st.lists(st.integers(1, 3), max_size=60))
def test_a_budget_is_never_exceeded_by_concurrent_reservations(limit, prices):
    budget = Budget(limit)

    async def spend(ru):
        try:
            budget.reserve(ru, what="test")
        except toolkit.BudgetExceeded:
            return 0
        await asyncio.sleep(0)
        budget.settle(ru, ru)
        return ru

    async def all_of_them():
        return await asyncio.gather(*(spend(ru) for ru in prices))

    spent = asyncio.run(all_of_them())
    assert sum(spent) == budget.spent <= limit and budget.reserved == 0


# Answers as a node may write them with Python's json: NaN and infinities included, which JSON
# does not have, and floats past 1e308 written as digits (read back as infinity).
ANSWERS = json_values(st.floats(), text_size=10)


def _has_non_finite(value) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(map(_has_non_finite, value.values()))
    if isinstance(value, list):
        return any(map(_has_non_finite, value))
    return False


@settings(max_examples=300, deadline=None)
@given(value=ANSWERS, huge=st.booleans())
def test_an_answer_is_read_exactly_or_refused_as_malformed(value, huge):
    text = json.dumps([value, 1e308] if huge else value)  # NaN, Infinity written as Python does
    if huge:
        text = text.replace("1e+308", "1e+309")  # beyond a float: Python's json reads infinity
    response = httpx.Response(200, content=text.encode())
    if huge or _has_non_finite(value):
        with pytest.raises(toolkit.MalformedResponse, match="not a JSON number"):
            parse_json(response)
    else:
        assert parse_json(response) == value


def _response(content: bytes) -> httpx.Response:
    return httpx.Response(200, content=content, headers={"content-type": "application/json"})


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@settings(max_examples=500, deadline=None)
@given(content=st.binary(max_size=200) | TEXT.map(str.encode))
def test_any_body_is_json_or_a_malformed_response(content):
    try:
        body = parse_json(_response(content))
    except toolkit.MalformedResponse:
        return
    assert body == json.loads(content) or body != body  # NaN is JSON to Python's decoder


@settings(max_examples=200, deadline=None)
@given(
    depth=st.integers(1, 3000),
    opener=st.lists(st.sampled_from(["[", '{"k":']), min_size=1, max_size=3),
    leaf=STRICT_JSON,  # a non-JSON number is refused whatever its depth (its own test)
)
def test_nesting_is_read_up_to_the_limit_and_malformed_beyond(depth, opener, leaf):
    openers = [opener[i % len(opener)] for i in range(depth)]
    closers = ["]" if o == "[" else "}" for o in reversed(openers)]
    text = "".join(openers) + json.dumps(leaf) + "".join(closers)
    try:
        body = parse_json(_response(text.encode()))
    except toolkit.MalformedResponse as error:
        assert "nested deeper than 128" in str(error)
        assert depth + _depth(leaf) > 128
    else:
        assert _depth(body) == depth + _depth(leaf) <= 128


@pytest.mark.parametrize("depth", [100_000, 1_000_000])
def test_very_deep_bodies_are_refused_without_recursion(depth):
    with pytest.raises(toolkit.MalformedResponse):
        parse_json(_response(b"[" * depth + b"]" * depth))


# --- a JSON-RPC batch's body and answer, by the joined and in-order paths and the general ones --


def _batch(calls, texts=None):
    from toolkit.client._protocol import batch_request

    wire = [(method, params, None) for method, params in calls]
    return batch_request(
        wire, "http://node.test/", {}, return_exceptions=True, node="n", params_texts=texts
    )


@settings(max_examples=300, deadline=None)
@given(calls=st.lists(st.tuples(TEXT, st.lists(PYTHON_JSON, max_size=3)), min_size=1, max_size=4))
def test_a_batch_body_joined_from_params_texts_is_the_one_the_encoder_writes(calls):
    from toolkit._json import COMPACT_JSON
    from toolkit.client._network import json_bytes

    request, _ = _batch(calls, [COMPACT_JSON.encode(params) for _, params in calls])
    try:
        written = json_bytes(request.json)
    except ValueError:  # NaN or an infinity: refused by the encoder, so never joined either
        written = None
    assert request.content is None or request.content == written


def test_a_batch_of_catalog_calls_is_sent_as_the_joined_body():
    from toolkit.catalog import CATALOG
    from toolkit.client._network import json_bytes

    method = CATALOG["eth_getBalance"]
    bound = [method.bind(f"0x{i:040x}", block) for i in range(1, 4) for block in (5, "latest")]
    calls = [(b.rpc_method, b.wire_params) for b in bound]
    request, _ = _batch(calls, [b.wire_json for b in bound])
    assert request.content is not None and request.content == json_bytes(request.json)


@settings(max_examples=200, deadline=None)
@given(results=st.lists(STRICT_JSON, min_size=1, max_size=5), data=st.data())
def test_a_batch_answer_in_order_reads_as_the_same_answer_in_any_order(results, data):
    import httpx

    request, interpret = _batch([("eth_call", [])] * len(results))
    answers = [
        {"jsonrpc": "2.0", "id": entry["id"], "result": result}
        for entry, result in zip(request.json, results, strict=True)
    ]
    shuffled = data.draw(st.permutations(answers))

    def read(body):
        return interpret(httpx.Response(200, content=json.dumps(body).encode()))

    assert read(answers) == read(shuffled) == results
