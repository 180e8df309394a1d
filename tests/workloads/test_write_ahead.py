"""The write-ahead journal of a distributed run's task (`_distributed.WriteAheadJournal`),
in this process against the sandbox: every request has its reservation on disk before it goes
out, a journal tells what its attempt spent, a dead attempt's unsettled reservations count as
may-have-been-billed, and a reservation that cannot be written is never sent."""

from __future__ import annotations

import json
import os

import pytest

import toolkit
from toolkit.workloads._distributed import WriteAheadJournal, attempt_entries, journal_entries
from toolkit.workloads._workload import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 11)]


def metered_ru(sandbox) -> int:
    return sum(usage["ru"] for usage in sandbox.metering().values())


def requests(sandbox) -> int:
    return sum(usage["requests"] for usage in sandbox.metering().values())


def balances(gateway) -> Workload:
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    return Workload().grid(eth, "eth_getBalance", ADDRESSES, [head - 2_000, head])


def lines(journal: WriteAheadJournal) -> list[list]:
    return [json.loads(line) for line in journal.file.read_text().splitlines()]


def test_every_request_is_reserved_on_disk_and_the_journal_tells_what_was_spent(
    make_gateway, sandbox, tmp_path
):
    gateway = make_gateway()
    work = balances(gateway)
    sandbox.reset_metering()
    gateway.ledger.clear()
    journal = WriteAheadJournal(str(tmp_path), "run", "run-p00000", gateway.ledger)
    gateway.meter.journal = journal
    frame = work.run(progress=False, batch_size=1, concurrency=4)
    journal.close()
    assert frame["error"].isna().all()

    written = lines(journal)
    reservations = [line for line in written if line[0] == "r"]
    # one reservation a request, each at the price the gateway metered it at
    assert len(reservations) == requests(sandbox) == len(work)
    assert sum(line[1] for line in reservations) == metered_ru(sandbox) == 30
    assert sum(line[2] for line in written if line[0] == "s") == metered_ru(sandbox)

    # read back, an attempt that ended is its ledger, with nothing left unaccounted for (but the
    # params: a spending journal keeps what was spent, not what was asked, to stay small)
    entries = attempt_entries(journal.file.read_bytes(), label="x", status="worker died", note="")
    assert sorted(entries) == sorted(e._replace(params="") for e in gateway.ledger.entries)
    assert journal_entries(str(tmp_path), "run-p00000", label="x", status="worker died") == entries


def test_a_dead_attempts_unsettled_reservations_count_as_may_have_been_billed():
    entry = ["e", 1, "2026-01-01T00:00:00+00:00", "eth", "eth_getBalance", 2, 0.1, "ok"]
    entry += [0, 0, False, True, "", True]
    journal = [
        ["r", 2],
        ["s", 2, 2, 0],  # answered, and its entry written
        entry,
        ["r", 3],
        ["s", 3, 1, 2],  # answered, billed 1 of a range up to 3; no entry yet
        ["r", 2],  # in flight when the worker died
        ["r", 2],
        ["s", 2, 0, 2],  # sent, no answer
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in journal)
    data += b'["r",50'  # torn: the worker died writing it, before sending
    entries = attempt_entries(data, label="eth", status="worker died", note="n")
    assert len(entries) == 2 and entries[0].ru == 2 and entries[0].method == "eth_getBalance"
    rest = entries[1]
    assert (rest.node, rest.status, rest.note, rest.sent) == ("eth", "worker died", "n", True)
    assert rest.ru == 1  # settled billed beyond the written entry
    assert rest.unconfirmed_ru == 2 + 2 + 2  # settled unconfirmed, and the unsettled reservation
    # a line a power cut garbled in the middle is skipped, not fatal
    garbled = data.replace(b'["r",3]', b"\x00\x00\x00\x00\x00\x00\x00")
    assert attempt_entries(garbled, label="eth", status="worker died", note="n")[1].ru == 1


def test_a_reservation_that_cannot_be_written_is_not_sent(make_gateway, sandbox, tmp_path):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    gateway.set_budget(gateway.ledger.counted_ru + 100)
    journal = WriteAheadJournal(str(tmp_path), "run", "run-p00000", gateway.ledger)
    gateway.meter.journal = journal
    eth.get_balance(ADDRESSES[0], block="latest")  # written ahead, sent
    good = journal.file.stat().st_size
    before, spent = metered_ru(sandbox), gateway.ledger.counted_ru
    # the journal's disk is full from now on (writes to /dev/full fail with ENOSPC)
    full = os.open("/dev/full", os.O_WRONLY)
    real, journal._fd = journal._fd, full
    try:
        with pytest.raises(toolkit.DatasetError, match="not sent") as refused:
            eth.get_balance(ADDRESSES[1], block="latest")
        assert "No space left" in str(refused.value)
        # and every later call, also in a bulk run: rows of the error, 0 RU
        frame = Workload().grid(eth, "eth_getBalance", ADDRESSES, ["latest"]).run(progress=False)
    finally:
        journal._fd = real
        os.close(full)
    assert frame["error"].eq("DatasetError").all() and frame["ru"].eq(0).all()
    assert metered_ru(sandbox) == before and gateway.ledger.counted_ru == spent
    assert gateway.meter.in_flight_ru == 0  # each refused reservation was given back
    journal.close()
    assert journal.file.stat().st_size == good  # nothing half-written after the last good line


def test_a_stopped_run_sends_nothing_more(make_gateway, sandbox, tmp_path):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    journal = WriteAheadJournal(str(tmp_path), "run", "run-p00000", gateway.ledger)
    gateway.meter.journal = journal
    eth.get_balance(ADDRESSES[0], block="latest")
    before = metered_ru(sandbox)
    journal.stop_mark.touch()  # what a coordinator that stops leaves
    with pytest.raises(toolkit.DatasetError, match="stopped"):
        eth.get_balance(ADDRESSES[1], block="latest")
    journal.close()
    assert metered_ru(sandbox) == before and gateway.meter.in_flight_ru == 0
    # its reservation was written, and settled at 0: a reader counts nothing for it
    entries = attempt_entries(journal.file.read_bytes(), label="x", status="stopped", note="")
    assert sum(e.ru + e.unconfirmed_ru for e in entries) == gateway.ledger.counted_ru
