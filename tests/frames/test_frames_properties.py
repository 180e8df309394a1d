"""Property tests: on any JSON at all, frame functions return a frame or raise FrameError.

Two sources of input: arbitrary JSON built from the field names the frames look for (so that
nested shapes get explored), and the realistic fixtures with one value anywhere inside replaced
by arbitrary JSON (so that the deep code paths are reached with broken values).
"""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit.frames as frames
from tests.fixtures.real_bodies import REAL
from toolkit.frames import FrameError

DATA = Path(__file__).parent / "data"
# Real published bodies of the newer read methods join the realistic fixtures.
REAL_FIXTURES = (
    "evm_eth_simulatev1_type2_blocks_execution_apis",
    "evm_eth_getlogs_execution_apis",
    "tron_getaccount_nile",
    "tron_getnodeinfo_mainnet_getblock",
    "ton_getmasterchaininfo_toncenter_docs",
    "ton_detectaddress_getblock_older",
)
FIXTURES = {path.stem: json.loads(path.read_text()) for path in sorted(DATA.glob("*.json"))}
FIXTURES |= {name: json.loads((REAL / f"{name}.json").read_text()) for name in REAL_FIXTURES}

PAYLOAD_FUNCTIONS = [
    frames.tron_asset_issues,
    frames.tron_transaction_infos,
    frames.tron_blocks,
    frames.tron_block_transactions,
    frames.tron_transaction,
    frames.solana_simulation_summary,
    frames.solana_simulation_logs,
    frames.solana_simulation_balances,
    frames.solana_simulation_token_balances,
    frames.solana_simulation_accounts,
    frames.solana_simulation_inner_instructions,
    frames.solana_simulation_return_data,
    frames.platform_nodes,
    frames.ton_token_data,
    frames.ton_masterchain_info,
    frames.ton_address_forms,
    frames.tron_account,
    frames.tron_account_assets,
    frames.tron_node_info,
    frames.tron_node_peers,
    frames.evm_blocks,
    frames.evm_block_transactions,
    frames.evm_logs,
    frames.evm_balances,
    frames.evm_printed_blocks,
    frames.evm_root_hashes,
]


@pytest.fixture(autouse=True)
def _forget_generated_secrets():
    """`platform_nodes` registers each endpoint URL it reads as a secret, to scrub it wherever
    it shows; the arbitrary ones generated here must not go on masking text in later tests (one
    once masked the digits of 2**80 in a Parquet test's output)."""
    from toolkit import _redact

    before = set(_redact._secrets)
    yield
    with _redact._lock:
        _redact._secrets.intersection_update(before)
        _redact._ordered = tuple(sorted(_redact._secrets, key=len, reverse=True))


def _keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys_in(v)}
    return set()


KEYS = sorted(set().union(*map(_keys_in, FIXTURES.values())) | {"jsonrpc", "Error", "ok"})

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(
        ["0x1f", "0x", "123", "-5", "4dfc", "base64", "AA==", "running", "2.0", "9" * 30]
        + [f"Program {p} invoke [2]" for p in ("X", "Y")]
        + ["Program X consumed 5 of 9 compute units", "Program X failed: boom", "Program log: hi"]
    )
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), children, max_size=6)
    ),
    max_leaves=30,
)


def _assert_frame_or_frame_error(function, payload: Any) -> None:
    try:
        result = function(payload)
    except FrameError:
        return
    assert isinstance(result, pd.DataFrame)


@settings(max_examples=300, deadline=None)
@given(payload=json_values)
def test_arbitrary_json_gives_a_frame_or_frame_error(payload):
    for function in PAYLOAD_FUNCTIONS:
        _assert_frame_or_frame_error(function, copy.deepcopy(payload))
    with contextlib.suppress(FrameError):
        assert isinstance(frames.quantity(payload), int)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place inside a JSON value, as a tuple of keys and indexes."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    result = copy.deepcopy(value)
    target = result
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return result


def _containers(value: Any) -> list[tuple]:
    return [p for p in _paths(value) if isinstance(_at(value, p), dict | list)]


def _at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


@st.composite
def broken_fixtures(draw, name: str | None = None):
    """A fixture with one value replaced; half the time an object or array is what breaks."""
    payload = FIXTURES[name or draw(st.sampled_from(sorted(FIXTURES)))]
    places = st.sampled_from(_containers(payload)) | st.sampled_from(_paths(payload))
    return _replace(payload, draw(places), draw(json_values))


# Forty broken copies of each of the twenty fixtures, every frame function on each: at a hundred
# this was 46 CPU-s of `make test`, the most of any test. Each run draws new ones (no fixed
# seed), so the runs of CI go on finding what one run misses.
@pytest.mark.parametrize("name", sorted(FIXTURES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_realistic_payloads_with_one_broken_value_give_a_frame_or_frame_error(name, data):
    payload = data.draw(broken_fixtures(name))
    for function in PAYLOAD_FUNCTIONS:
        _assert_frame_or_frame_error(function, payload)


@settings(max_examples=200, deadline=None)
@given(keys=json_values, payload=broken_fixtures())
def test_account_key_and_address_arguments_never_raise_anything_else(keys, payload):
    for function, argument in [
        (frames.solana_simulation_balances, "account_keys"),
        (frames.solana_simulation_token_balances, "account_keys"),
        (frames.solana_simulation_inner_instructions, "account_keys"),
        (frames.solana_simulation_accounts, "addresses"),
    ]:
        with contextlib.suppress(FrameError):
            function(payload, **{argument: keys})


@settings(max_examples=200, deadline=None)
@given(records=st.lists(st.tuples(json_values, json_values, json_values), max_size=4))
def test_record_tuples_of_anything_give_a_frame_or_frame_error(records):
    for function in (frames.evm_balances, frames.evm_root_hashes):
        _assert_frame_or_frame_error(function, records)
