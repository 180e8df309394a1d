"""Workloads on a dask.distributed cluster: `Workload.run(dataset=path, client=dask_client)`.

The coordinator (the notebook) resumes the dataset, prices what is left, and splits it into
partitions. Each partition is one task: a worker opens the same nodes (`NodeSpec`, the only place
a key travels) on its own meter and runs its calls through `run_planned`, writing its rows into
the dataset. What the user is promised (budget, ledger, dead and failed workers, rate, keys) is in
docs/datasets.md, "When one process is not enough"; how the code keeps it:

- the coordinator reserves each partition's slice on its own meter before submitting it, and the
  slice is the worker's budget; a partition that cannot get its whole slice waits for running
  ones, or, when none runs, gets what is left;
- each attempt writes ahead into ``_spending/`` (`WriteAheadJournal`); a new attempt, or the
  coordinator when dask gives up, reads the earlier attempts' journals (`journal_entries`);
- a stop leaves ``_spending/<run>.stop``, which fails the workers' next reservations unsent.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import BudgetExceeded, DatasetError, WorkerFailed
from .._files import fsync_dir
from .._redact import scrub_logs
from ..client import Entry, NodeSpec, Settings, open_nodes, run_sync
from ._dataset import DatasetWriter
from ._planned import PlannedCall, estimates
from ._rows import failed_rows, results_frame
from ._run import RunOptions, run_planned

if TYPE_CHECKING:
    import pandas as pd

    from ..client import Ledger

WORKER_ROWS_PER_FILE = 500
"""A worker writes its rows at least this often."""

SPENDING = "_spending"
"""The dataset's folder for the journals of the runs in progress."""


@dataclass(frozen=True)
class Partition:
    """One task's share of a run: what a worker needs, keys included (see the module doc)."""

    run_id: str
    index: int
    dataset: str
    nodes: tuple[NodeSpec, ...]
    settings: Settings
    calls: tuple[tuple[str, str, dict[str, Any]], ...]  # node name, method, arguments
    slice_ru: int | None  # what this partition may spend over all its attempts (None: no limit)
    rows_per_file: int
    concurrency: int
    batch_size: int

    def __repr__(self) -> str:
        return f"<Partition {self.index} of run {self.run_id}: {len(self.calls)} calls>"

    @property
    def prefix(self) -> str:
        return f"{self.run_id}-p{self.index:05d}"

    @property
    def label(self) -> str:
        """The ledger's node column for spending no call entry accounts for."""
        return ", ".join(spec.name for spec in self.nodes)


@dataclass(frozen=True)
class PartitionResult:
    index: int
    frame: pd.DataFrame | None  # None: the run raised, its rows are in the dataset only
    # Every attempt's (the earlier ones as their journals tell); None: the worker could not
    # read the journals, the coordinator reads them.
    entries: list[Entry] | None
    failure: str | None = None  # what went wrong on the worker, for `WorkerFailed`


class WriteAheadJournal:
    """The write-ahead record of one attempt at a partition, ``_spending/<prefix>-<id>.wal``, set
    as its meter's `journal` (the client's `SpendingJournal`). A JSON array a line:

    - ``["r", ru]``: a reservation, appended, flushed and fsynced before the attempt is sent;
    - ``["s", reserved, billed, unconfirmed]``: its settlement, appended but not fsynced (lost to
      a power cut, its reservation counts whole, which is never less than what it spent);
    - ``["e", n, time, node, ...]``: `n` alike ledger entries, with the next reservation and when
      the attempt ends.

    A line without its newline (the process died while writing it) is ignored by `attempt_entries`.
    Once a write fails, the journal is cut back to its last whole line and refuses every later
    reservation: a call whose reservation is not on disk is never sent.
    """

    def __init__(self, dataset: str, run_id: str, prefix: str, ledger: Ledger):
        folder = Path(dataset) / SPENDING
        self.dataset = dataset
        self.file = folder / f"{prefix}-{secrets.token_hex(4)}.wal"
        self.stop_mark = folder / f"{run_id}.stop"
        self.failure: str | None = None
        self._ledger = ledger
        self._lock = threading.Lock()
        self._recorded = 0  # ledger entries written
        self._size = 0
        self._fd = -1
        try:
            folder.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND
            self._fd = os.open(self.file, flags, 0o644)
            fsync_dir(folder)  # the file itself must survive a power cut
        except OSError as error:
            if self._fd >= 0:
                os.close(self._fd)
            raise DatasetError(
                f"the write-ahead journal {self.file} could not be made ({error}); no call of "
                "its partition was sent (0 RU)",
                path=dataset,
            ) from error

    def reserving(self, ru: int, what: str) -> None:
        with self._lock:
            self._append(self._entry_lines() + _line(["r", ru]), sync=True)
            if self.failure is not None:
                raise DatasetError(
                    f"{what} was not sent (0 RU): what it may spend could not be written ahead "
                    f"({self.failure})",
                    path=self.dataset,
                )
        # Checked after the reservation is on disk: a coordinator that made the mark and then
        # read the journals has either seen this reservation or made it fail here.
        if self.stop_mark.exists():
            self.settled(ru, 0, 0)
            raise DatasetError(
                f"{what} was not sent (0 RU): the run was stopped", path=self.dataset
            )

    def settled(self, reserved: int, billed: int, unconfirmed: int) -> None:
        with self._lock:
            self._append(_line(["s", reserved, billed, unconfirmed]), sync=False)

    def close(self) -> None:
        """Write the entries not written yet, and close the file."""
        with self._lock:
            self._append(self._entry_lines(), sync=True)
            with contextlib.suppress(OSError):
                os.close(self._fd)

    def _append(self, data: bytes, *, sync: bool) -> None:
        """Write `data` whole, unless a write failed before: one that fails sets `failure`."""
        if self.failure is not None:
            return
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            if sync:
                os.fsync(self._fd)
        except OSError as error:
            self.failure = f"{self.file}: {error}"
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._size)  # a later line must not follow a torn one
            return
        self._size += len(data)

    def _entry_lines(self) -> bytes:
        new = self._ledger.since(self._recorded)
        self._recorded += len(new)
        lines = []
        start = 0
        # Entries as they count spending, without `params` (the last field): the journal is what
        # the budget needs, and a batch's calls that read alike but for their params are then
        # one line (a line per call would fill a worker's disk quota far sooner).
        counted = [entry[1:-1] for entry in new]
        for end in range(1, len(new) + 1):
            if end == len(new) or counted[end] != counted[start]:
                entry = new[start]
                lines.append(_line(["e", end - start, entry.time.isoformat(), *counted[start]]))
                start = end
        return b"".join(lines)


def _line(fields: list[Any]) -> bytes:
    return json.dumps(fields, separators=(",", ":")).encode() + b"\n"


def attempt_entries(data: bytes, *, label: str, status: str, note: str) -> list[Entry]:
    """Ledger entries for one attempt's journal (`WriteAheadJournal`): those it wrote, and one
    entry for what they do not account for (spending recorded after the last entries, and
    reservations never settled, counted whole as may-have-been-billed) with `status` and
    `note`."""
    entries: list[Entry] = []
    reserved = settled = billed = unconfirmed = 0
    for raw in data.split(b"\n")[:-1]:  # what follows the last newline is a torn line
        try:
            line = json.loads(raw)
            if line[0] == "r":
                reserved += int(line[1])
            elif line[0] == "s":
                settled, billed = settled + int(line[1]), billed + int(line[2])
                unconfirmed += int(line[3])
            elif line[0] == "e":
                entries += [Entry(datetime.fromisoformat(line[2]), *line[3:])] * int(line[1])
        except (ValueError, TypeError, IndexError):
            continue  # garbled by a power cut: past the last fsync, so never a sent reservation
    maybe = unconfirmed + max(0, reserved - settled)
    rest_billed = max(0, billed - sum(entry.ru for entry in entries))
    rest_maybe = max(0, maybe - sum(entry.unconfirmed_ru for entry in entries))
    if rest_billed or rest_maybe:
        rest = Entry(datetime.now(UTC), label, "(unrecorded)", rest_billed, 0.0, status)
        entries.append(rest._replace(unconfirmed_ru=rest_maybe, note=note, sent=True))
    return entries


def journal_entries(dataset: str, prefix: str, *, label: str, status: str) -> list[Entry]:
    """The entries of every attempt at the partition `prefix` (`attempt_entries`). Raises
    `OSError` when a journal cannot be read: then what was spent is not known."""
    entries: list[Entry] = []
    note = f"spent by an attempt at partition {prefix} beyond the calls it recorded"
    for file in sorted((Path(dataset) / SPENDING).glob(f"{prefix}-*.wal")):
        entries += attempt_entries(file.read_bytes(), label=label, status=status, note=note)
    return entries


def _counted(entries: Iterable[Entry]) -> int:
    return sum(entry.ru + entry.unconfirmed_ru for entry in entries)


def _worker_name() -> str:
    with contextlib.suppress(ImportError, ValueError):
        from distributed import get_worker

        return f"worker {get_worker().address}"
    return "its worker"


def run_partition(part: Partition) -> PartitionResult:
    """A worker's task: the partition's calls that have no row yet, through a local run, within
    what the partition's earlier attempts left of its slice (see the module doc)."""
    refusal: DatasetError | None = None
    earlier: list[Entry] | None = None
    try:
        earlier = journal_entries(part.dataset, part.prefix, label=part.label, status="worker died")
    except OSError as error:
        refusal = _unreadable(part, error)
    left = None if part.slice_ru is None else max(0, part.slice_ru - _counted(earlier or []))
    nodes = open_nodes(part.nodes, replace(part.settings, budget=0 if refusal else left))
    try:
        meter = next(iter(nodes.values())).meter
        calls = [
            PlannedCall(nodes[name], nodes[name].prepare(method, **arguments))
            for name, method, arguments in part.calls
        ]
        journal = None
        if refusal is None:
            try:
                journal = WriteAheadJournal(part.dataset, part.run_id, part.prefix, meter.ledger)
            except DatasetError as error:
                refusal = error
        if journal is None:
            assert refusal is not None  # why there is no journal
            unsent = failed_rows(calls, refusal)  # `earlier` None: the coordinator reads them
            return PartitionResult(part.index, unsent, earlier, f"on {_worker_name()}: {refusal}")
        meter.journal = journal
        writer = DatasetWriter(part.dataset, part.rows_per_file, prefix=part.prefix)
        frame: pd.DataFrame | None = None
        failure: str | None = None
        options = RunOptions(part.concurrency, part.batch_size, writer, split_refusals=False)
        try:
            ran = run_sync(run_planned(calls, options))
            if ran.stopped is not None:
                raise ran.stopped.with_traceback(None)
            frame = ran.frame
        except Exception as error:  # out of memory, or a bug: the rows written are kept
            failure = f"its run raised {error!r}"
        finally:
            journal.close()
        failures = [failure] if failure else []
        if writer.failure is not None:
            failures.append(f"the dataset could not be written ({writer.failure})")
        if journal.failure is not None:
            failures.append(f"the write-ahead journal could not be written ({journal.failure})")
        failure = f"on {_worker_name()}: {'; '.join(failures)}" if failures else None
        return PartitionResult(
            part.index, frame, [*(earlier or []), *meter.ledger.entries], failure
        )
    finally:
        for node in nodes.values():
            node.close()


def _unreadable(part: Partition, error: OSError) -> DatasetError:
    return DatasetError(
        f"what earlier attempts at partition {part.index} spent could not be read ({error}); "
        "no call of it was sent (0 RU)",
        path=part.dataset,
    )


def worker_rate_limit(nodes: Iterable[Any], workers: int) -> float | dict[str, float | None] | None:
    """Each worker's share of the limits the coordinator holds `nodes` to, so that the workers
    together keep them: one number when the handle's nodes share one limiter (a number set
    it), else each node's own share (a plan or ``"auto"``: nodes with different ceilings)."""
    limiters = {node.name: node.rate_limiter for node in nodes}
    distinct = {id(limiter): limiter for limiter in limiters.values() if limiter is not None}
    if not distinct:
        return None
    if len(distinct) == 1 and None not in limiters.values():
        return next(iter(distinct.values())).rate / workers
    return {
        name: None if limiter is None else limiter.rate / workers
        for name, limiter in limiters.items()
    }


def run_on_cluster(
    calls: list[PlannedCall], client: Any, options: RunOptions, partition_size: int | None
) -> pd.DataFrame:
    """Run every one of `calls` on `client`'s workers, in partitions of `partition_size` calls
    (None: four per worker), each a `run_planned` there with `options`; one row per call, in
    order. Raises `WorkerFailed` when a partition failed on its worker (see the module doc)."""
    from distributed import as_completed

    writer, bar = options.writer, options.bar
    assert writer is not None  # a run on a cluster writes a dataset (`Workload.run`)
    scrub_logs()  # dask's loggers (a failed task's arguments hold its nodes' URLs)
    if not calls:
        return results_frame([])
    workers = max(1, len(client.scheduler_info()["workers"]))
    size = partition_size or max(1, math.ceil(len(calls) / (4 * workers)))
    groups = [list(range(i, min(i + size, len(calls)))) for i in range(0, len(calls), size)]
    meter = calls[0].node.meter
    highs = [estimate.high for estimate in estimates(calls, fetch_heads=True)]
    share = worker_rate_limit({c.node.name: c.node for c in calls}.values(), workers)

    def partition(index: int, slice_ru: int | None) -> Partition:
        planned = [calls[p] for p in groups[index]]
        specs = {c.node.name: c.node.spec() for c in planned}
        return Partition(
            run_id=writer.run_id,
            index=index,
            dataset=str(writer.root),
            nodes=tuple(specs.values()),
            settings=replace(planned[0].node.settings, budget=None, rate_limit=share),
            calls=tuple((c.node.name, c.method, c.call.arguments) for c in planned),
            slice_ru=slice_ru,
            rows_per_file=min(writer.rows_per_file, WORKER_ROWS_PER_FILE),
            concurrency=options.concurrency,
            batch_size=options.batch_size,
        )

    def slice_of(index: int) -> int:
        heads = len({calls[p].node.name for p in groups[index]})
        return sum(highs[p] for p in groups[index]) + heads

    waiting = list(range(len(groups)))
    # Running partitions by task key: the task, the RU reserved for it on the coordinator's
    # meter, and its future.
    running: dict[str, tuple[Partition, int, Any]] = {}
    done: dict[int, Rows] = {}
    futures = as_completed()
    budget_stop = False  # a partition ran out of budget: nothing more is sent
    causes: list[str] = []  # a partition failed on its worker: nothing more is sent

    def submit_what_fits() -> None:
        while waiting and not budget_stop and not causes and len(running) < workers:
            index, budget = waiting[0], meter.budget
            need, remaining = slice_of(index), None if budget is None else budget.remaining
            if remaining is not None and need > remaining:
                if running or remaining <= 0:
                    return  # wait for a running partition to hand back what it did not spend
                need = remaining
            if budget is not None:
                meter.reserve(need, what=f"partition {index} of a distributed run")
            waiting.pop(0)
            task = partition(index, need if budget is not None else None)
            future = client.submit(run_partition, task, key=f"toolkit-{task.prefix}")
            running[str(future.key)] = (task, need if budget is not None else 0, future)
            futures.add(future)

    def settle(task: Partition, held: int, entries: list[Entry] | None, status: str) -> None:
        if entries is None:  # what the worker could not read
            entries = _spent(task, held, status)
        meter.ledger.record_many(entries)
        billed = sum(entry.ru for entry in entries)
        meter.settle(held, billed, _counted(entries) - billed)
        _forget(task)

    try:
        submit_what_fits()
        for future in futures:
            task, held, _ = running.pop(str(future.key))
            try:
                result: PartitionResult = future.result()
            except Exception as error:  # dask gave up on the task (its workers died), or the
                # task could not run: its journals tell what it spent, the dataset what it kept
                why = f"as a dask task ({type(error).__name__}: {error})"
                result = PartitionResult(task.index, None, None, why)
            finally:
                future.release()
            settle(task, held, result.entries, "worker died")
            rows = _rows(task, [calls[p] for p in groups[task.index]], result)
            done[task.index] = rows
            if result.failure is not None:
                causes.append(f"partition {task.index} failed {result.failure}")
            if bar is not None:
                bar.update(len(rows.frame))
            budget_stop = budget_stop or bool(
                rows.frame["error"].eq("BudgetExceeded").fillna(False).any()
            )
            submit_what_fits()
    except BaseException:
        _stop(writer, client, running, settle)
        raise
    finally:
        with contextlib.suppress(OSError):
            (Path(writer.root) / SPENDING).rmdir()  # when no run left anything in it
    return _assemble(calls, groups, done, waiting, highs, meter, causes, writer)


@dataclass
class Rows:
    """A partition's rows for the run's frame, and what the coordinator knows of them."""

    frame: pd.DataFrame
    answered: int = 0  # rows with a result
    not_sent: int = 0  # calls refused before sending (0 RU)
    unknown: int = 0  # calls of a task that returned no rows (its workers died, or it raised)


def _spent(task: Partition, held: int, status: str) -> list[Entry]:
    """What a partition's attempts spent, from their journals; if those cannot be read, all it
    held, as may-have-been-billed."""
    try:
        return journal_entries(task.dataset, task.prefix, label=task.label, status=status)
    except OSError as error:
        note = f"partition {task.prefix}: its journals could not be read ({error})"
        when = datetime.now(UTC)
        return [
            Entry(when, task.label, "(unrecorded)", 0, 0.0, status, unconfirmed_ru=held, note=note)
        ]


def _forget(task: Partition) -> None:
    """Remove a settled partition's journals: what they tell is in the ledger now."""
    for file in (Path(task.dataset) / SPENDING).glob(f"{task.prefix}-*.wal"):
        with contextlib.suppress(OSError):
            file.unlink()


def _stop(writer: DatasetWriter, client: Any, running: dict, settle: Any) -> None:
    """The coordinator is stopping (an interrupt): no worker sends anything more, and each
    running partition settles at what its journals say now (see `WriteAheadJournal.reserving`)."""
    folder = Path(writer.root) / SPENDING
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{writer.run_id}.stop").touch()
    with contextlib.suppress(Exception):
        client.cancel([future for _, _, future in running.values()], force=True)
    for task, held, _ in running.values():
        settle(task, held, None, "stopped")
    running.clear()


def _rows(task: Partition, planned: list[PlannedCall], result: PartitionResult) -> Rows:
    """The partition's rows for the run's frame: the task's own, or with none (its workers died,
    or its run raised), a `WorkerFailed` row for each call: the rows it wrote are in the
    dataset, and a run again into it sends the others."""
    frame = result.frame
    if frame is not None:
        return Rows(frame, answered=int(frame["error"].isna().sum()), not_sent=_refused(frame))
    lost = WorkerFailed(
        f"partition {task.index} failed {result.failure}: this call may have been sent, and its "
        "row written into the dataset; what it cost is in the ledger (as may-have-been-billed)",
        path=task.dataset,
    )
    return Rows(failed_rows(planned, lost), unknown=len(planned))


def _refused(frame: pd.DataFrame) -> int:
    """Rows of calls refused before sending: by the budget, or for want of a write-ahead record."""
    refused = frame["error"].isin(["BudgetExceeded", "DatasetError"]).fillna(False)
    return int((refused & frame["ru"].eq(0) & frame["unconfirmed_ru"].eq(0)).sum())


def _assemble(
    calls: list[PlannedCall],
    groups: list[list[int]],
    done: dict[int, Rows],
    waiting: list[int],
    highs: list[int],
    meter: Any,
    causes: list[str],
    writer: DatasetWriter,
) -> pd.DataFrame:
    """The run's frame in the workload's order; `WorkerFailed` if a partition failed."""
    import pandas as pd

    frames = [done[i].frame for i in sorted(done)]
    positions = [p for i in sorted(done) for p in groups[i]]
    never_sent = [p for index in waiting for p in groups[index]]
    if never_sent:
        if causes:
            error: Exception = WorkerFailed(f"not sent (0 RU): {causes[0]}", path=str(writer.root))
        else:
            remaining = meter.budget.remaining if meter.budget is not None else 0
            error = BudgetExceeded(
                "not sent: the budget refused an earlier call of this run",
                needed=sum(highs[p] for p in never_sent),
                remaining=max(0, remaining),
            )
        frames.append(failed_rows([calls[p] for p in never_sent], error))
        positions += never_sent
    frame = pd.concat(frames, ignore_index=True)
    order = sorted(range(len(positions)), key=positions.__getitem__)
    frame = frame.iloc[order].reset_index(drop=True)
    if not causes:
        return frame
    counts = {
        name: sum(getattr(rows, name) for rows in done.values())
        for name in ("answered", "not_sent", "unknown")
    }
    counts["not_sent"] += len(never_sent)
    told = [
        f"{counts['answered']:,} were answered: their rows are in this error's `frame` (and in "
        f"the dataset at {writer.root} when written before a failure)",
        f"{counts['not_sent']:,} were not sent (0 RU)",
    ]
    if counts["unknown"]:
        told.append(
            f"{counts['unknown']:,} ran on workers that died or failed before returning their "
            "rows: the rows they wrote are in the dataset, what they cost in the ledger"
        )
    raise WorkerFailed(
        f"{'; '.join(causes)}. Of the {len(frame):,} calls this run was to send, "
        f"{'; '.join(told)}. A run again into the dataset sends only the calls without a row "
        "there.",
        frame=frame,
        path=str(writer.root),
        causes=causes,
        **counts,
    )
