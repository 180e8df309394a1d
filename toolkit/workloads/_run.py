"""The one run path: `run_planned` sends planned calls through a bulk run, into a dataset or not.

`Workload.run` and `Workload.arun` call it with the workload's calls, and each partition of a
run on a dask cluster (`_distributed.run_partition`) with its share of them. What it does, in
order: take the dataset and the rows it holds (a resume), leave out the calls those rows answer
(and split the log chunks they say were refused), answer what the response cache holds, fetch
the heads the rest need once, send them (`BulkRun`), and split the log chunks a node refused
for their range (`_logs.split_range`: the parts take the chunk's place in the calls). It
returns the rows (`Ran`); the run's summary and its record in the dataset are the caller's.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from .._errors import LogRangeRefused
from ..client import Node, PreparedCall, log_range_refusal
from ._bulk import BulkRun, say_on_bar, start_progress
from ._dataset import DatasetWriter
from ._dataset_files import RANGE_REFUSED
from ._logs import chunk_of, split_range
from ._planned import PlannedCall, answered_by, fetch_heads, planned_nodes
from ._rows import Item, results_frame, row_counts

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RunOptions:
    """How a run sends: `concurrency` and `batch_size` (checked by `Workload.run`), the
    dataset's `writer` (None: none), the progress `bar` (None: none), and whether to split the
    eth_getLogs chunks refused for their range (False in a cluster's partition, whose rows must
    be one per call it was given: the coordinator splits what the dataset says was refused,
    before the next run's partitions are made)."""

    concurrency: int
    batch_size: int
    writer: DatasetWriter | None = None
    bar: Any = None
    split_refusals: bool = True

    def bulk_run(self, calls: list[PlannedCall], progress: Any) -> BulkRun:
        writer = self.writer
        return BulkRun(
            calls,  # (node, call) pairs
            concurrency=self.concurrency,
            batch_size=self.batch_size,
            progress=progress,
            on_done=None if writer is None else writer.add,
            stop_sending=None if writer is None else writer.unsendable,
        )


@dataclass(frozen=True)
class Ran:
    """What a run did: a row per call in `frame`, in the calls' order (the rows of the calls a
    dataset answered among them), their `counts` (`_rows.row_counts`), the dataset's rows it
    resumed from (`previous`, None without a dataset) and how many calls they answered
    (`reused`), the high end of the RU the sent calls were priced at, and the stop (a cancel,
    an interrupt) that ended it, for the caller to raise once it has kept the rows."""

    frame: pd.DataFrame
    counts: dict[str, int]
    previous: pd.DataFrame | None = None
    reused: int = 0
    priced_high: int = 0
    stopped: BaseException | None = None


async def run_planned(calls: list[PlannedCall], options: RunOptions) -> Ran:
    """Run `calls` (see the module doc). The calls of refused log chunks are replaced in `calls`
    by their parts. The dataset's writer is closed but keeps its lock: the caller records the
    run, then releases it (a run waiting for the lock clears what dead runs left, and would take
    a record being written for theirs)."""
    writer = options.writer
    with collector_eased():
        try:
            # Takes the dataset's lock (waiting for another run) and recovers what dead runs left.
            previous = None if writer is None else await writer.open()
            done = resume(calls, previous, split_refusals=options.split_refusals)
            to_send = calls if done.count(None) == len(done) else unanswered(calls, done)
            run = options.bulk_run(to_send, options.bar)
            # The cache answers first (one query per node), so heads and prices are worked out
            # only for the calls that will be sent.
            cached = run.answer_from_cache()
            await fetch_heads(to_send, cached)
            # The bar's clock starts with the sending: the dataset's rows and the cache's
            # answers count as done, but not in the rate.
            answered = len(calls) - len(to_send) + len(cached)
            run.progress = start_progress(run.progress, len(calls), answered)
            with contextlib.ExitStack() as heads_held:
                meters = {id(node.meter): node.meter for node in planned_nodes(to_send)}
                for meter in meters.values():
                    heads_held.enter_context(meter.bulk_run())
                items = await run.run()
                priced_high, stopped = run.priced_high(), run.stopped
                if stopped is None and options.split_refusals:
                    items, more_high, stopped = await split_refused_chunks(
                        calls, items, done, previous, options, run.progress
                    )
                    priced_high += more_high
        finally:
            if writer is not None:  # what finished is kept, even when the run was interrupted
                writer.close(release=False)
        # The price: what the calls were priced at as they were sent (pricing them all again
        # for it would repeat work the sends already did).
        return with_previous_rows(results_frame(items), previous, done, priced_high, stopped)


_collector_lock = threading.Lock()
_runs_under_way = 0
# While runs are under way: whether they froze the older objects, and the full collection's
# threshold they set aside.
_set_aside: tuple[bool, int] = (False, 10)
_NO_FULL_COLLECTION = 1 << 30  # gen1 collections between two full ones: never, in a run


@contextlib.contextmanager
def collector_eased() -> Iterator[None]:
    """The garbage collector's passes, from when the first of the runs under way starts until
    the last ends, kept to the objects those runs make. A full collection walks every object of
    the process, and a long run made several, each walking the workload's calls, the modules,
    a notebook's frames and every row done so far (in a long run into a dataset, most of the
    collector's cost; docs/benchmarks.md has the measure):

    - the objects that exist when the first run starts are left out of every pass
      (`gc.freeze`; a process that froze objects itself keeps its freeze untouched);
    - no full collection starts during the runs: the one due comes once after them. The young
      generations are collected as before, so that a run's short-lived cycles are freed.

    An older object that a run drops into a reference cycle waits for a collection after it."""
    global _runs_under_way, _set_aside
    with _collector_lock:
        if _runs_under_way == 0:
            freeze = gc.get_freeze_count() == 0
            if freeze:
                gc.freeze()
            young, middle, full = gc.get_threshold()
            gc.set_threshold(young, middle, _NO_FULL_COLLECTION)
            _set_aside = (freeze, full)
        _runs_under_way += 1
    try:
        yield
    finally:
        with _collector_lock:
            _runs_under_way -= 1
            if _runs_under_way == 0:
                froze, full = _set_aside
                young, middle, now = gc.get_threshold()
                if now == _NO_FULL_COLLECTION:  # (not set again meanwhile by the process)
                    gc.set_threshold(young, middle, full)
                if froze:
                    gc.unfreeze()


def resume(
    calls: list[PlannedCall], previous: pd.DataFrame | None, *, split_refusals: bool = True
) -> list[int | None]:
    """For each call, the row of the dataset's `previous` rows that answers it (None: send it),
    the chunks those rows say were refused split first (`split_refusals`)."""
    done = answered_by(calls, previous)
    if split_refusals:
        split_known_refusals(calls, done, previous)  # refused chunks: their parts
    return done


def unanswered(calls: list[PlannedCall], done: list[int | None]) -> list[PlannedCall]:
    return [call for call, row in zip(calls, done, strict=True) if row is None]


def with_previous_rows(
    sent: pd.DataFrame,
    previous: pd.DataFrame | None,
    done: list[int | None],
    priced_high: int = 0,
    stopped: BaseException | None = None,
) -> Ran:
    """The run's rows in the calls' order: `sent` (the rows of the calls sent now) and, for the
    calls the dataset answered, their earlier rows (nothing was spent on them in this run: ``ru``
    0, ``cache_hit``), and their counts."""
    import numpy as np
    import pandas as pd

    frame, reused = sent, [row for row in done if row is not None]
    if reused:
        assert previous is not None  # the dataset's rows answered them
        old = previous.iloc[reused].drop(columns="gateway")
        old = old.assign(ru=0, unconfirmed_ru=0, cache_hit=True)
        positions = np.array(
            [i for i, row in enumerate(done) if row is not None]
            + [i for i, row in enumerate(done) if row is None]
        )
        frame = pd.concat([old, frame], ignore_index=True)
        frame = frame.iloc[np.argsort(positions, kind="stable")].reset_index(drop=True)
    counts = row_counts(frame)
    # The dataset's rows say cache_hit (0 RU now), but the response cache did not answer them:
    # the summary's `from_dataset` counts them.
    counts["cache_hits"] -= len(reused)
    return Ran(frame, counts, previous, len(reused), priced_high, stopped)


# --- eth_getLogs chunks a node refused for their range (see `_logs`) ----------------------------


def chunk_calls(node: Node, call: PreparedCall, ranges: list[tuple[int, int]]) -> list[PlannedCall]:
    """`call` (an eth_getLogs chunk) over each of `ranges` instead, its other filters kept."""
    query = call.bound.wire_params[0]
    prepared = node.prepare_many(
        "eth_getLogs",
        [(({**query, "fromBlock": hex(a), "toBlock": hex(b)},), {}) for a, b in ranges],
    )
    return [PlannedCall(node, c) for c in prepared]


async def split_refused_chunks(
    calls: list[PlannedCall],
    items: list[Item],
    done: list[int | None],
    previous: pd.DataFrame | None,
    options: RunOptions,
    progress: Any,
) -> tuple[list[Item], int, BaseException | None]:
    """Replace each eth_getLogs chunk the node refused for its range or result size by its
    two halves (`split_range`), send those (with `options`), and again for halves refused in
    turn: `calls`, `done` and the items change in place, in block order.
    Returns the items, the high end of the RU the new calls were priced at, and the stop that
    ended a send of them (None)."""
    if list(map(_ERROR_OF, items)).count(None) == len(items):  # no call failed: none to split
        return items, 0, None
    by_position: list[Any] = [None] * len(calls)
    sending = iter(items)
    for position, row in enumerate(done):
        if row is None:
            by_position[position] = next(sending)
    priced_high, stopped, splits = 0, None, 0
    while stopped is None:
        new_calls: list[tuple[int, list[PlannedCall]]] = []
        for position, item in enumerate(by_position):
            if item is None or item.error is None or item.call.method != "eth_getLogs":
                continue
            ends = chunk_of(item.call.bound.wire_params)
            ranges = split_range(*ends, item.error) if ends is not None else []
            if not ranges:
                continue  # a one-block chunk refused: it stays a failed row
            new_calls.append((position, chunk_calls(item.node, item.call, ranges)))
        if not new_calls:
            break
        splits += len(new_calls)
        # Splice each refused chunk's parts in its place (from the end: positions hold).
        to_send: list[PlannedCall] = []
        for position, parts in reversed(new_calls):
            answered = splice(calls, position, parts, done, previous)
            by_position[position : position + 1] = [None] * len(parts)
            to_send[:0] = [p for p, row in zip(parts, answered, strict=True) if row is None]
        if progress is not None and hasattr(progress, "total") and progress.total is not None:
            progress.total += len(to_send)
        run = options.bulk_run(to_send, progress)
        sent = iter(await run.run())
        priced_high += run.priced_high()
        for position, row in enumerate(done):
            if row is None and by_position[position] is None:
                by_position[position] = next(sent)
        stopped = run.stopped
    kept = [item for item in by_position if item is not None]
    if splits and progress is not None:
        # A refusal split into answered parts is no failure: the bar counts those still failed.
        failed = sum(item.error is not None for item in kept)
        said = f"{splits:,} refused range{'s' if splits != 1 else ''} split"
        say_on_bar(
            progress,
            said + (f", {failed:,} failed" if failed else ""),
            red=bool(failed),
            refresh=True,
        )
    return kept, priced_high, stopped


def splice(
    calls: list[PlannedCall],
    position: int,
    parts: list[PlannedCall],
    done: list[int | None],
    previous: pd.DataFrame | None,
) -> list[int | None]:
    """Put `parts` in place of the call at `position` (in `calls` and `done`); returns, for
    each part, the dataset's row that answers it (None: to send)."""
    answered = answered_by(parts, previous)
    calls[position : position + 1] = parts
    done[position : position + 1] = answered
    return answered


def split_known_refusals(
    calls: list[PlannedCall], done: list[int | None], previous: pd.DataFrame | None
) -> None:
    """A scan resumed from its dataset: a chunk whose row there is a refusal of its range
    (the dataset keeps those rows) is split now as it was then (`split_range`, the node's
    proposal read again from the row's message), and its parts are looked up in turn: a
    resumed scan sends neither a refused chunk again nor a part it has a row for."""
    if previous is None or previous.empty:
        return
    refused = previous["error"].eq(RANGE_REFUSED).fillna(False).to_numpy(dtype=bool)
    if not refused.any():
        return
    messages = previous["message"]
    position = 0
    while position < len(calls):
        row = done[position]
        planned = calls[position]
        if row is not None and refused[row]:
            ends = chunk_of(planned.call.bound.wire_params)
            message = str(messages.iat[row])
            _, proposed = log_range_refusal(message, None)
            error = LogRangeRefused(None, message, suggested=proposed)
            parts = split_range(*ends, error) if ends is not None else []
            if parts:  # its first part is looked at next: it may have been refused too
                splice(
                    calls, position, chunk_calls(planned.node, planned.call, parts), done, previous
                )
                continue
            done[position] = None  # a one-block chunk refused: asked again
        position += 1


_ERROR_OF = attrgetter("error")
