"""What a dataset keeps when things go wrong, with real processes and real files: runs killed
(SIGKILL) at 22 points, mid-write among them, then resumed, and 48 times more at random moments
with a response cache or a tape beside the dataset; two processes and two threads into
one dataset; zero-byte and torn files; names of any length; rows of another gateway.

The sandbox meters every call it answers, so "paid once" is checked against the gateway's meter,
not against the toolkit's own ledger.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from urllib.parse import unquote

import pandas as pd
import pyarrow.parquet as pq
import pytest

import toolkit
from tests.workloads.crash_lab import RUN, workload
from toolkit.client._cache import ResponseCache
from toolkit.client._tape import Tape
from toolkit.workloads._dataset import DatasetWriter
from toolkit.workloads._workload import Workload

IN_FLIGHT = RUN["concurrency"] * RUN["batch_size"]
"""The most calls a killed run can have paid for without their rows reaching the journal."""
METHODS = ("eth_getBalance", "wallet/gettransactioninfobyblocknum")
CALL = ["gateway", "node", "method", "params"]


def paid_calls(sandbox) -> int:
    """The workload's calls the sandbox answered (and billed) since its meter was reset."""
    usage = sandbox.metering()
    return sum(
        counts["calls"]
        for node in usage.values()
        for method, counts in node["by_method"].items()
        if method in METHODS
    )


@pytest.fixture(scope="module")
def lab(sandbox):
    """`crash_lab.py` in a process of its own: ``lab(kill=..., at=..., dataset=...)``."""
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("crash_lab.py")), json.dumps(sandbox.info)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert json.loads(process.stdout.readline()) == {"ready": True}

    def run(**command):
        process.stdin.write(json.dumps(command) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    yield run
    process.stdin.close()
    process.wait(timeout=30)


def assert_whole(dataset: Path, calls: int) -> None:
    """One row per call, no journal or temporary file left."""
    stored = toolkit.read_dataset(dataset)
    assert len(stored) == calls
    assert not stored.duplicated(CALL).any()
    assert stored["error"].isna().all()
    assert not list(dataset.glob("_journal/*.jsonl"))
    assert not [f for f in dataset.rglob(".*") if f.name.endswith(".tmp")]


KILLS = [
    *[("calls", k) for k in (1, 4, 9, 16, 23, 31, 40, 48, 57, 66)],
    *[("seconds", s) for s in (0.5, 0.7, 0.9, 1.1)],
    ("journal-torn", 1),
    ("journal-torn", 6),
    ("journal-written", 3),
    ("part-temporary", 1),
    ("part-temporary", 3),
    ("part-renamed", 1),
    ("part-renamed", 2),
    ("record", 1),
]


@pytest.mark.parametrize(("kill", "at"), KILLS, ids=[f"{k}-{a}" for k, a in KILLS])
def test_a_run_killed_anywhere_keeps_what_it_paid_for(
    lab, make_gateway, sandbox, tmp_path, kill, at
):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    sandbox.faults.set(kind="latency", delay=0.03)
    try:
        (end,) = lab(kill=kill, at=at, dataset=str(dataset))
    finally:
        sandbox.faults.clear()
    if kill != "seconds":  # a timed kill may come after the run ended: it then proves less
        assert end == {"signal": 9}
    paid_before = paid_calls(sandbox)

    # Readable before any resume, journals included: nothing raises, nothing is lost.
    kept = toolkit.read_dataset(dataset) if dataset.exists() else None
    kept_rows = 0 if kept is None else len(kept)
    assert kept_rows >= paid_before - IN_FLIGHT

    work = workload(gateway)
    frame = work.run(progress=False, dataset=dataset, **RUN)
    assert frame["error"].isna().all() and len(frame) == len(work)
    assert frame.attrs["summary"]["from_dataset"] >= paid_before - IN_FLIGHT
    assert_whole(dataset, len(work))
    # Every call paid once, except calls in flight at the kill (at most one round of them).
    assert len(work) <= paid_calls(sandbox) <= len(work) + IN_FLIGHT
    # And a third run pays nothing.
    again = work.run(progress=False, dataset=dataset, **RUN)
    assert again["ru"].sum() == 0 and paid_calls(sandbox) <= len(work) + IN_FLIGHT


def by_call(frame: pd.DataFrame) -> dict[tuple[str, str, str], list]:
    """Each call's values (a call planned twice has two)."""
    values: dict[tuple[str, str, str], list] = {}
    for row in frame[["node", "method", "params", "value"]].itertuples(index=False):
        values.setdefault((row.node, row.method, row.params), []).append(row.value)
    return values


def test_runs_killed_at_random_moments_pay_again_only_what_was_in_flight(
    lab, make_gateway, sandbox, tmp_path
):
    """48 runs, each resuming the last, killed at random moments (opening, recovering, sending,
    the last flush, the merge, the run's record) or at planted ones (a cache transaction, a
    tape's save, a part file, the record), into a dataset with a response cache or a tape beside
    it: at least 30 die before their end, and every eighth runs to it. Each pays again at most
    what it had in flight, every file a kill leaves is usable, and each round ends with the
    values of a run never killed."""
    gateway = make_gateway(cache=False)
    clean = by_call(workload(gateway).run(progress=False))
    calls = sum(map(len, clean.values()))
    rng = random.Random(20261127)
    planted = {
        "cache": ["cache-store", "part-renamed", "record", "journal-torn"],
        "tape": ["tape-save", "part-temporary", "record", "journal-written"],
    }
    rounds = kills = 0
    sandbox.faults.set(kind="latency", delay=0.01)
    try:
        for iteration in range(48):
            kind = ("cache", "tape")[rounds % 2]
            folder = tmp_path / f"round-{rounds}"
            dataset, keeps = folder / "ds", folder / f"kept.{kind}"
            command = {"dataset": str(dataset), kind: str(keeps)}
            if iteration % 8 == 7:  # a round's last run goes to its end
                command.update(kill="none")
            elif iteration % 8 == 6:
                command.update(kill=planted[kind][iteration // 8 % 4], at=1)
            else:
                command.update(kill="seconds", at=rng.uniform(0.03, 0.3))
            rows_before = len(toolkit.read_dataset(dataset)) if dataset.exists() else 0
            paid_before = paid_calls(sandbox)
            (end,) = lab(**command)
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no file a kill leaves is damaged
                rows = len(toolkit.read_dataset(dataset)) if dataset.exists() else 0
                if kind == "tape" and keeps.exists():
                    Tape(keeps, "replay")
                if kind == "cache" and keeps.exists():
                    ResponseCache(keeps).close()
            assert rows >= rows_before
            assert paid_calls(sandbox) - paid_before - (rows - rows_before) <= IN_FLIGHT
            kills += end == {"signal": 9}
            if end == {"exit": 0}:  # the round is done: the values of a run never killed
                assert rows == calls
                resumed = workload(gateway).run(progress=False, dataset=dataset, **RUN)
                assert resumed["ru"].sum() == 0 and by_call(resumed) == clean
                assert_whole(dataset, calls)
                rounds += 1
    finally:
        sandbox.faults.clear()
    assert kills >= 30 and rounds >= 6


def test_a_run_killed_while_it_recovers_a_dead_runs_journal_loses_nothing(
    lab, make_gateway, sandbox, tmp_path
):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    (end,) = lab(kill="journal-written", at=4, dataset=str(dataset))
    assert end == {"signal": 9}
    assert list(dataset.glob("_journal/*.jsonl"))
    # The next run dies after writing the first part file it recovers from the journal.
    (end,) = lab(kill="part-renamed", at=1, dataset=str(dataset))
    assert end == {"signal": 9}
    paid_before = paid_calls(sandbox)
    work = workload(gateway)
    frame = work.run(progress=False, dataset=dataset, **RUN)
    assert frame.attrs["summary"]["from_dataset"] >= paid_before - 2 * IN_FLIGHT
    assert_whole(dataset, len(work))


@pytest.mark.parametrize("point", ["merge-partial", "merge-written"])
def test_a_run_killed_while_it_merges_small_files_loses_nothing_and_doubles_nothing(
    lab, make_gateway, sandbox, tmp_path, point
):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    big = {"rows_per_file": 1_000}  # every file small
    (end,) = lab(kill="journal-written", at=4, dataset=str(dataset), run=big)
    assert end == {"signal": 9}
    (dataset / "._compacting.json.4194305-0badcafe.tmp").write_text("{")  # a plan's, killed
    # The resume writes what the journal held and its own rows: small files, merged at its end.
    (end,) = lab(kill=point, at=1, dataset=str(dataset), run=big)
    assert end == {"signal": 9}
    assert (dataset / "_compacting.json").exists()
    before = paid_calls(sandbox)
    work = workload(gateway)
    # Before any resume, a reader counts the files of the merge cut short once.
    stored = toolkit.read_dataset(dataset)
    assert len(stored) == len(work) and not stored.duplicated(CALL).any()
    frame = work.run(progress=False, dataset=dataset, **big)
    assert frame["ru"].sum() == 0 and paid_calls(sandbox) == before  # every row was there
    assert_whole(dataset, len(work))
    assert not (dataset / "_compacting.json").exists()
    for folder in {file.parent for file in dataset.rglob("part-*.parquet")}:
        assert len(list(folder.glob("part-*.parquet"))) == 1  # the merge was done, or redone


def test_each_run_merges_the_small_files_it_leaves(make_gateway, sandbox, tmp_path):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    work = workload(gateway)
    for share in range(1, 5):  # four runs, each sending a quarter more: a small file each
        Workload(work.calls[: share * len(work) // 4]).run(
            progress=False, dataset=dataset, rows_per_file=1_000
        )
    for folder in {file.parent for file in dataset.rglob("part-*.parquet")}:
        assert len(list(folder.glob("part-*.parquet"))) == 1
    assert_whole(dataset, len(work))


def test_compact_dataset_rechunks_a_dataset_exactly(make_gateway, sandbox, tmp_path):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    work = workload(gateway)
    work.run(progress=False, dataset=dataset, rows_per_file=5)
    files = len(list(dataset.rglob("part-*.parquet")))
    assert files == 60 // 5 + 10 // 5
    before = toolkit.read_dataset(dataset)
    assert toolkit.compact_dataset(dataset, rows_per_file=1_000) == files - 2
    assert len(list(dataset.rglob("part-*.parquet"))) == 2
    after = toolkit.read_dataset(dataset)
    order = ["node", "method", "params"]
    pd.testing.assert_frame_equal(
        after.sort_values(order, ignore_index=True), before.sort_values(order, ignore_index=True)
    )
    again = work.run(progress=False, dataset=dataset)
    assert again["ru"].sum() == 0 and again.attrs["summary"]["from_dataset"] == len(work)
    with pytest.raises(toolkit.ValidationError, match="rows_per_file"):
        toolkit.compact_dataset(dataset, rows_per_file=0)


def test_a_run_on_a_full_disk_keeps_what_it_wrote_and_the_next_run_sends_the_rest(
    lab, make_gateway, sandbox, tmp_path
):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    # Journal lines are a few KiB: the limit is hit part way through the run.
    (end,) = lab(kill="none", dataset=str(dataset), file_size_limit=6_000)
    # The run ended well, with a warning: it sent nothing more once the journal could not be
    # written (a call sent then would be kept only in memory).
    assert end == {"exit": 0}
    paid_before = paid_calls(sandbox)
    kept = toolkit.read_dataset(dataset)
    work = workload(gateway)
    assert 0 < len(kept) <= paid_before < len(work)
    frame = work.run(progress=False, dataset=dataset, **RUN)
    assert frame["error"].isna().all()
    assert frame.attrs["summary"]["from_dataset"] == len(kept)
    assert paid_calls(sandbox) == paid_before + len(work) - len(kept)  # only what was lost
    assert_whole(dataset, len(work))


def test_two_processes_into_one_dataset_pay_once(lab, make_gateway, sandbox, tmp_path):
    make_gateway(cache=False)
    dataset = tmp_path / "ds"
    sandbox.faults.set(kind="latency", delay=0.02)
    try:
        ends = lab(kill="none", children=2, dataset=str(dataset))
    finally:
        sandbox.faults.clear()
    assert ends == [{"exit": 0}, {"exit": 0}]
    calls = len(workload(make_gateway(cache=False)))
    assert paid_calls(sandbox) == calls  # the second run waited, then found every row
    assert_whole(dataset, calls)
    assert len(toolkit.read_dataset(dataset).attrs["runs"]) == 2


def test_a_reader_while_another_process_writes_reads_each_row_once(
    lab, make_gateway, sandbox, tmp_path
):
    make_gateway(cache=False)
    dataset = tmp_path / "ds"
    dataset.mkdir()
    ends: list = []
    # Files of 16 rows: part files written and journals dropped all along, a merge at the end.
    writer = threading.Thread(target=lambda: ends.extend(lab(dataset=str(dataset))))
    sandbox.faults.set(kind="latency", delay=0.03)
    counts = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no file a writer is busy with reads as damaged
            writer.start()
            while writer.is_alive():
                stored = toolkit.read_dataset(dataset)
                assert not stored.duplicated(CALL).any()
                counts.append(len(stored))
    finally:
        writer.join()
        sandbox.faults.clear()
    assert ends == [{"exit": 0}]
    assert counts == sorted(counts) and len(set(counts)) >= 3  # rows came, none went
    assert_whole(dataset, len(toolkit.read_dataset(dataset)))


def test_two_threads_into_one_dataset_pay_once(make_gateway, sandbox, tmp_path):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    work = workload(gateway)
    sandbox.faults.set(kind="latency", delay=0.02)
    frames: list = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [
            threading.Thread(
                target=lambda: frames.append(work.run(progress=False, dataset=dataset, **RUN))
            )
            for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    sandbox.faults.clear()
    assert len(frames) == 2 and all(frame["error"].isna().all() for frame in frames)
    assert sorted(frame.attrs["summary"]["from_dataset"] for frame in frames) == [0, len(work)]
    assert paid_calls(sandbox) == len(work)
    waited = [w for w in caught if "is being written by run" in str(w.message)]
    assert len(waited) == 1 and "waiting for it to finish" in str(waited[0].message)
    assert_whole(dataset, len(work))


def test_a_busy_dataset_can_fail_at_once_naming_who_holds_it(make_gateway, sandbox, tmp_path):
    gateway = make_gateway(cache=False)
    holder = DatasetWriter(tmp_path / "ds")
    holder.open_blocking()
    try:
        work = workload(gateway)
        before = paid_calls(sandbox)
        with pytest.raises(toolkit.DatasetBusy) as raised:
            work.run(progress=False, dataset=tmp_path / "ds", wait_for_dataset=False)
        assert paid_calls(sandbox) == before
        import os

        assert raised.value.holder["pid"] == os.getpid()
        assert f"process {os.getpid()}" in str(raised.value) and holder.run_id in str(raised.value)
    finally:
        holder.close()
    # Once let go, the dataset is free again.
    frame = work.run(progress=False, dataset=tmp_path / "ds", wait_for_dataset=False)
    assert frame["error"].isna().all()


def test_damaged_files_are_moved_aside_and_their_calls_sent_again(make_gateway, sandbox, tmp_path):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    work = workload(gateway)
    work.run(progress=False, dataset=dataset, **RUN)
    parts = sorted(dataset.rglob("part-*.parquet"))
    zeroed, torn = parts[0], parts[-1]
    lost = pq.read_metadata(zeroed).num_rows + pq.read_metadata(torn).num_rows
    zeroed.write_bytes(b"")  # what a power loss leaves after a rename whose data never landed
    torn.write_bytes(torn.read_bytes()[: torn.stat().st_size // 2])
    (record,) = dataset.glob("_runs/*.json")
    record.write_bytes(b"")
    journal = dataset / "_journal" / "left-by-a-dead-run.jsonl"
    journal.parent.mkdir(exist_ok=True)
    journal.write_bytes(b"[[1,2]]\nnot json\n")

    # A reader skips them, with one warning, and changes nothing.
    with pytest.warns(RuntimeWarning, match="damaged file") as caught:
        kept = toolkit.read_dataset(dataset)
    assert len(kept) == len(work) - lost and kept.attrs["runs"] == []
    assert zeroed.exists()
    assert sum("damaged" in str(w.message) for w in caught) == 2  # the rows, the run records

    before = paid_calls(sandbox)
    with pytest.warns(RuntimeWarning, match="damaged file") as caught:
        frame = work.run(progress=False, dataset=dataset, **RUN)
    (warning,) = [w for w in caught if "damaged" in str(w.message)]
    for file in (zeroed, torn, record, journal):
        assert file.relative_to(dataset).as_posix() in str(warning.message)
        assert not file.exists()
        assert (dataset / "_quarantine" / file.relative_to(dataset)).exists()
    assert frame["error"].isna().all()
    assert paid_calls(sandbox) - before == lost  # only the lost rows' calls went out again
    assert_whole(dataset, len(work))


def test_a_part_file_lost_in_a_power_cut_is_written_again_from_its_journal(
    lab, make_gateway, sandbox, tmp_path
):
    gateway = make_gateway(cache=False)
    dataset = tmp_path / "ds"
    (end,) = lab(kill="part-renamed", at=1, dataset=str(dataset))  # its journal not yet gone
    assert end == {"signal": 9}
    (journal,) = dataset.glob("_journal/*.jsonl")
    (part,) = dataset.rglob(f"part-{journal.stem}-*.parquet")
    kept = len(toolkit.read_dataset(dataset))
    part.write_bytes(b"")  # renamed, its data never on disk: what a power cut can leave
    before = paid_calls(sandbox)
    work = workload(gateway)
    frame = work.run(progress=False, dataset=dataset, **RUN)
    assert frame.attrs["summary"]["from_dataset"] == kept
    assert paid_calls(sandbox) - before == len(work) - kept  # the journal's rows not paid again
    assert_whole(dataset, len(work))


def test_a_node_name_of_any_length_works_and_reads_back_exactly(sandbox, tmp_path):
    name = "以太坊主网节点" * 5  # 35 CJK characters: 315 bytes URI-encoded
    url = sandbox.info["nodes"]["ethereum-mainnet"]
    node = toolkit.node(url, chain="ethereum", name=name, cache=False)
    try:
        work = Workload().grid(node, "eth_getBalance", ["0x" + "11" * 20], [1, 2, 3])
        first = work.run(progress=False, dataset=tmp_path / "ds")
        assert first["error"].isna().all()
        (folder,) = (tmp_path / "ds").glob("node=*")
        assert len(folder.name.encode()) <= 255
        # cut between characters: pyarrow before 25 cannot read a file under a partial one
        assert "\ufffd" not in unquote(folder.name, errors="replace")
        stored = toolkit.read_dataset(tmp_path / "ds")
        assert set(stored["node"]) == {name}
        again = work.run(progress=False, dataset=tmp_path / "ds")
        assert again["ru"].sum() == 0 and again.attrs["summary"]["from_dataset"] == 3
    finally:
        node.close()


def test_rows_of_another_gateway_are_kept_apart_and_not_reused(sandbox, tmp_path):
    url = sandbox.info["nodes"]["ethereum-mainnet"]
    here = toolkit.node(url, chain="ethereum", name="eth", cache=False)
    there = toolkit.node(
        url.replace("127.0.0.1", "localhost"), chain="ethereum", name="eth", cache=False
    )
    assert here.gateway != there.gateway
    try:
        calls = (["0x" + "22" * 20], [5, 6])
        Workload().grid(here, "eth_getBalance", *calls).run(progress=False, dataset=tmp_path / "ds")
        with pytest.warns(RuntimeWarning, match="through another gateway"):
            frame = (
                Workload()
                .grid(there, "eth_getBalance", *calls)
                .run(progress=False, dataset=tmp_path / "ds")
            )
        assert frame.attrs["summary"]["from_dataset"] == 0 and frame["ru"].sum() > 0
        stored = toolkit.read_dataset(tmp_path / "ds")
        assert stored["gateway"].value_counts().to_dict() == {here.gateway: 2, there.gateway: 2}
    finally:
        here.close()
        there.close()
