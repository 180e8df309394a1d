"""A run the budget stops says so (not that its calls failed), and how to go on; a run resumed
from its dataset counts the rows it reused apart from the response cache's answers."""

from __future__ import annotations

import warnings

import pytest

from toolkit.workloads._workload import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 21)]


def balances(gateway) -> Workload:
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    return Workload().grid(eth, "eth_getBalance", ADDRESSES, [head - 400, head - 3])


def run_warning(work: Workload, **options) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = work.run(progress=False, **options)
    return frame, [str(w.message) for w in caught if w.category is RuntimeWarning]


@pytest.mark.parametrize("into_dataset", [False, True])
def test_a_budget_stop_says_it_stopped_how_many_are_done_and_how_to_resume(
    make_gateway, tmp_path, into_dataset
):
    gateway = make_gateway()
    work = balances(gateway)
    gateway.set_budget(gateway.ledger.counted_ru + 30)
    dataset = tmp_path / "ds" if into_dataset else None
    frame, said = run_warning(work, batch_size=10, dataset=dataset)
    refused = int(frame["error"].eq("BudgetExceeded").sum())
    done = len(frame) - refused
    assert 0 < refused < len(frame)
    summary = frame.attrs["summary"]
    assert (summary["failed"], summary["budget_refused"]) == (0, refused)
    [message] = said
    assert message.startswith(
        f"the budget stopped the run: {done:,} of {len(frame):,} calls done, {refused:,} not sent"
    )
    assert "failed" not in message
    assert "gw.set_budget(" in message
    if into_dataset:
        assert f"only those {refused:,} are sent" in message and str(dataset) in message
    else:
        assert "dataset=<folder>" in message


def test_a_resumed_run_counts_reused_rows_apart_from_cache_hits(make_gateway, tmp_path):
    gateway = make_gateway()
    work = balances(gateway)
    gateway.set_budget(gateway.ledger.counted_ru + 30)
    stopped, _ = run_warning(work, batch_size=10, dataset=tmp_path / "ds")
    kept = int(stopped["error"].isna().sum())
    gateway.set_budget(None)
    resumed, said = run_warning(work, batch_size=10, dataset=tmp_path / "ds")
    assert resumed["error"].isna().all() and not said
    summary = resumed.attrs["summary"]
    assert summary["from_dataset"] == kept
    assert summary["cache_hits"] == 0  # the sandbox's gateway has no response cache
