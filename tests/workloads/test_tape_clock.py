"""One clock per gateway (`toolkit.client.GatewayClock`): the wall's, the embedded sandbox's own,
or a replayed tape's. Every time a gateway shows (its ledger, a run's record and length, its
provenance) is read from that one object, so a replay shows the recording's times, twice alike."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

import toolkit
from toolkit.client import GatewayClock, parse_tape
from toolkit.sandbox import Sandbox
from toolkit.workloads import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 4)]
KEEP_HEADS = {"head_ttl_s": 3600, "cache": False}


def run(gateway: toolkit.Gateway, dataset) -> tuple[dict, datetime, list[toolkit.Entry]]:
    """A workload into `dataset`: its summary, its run record's time, and its ledger entries."""
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    before = len(gateway.ledger.entries)
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES, [head - 1_000, head - 20])
    summary = work.run(progress=False, dataset=dataset, batch_size=2).attrs["summary"]
    (record,) = dataset.glob("_runs/*.json")
    when = datetime.fromisoformat(json.loads(record.read_text())["time"])
    return summary, when, gateway.ledger.since(before)


def test_a_replay_dates_its_ledger_runs_and_provenance_on_the_tapes_clock(tmp_path):
    tape = tmp_path / "run.tape.gz"
    with Sandbox(seed=0) as sandbox:  # its clock moves a second a request
        info = sandbox.info
        recording = toolkit.Gateway(
            info["platform_url"],
            info["api_key"],
            nodes=info["nodes"],
            sandbox=sandbox,
            tape=tape,
            tape_mode="record",
            **KEEP_HEADS,
        )
        with recording:
            assert not recording.meter.clock.replaying
            assert recording.meter.clock() == sandbox.world.clock.utc()
            run(recording, tmp_path / "recorded")
    _, records = parse_tape(tape.read_bytes(), tape)
    recorded = {datetime.fromisoformat(a["at"]) for r in records for a in r["answers"]}
    with toolkit.connect(tape=tape, tape_mode="replay") as replay:
        began = replay.tape.recorded_at
    # Sandbox time starts at its chains' base heads (2025-06-01) and moves a second a request:
    # far from today's wall, so a time read from the wall anywhere would show.
    assert max(recorded) - began < timedelta(minutes=5) < datetime.now(UTC) - max(recorded)

    seen = []
    for attempt in range(2):
        replay = toolkit.connect(tape=tape, tape_mode="replay", **KEEP_HEADS)
        with replay:
            clock = replay.meter.clock
            assert clock.replaying and clock.recording_began == began
            summary, run_time, entries = run(replay, tmp_path / f"replayed-{attempt}")
            assert entries and all(entry.replayed for entry in entries)
            # The ledger: each call when it was recorded; the run: when its last call was, and
            # as long as the recording took; provenance: when the recording began.
            assert {entry.time for entry in entries} <= recorded
            assert run_time == max(entry.time for entry in entries) == clock.run_time(entries)
            assert summary["seconds"] == GatewayClock.run_seconds(0.0, entries)
            assert toolkit.provenance(replay).time == began == clock.record_time()
            # A call the tape lacks is dated on the tape's clock too (the latest answer served).
            before = len(replay.ledger.entries)
            with pytest.raises(toolkit.TapeMiss):
                replay.node("ethereum-mainnet").get_balance(ADDRESSES[0], 1)
            (miss,) = replay.ledger.since(before)
            assert miss.status == "TapeMiss" and not miss.replayed
            assert miss.time == clock() == max(entry.time for entry in entries)
            seen.append((summary["seconds"], run_time, miss.time))
    assert seen[0] == seen[1]  # a notebook replayed twice shows the same


def test_every_time_a_gateway_shows_is_read_from_its_clock(make_gateway, tmp_path):
    """Replace a gateway's clock, and its ledger, its runs' records and its provenance all say
    the new clock's time: no other place decides what time it is."""
    gateway = make_gateway(cache=False)
    moment = datetime(2031, 2, 3, 4, 5, 6, tzinfo=UTC)
    gateway.meter.clock = GatewayClock(lambda: moment, request_s=1.0)
    _, run_time, entries = run(gateway, tmp_path / "ds")
    assert entries and {entry.time for entry in entries} == {moment}
    assert run_time == moment == toolkit.provenance(gateway).time
