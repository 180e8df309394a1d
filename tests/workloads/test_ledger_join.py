"""The ledger joins a run's rows: one entry per call, keyed as the rows are; its sums add up."""

from __future__ import annotations

import warnings

import pandas as pd

from toolkit.workloads._workload import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 11)]
KEY = ["node", "method", "params"]


def archive_and_full_balances(gateway) -> Workload:
    """20 balances (batched), half at archive blocks, and 8 TRON calls (single, fixed price)."""
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    head, tron_head = eth.head(), tron.head()
    work = Workload()
    work.grid(eth, "eth_getBalance", ADDRESSES, [head - 400, head - 3])
    work.each(
        tron, "wallet/gettransactioninfobyblocknum", range(tron_head - 8, tron_head), param="num"
    )
    return work


def run_quietly(work: Workload):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the budget stop's warning
        return work.run(progress=False, batch_size=10)


def assert_groupbys_add_up(ledger) -> None:
    frame = ledger.frame
    for column in ["node", "method", "params", "status", "archive", "cache_hit", "note"]:
        assert frame[column].isna().sum() == 0, column
        grouped = frame.groupby(column)["ru"].sum().sum()
        assert grouped == ledger.total_ru, column


def test_a_run_joins_its_ledger_entries_call_by_call(make_gateway):
    gateway = make_gateway()
    work = archive_and_full_balances(gateway)
    before = len(gateway.ledger)  # the heads fetched to plan the blocks
    rows = run_quietly(work)
    entries = gateway.ledger.frame.iloc[before:]
    assert entries["params"].isin(rows["params"]).all()
    joined = rows.merge(entries, on=KEY, how="left", suffixes=("", "_ledger"), indicator=True)
    assert (joined["_merge"] == "both").all() and len(joined) == len(rows)  # one entry each
    assert (joined["ru"] == joined["ru_ledger"]).all()
    archive = joined.groupby("archive")["ru_ledger"].sum()
    assert archive[True] == 2 * 10 and archive[False] == 10 + 8 * joined["ru"].iloc[-1]
    assert_groupbys_add_up(gateway.ledger)


def test_head_fetches_have_an_archive_value_and_the_sums_add_up(make_gateway):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.block_number()
    eth.get_balance(ADDRESSES[0], head - 1_000)  # archive: fetches the head to price it
    frame = gateway.ledger.frame
    assert frame["archive"].dtype == bool
    assert frame.loc[frame["method"] == "eth_blockNumber", "archive"].eq(False).all()
    assert frame.loc[frame["method"] == "eth_blockNumber", "params"].eq("[]").all()
    assert_groupbys_add_up(gateway.ledger)


def test_a_budget_stop_leaves_one_entry_per_refused_call(make_gateway):
    gateway = make_gateway()
    work = archive_and_full_balances(gateway)
    before = len(gateway.ledger)
    gateway.set_budget(gateway.ledger.counted_ru + 25)
    rows = run_quietly(work)
    refused_rows = rows[rows["error"] == "BudgetExceeded"]
    assert len(refused_rows) > 1  # the run was stopped with several calls still to send
    entries = gateway.ledger.frame.iloc[before:]
    refused = entries[entries["status"] == "BudgetExceeded"]
    # One entry per refused call, no more (a batch the budget refused whole and that was then
    # sent call by call is no entry), and they are the same calls.
    assert len(refused) == len(refused_rows)
    pd.testing.assert_frame_equal(
        refused[KEY].sort_values(KEY).reset_index(drop=True),
        refused_rows[KEY].sort_values(KEY).reset_index(drop=True),
    )
    assert (refused["ru"] == 0).all() and (refused["unconfirmed_ru"] == 0).all()
    joined = rows.merge(entries, on=KEY, how="left", suffixes=("", "_ledger"), indicator=True)
    assert len(joined) == len(rows) and (joined["_merge"] == "both").all()
    assert (joined["error"].fillna("ok") == joined["status"]).all()
    assert_groupbys_add_up(gateway.ledger)


def test_cache_hits_carry_their_params(make_gateway, tmp_path):
    gateway = make_gateway(cache=tmp_path / "cache.sqlite")
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:4], [head - 400, head - 300])
    run_quietly(work)
    before = len(gateway.ledger)
    again = run_quietly(work)
    assert again["cache_hit"].all()
    entries = gateway.ledger.frame.iloc[before:]
    assert entries["cache_hit"].all() and sorted(entries["params"]) == sorted(again["params"])
