"""A dataset on a disk that fills up or turns read-only (a real 1 MiB tmpfs), and files torn at
many byte offsets read lazily: what is on disk stays readable, what cannot be written is a
`DatasetError` naming the folder and what to do, and once the disk is fixed a resume pays only
for what is not on disk. The sandbox's meter says what was paid."""

from __future__ import annotations

import gc
import random
import warnings

import pyarrow.parquet as pq
import pytest

import toolkit
from tests.workloads.test_dataset_durability import paid_calls
from toolkit.workloads._dataset import DatasetWriter
from toolkit.workloads._workload import Workload

RUN = {"rows_per_file": 1_000, "batch_size": 20, "progress": False}


def balances(gateway, count: int = 400) -> Workload:
    eth = gateway.node("ethereum-mainnet")
    addresses = [f"0x{index:040x}" for index in range(1, count + 1)]
    return Workload().grid(eth, "eth_getBalance", addresses, [eth.head() - 1_000])


def test_a_full_disk_before_a_run_is_a_dataset_error_and_leaves_the_dataset_free(
    make_gateway, sandbox, small_disk
):
    work = balances(make_gateway(cache=False))
    dataset = small_disk.path / "ds"
    small_disk.fill()
    with pytest.raises(toolkit.DatasetError, match="No space left") as raised:
        work.run(dataset=dataset, **RUN)
    assert str(dataset) in str(raised.value) and "Free space" in str(raised.value)
    assert raised.value.path == str(dataset) and paid_calls(sandbox) == 0
    # A notebook keeps the last traceback (for %debug), and with it the run's writer: the
    # writer that failed must not keep the dataset locked.
    failed = DatasetWriter(dataset)
    with pytest.raises(toolkit.DatasetError, match="No space left"):
        failed.open_blocking()
    small_disk.free()
    frame = work.run(dataset=dataset, wait_for_dataset=False, **RUN)
    assert frame["error"].isna().all() and paid_calls(sandbox) == len(work)
    assert failed.failure is None  # (kept alive until here)


def test_a_dead_runs_journal_on_a_full_disk_is_kept_and_resumed_once_there_is_room(
    make_gateway, sandbox, small_disk
):
    gateway = make_gateway(cache=False)
    work = balances(gateway)
    clean = work.run(progress=False)
    sandbox.reset_metering()
    dataset = small_disk.path / "ds"
    small_disk.fill(leave=30_000)  # room for some journal lines, not for the part file
    with pytest.warns(RuntimeWarning, match="could not be written") as caught:
        first = work.run(dataset=dataset, **RUN)
    said = " ".join(str(warning.message) for warning in caught)
    assert str(dataset) in said and "No space left" in said and "free space on its disk" in said
    assert first["error"].isna().all()  # the run's frame has every answer
    assert list(dataset.glob("_journal/*.jsonl"))
    kept = len(toolkit.read_dataset(dataset))  # the journal's rows, readable on the full disk
    assert 0 < kept < len(work) == paid_calls(sandbox)

    # The next run cannot write the journal's rows into part files: it says so, sending nothing.
    with pytest.raises(toolkit.DatasetError, match="No space left") as raised:
        work.run(dataset=dataset, wait_for_dataset=False, **RUN)
    assert str(dataset) in str(raised.value) and paid_calls(sandbox) == len(work)
    assert len(toolkit.read_dataset(dataset)) == kept

    small_disk.free()
    gc.collect()  # what pyarrow's failed writer held of the full disk
    resumed = work.run(dataset=dataset, wait_for_dataset=False, **RUN)
    assert resumed.attrs["summary"]["from_dataset"] == kept
    assert paid_calls(sandbox) == 2 * len(work) - kept  # what was on disk was not paid again
    assert resumed["value"].tolist() == clean["value"].tolist()
    assert len(toolkit.read_dataset(dataset)) == len(work)


def test_a_disk_that_fills_mid_run_stops_the_sending_and_a_resume_pays_only_what_was_lost(
    make_gateway, sandbox, small_disk
):
    """A call sent once the dataset cannot take rows would be paid for and kept only in memory:
    the run sends nothing more, and its unsent calls say why (0 RU)."""
    gateway = make_gateway(cache=False)
    work = balances(gateway)
    clean = work.run(progress=False)
    sandbox.reset_metering()
    dataset = small_disk.path / "ds"
    small_disk.fill(leave=30_000)  # room for a few journal lines of the 20 batches
    with pytest.warns(RuntimeWarning, match="sends nothing more"):
        first = work.run(dataset=dataset, **{**RUN, "concurrency": 1})
    answered = first["error"].isna()
    unsent = first["error"].eq("DatasetError")
    assert 0 < answered.sum() < len(work) and (answered | unsent).all()
    assert paid_calls(sandbox) == answered.sum()  # nothing was sent after the failure
    assert first.loc[unsent, "ru"].eq(0).all()
    assert first.loc[unsent, "message"].str.contains("not sent: the dataset at").all()
    assert first.loc[unsent, "message"].str.contains("free space on its disk").all()
    assert first.loc[answered, "value"].tolist() == clean.loc[answered, "value"].tolist()

    small_disk.free()
    gc.collect()  # what pyarrow's failed writer held of the full disk
    resumed = work.run(dataset=dataset, wait_for_dataset=False, **RUN)
    kept = resumed.attrs["summary"]["from_dataset"]
    assert 0 < kept <= answered.sum()  # what reached the journal before the disk filled
    assert paid_calls(sandbox) == answered.sum() + len(work) - kept
    assert resumed["value"].tolist() == clean["value"].tolist()


def test_a_read_only_dataset_reads_and_a_run_into_it_is_a_dataset_error(
    make_gateway, sandbox, small_disk
):
    work = balances(make_gateway(cache=False), count=40)
    dataset = small_disk.path / "ds"
    written = work.run(dataset=dataset, **RUN)
    small_disk.remount("ro")
    assert toolkit.read_dataset(dataset)["value"].tolist() == written["value"].tolist()
    more = balances(make_gateway(cache=False), count=50)
    with pytest.raises(toolkit.DatasetError, match="Read-only file system") as raised:
        more.run(dataset=dataset, **RUN)
    assert str(dataset) in str(raised.value) and "make it writable" in str(raised.value)
    assert paid_calls(sandbox) == len(work)
    small_disk.remount("rw")
    frame = more.run(dataset=dataset, wait_for_dataset=False, **RUN)
    assert frame.attrs["summary"]["from_dataset"] == len(work)
    assert paid_calls(sandbox) == len(more)


def test_dask_skips_a_part_file_torn_inside_with_a_warning(make_gateway, tmp_path):
    pytest.importorskip("dask.dataframe")
    work = balances(make_gateway(cache=False), count=120)
    dataset = tmp_path / "ds"
    work.run(dataset=dataset, **{**RUN, "rows_per_file": 40})
    first, *others = sorted(dataset.rglob("part-*.parquet"))
    whole = first.read_bytes()
    rest = sum(pq.read_metadata(file).num_rows for file in others)
    footer = len(whole) - pq.read_metadata(first).serialized_size - 8
    rng, skipped = random.Random(3), 0
    for offset in sorted(rng.sample(range(4, footer), 24)):  # the pages: the footer still reads
        garbled = bytearray(whole)
        garbled[offset : offset + 8] = bytes(rng.randrange(256) for _ in range(8))
        first.write_bytes(bytes(garbled))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = toolkit.read_dataset(dataset, engine="dask").compute()
            eager = toolkit.read_dataset(dataset)
        assert len(rows) == len(eager) in (rest, rest + 40)
        if len(rows) == rest:  # the damage showed: said once, naming the file
            damaged = [w for w in caught if "damaged file" in str(w.message)]
            assert len(damaged) == 2 and all(first.name in str(w.message) for w in damaged)
            skipped += 1
    assert skipped >= 12


def test_compacting_on_a_full_disk_is_a_dataset_error_and_keeps_every_row(make_gateway, small_disk):
    work = balances(make_gateway(cache=False), count=200)
    dataset = small_disk.path / "ds"
    written = work.run(dataset=dataset, **{**RUN, "rows_per_file": 10})
    small_disk.fill(leave=8_192)
    with pytest.raises(toolkit.DatasetError, match="No space left") as raised:
        toolkit.compact_dataset(dataset, rows_per_file=1_000)
    assert str(dataset) in str(raised.value) and "not merged" in str(raised.value)
    assert sorted(toolkit.read_dataset(dataset)["params"]) == sorted(written["params"])
    small_disk.free()
    assert toolkit.compact_dataset(dataset, rows_per_file=1_000) == 19  # 20 files into 1
    assert sorted(toolkit.read_dataset(dataset)["params"]) == sorted(written["params"])
