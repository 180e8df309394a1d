"""Provenance counts calls by fate: sent (whatever came back), refused by the budget, answered
from the cache, and not sent for an error; sent is what the gateway metered."""

from __future__ import annotations

import socket
import time

import pytest

import toolkit
from toolkit.workloads import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 7)]


def test_sent_is_what_the_gateway_metered_refusals_and_cache_hits_apart(
    make_gateway, sandbox, cache_path
):
    gateway = make_gateway(cache=cache_path)
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    head = eth.head()
    old = head - 500  # final blocks: the cache keeps their answers
    eth.get_balance(ADDRESSES[0], old)
    eth.get_balance(ADDRESSES[0], old)  # a cache hit
    gateway.set_budget(gateway.ledger.counted_ru + 3)
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[1:], [old])
    work.each(tron, "wallet/gettransactioninfobyblocknum", range(10, 13), param="num")
    results = work.run(progress=False, batch_size=2)
    assert (results["error"] == "BudgetExceeded").any()

    record = toolkit.provenance(gateway)
    metered = sum(usage["calls"] for usage in sandbox.metering().values())
    assert record.sent == metered  # calls in batches included
    assert record.cached == 1 and record.refused >= 1 and record.not_sent == 0
    assert record.calls == len(gateway.ledger) == record.sent + record.refused + record.cached
    assert f"{record.sent:,} sent, {record.refused:,} refused by the budget" in str(record)
    assert "not sent" not in str(record)


def test_a_call_that_never_reached_the_gateway_is_not_counted_as_sent(sandbox):
    with socket.socket() as closed:  # a loopback port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    info = sandbox.info
    gateway = toolkit.Gateway(
        info["platform_url"],
        info["api_key"],
        nodes={"tron-mainnet": f"http://127.0.0.1:{port}/no-node"},
        retry=toolkit.RetryPolicy(attempts=1),
    )
    with gateway, pytest.raises(toolkit.TransportError):
        gateway.node("tron-mainnet").get_now_block()
    record = toolkit.provenance(gateway)
    assert (record.calls, record.sent, record.not_sent) == (1, 0, 1)
    assert "1 not sent (errors, stops)" in str(record)


def test_a_runs_provenance_covers_only_its_entries_and_fits_a_caption(make_gateway, sandbox):
    gateway = make_gateway()
    gateway.node("tron-mainnet").get_now_block()  # before the run: not the run's
    before = len(gateway.ledger)
    eth = gateway.node("ethereum-mainnet")
    Workload().grid(eth, "eth_getBalance", ADDRESSES[:2], [1, "latest"]).run(progress=False)
    record = toolkit.provenance(gateway, entries=gateway.ledger.entries[before:])
    assert [use.node for use in record.nodes] == ["ethereum-mainnet"]
    assert record.calls == 5 and record.total_ru == 2 * 2 + 2 * 1 + 1  # archive, full, head
    caption = record.caption()
    assert "\n" not in caption
    assert caption.startswith(
        f"Source: embedded sandbox (seed 0), ethereum-mainnet (ethereum, head {eth.last_head:,}): "
        "5 calls, 7 RU · node-gateway-toolkit "
    )
    assert all(url not in caption for url in sandbox.info["nodes"].values())
    assert toolkit.provenance(gateway).calls == len(gateway.ledger)  # the default: everything


def test_maybe_billed_ru_and_head_fetches_are_counted_and_named(make_gateway, sandbox):
    gateway = make_gateway(timeout=0.3)
    eth = gateway.node("ethereum-mainnet")
    eth.head()  # fetched to price archive calls: 1 RU
    sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=1.0, count=1)
    try:
        with pytest.raises(toolkit.Timeout):
            eth.block_number()  # sent, no answer within the deadline: may have been billed
        time.sleep(1.0)  # the sandbox meters it once the delayed request is read
        record = toolkit.provenance(gateway)
        metered = sandbox.metering()["ethereum-mainnet"]["ru"]
    finally:
        sandbox.faults.clear()
    assert (record.total_ru, record.unconfirmed_ru, record.counted_ru) == (1, 1, 2)
    assert record.counted_ru == metered
    assert (record.heads, record.heads_ru) == (1, 1)
    text = str(record)
    assert "RU spent" in text and "1 billed + 1 that may have been (sent, no answer)" in text
    assert "1 fetched to price calls, 1 RU (counted above)" in text
    assert "ethereum: 2 calls, 1 RU + 1 RU maybe, head " in text
    assert "): 2 calls, 1 RU + 1 RU maybe · " in record.caption()


def test_a_runs_summary_and_dataset_record_count_the_heads_it_fetched(
    make_gateway, sandbox, tmp_path
):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    eth.forget_head()  # the run must fetch it again to price its archive calls
    sandbox.reset_metering()
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:3], [head - 500, "latest"])
    frame = work.run(progress=False, dataset=tmp_path / "balances")
    summary = frame.attrs["summary"]
    assert (summary["heads"], summary["heads_ru"], summary["heads_unconfirmed_ru"]) == (1, 1, 0)
    metered = sum(usage["ru"] for usage in sandbox.metering().values())
    assert summary["ru"] + summary["heads_ru"] == metered == 3 * 2 + 3 * 1 + 1
    [record] = toolkit.read_dataset(tmp_path / "balances").attrs["runs"]
    assert record["summary"]["heads_ru"] == 1 and record["summary"]["ru"] == 9


def test_a_run_reads_only_the_ledger_entries_it_added(make_gateway, monkeypatch, tmp_path):
    """A session's ledger grows with every call: a run that copied it whole for its summary
    would take longer with each run of the session."""
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    eth.forget_head()

    def whole_ledger(ledger):
        raise AssertionError("the run copied the whole ledger")

    monkeypatch.setattr(toolkit.Ledger, "entries", property(whole_ledger))
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:2], [head - 500])
    summary = work.run(progress=False, dataset=tmp_path / "balances").attrs["summary"]
    assert (summary["calls"], summary["heads"]) == (2, 1)


def test_a_recording_says_so_and_dates_its_tape_on_the_ledgers_clock(sandbox, tmp_path):
    info = sandbox.info
    path = tmp_path / "notebook.tape.gz"
    gateway = toolkit.connect(
        info["platform_url"], info["api_key"], nodes=info["nodes"], tape=path, tape_mode="record"
    )
    try:
        gateway.node("ethereum-mainnet").block_number()
        record = toolkit.provenance(gateway)
        assert "None" not in str(record) and "None" not in record.replay_line()
        assert f"recording to the tape {path.name}" in record.replay_line()
        first = gateway.ledger.entries[0].time
        # The sandbox's own time, as the ledger has it, not the wall's.
        assert gateway.tape.recorded_at == first.replace(microsecond=0)
    finally:
        gateway.close()
    replayed = toolkit.connect(tape=path, tape_mode="replay")
    try:
        assert replayed.tape.recorded_at == first.replace(microsecond=0)
    finally:
        replayed.close()
