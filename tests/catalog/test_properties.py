"""Properties of the catalog checked on generated inputs (hypothesis): pricing and validation."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit
from toolkit import DEFAULT_PRICING, lookup

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=10,
)
VALUES = JSON | st.sampled_from(["latest", "earliest", "0x10", "0x", "12", "AQ==", "0:" + "a" * 64])
RULE = lookup("eth_getBalance").ru


@given(
    head=st.integers(min_value=0, max_value=10**9),
    older=st.integers(min_value=0, max_value=10**9),
    newer=st.integers(min_value=0, max_value=10**9),
    threshold=st.integers(min_value=1, max_value=10_000),
)
def test_an_older_block_never_costs_less_than_a_newer_one(head, older, newer, threshold):
    older, newer = min(older, newer), max(older, newer)
    table = DEFAULT_PRICING.replace(archive_threshold=threshold)
    old = table.estimate(RULE, hex(older), head)
    new = table.estimate(RULE, hex(newer), head)
    assert old.ru >= new.ru and old.exact and new.exact


@given(block=st.integers(min_value=0, max_value=10**9), head=st.integers(0, 10**9) | st.none())
def test_the_unknown_head_range_covers_every_known_head(block, head):
    unknown = DEFAULT_PRICING.estimate(RULE, hex(block), None)
    known = DEFAULT_PRICING.estimate(RULE, hex(block), head)
    assert unknown.low <= known.ru <= unknown.high


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    method=st.sampled_from(toolkit.METHODS),
    args=st.lists(VALUES, max_size=4),
    kwargs=st.dictionaries(st.sampled_from(["block", "value", "num", "visible", "x"]), VALUES),
)
def test_validation_raises_only_validation_errors(method, args, kwargs):
    try:
        method.bind(*args, **kwargs)
    except toolkit.ValidationError as error:
        assert str(error)  # a message, always
    # any other exception type fails the test
