"""Binding many calls at once (`Method.bind_many`, what `Workload.grid` and `each` use) gives
what binding each would, remembered calls included."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import TEXT
from toolkit import ValidationError
from toolkit.catalog import CATALOG, Surface
from toolkit.catalog._model import forget_validations

ADDRESSES = [f"0x{index:040x}" for index in range(1, 6)]


@pytest.fixture(autouse=True)
def from_scratch():
    forget_validations()
    yield
    forget_validations()


def test_bind_many_gives_the_calls_bind_gives_one_by_one():
    method = CATALOG["eth_getBalance"]
    calls = [((address, block), {}) for address in ADDRESSES for block in (5, "0x10", "latest")]
    first = method.bind_many(calls)  # validated now
    again = method.bind_many(calls)  # remembered
    assert [b.arguments for b in first] == [method._bind(a, k).arguments for a, k in calls]
    assert all(x is y for x, y in zip(first, again, strict=True))
    assert all(x is method.bind(*a, **k) for x, (a, k) in zip(first, calls, strict=True))
    assert first[0].wire_params == [ADDRESSES[0], "0x5"]


def test_calls_given_by_keyword_are_remembered_too():
    method = CATALOG["wallet/gettransactioninfobyblocknum"]
    calls = [((), {"num": number}) for number in (7, 8, 7)]
    bound = method.bind_many(calls)
    assert bound[0] is bound[2] is method.bind(num=7) and bound[1].arguments == {"num": 8}
    assert method.bind_many(calls)[1] is bound[1]


def test_the_memory_tells_types_and_methods_apart():
    by_number = CATALOG["eth_getBlockByNumber"]
    full, hashes = by_number.bind_many([(("0x10", True), {}), (("0x10", False), {})])
    assert full.arguments != hashes.arguments
    with pytest.raises(ValidationError) as refused:  # 1 is not True, remembered or not
        by_number.bind_many([(("0x10", 1), {})])
    assert refused.value.param is not None
    balance, count = (
        CATALOG[name].bind_many([((ADDRESSES[0], "latest"), {})])[0]
        for name in ("eth_getBalance", "eth_getTransactionCount")
    )
    assert balance.method.name == "eth_getBalance" and count.method.name != balance.method.name


def test_a_bad_call_among_good_ones_is_refused_naming_its_parameter():
    method = CATALOG["eth_getBalance"]
    good = [((address, "latest"), {}) for address in ADDRESSES]
    method.bind_many(good)  # remembered: the bad call must not pass for one of them
    with pytest.raises(ValidationError) as refused:
        method.bind_many([*good, ((ADDRESSES[0], "10"), {})])  # a block number without 0x
    assert refused.value.param == "block"


# --- the one-pass binding of plain positional calls, against the general one ----------------

# Every JSON-RPC method a grid's plain positional calls bind in one pass (`_bind_positional`).
POSITIONAL = [
    m for m in CATALOG.values() if m.surface is Surface.JSONRPC and not m.checks and m.params
]
# Plain arguments (text, ints, None: what `bind` and `bind_many` send that way), as a grid gives
# them: good and bad addresses, blocks, tags and hashes.
ARGUMENT = (
    st.sampled_from([*ADDRESSES, "latest", "pending", "0x10", "0x", "10", "0x" + "ab" * 32])
    | st.integers(-3, 2**70)
    | TEXT
    | st.none()
)


def _outcome(bind):
    try:
        bound = bind()
    except ValidationError as error:
        return ("refused", str(error), error.param, error.rule)
    return (bound.arguments, bound.wire_params, bound.wire_json)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_a_plain_positional_call_is_bound_in_one_pass_as_bind_binds_it(data):
    method = data.draw(st.sampled_from(POSITIONAL), label="method")
    args = tuple(data.draw(ARGUMENT, label=p.name) for p in method.params)
    seen: list[dict] = [{} for _ in method.params]
    one_pass = _outcome(lambda: method._bind_positional(args, seen))
    assert one_pass == _outcome(lambda: method._bind(args, {}))
    # Bound again with the values it remembered: the same call.
    assert _outcome(lambda: method._bind_positional(args, seen)) == one_pass
