"""Workloads: a planned set of calls, validated when added and priced before any is sent.

How a run goes is `_run.run_planned`; its row is `_rows`'; the user's guide is docs/budgets.md,
"Bulk workloads".
"""

from __future__ import annotations

import numbers
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import chain, product, repeat
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import RunStopped, ValidationError
from .._redact import warn
from ..catalog import Estimate, Plan
from ..client import Entry, GatewayClock, Ledger, Node, PreparedCall, run_sync
from . import _planned
from ._bulk import (
    BulkRun,
    check_progress,
    close_progress,
    progress_bar,
    show_failures,
    start_progress,
)
from ._dataset import ROWS_PER_FILE, DatasetWriter
from ._dataset_files import at_least_one
from ._distributed import run_on_cluster
from ._planned import PlannedCall, Preview, planned_nodes
from ._provenance import HEAD_NOTES
from ._rows import BUDGET_EXCEEDED, INTERRUPTED, results_frame
from ._run import Ran, RunOptions, resume, run_planned, unanswered, with_previous_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PlannedCall", "Preview", "Workload"]

_new_tuple = tuple.__new__


@dataclass(repr=False)
class Workload:
    """An ordered list of validated calls on one or more nodes.

    `last_result` is the frame of the last `run` or `arun`, finished or stopped (None before the
    first, and after a run that failed before sending, such as one refused for its arguments);
    `previous_result` the one before it, so that running a cell again never loses a frame the
    user had (a run whose calls fail says where the earlier frame is).
    """

    calls: list[PlannedCall] = field(default_factory=list)
    last_result: pd.DataFrame | None = field(default=None, init=False, compare=False)
    previous_result: pd.DataFrame | None = field(default=None, init=False, compare=False)

    def add(self, node: Node, method: str, *args: Any, **kwargs: Any) -> Workload:
        """Plan one call; it is validated now."""
        self.calls.append(PlannedCall(node, node.prepare(method, *args, **kwargs)))
        return self

    def grid(
        self,
        node: Node,
        method: str,
        addresses: Iterable[str],
        blocks: Iterable[object],
    ) -> Workload:
        """Plan `method(address, block)` for every address at every block (balances, history).

        `blocks` holds numbers and tags (``[head - 10, "latest"]``), each checked by the catalog.
        """
        # Typed `object`, not `int | str`: mypy infers ``[head - 10, "latest"]`` as list[object].
        # The (args, kwargs) pairs made in C (`product`, `zip`): a generator made them one
        # Python step per call. One empty keywords dict for every call (binding only reads it).
        none: dict[str, Any] = {}
        calls = zip(product(addresses, list(blocks)), repeat(none))
        return self._extend(node, node.prepare_many(method, calls))

    def each(self, node: Node, method: str, values: Iterable[Any], *, param: str) -> Workload:
        """Plan `method` once per value of one keyword parameter (a TRON block range, names...)."""
        return self._extend(node, node.prepare_many(method, (((), {param: v}) for v in values)))

    def reads(
        self,
        node: Node,
        address: str | Iterable[str],
        signature: str | Mapping[str, Any],
        args_list: Iterable[Any] = ((),),
        blocks: Iterable[object] = ("latest",),
    ) -> Workload:
        """Plan a contract read (one ``eth_call``, as ``eth.read`` makes) for every address, every
        argument tuple of `args_list` (an item that is not a tuple is the one argument) and every
        block: ``work.reads(eth, token, "balanceOf(address)(uint256)", holders, month_ends)``.
        A bad signature or argument adds none of the calls. Decode the run's frame with
        ``frames.evm_reads(frame, signature)``; see the Contracts and events guide.
        """
        from ..catalog import abi

        addresses = [address] if isinstance(address, str) else list(address)
        data = [
            abi.function_call(signature, args if isinstance(args, tuple) else (args,))[1]
            for args in args_list
        ]
        values = list(blocks)
        none: dict[str, Any] = {}
        calls = (
            (({"to": to, "data": payload}, block), none)
            for to in addresses
            for payload in data
            for block in values
        )
        return self._extend(node, node.prepare_many("eth_call", calls))

    def logs(
        self,
        node: Node,
        *,
        from_block: int,
        to_block: int,
        address: str | Iterable[str] | None = None,
        event: str | Mapping[str, Any] | None = None,
        topics: Iterable[Any] | None = None,
        blocks_per_call: int | None = None,
    ) -> Workload:
        """Plan an event scan: ``eth_getLogs`` over `from_block`..`to_block` (both included, any
        width) in chunks of at most the plan's ``max_log_blocks`` (else 10,000, or
        `blocks_per_call` when smaller), each one call. `address`: the contract(s); `event`: a
        signature, a name of `frames.EVM_EVENTS` or an ABI fragment; `topics`: the raw topic
        filter. `run` splits a chunk the node refuses for its range or result size. Decode the
        logs with ``frames.evm_events(frame, event=...)``; see the Contracts and events guide.
        """
        from ..catalog import MAX_LOG_RANGE
        from ._logs import chunks

        start, end = _block_number(from_block, "from_block"), _block_number(to_block, "to_block")
        if start > end:
            raise ValidationError(
                f"from_block {start:,} is after to_block {end:,}", param="from_block", rule="range"
            )
        cap = node.meter.pricing.max_log_blocks or MAX_LOG_RANGE
        if blocks_per_call is not None:
            cap = min(cap, at_least_one(blocks_per_call, "blocks_per_call"))
        query: dict[str, Any] = {}
        if address is not None:
            query["address"] = address if isinstance(address, str) else list(address)
        wanted = None if topics is None else list(topics)
        if event is not None:
            from ..catalog import abi

            topic0 = abi.parsed_event(event).topic0  # by name, signature or ABI fragment
            if wanted and wanted[0] not in (None, topic0):
                raise ValidationError(
                    "topics[0] names another event than `event`: give one of them",
                    param="topics",
                    rule="conflict",
                )
            wanted = [topic0, *(wanted or [])[1:]]
        if wanted is not None:
            query["topics"] = wanted
        none: dict[str, Any] = {}
        calls = (
            (({**query, "fromBlock": hex(first), "toBlock": hex(last)},), none)
            for first, last in chunks(start, end, cap)
        )
        return self._extend(node, node.prepare_many("eth_getLogs", calls))

    def _extend(self, node: Node, prepared: list[PreparedCall]) -> Workload:
        # Validated as a whole first: a bad value adds none of the calls, as `add` adds none.
        # Made by tuple.__new__ in C: a NamedTuple's own constructor, or a Python step per
        # call, takes longer (bench/bench_records.py).
        self.calls.extend(map(_new_tuple, repeat(PlannedCall), zip(repeat(node), prepared)))
        return self

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[PlannedCall]:
        return iter(self.calls)

    # --- displays: a summary, never the list of calls (a workload may hold millions) ---

    def counts(self) -> list[tuple[str, str, int]]:
        """(node, method, calls) for each node and method, in the order they were first planned."""
        counts: dict[tuple[str, str], int] = {}
        for planned in self.calls:
            key = (planned.node.name, planned.method)
            counts[key] = counts.get(key, 0) + 1
        return [(node, method, n) for (node, method), n in counts.items()]

    def __repr__(self) -> str:
        counts = self.counts()
        nodes = len({node for node, _, _ in counts})
        head = f"<Workload {len(self):,} call{'s' if len(self) != 1 else ''}"
        if not counts:
            return head + ">"
        shown = [f"{n:,} {method} on {node}" for node, method, n in counts[:2]]
        more = f", +{len(counts) - 2} more" if len(counts) > 2 else ""
        where = f" on {nodes} nodes" if nodes > 1 else ""
        return f"{head}{where}: {', '.join(shown)}{more}>"

    def _repr_html_(self) -> str:
        import html

        counts = self.counts()
        nodes = len({node for node, _, _ in counts})
        title = (
            f"Workload: {len(self):,} planned call{'s' if len(self) != 1 else ''} "
            f"on {nodes} node{'s' if nodes != 1 else ''}"
        )
        if not counts:
            return f"<p>{html.escape(title)}</p>"
        shown = counts[:50]
        rows = "".join(
            f"<tr><td>{html.escape(node)}</td><td>{html.escape(method)}</td>"
            f"<td style='text-align:right'>{n:,}</td></tr>"
            for node, method, n in shown
        )
        more = (
            f"<tr><td colspan='3'>... and {len(counts) - len(shown):,} more node/method pairs"
            "</td></tr>"
            if len(counts) > len(shown)
            else ""
        )
        return (
            f"<p><b>{html.escape(title)}</b> (<code>work.preview()</code> prices it)</p>"
            "<table><tr><th>node</th><th>method</th><th>calls</th></tr>"
            f"{rows}{more}</table>"
        )

    def estimates(
        self, *, fetch_heads: bool = True, cached: set[int] | None = None
    ) -> list[Estimate]:
        """One estimate per call, in order (heads as `preview` fetches them)."""
        return _planned.estimates(self.calls, fetch_heads=fetch_heads, cached=cached)

    def cached_calls(self) -> set[int]:
        """Positions of the calls the response cache answers already (they will cost 0 RU)."""
        return _planned.cached_calls(self.calls)

    def preview(
        self,
        *,
        plan: str | Plan = "Developer",
        fetch_heads: bool = True,
        cached: set[int] | None = None,
    ) -> Preview:
        """What the workload will cost, in RU and money, and how long it must take at least.

        Pricing an archive-rule call needs its chain's head: each EVM head is fetched once (1 RU,
        in the ledger) unless ``fetch_heads=False``, which prices those calls as ranges. Calls
        the response cache answers already are priced at 0 RU (class ``cached``).
        """
        return _planned.preview(self.calls, plan=plan, fetch_heads=fetch_heads, cached=cached)

    # --- running ---

    def run(
        self,
        *,
        concurrency: int = 32,
        batch_size: int = 100,
        progress: Any = True,
        dataset: str | PathLike[str] | None = None,
        rows_per_file: int = ROWS_PER_FILE,
        client: Any = None,
        partition_size: int | None = None,
        wait_for_dataset: bool = True,
    ) -> pd.DataFrame:
        """Send every call and return one DataFrame with a row per call, in order.

        Blocking, and safe inside a running event loop (a notebook). `concurrency` bounds the
        requests in flight; JSON-RPC calls go in batches of `batch_size` where the node takes
        batches (1: never). Columns: node, method, params (JSON text), result (raw JSON), value
        (typed, as the helpers return it), error (type name) and message for a failed call, ru,
        cache_hit. ``frame.attrs["summary"]`` holds the run's counts, RU, time, the chain heads
        it fetched, and ``preview_ru_high`` (what the budget reserved).

        `progress`: True for a progress bar, False for none, or your own object with
        ``update(n)`` (and, if it has them, ``reset(total=...)`` and ``close()``).

        Nothing raises for one call: a failed call is a row with its error, and the run warns
        once. When the budget refuses a call, the run sends nothing more: that call and the rest
        are ``BudgetExceeded`` rows (0 RU). A stop (the stop button, Ctrl-C) keeps every row
        that finished in ``work.last_result`` (the others say ``Interrupted``) and raises
        `RunStopped`. See the guide's "Bulk workloads" (docs/budgets.md).

        With `dataset` (a folder), the rows are also written there as calls finish (files of at
        most `rows_per_file` rows; `toolkit.read_dataset` reads them), and a run into a folder
        that holds rows sends only the calls without a successful row. One run writes into a
        dataset at a time: another waits (`wait_for_dataset`) or raises `toolkit.DatasetBusy`.
        With `client` (a `dask.distributed.Client`; `dataset` required, on storage every worker
        sees), the calls run on the cluster's workers in partitions of `partition_size` calls,
        within this gateway's budget, rate limit and ledger. See the Datasets guide.

        Every argument is checked before anything is sent: a wrong one raises `ValidationError`
        naming it (0 RU).
        """
        options, partition_size = self._start(
            concurrency, batch_size, progress, dataset, rows_per_file, client, partition_size,
            wait_for_dataset,
        )  # fmt: skip
        try:
            if client is not None:
                frame = self._run_on_cluster(options, client, partition_size)
            else:
                frame = run_sync(self._run_here(options))
            self._keep(frame, options.bar, dataset)
        except KeyboardInterrupt:
            if client is not None:
                raise  # the cluster's workers write their rows into the dataset themselves
            # One line instead of a traceback through the threads `run_sync` waited in.
            kept = self._stopped_result()
            raise RunStopped(_stop_message(kept, dataset), result=kept) from None
        finally:
            close_progress(options.bar, progress)
        return frame

    async def arun(
        self,
        *,
        concurrency: int = 32,
        batch_size: int = 100,
        progress: Any = True,
        dataset: str | PathLike[str] | None = None,
        rows_per_file: int = ROWS_PER_FILE,
        client: Any = None,
        partition_size: int | None = None,
        wait_for_dataset: bool = True,
    ) -> pd.DataFrame:
        """`run` for async code: ``frame = await work.arun()`` (in the caller's event loop).

        A cancel (``task.cancel()``, ``asyncio.wait_for``, the stop button) raises
        `asyncio.CancelledError` as asyncio code expects, once ``work.last_result`` holds the
        rows, as after a stopped `run`; its note is the line `RunStopped` would say.
        """
        import asyncio

        options, partition_size = self._start(
            concurrency, batch_size, progress, dataset, rows_per_file, client, partition_size,
            wait_for_dataset,
        )  # fmt: skip
        try:
            if client is not None:  # the dask client blocks: wait for it off the loop
                run = asyncio.to_thread(self._run_on_cluster, options, client, partition_size)
                frame = await run
            else:
                frame = await self._run_here(options)
            self._keep(frame, options.bar, dataset)
        except (asyncio.CancelledError, KeyboardInterrupt) as stop:
            if client is None:
                # The cancel itself goes on, as asyncio code expects; a note says what was kept.
                stop.add_note(_stop_message(self._stopped_result(), dataset))
            raise
        finally:
            close_progress(options.bar, progress)
        return frame

    def _start(
        self,
        concurrency: Any,
        batch_size: Any,
        progress: Any,
        dataset: Any,
        rows_per_file: Any,
        client: Any,
        partition_size: Any,
        wait_for_dataset: Any,
    ) -> tuple[RunOptions, int | None]:
        """What `run` and `arun` do before a run: check every argument before anything is opened
        or sent (0 RU: a `ValidationError` names the first that is wrong), make the dataset's
        writer and the progress bar, and forget the last run's frame."""
        concurrency = at_least_one(concurrency, "concurrency")
        batch_size = at_least_one(batch_size, "batch_size")
        rows_per_file = at_least_one(rows_per_file, "rows_per_file")
        if partition_size is not None:
            if client is None:
                raise ValidationError(
                    "only a run on a dask cluster (client=...) is split into partitions",
                    param="partition_size",
                    rule="requires-client",
                )
            partition_size = at_least_one(partition_size, "partition_size")
        check_progress(progress)
        if not isinstance(wait_for_dataset, bool):
            raise ValidationError(
                f"must be True or False, got {wait_for_dataset!r}",
                param="wait_for_dataset",
                rule="type",
            )
        if client is not None and not callable(getattr(client, "submit", None)):
            raise ValidationError(
                f"must be a dask.distributed.Client, got {type(client).__name__}",
                param="client",
                rule="type",
            )
        _check_dataset(dataset, client)
        writer = None
        if dataset is not None:
            writer = DatasetWriter(dataset, rows_per_file, wait=wait_for_dataset)
        bar = progress_bar(len(self), progress, "calls")
        if self.last_result is not None:
            self.previous_result = self.last_result
        self.last_result = None
        return RunOptions(concurrency, batch_size, writer, bar), partition_size

    def _keep(self, frame: pd.DataFrame, bar: Any, dataset: Any = None) -> None:
        """Keep a finished run's frame in `last_result`, and say if calls failed or the budget
        stopped the run: on the bar (for a run on a cluster; a local run's bar says so as they
        fail) and in one warning."""
        self.last_result = frame
        summary = frame.attrs["summary"]
        failed, refused = summary["failed"], summary["budget_refused"]
        if not failed and not refused:
            return
        if bar is not None:
            show_failures(bar, failed, refused)
        said = []
        if refused:
            said.append(_budget_stop_message(summary, dataset))
        if failed:
            errors = frame["error"].value_counts().drop(BUDGET_EXCEEDED, errors="ignore")
            kinds = ", ".join(f"{count:,} {name}" for name, count in errors.items())
            said.append(
                f"{failed:,} of {summary['calls']:,} calls failed: {kinds}; their rows say why "
                "(the error and message columns)"
            )
        previous = self.previous_result
        if previous is not None:
            ok = len(previous) - int(previous["error"].notna().sum())
            said.append(
                f"the frame of the run before ({ok:,} of {len(previous):,} calls answered) "
                "is in work.previous_result"
            )
        warn("; ".join(said), RuntimeWarning, stacklevel=3)  # the caller of run() or arun()

    def _stopped_result(self) -> pd.DataFrame:
        """The frame of the run that was just stopped, in `last_result`: the one `_run_here`
        kept, or, for a run stopped before it sent anything (waiting for a dataset's lock, or
        for a head), a row for every call saying it was not sent."""
        if self.last_result is None:
            unsent = BulkRun(self.calls)
            unsent.mark_unfinished()
            started = time.perf_counter()
            ran = with_previous_rows(results_frame(unsent.items), None, [None] * len(self))
            self.last_result = _finish(ran, started)
        return self.last_result

    async def _run_here(self, options: RunOptions) -> pd.DataFrame:
        """The local run: `run_planned`, then the run's summary and its record in the dataset."""
        writer = options.writer
        started, ledgers = time.perf_counter(), _ledger_marks(self.calls)
        try:
            ran = await run_planned(self.calls, options)
            frame = _finish(ran, started, ledgers)
            _record_run(writer, frame, self.calls, ledgers)
        finally:
            if writer is not None:  # after the record (see `run_planned`)
                writer.release()
        if ran.stopped is not None:
            # What finished is in the frame, the dataset and its run record: now the stop goes
            # on (`run` and `arun` hand the frame over as `last_result`).
            self.last_result = frame
            # Without where it struck (inside asyncio's queue): nothing there for the user.
            raise ran.stopped.with_traceback(None)
        return frame

    def _run_on_cluster(
        self, options: RunOptions, client: Any, partition_size: int | None
    ) -> pd.DataFrame:
        """The run on a dask cluster: the dataset resumed here, what is left priced and sent in
        partitions (`_distributed.run_on_cluster`, each one a `run_planned` on a worker)."""
        writer = options.writer
        assert writer is not None  # a cluster run writes a dataset (`_start`)
        started, ledgers = time.perf_counter(), _ledger_marks(self.calls)
        try:
            try:
                previous = writer.open_blocking()
                done = resume(self.calls, previous)
                to_send = unanswered(self.calls, done)
                preview_high = _planned.preview(to_send).ru_high if to_send else 0
                bar = start_progress(options.bar, len(self), len(self) - len(to_send))
                sent = run_on_cluster(to_send, client, replace(options, bar=bar), partition_size)
            finally:
                writer.close(release=False)
                tape = self.calls[0].node.settings.tape if self.calls else None
                if tape is not None:
                    tape.save()  # recording: takes in what each worker recorded beside it
            ran = with_previous_rows(sent, previous, done, preview_high)
            frame = _finish(ran, started, ledgers)
            _record_run(writer, frame, self.calls, ledgers)
        finally:
            writer.release()  # after the record (see `run_planned`)
        return frame


def _finish(
    ran: Ran, started: float, ledgers: list[tuple[Ledger, int]] | None = None
) -> pd.DataFrame:
    """The run's frame with its summary: the rows' counts, the high end of the RU the calls
    were priced at, the time it took and, with `ledgers` (where the gateway's ledgers stood
    when the run started, `_ledger_marks`), the heads it fetched."""
    frame = ran.frame
    frame.attrs["summary"] = {
        **ran.counts,
        "preview_ru_high": ran.priced_high,
        "seconds": GatewayClock.run_seconds(started, _entries_since(ledgers or [])),
    }
    if ran.previous is not None:
        frame.attrs["summary"]["from_dataset"] = ran.reused
    if ledgers is not None:
        frame.attrs["summary"].update(_heads_since(ledgers))
    return frame


def _ledger_marks(calls: list[PlannedCall]) -> list[tuple[Ledger, int]]:
    """Where the ledgers of the calls' nodes stand (a gateway's nodes share one): what is
    recorded after is the run's."""
    ledgers = {id(node.ledger): node.ledger for node in planned_nodes(calls)}
    return [(ledger, len(ledger)) for ledger in ledgers.values()]


def _heads_since(ledgers: list[tuple[Ledger, int]]) -> dict[str, int]:
    """The chain heads fetched since `ledgers` (to price calls, or to judge which answers are
    final): billed calls that are in the ledger but in no row of the run, so the summary (and
    a dataset's run record) counts them apart."""
    heads = [
        entry
        for ledger, start in ledgers
        for entry in ledger.since(start)
        if entry.note in HEAD_NOTES
    ]
    return {
        "heads": len(heads),
        "heads_ru": sum(entry.ru for entry in heads),
        "heads_unconfirmed_ru": sum(entry.unconfirmed_ru for entry in heads),
    }


def _check_dataset(dataset: Any, client: Any) -> None:
    """`run`'s `dataset`: a folder's path (required with a dask `client`)."""
    if dataset is None:
        if client is not None:
            raise ValidationError(
                "a run on a dask cluster writes its rows into a dataset: pass dataset=<folder>",
                param="dataset",
                rule="required",
            )
        return
    path = dataset if isinstance(dataset, str | PathLike) else None
    if path is None or not isinstance(os.fspath(path), str):
        raise ValidationError(
            f"must be a folder's path (a str or a pathlib.Path), got {type(dataset).__name__}",
            param="dataset",
            rule="type",
        )
    if not os.fspath(path):
        raise ValidationError("must not be empty", param="dataset", rule="empty")
    if Path(path).exists() and not Path(path).is_dir():
        raise ValidationError(
            f"{os.fspath(path)} is a file; a dataset is a folder", param="dataset", rule="folder"
        )


def _block_number(value: Any, name: str) -> int:
    """A scan's end: a block number (an int, or 0x hex), never a tag (chunks need numbers)."""
    if isinstance(value, str) and re.fullmatch(r"0x[0-9a-fA-F]+", value):
        return int(value, 16)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 0:
        return int(value)
    raise ValidationError(
        f"must be a block number (an int; for the head, pass node.head()), got {value!r}",
        param=name,
        rule="block-number",
    )


def _budget_stop_message(summary: dict[str, Any], dataset: Any) -> str:
    """What a run the budget stopped did, and how to go on (`summary` is the run's)."""
    total, refused = summary["calls"], summary["budget_refused"]
    done = total - refused - summary["interrupted"]
    if dataset is not None:
        again = (
            f"run it again into the same dataset ({os.fspath(dataset)}) and only those "
            f"{refused:,} are sent"
        )
    else:
        again = (
            "run it again: every call not in the response cache is sent again (run into a "
            "dataset, dataset=<folder>, a run after a stop sends only the rest)"
        )
    return (
        f"the budget stopped the run: {done:,} of {total:,} calls done, {refused:,} not sent "
        f"(their rows say error 'BudgetExceeded', 0 RU); gw.budget says what is left. To "
        f"finish, raise the budget (gw.set_budget(...)) and {again}"
    )


def _stop_message(frame: pd.DataFrame, dataset: Any) -> str:
    """What a stopped run kept, in one line (`RunStopped`)."""
    summary = frame.attrs["summary"]
    total, unfinished = summary["calls"], summary["interrupted"]
    finished = total - unfinished
    failed = f" ({summary['failed']:,} of them failed)" if summary["failed"] else ""
    where = "work.last_result"
    if dataset is not None and finished:
        where += f" and in the dataset at {os.fspath(dataset)}"
    message = (
        f"stopped after {finished:,} of {total:,} calls{failed}; {finished:,} rows kept in {where}"
    )
    if unfinished:
        message += f"; the other {unfinished:,} rows say error '{INTERRUPTED}'"
        rows = frame[frame["error"].eq(INTERRUPTED).fillna(False).to_numpy(bool)]
        in_flight = int(((rows["ru"] + rows["unconfirmed_ru"]) > 0).sum())
        if in_flight:
            message += (
                f" ({in_flight:,} were in flight: {int(rows['unconfirmed_ru'].sum()):,} RU may "
                "have been billed)"
            )
    return message


def _record_run(
    writer: DatasetWriter | None,
    frame: pd.DataFrame,
    calls: list[PlannedCall],
    ledgers: list[tuple[Ledger, int]],
) -> None:
    if writer is None:
        return
    distinct = planned_nodes(calls)
    # By name, the last call's node of each name: the one node of the usual workload at once.
    if len(distinct) == 1:
        nodes = {distinct[0].name: distinct[0]}
    else:
        nodes = {c.node.name: c.node for c in calls}
    writer.record_run(
        frame.attrs["summary"],
        [{"node": n.name, "chain": n.chain.name, "head": n.last_head} for n in nodes.values()],
        # On the gateway's clock (`GatewayClock.run_time`); no call: no gateway to ask.
        time=calls[0].node.meter.clock.run_time(_entries_since(ledgers)) if calls else None,
    )


def _entries_since(ledgers: list[tuple[Ledger, int]]) -> Iterator[Entry]:
    # Chained in C: a generator's step per entry was a step per call of the run.
    return chain.from_iterable(ledger.since(start) for ledger, start in ledgers)
