"""A 400-digit integer anywhere in a TRON answer: the frame keeps it exactly (an object column)
or refuses it with a FrameError, never an OverflowError; a float convenience column beside an
exact one reads infinity, since no float holds the value."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from tests.fixtures.real_bodies import real
from toolkit import frames
from toolkit.frames import FrameError

DATA = Path(__file__).parent / "data"
HUGE = 10**400 - 1  # beyond int64, uint256 and every float


def _data(name: str):
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


# (frame function, payload, where the amount is, exact column, float column)
AMOUNTS = [
    (frames.tron_account, lambda: real("tron_getaccount_nile.json"), ("balance",), "balance_sun",
     "balance_trx"),
    (frames.tron_transaction_infos, lambda: _data("tron_transaction_info_by_block"), (0, "fee"),
     "fee_sun", "fee_trx"),
    (frames.tron_asset_issues, lambda: _data("tron_asset_by_id"), ("total_supply",), "total_supply",
     "total_supply_tokens"),
    (frames.tron_block_transactions, lambda: _data("tron_blocks_latest"),
     ("block", 0, "transactions", 0, "raw_data", "contract", 0, "parameter", "value", "amount"),
     "amount_sun", "amount_trx"),
]  # fmt: skip


def _set(payload, path, value):
    target = payload
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return payload


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize(("function", "payload", "path", "exact", "approximate"), AMOUNTS)
def test_a_huge_amount_is_kept_exactly_beside_an_infinite_float(
    function, payload, path, exact, approximate, sign
):
    df = function(_set(payload(), path, sign * HUGE))
    assert df[exact].dtype == object
    assert df[exact][0] == sign * HUGE and type(df[exact][0]) is int
    assert df[approximate][0] == sign * math.inf


def test_a_huge_block_number_keeps_the_column_exact():
    infos = _set(_data("tron_transaction_info_by_block"), (1, "blockNumber"), HUGE)
    df = frames.tron_transaction_infos(infos)
    assert df["block_number"].dtype == object and df["block_number"][1] == HUGE
    assert df["block_number"][0] == infos[0]["blockNumber"]  # the other rows keep theirs


def _int_paths(value, path=()):
    """Where `value` holds integers (the first three items of each array)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _int_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield from _int_paths(item, (*path, index))


SWEEP = [
    (frames.tron_asset_issues, _data("tron_asset_by_id")),
    (frames.tron_asset_issues, real("tron_getassetissuelistbyname_nile.json")),
    (frames.tron_transaction_infos, real("tron_gettransactioninfobyblocknum_nile.json")),
    (frames.tron_blocks, _data("tron_blocks_latest")),
    (frames.tron_block_transactions, _data("tron_blocks_latest")),
    (frames.tron_transaction, _data("tron_proposal_delete")),
    (frames.tron_account, real("tron_getaccount_nile.json")),
    (frames.tron_account_assets, real("tron_getaccount_visible_getblock.json")),
    (frames.tron_node_info, real("tron_getnodeinfo_mainnet_getblock.json")),
    (frames.tron_node_peers, real("tron_getnodeinfo_mainnet_getblock.json")),
]


@pytest.mark.parametrize(
    ("function", "payload"), SWEEP, ids=[function.__name__ for function, _ in SWEEP]
)
def test_every_integer_of_a_tron_answer_made_huge_gives_a_frame_or_a_frame_error(function, payload):
    paths = list(_int_paths(payload))
    assert paths  # the sweep has something to sweep
    outcomes = {"frame": 0, "refused": 0}
    for path in paths:
        for huge in (HUGE, -HUGE, str(HUGE)):
            try:
                df = function(_set(copy.deepcopy(payload), path, huge))
            except FrameError:
                outcomes["refused"] += 1
                continue
            outcomes["frame"] += 1
            for name in df.columns:  # no float column holds a finite stand-in for it
                if df[name].dtype == "float64":
                    assert not (df[name].abs().between(1e300, math.inf, inclusive="left")).any()
    assert outcomes["frame"] > 0


def test_a_huge_integer_where_a_measurement_belongs_reads_infinity():
    node_info = real("tron_getnodeinfo_mainnet_getblock.json")
    node_info["machineInfo"]["cpuRate"] = -HUGE  # a JSON integer where a float belongs
    assert frames.tron_node_info(node_info)["cpu_rate"][0] == -math.inf
