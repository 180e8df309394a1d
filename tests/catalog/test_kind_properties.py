"""Hypothesis over the kind checks and the result kinds, with arbitrary text and nesting.

Kind checks: any value gives the wire value or a ValidationError naming the parameter (never
ValueError, TypeError, AttributeError, RecursionError), and what passes is ASCII and within the
kind's width. Result kinds: any JSON that passes its kind's check converts. (The client's reading
of an answer's body: tests/client/test_properties.py.)"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit
from tests.strategies import HEXISH, PYTHON_JSON, TEXT
from toolkit.catalog import METHODS, RESULT_KINDS, TYPED_VALUES, Param
from toolkit.catalog._bounds import INT64_MAX, MAX_BLOCK, UINT64_MAX, UINT256_MAX
from toolkit.catalog._kinds import _checked


def _all_params(params, prefix=""):
    for param in params:
        path = f"{prefix}{param.name}"
        yield path, param
        yield from _all_params(param.fields, f"{path}.")


PARAMS: dict[str, Param] = {}
for _method in METHODS:
    for _path, _param in _all_params(_method.params):
        PARAMS.setdefault(f"{_method.name}:{_path}", _param)


ANY = TEXT | PYTHON_JSON | st.binary(max_size=40) | st.integers() | st.integers(-(2**300), 2**300)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(sorted(PARAMS)), value=ANY)
def test_a_kind_check_gives_a_wire_value_or_a_validation_error_naming_the_parameter(where, value):
    path = where.split(":", 1)[1]
    try:
        _checked(PARAMS[where], value, path)
    except toolkit.ValidationError as error:  # an object's field is named by its own path
        assert error.param == path or error.param.startswith(f"{path}.")
        assert str(error).startswith(f"{error.param}: ")


def _accepted(param: Param, value):
    try:
        return True, _checked(param, value, param.name)
    except toolkit.ValidationError:
        return False, None


BLOCK = PARAMS["eth_getBalance:block"]
SLOT = PARAMS["eth_getStorageAt:slot"]
GAS = PARAMS["eth_call:call.gas"]
NUM = PARAMS["wallet/gettransactioninfobyblocknum:num"]
ASSET_ID = PARAMS["wallet/getassetissuebyid:value"]


@settings(max_examples=800, deadline=None)
@given(value=TEXT)
def test_hex_that_passes_is_ascii_and_within_its_width(value):
    for param, top in ((BLOCK, MAX_BLOCK), (SLOT, UINT256_MAX), (GAS, UINT64_MAX)):
        ok, wire = _accepted(param, value)
        if ok and wire not in ("latest", "safe", "finalized", "earliest", "pending"):
            assert wire.isascii() and wire.startswith("0x") and wire == wire.strip()
            assert 0 <= int(wire, 16) <= top
            assert wire[2:].isalnum() and "_" not in wire
    ok, wire = _accepted(ASSET_ID, value)
    if ok:
        assert wire.isascii() and wire.isdigit() and 0 < int(wire) <= INT64_MAX


@settings(deadline=None)
@given(number=st.integers(-(2**300), 2**300))
def test_integers_pass_exactly_within_their_bounds(number):
    assert _accepted(BLOCK, number)[0] == (0 <= number <= MAX_BLOCK)
    assert _accepted(SLOT, number)[0] == (0 <= number <= UINT256_MAX)
    assert _accepted(GAS, number)[0] == (0 <= number <= UINT64_MAX)
    assert _accepted(NUM, number)[0] == (0 <= number <= INT64_MAX)
    ok, wire = _accepted(SLOT, number)
    assert not ok or int(wire, 16) == number


@settings(max_examples=1000, deadline=None)
@given(kind=st.sampled_from(sorted(RESULT_KINDS)), result=ANY | HEXISH.map(lambda t: "0x" + t))
def test_an_answer_that_passes_its_kind_converts(kind, result):
    if not RESULT_KINDS[kind].check(result):
        return
    if kind in TYPED_VALUES:
        typed = TYPED_VALUES[kind](result)
        if kind == "quantity":
            assert 0 <= typed <= UINT256_MAX and result.isascii()
    if kind in ("data", "root-hash"):
        assert result.isascii() and len(result.removeprefix("0x")) % 2 == 0
