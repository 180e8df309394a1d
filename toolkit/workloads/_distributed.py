"""Workloads on a dask.distributed cluster: `Workload.run(dataset=path, client=dask_client)`.

The coordinator (the notebook) resumes the dataset, prices what is left, and splits it into
partitions. Each partition is one task: a worker opens the same nodes (`NodeSpec`, the only place
a key travels) on its own meter and runs its calls through the same pipeline as a local run
(validation, pricing, rate limit, retries, cache), writing its rows into the dataset.

- **Budget**: prices are known before sending, so the coordinator reserves on its own meter a
  slice for each partition (the sum of its calls' highest prices, plus 1 RU per node for a head)
  before the task is submitted, and the worker's own budget is that slice: the total cannot
  cross the budget, with no lock shared between machines. When a partition ends, what it spent
  is settled and the rest of its slice is free for the next ones. A partition that does not get
  its whole slice waits for running ones to end; if none is running it gets what is left, and
  the calls it cannot afford end as ``BudgetExceeded`` rows, as in a local run.
- **Ledger**: a worker returns its ledger entries with its rows; the coordinator records them in
  the gateway's ledger, so ``gw.ledger.frame`` is what the gateway metered.
- **Rate limit**: at most one partition per worker runs at a time, and each gets an equal share
  of the coordinator's rate, so that together they keep it.
- **Secrets**: task keys are ``toolkit-<run>-p<n>``; node URLs are in task payloads only.
- **A worker that dies**: dask runs its task again on another worker. The task reads the rows
  its partition wrote (files named after the partition) and what its earlier attempts spent
  (recorded with each file), sends only the calls without a row, and spends at most what is left
  of the slice. What a dead attempt spent after its last file is the most that can go unrecorded.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import BudgetExceeded
from ..client import Entry, NodeSpec, Settings, open_nodes, run_sync
from ._dataset import DatasetWriter

if TYPE_CHECKING:
    import pandas as pd

    from ._workload import Workload

WORKER_ROWS_PER_FILE = 500
"""A worker writes its rows, and its spending so far, at least this often."""


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


@dataclass(frozen=True)
class PartitionResult:
    index: int
    frame: pd.DataFrame
    entries: list[Entry]  # every attempt's, as far as they were recorded


class Spending:
    """What a partition's attempts spent, kept next to its rows (``_spending/<prefix>.json``)."""

    def __init__(self, dataset: str, prefix: str):
        self.file = Path(dataset) / "_spending" / f"{prefix}.json"

    def read(self) -> list[Entry]:
        if not self.file.exists():
            return []
        return [_entry_from(fields) for fields in json.loads(self.file.read_text())]

    def write(self, entries: list[Entry]) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.file.with_name(f".{self.file.name}.tmp")
        temporary.write_text(json.dumps([_entry_fields(entry) for entry in entries]))
        temporary.replace(self.file)


def _entry_fields(entry: Entry) -> dict[str, Any]:
    return {**entry._asdict(), "time": entry.time.isoformat()}


def _entry_from(fields: dict[str, Any]) -> Entry:
    return Entry(**{**fields, "time": datetime.fromisoformat(fields["time"])})


def _counted(entries: list[Entry]) -> int:
    return sum(entry.ru + entry.unconfirmed_ru for entry in entries)


def run_partition(part: Partition) -> PartitionResult:
    """A worker's task: the partition's calls that have no row yet, through a local run."""
    from ._workload import Workload

    spending = Spending(part.dataset, part.prefix)
    earlier = spending.read()  # attempts on a worker that died
    left = None if part.slice_ru is None else max(0, part.slice_ru - _counted(earlier))
    nodes = open_nodes(part.nodes, replace(part.settings, budget=left))
    ledger = next(iter(nodes.values())).ledger
    work = Workload()
    for name, method, arguments in part.calls:
        work.add(nodes[name], method, **arguments)
    writer = DatasetWriter(part.dataset, part.rows_per_file, prefix=part.prefix)
    writer.after_write = lambda: spending.write(earlier + ledger.entries)
    try:
        frame = run_sync(work._run(None, part.concurrency, part.batch_size, writer))
    finally:
        for node in nodes.values():
            node.close()
    spending.write(earlier + ledger.entries)
    return PartitionResult(part.index, frame, earlier + ledger.entries)


def run_on_cluster(
    to_send: Workload,
    client: Any,
    writer: DatasetWriter,
    *,
    partition_size: int | None,
    concurrency: int,
    batch_size: int,
    bar: Any,
) -> pd.DataFrame:
    """Run every call of `to_send` on `client`'s workers; one row per call, in order."""
    import pandas as pd
    from distributed import as_completed

    from ._bulk import Item, results_frame

    calls = to_send.calls
    if not calls:
        return results_frame([])
    workers = max(1, len(client.scheduler_info()["workers"]))
    size = partition_size or max(1, math.ceil(len(calls) / (4 * workers)))
    groups = [list(range(i, min(i + size, len(calls)))) for i in range(0, len(calls), size)]
    meter = calls[0].node.meter
    highs = [estimate.high for estimate in to_send.estimates(fetch_heads=True)]
    limiter = calls[0].node.rate_limiter
    share = None if limiter is None else limiter.rate / workers

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
            concurrency=concurrency,
            batch_size=batch_size,
        )

    def slice_of(index: int) -> int:
        heads = len({calls[p].node.name for p in groups[index]})
        return sum(highs[p] for p in groups[index]) + heads

    waiting = list(range(len(groups)))
    reserved: dict[int, int] = {}  # running partitions and the RU reserved for each
    results: dict[int, PartitionResult] = {}
    futures = as_completed()

    def submit_what_fits() -> None:
        while waiting and not stopped and len(reserved) < workers:
            index, budget = waiting[0], meter.budget
            need = slice_of(index)
            if budget is not None and need > budget.remaining:
                if reserved or budget.remaining <= 0:
                    return  # wait for a running partition to hand back what it did not spend
                need = budget.remaining
            if budget is not None:
                meter.reserve(need, what=f"partition {index} of a distributed run")
            reserved[index] = need
            waiting.pop(0)
            task = partition(index, need if budget is not None else None)
            futures.add(client.submit(run_partition, task, key=f"toolkit-{task.prefix}"))

    stopped = False  # a partition ran out of budget: nothing more is sent

    submit_what_fits()
    for future in futures:
        result: PartitionResult = future.result()
        future.release()
        for entry in result.entries:
            meter.ledger.record(entry)
        billed = sum(entry.ru for entry in result.entries)
        budgeted = meter.budget is not None
        held = reserved.pop(result.index)
        meter.settle(held if budgeted else 0, billed, _counted(result.entries) - billed)
        results[result.index] = result
        if bar is not None:
            bar.update(len(result.frame))
        stopped = stopped or bool(result.frame["error"].eq("BudgetExceeded").fillna(False).any())
        submit_what_fits()

    frames = [results[i].frame for i in sorted(results)]
    positions = [p for i in sorted(results) for p in groups[i]]
    never_sent = [p for index in waiting for p in groups[index]]
    if never_sent:
        remaining = meter.budget.remaining if meter.budget is not None else 0
        error = BudgetExceeded(
            "not sent: the budget refused an earlier call of this run",
            needed=sum(highs[p] for p in never_sent),
            remaining=max(0, remaining),
        )
        items = [Item(calls[p].node, calls[p].call) for p in never_sent]
        for item in items:
            item.fail(error)
        frames.append(results_frame(items))
        positions += never_sent
    frame = pd.concat(frames, ignore_index=True)
    order = sorted(range(len(positions)), key=positions.__getitem__)
    return frame.iloc[order].reset_index(drop=True)
