"""Properties of the client checked on generated inputs (hypothesis): budgets, answer reading."""

import asyncio
import json
import math

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit
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
ANSWERS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


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
