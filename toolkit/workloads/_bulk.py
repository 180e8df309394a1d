"""The bulk runner behind `Workload.run` and `Workload.arun`: many calls, fast, none lost.

- Bounded concurrency: `concurrency` workers take units of work from one queue.
- JSON-RPC calls go in batches of `batch_size` per node and endpoint. The first batch to a node
  whose batch support is unknown goes alone; if the node refuses it (`BatchRefused`), the node
  remembers (`NodeCore.accepts_batches = False`) and its calls go one by one from then on.
- Everything else that protects the user happens below, once per call or batch: the response
  cache (0 RU hits), the budget (reserved before each attempt), the rate limiter, and retries
  with backoff (`NodeCore`, `Exchange`). What the runner adds is retrying the items of a batch
  answer that failed with a retryable error (a rate-limit error object for one item, say), with
  the node's retry policy, and the budget rule for a run: once a call is refused for the budget,
  nothing more is sent and every call not yet answered is reported as `BudgetExceeded`; the
  same once the run's dataset can no longer be written (`stop_sending`: a `DatasetError`).
- Every call ends as one row: its result, or its failure (error type and message). The rows come
  back in the workload's order, so ``len(frame) == len(workload)`` always.
- A stop (the notebook's stop button, a cancel) ends the run, not the rows: `run` cancels the
  workers, lets the calls in flight settle, marks each call that did not finish `Interrupted`
  (with what it may have cost), returns every item, and keeps the stop in `stopped` for the
  caller to raise once it has kept what finished.
- The progress bar is the caller's code (or tqdm's): if it fails, the run goes on without it. A
  worker that died in a bar's ``update`` left its queue unfinished, and the run waited forever.
  A bar that has them shows failures as they come: the count in its postfix, and red.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

from .._errors import BatchRefused, BudgetExceeded, GatewayError, ValidationError
from .._redact import warn
from ..catalog import TYPED_VALUES, Surface
from ..client import CACHE_HIT, NOT_SENT, PreparedCall, Receipt, SharedReceipt

if TYPE_CHECKING:
    import pandas as pd

    from ..client import Node

RESULT_COLUMNS = (
    "node",
    "method",
    "params",
    "result",
    "value",
    "error",
    "message",
    "ru",
    "unconfirmed_ru",
    "cache_hit",
)


class Interrupted(Exception):
    """What a call that a stopped run did not finish shows as its error (never raised). Its
    message says whether it was sent: one in flight at the stop may have been billed, and its
    row's ``ru`` and ``unconfirmed_ru`` say how much, as the ledger does."""


INTERRUPTED = Interrupted.__name__  # the ``error`` column's text for such a row
BUDGET_EXCEEDED = BudgetExceeded.__name__  # ... and for a call the budget stop left unsent


class Item:
    """One call of a bulk run and what became of it: the last of the four call wrappers.

    It adds to a workload's node and `PreparedCall` what the run found: `done`, the `result` or
    the `error`, the `receipt` of every send of the call together (a batch retried, or a refused
    batch sent again call by call, sends a call more than once) and `batch_retries`. Mutable,
    as the run fills it in while answers come.

    Made by `BulkRun` from a workload's planned calls (the Dask runner makes failed ones for the
    rows of calls a partition did not run); read by the run's send loop, by `results` (one row
    of the run's frame each) and by the dataset writer (`DatasetWriter.add`: a journal line per
    batch of finished items)."""

    __slots__ = ("batch_retries", "call", "done", "error", "node", "receipt", "result")

    def __init__(self, node: Node, call: PreparedCall):
        self.node = node
        self.call = call
        self.batch_retries = 0
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        # What every send of this call cost: a batch item retried, or a refused batch's calls
        # sent again one by one, are sent more than once, and each send's receipt starts afresh.
        self.receipt: Receipt = NOT_SENT

    def __repr__(self) -> str:
        return f"<Item {self.call.method} on {self.node.name} done={self.done}>"

    def tally(self) -> None:
        """Count the call's last send in the item's receipt. Each send gives the call a new
        receipt, so the first send's can be the item's own, as it is."""
        sent, mine = self.call.receipt, self.receipt
        if isinstance(mine, SharedReceipt):  # not sent yet, or answered from the cache
            if not isinstance(sent, SharedReceipt):
                self.receipt = sent
                return
            mine = self.receipt = Receipt()
        mine.add(sent.ru, sent.unconfirmed_ru, False)
        mine.answered += sent.answered
        mine.cache_hit |= sent.cache_hit
        mine.status = sent.status

    def succeed(self, result: Any) -> None:
        self.done, self.result = True, result

    def fail(self, error: BaseException) -> None:
        self.done, self.error = True, error


class BulkRun:
    """One run of many calls; `await run()` returns when every item is done."""

    def __init__(
        self,
        calls: Iterable[tuple[Node, PreparedCall]],
        *,
        concurrency: int = 32,
        batch_size: int = 100,
        progress: Any = None,
        on_done: Callable[[list[Item]], None] | None = None,
        stop_sending: Callable[[], Exception | None] | None = None,
    ):
        for name, value in (("concurrency", concurrency), ("batch_size", batch_size)):
            if value < 1:
                raise ValidationError(f"must be at least 1, got {value}", param=name, rule="min")
        self.items = [Item(node, call) for node, call in calls]
        self.concurrency = concurrency
        self.batch_size = batch_size
        self.progress = progress
        self.on_done = on_done  # told of each finished call, its receipt tallied (a dataset)
        # Asked before each unit is sent: an error to end its calls with instead (a dataset that
        # can no longer take rows: a call sent then would be paid for and kept nowhere).
        self.stop_sending = stop_sending
        self.budget_refusal: BudgetExceeded | None = None
        # The cancel or interrupt that stopped the run, for the caller to raise once it has kept
        # what finished (see the module doc).
        self.stopped: BaseException | None = None
        self.failed = 0  # calls finished with an error so far (the bar shows them)
        self.refused = 0  # ... of them, those the budget stop left unsent (shown apart)
        self._queue: asyncio.Queue[list[Item]] = asyncio.Queue()
        self._batch_verdicts: dict[int, asyncio.Event] = {}  # per node: first batch answered
        self._to_send: list[Item] | None = None  # what the cache did not answer
        self._hits: set[int] = set()  # ... and the positions of what it did answer

    def answer_from_cache(self) -> set[int]:
        """Answer what the response cache holds, now, in one pass per node (the check each call
        and batch would make anyway, done for all at once); return the positions answered. `run`
        does it first unless it was done already."""
        if self._to_send is None:
            hits = self._hits = set(self._answer_from_cache())
            if len(hits) == len(self.items):  # a re-run: the cache answered every call
                self._to_send = []
            else:
                self._to_send = [item for i, item in enumerate(self.items) if i not in hits]
        return self._hits

    async def run(self) -> list[Item]:
        self.answer_from_cache()
        to_send = self._to_send
        assert to_send is not None  # set by answer_from_cache
        units = self._units(to_send)
        if not units:  # the cache answered every call: nothing to send, nothing to store
            return self.items
        for unit in units:
            self._queue.put_nowait(unit)
        workers = [asyncio.create_task(self._work()) for _ in range(self.concurrency)]
        try:
            await self._queue.join()
        except (asyncio.CancelledError, KeyboardInterrupt) as stop:
            self.stopped = stop
        finally:
            for worker in workers:
                worker.cancel()
            # Each call in flight settles here (its reservation, ledger entry and receipt).
            await asyncio.gather(*workers, return_exceptions=True)
        if self.stopped is not None:
            self.mark_unfinished()
        nodes = {id(item.node): item.node for item in to_send}
        caches = {id(node.cache): node.cache for node in nodes.values()}
        for cache in caches.values():
            if cache is not None:
                cache.flush()  # the run's answers are on disk when it returns
        return self.items

    def mark_unfinished(self) -> None:
        """Give each call the stop left unfinished its row: `Interrupted`, and what it cost."""
        for item in self.items:
            if item.done:
                continue
            receipt = item.receipt
            if receipt.ru or receipt.unconfirmed_ru:
                why = (
                    f"the run was stopped while this call was in flight: {receipt.ru} RU billed, "
                    f"{receipt.unconfirmed_ru} RU may have been"
                )
            else:
                why = "not sent: the run was stopped first"
            item.fail(Interrupted(why))

    def priced_high(self) -> int:
        """The high end of the RU the calls the cache did not answer were priced at: a sent call
        at the estimate it was last sent with, a call never sent priced now (with the heads its
        node knows, nothing fetched)."""
        total = 0
        unsent: dict[int, tuple[Node, list[PreparedCall]]] = {}
        for item in self.items:
            if item.receipt is CACHE_HIT:
                continue
            estimate = item.call.estimate
            if item.receipt is NOT_SENT or estimate is None:
                unsent.setdefault(id(item.node), (item.node, []))[1].append(item.call)
            else:
                total += estimate.high
        for node, calls in unsent.values():
            total += sum(estimate.high for estimate in node.price_known(calls))
        return total

    def _answer_from_cache(self) -> list[int]:
        """The positions of the items the cache answered (0 RU: nothing else to tally)."""
        items = self.items
        hits = []
        for indexes in _positions_by_node(items):
            node = items[indexes[0]].node
            if node.cache is None:
                continue
            results, unanswered = node.aio.answered_from_cache([items[i].call for i in indexes])
            if len(unanswered) == len(indexes):
                continue
            missed = set(unanswered)
            done = []
            for position, (index, result) in enumerate(zip(indexes, results, strict=True)):
                if position not in missed:
                    item = items[index]
                    item.receipt, item.done, item.result = CACHE_HIT, True, result
                    done.append(item)
                    hits.append(index)
            self._done(done)
        return hits

    def _units(self, items: Sequence[Item]) -> list[list[Item]]:
        """Batches of JSON-RPC calls per node and endpoint, then single calls."""
        size = self.batch_size
        if (
            items
            and _all_same(list(map(_NODE_OF, items)))
            and _all_same(list(map(_ITEM_METHOD_OF, items)))
        ):  # one node and one method (found by passes in C): one group
            if not self._batchable(items[0]):
                return [[item] for item in items]
            return [list(items[i : i + size]) for i in range(0, len(items), size)]
        groups: dict[tuple[int, str], list[Item]] = {}
        singles = []
        # Whether a call goes in a batch, and which, is a matter of its node and method: worked
        # out once for each pair (a workload is thousands of calls of a few).
        group_of: dict[tuple[int, int], list[Item] | None] = {}
        for item in items:
            node, method = item.node, item.call.bound.method
            pair = (id(node), id(method))
            if pair in group_of:
                group = group_of[pair]
            elif self._batchable(item):
                group = group_of[pair] = groups.setdefault((id(node), method.path), [])
            else:
                group = group_of[pair] = None
            if group is None:
                singles.append([item])
            else:
                group.append(item)
        batches = [g[i : i + size] for g in groups.values() for i in range(0, len(g), size)]
        return batches + singles

    def _batchable(self, item: Item) -> bool:
        return (
            self.batch_size > 1
            and item.call.bound.method.surface is Surface.JSONRPC
            and item.node.accepts_batches is not False
        )

    async def _work(self) -> None:
        while True:
            unit = await self._queue.get()
            try:
                await self._send(unit)
            except Exception as error:  # a bug must not lose calls: report it on each of them
                self._finish(unit, error=error)
            finally:
                self._queue.task_done()

    async def _send(self, unit: list[Item]) -> None:
        stop: Exception | None = self._not_sent() if self.budget_refusal is not None else None
        if stop is None and self.stop_sending is not None:
            stop = self.stop_sending()
        if stop is not None:
            # Each call the run does not send is a ledger entry too, as each is a row of its
            # frame: the ledger joins the frame call by call.
            unit[0].node.record_not_sent([item.call for item in unit], stop)
            self._finish(unit, error=stop)
            return
        if len(unit) == 1:
            await self._send_one(unit[0])
        elif await self._may_batch(unit[0].node):
            await self._send_batch(unit)
        else:
            self._requeue_singly(unit)

    async def _may_batch(self, node: Node) -> bool:
        """Whether to send a batch to `node` now: the first batch to a node goes alone, and the
        others wait for its verdict, so a node that refuses batches is asked only once."""
        while node.accepts_batches is None:
            verdict = self._batch_verdicts.get(id(node))
            if verdict is None:
                self._batch_verdicts[id(node)] = asyncio.Event()
                return True  # this unit is the probe
            await verdict.wait()
            if node.accepts_batches is None:  # the probe failed for another reason
                return True
        return node.accepts_batches

    async def _send_one(self, item: Item) -> None:
        result, failure = None, None
        try:
            # The cache was asked for every item at the start (`_answer_from_cache`).
            result = await item.node.aio.send(item.call, check_cache=False)
        except GatewayError as error:
            failure = error
        finally:
            item.tally()
        if isinstance(failure, BudgetExceeded):
            self.budget_refusal = self.budget_refusal or failure
        self._finish([item], result=result, error=failure)

    async def _send_batch(self, unit: list[Item]) -> None:
        node = unit[0].node
        failure: GatewayError | None
        try:
            results = await node.aio.send_batch(
                [item.call for item in unit],
                return_exceptions=True,
                check_cache=False,
                records_budget_refusal=False,  # its calls are sent one by one then
            )
        except BatchRefused:
            self._requeue_singly(unit)
            return
        except BudgetExceeded:
            # The batch as a whole does not fit; one by one, the calls spend what is left.
            self._requeue_singly(unit)
            return
        except GatewayError as error:
            failure = error
        else:
            failure = None
        finally:
            for item in unit:
                item.tally()
            verdict = self._batch_verdicts.get(id(node))
            if verdict is not None:
                verdict.set()
        if failure is not None:
            self._finish(unit, error=failure)
            return
        if not any(issubclass(kind, GatewayError) for kind in set(map(type, results))):
            # Every call answered (the results' types seen in one pass in C): no retries.
            for item, result in zip(unit, results, strict=True):
                item.done, item.result = True, result
            self._done(unit)
            return
        finished: list[Item] = []
        failures, again, wait = 0, [], 0.0
        for item, result in zip(unit, results, strict=True):
            if not isinstance(result, GatewayError):
                item.succeed(result)
                finished.append(item)
                continue
            delay = node.settings.retry.delay(result, item.batch_retries)
            if delay is None:
                item.fail(result)
                finished.append(item)
                failures += 1
            else:
                item.batch_retries += 1
                again.append(item)
                wait = max(wait, delay)
        # One report for the batch's finished calls: a dataset journals them in one write.
        self._done(finished, failed=failures)
        if again:
            await asyncio.sleep(wait)
            self._queue.put_nowait(again if len(again) > 1 else again[:1])

    def _requeue_singly(self, unit: list[Item]) -> None:
        for item in unit:
            self._queue.put_nowait([item])

    def _finish(
        self, unit: list[Item], *, result: Any = None, error: BaseException | None = None
    ) -> None:
        for item in unit:
            if error is None:
                item.succeed(result)
            else:
                item.fail(error)
        refused = len(unit) if isinstance(error, BudgetExceeded) else 0
        self._done(unit, failed=0 if error is None else len(unit), refused=refused)

    def _done(self, unit: list[Item], failed: int = 0, refused: int = 0) -> None:
        if not unit:
            return
        if self.on_done is not None:
            self.on_done(unit)
        self._advance(len(unit), failed, refused)

    def _advance(self, count: int, failed: int = 0, refused: int = 0) -> None:
        """Move the progress bar on; a bar that fails is dropped (see the module doc)."""
        self.failed += failed
        self.refused += refused
        if self.progress is None:
            return
        if failed:
            show_failures(self.progress, self.failed - self.refused, self.refused)
        try:
            self.progress.update(count)
        except Exception as error:
            self.progress = None
            warn(f"the progress bar failed and is no longer updated: {error!r}", RuntimeWarning)

    def _not_sent(self) -> BudgetExceeded:
        refusal = self.budget_refusal
        assert refusal is not None  # asked only once the budget refused a call
        return BudgetExceeded(
            f"not sent: the budget refused an earlier call of this run ({refusal.detail})",
            needed=refusal.needed,
            remaining=refusal.remaining,
        )


def _positions_by_node(items: Sequence[Item]) -> list[Sequence[int]]:
    """The items' positions, grouped by node (in the order the nodes first appear)."""
    nodes = list(map(_NODE_OF, items))
    if _all_same(nodes):  # one node, the usual workload: no grouping pass
        return [range(len(items))] if items else []
    by_node: dict[int, list[int]] = {}
    for index, node in enumerate(map(id, nodes)):
        by_node.setdefault(node, []).append(index)
    return list(by_node.values())


# --- results as one DataFrame -------------------------------------------------------------------


def params_text(call: PreparedCall) -> str:
    """A call's parameters as the frame's ``params`` column shows them (compact JSON)."""
    return call.bound.wire_json


def results_frame(items: Sequence[Item]) -> pd.DataFrame:
    """One row per call, in the workload's order (see `RESULT_COLUMNS`); see `results`."""
    return results(items)[0]


def results(items: Sequence[Item]) -> tuple[pd.DataFrame, dict[str, int]]:
    """One row per call, in the workload's order (see `RESULT_COLUMNS`), built column by column,
    and the rows' counts for a run's summary (`row_counts`), from the arrays the frame is made of.

    ``result`` and ``value`` are Python objects whatever they hold: exact ints past 2**63 as
    well as below, and one type per column from run to run (pandas would infer int64 or str
    from the values). The text columns are Arrow strings made straight from the texts (the
    ``string`` dtype's own storage), skipping pandas' check of each value. Each column is one
    pass in C over the items where it can be (`map`, `attrgetter`): a Python loop over the
    items with a branch per column cost more than all the rest of a cached re-run.
    """
    import numpy as np
    import pandas as pd

    n = len(items)
    bounds = list(map(_BOUND_OF, items))
    methods = list(map(_METHOD_OF, bounds))
    results = list(map(_RESULT_OF, items))
    failures = list(map(_ERROR_OF, items))
    failed = failures.count(None) != n
    receipts = list(map(_RECEIPT_OF, items))
    index = pd.RangeIndex(n)
    columns = {
        "node": _attribute_strings(list(map(_NODE_OF, items)), "name"),
        "method": _attribute_strings(methods, "name"),
        "params": _strings(list(map(_WIRE_JSON_OF, bounds))),
        # Series of dtype object: from an array of texts, pandas would infer its string dtype.
        # One index object for them and the frame: pandas then has no indexes to align.
        "result": pd.Series(np.fromiter(results, object, n), index, object, copy=False),
        "value": pd.Series(
            np.fromiter(_values(methods, results, failures, failed), object, n),
            index,
            object,
            copy=False,
        ),
        "error": _strings([_error_name(e) for e in failures]) if failed else _no_strings(n),
        "message": _strings([_error_text(e) for e in failures]) if failed else _no_strings(n),
    }
    ru, unconfirmed, cache_hit = _receipt_columns(receipts)
    columns["ru"], columns["unconfirmed_ru"], columns["cache_hit"] = ru, unconfirmed, cache_hit
    interrupted = sum(type(e) is Interrupted for e in failures) if failed else 0
    refused = sum(type(e) is BudgetExceeded for e in failures) if failed else 0
    counts = {
        "calls": n,
        "failed": n - failures.count(None) - interrupted - refused,
        "interrupted": interrupted,
        "budget_refused": refused,
        "cache_hits": int(cache_hit.sum()),
        "ru": int(ru.sum()),
        "unconfirmed_ru": int(unconfirmed.sum()),
    }
    # In `RESULT_COLUMNS` order (a test checks).
    return pd.DataFrame(columns, index, copy=False), counts


def row_counts(frame: pd.DataFrame) -> dict[str, int]:
    """What `results` counts, for a frame made otherwise (rows resumed from a dataset)."""
    interrupted = int(frame["error"].eq(INTERRUPTED).sum())
    refused = int(frame["error"].eq(BUDGET_EXCEEDED).sum())
    return {
        "calls": len(frame),
        "failed": len(frame) - int(frame["error"].array.isna().sum()) - interrupted - refused,
        "interrupted": interrupted,
        "budget_refused": refused,
        "cache_hits": int(frame["cache_hit"].to_numpy().sum()),
        "ru": int(frame["ru"].to_numpy().sum()),
        "unconfirmed_ru": int(frame["unconfirmed_ru"].to_numpy().sum()),
    }


_NODE_OF = attrgetter("node")
_BOUND_OF = attrgetter("call.bound")
_ITEM_METHOD_OF = attrgetter("call.bound.method")
_METHOD_OF = attrgetter("method")
_RESULT_OF = attrgetter("result")
_ERROR_OF = attrgetter("error")
_RECEIPT_OF = attrgetter("receipt")
_WIRE_JSON_OF = attrgetter("wire_json")
_RU_OF = attrgetter("ru")
_UNCONFIRMED_OF = attrgetter("unconfirmed_ru")
_CACHE_HIT_OF = attrgetter("cache_hit")


def _each_attribute(objects: list[Any], name: str) -> list[Any]:
    """Each object's attribute `name`, read once when every object is the same one (a run's
    calls are mostly of one node and one method, and a node's name is a property)."""
    if objects and _all_same(objects):
        return [getattr(objects[0], name)] * len(objects)
    return list(map(attrgetter(name), objects))


def _all_same(objects: list[Any]) -> bool:
    """Whether every object is the same one (an identity test in C, stopping at the first other;
    true for none)."""
    return all(map(is_, objects, repeat(objects[0] if objects else None)))


def _receipt_columns(receipts: list[Receipt]) -> tuple[Any, Any, Any]:
    """The ru, unconfirmed_ru and cache_hit columns; when every call shares one receipt (a
    re-run the cache answered wholly: `CACHE_HIT`), filled from it without a pass per column."""
    import numpy as np

    n = len(receipts)
    if n and _all_same(receipts):
        shared = receipts[0]
        return (
            np.full(n, shared.ru, np.int64),
            np.full(n, shared.unconfirmed_ru, np.int64),
            np.full(n, shared.cache_hit, bool),
        )
    return (
        np.fromiter(map(_RU_OF, receipts), np.int64, n),
        np.fromiter(map(_UNCONFIRMED_OF, receipts), np.int64, n),
        np.fromiter(map(_CACHE_HIT_OF, receipts), bool, n),
    )


def _values(methods: list[Any], results: list[Any], failures: list[Any], failed: bool) -> list[Any]:
    """The typed values (ints for quantities, like the helpers return); None for a failed call
    and for a result its kind's conversion refuses."""
    kinds = set(_each_attribute(methods, "result"))
    if len(kinds) == 1 and not failed:
        convert = TYPED_VALUES.get(next(iter(kinds)))
        if convert is None:
            return results
        try:
            return list(map(convert, results))
        except (TypeError, ValueError):
            pass  # one result the conversion refuses: convert each on its own below
    values: list[Any] = []
    converters: dict[str, Any] = {}
    for method, result, failure in zip(methods, results, failures, strict=True):
        if failure is not None:
            values.append(None)
            continue
        kind = method.result
        convert = converters.get(kind, _UNKNOWN)
        if convert is _UNKNOWN:
            convert = converters[kind] = TYPED_VALUES.get(kind)
        values.append(result if convert is None else _typed(convert, result))
    return values


def _error_name(error: BaseException | None) -> str | None:
    return None if error is None else type(error).__name__


def _error_text(error: BaseException | None) -> str | None:
    return None if error is None else str(error)


def _strings(texts: list[str | None]) -> Any:
    """A pandas ``string`` array (Arrow storage) of `texts`: what ``pd.array(texts,
    dtype="string")`` makes, without checking each value again (they are str or None)."""
    return _string_array(lambda pa: pa.array(texts, type=pa.large_string()), lambda: texts)


def _attribute_strings(objects: list[Any], name: str) -> Any:
    """`_strings` of each object's attribute `name`; when every object is the same one, its
    attribute is read once and repeated by Arrow."""
    if not objects or not _all_same(objects):
        return _strings(list(map(attrgetter(name), objects)))
    text, n = getattr(objects[0], name), len(objects)
    return _string_array(
        lambda pa: pa.repeat(pa.scalar(text, type=pa.large_string()), n), lambda: [text] * n
    )


def _no_strings(n: int) -> Any:
    return _string_array(lambda pa: pa.nulls(n, type=pa.large_string()), lambda: [None] * n)


def _string_array(arrow: Callable[[Any], Any], texts: Callable[[], list[str | None]]) -> Any:
    """A pandas ``string`` array: made by `arrow` from the pyarrow module when that is the
    dtype's storage (pandas' default with pyarrow installed), else by pandas from `texts()`."""
    import pandas as pd

    if pd.StringDtype().storage != "pyarrow":
        return pd.array(texts(), dtype="string")
    import pyarrow as pa

    return pd.arrays.ArrowStringArray(arrow(pa))


_UNKNOWN = object()


def _typed(convert: Any, result: Any) -> Any:
    try:
        return convert(result)
    except (TypeError, ValueError):
        return None


# --- progress ---------------------------------------------------------------------------------


def progress_bar(total: int, progress: Any, description: str) -> Any:
    """A `tqdm.auto` bar (a widget in notebooks, text elsewhere) when `progress` is True, None
    when it is False, else `progress` itself: any object with ``update(n)`` (and, if it has
    them, ``reset(total=...)``, called when the calls start, and ``close()``).

    The bar counts calls (a batch of 96 calls is 96), and its rate is calls over the time since
    the calls started (``smoothing=0``). tqdm's default, a moving average of the rates between
    screen refreshes, is far off for a run of few large steps: with a first refresh after one
    call and the rest arriving between refreshes, it showed a fraction of the real rate.
    """
    if progress is True:
        from tqdm.auto import tqdm

        return tqdm(total=total, unit="call", desc=description, dynamic_ncols=True, smoothing=0)
    check_progress(progress)
    if progress is False or progress is None:
        return None
    return progress


def check_progress(progress: Any) -> None:
    """`progress` must be True, False, None or an object with ``update(n)``."""
    if progress is True or progress is False or progress is None:
        return
    if not callable(getattr(progress, "update", None)):
        raise ValidationError(
            f"must be True, False or an object with update(n), got {type(progress).__name__}",
            param="progress",
            rule="type",
        )


def show_failures(bar: Any, failed: int, refused: int = 0) -> None:
    """Say on the bar that `failed` calls failed, and `refused` were not sent for the budget:
    in its postfix and in red, where it has them (tqdm's text and notebook bars). A bar that
    filled up green read as a run that went well when every call had been refused. Only
    cosmetic: a bar that has neither, or refuses them, is left as it is (the run warns anyway)."""
    said = [f"{failed:,} failed"] if failed else []
    if refused:
        said.append(f"{refused:,} not sent: budget")
    try:
        postfix = getattr(bar, "set_postfix_str", None)
        if callable(postfix):
            postfix(", ".join(said), refresh=False)  # drawn by the update that follows
        if hasattr(bar, "colour") and bar.colour != "red":
            bar.colour = "red"
    except Exception:  # cosmetic: see the doc
        pass


def start_progress(bar: Any, total: int, done_already: int = 0) -> Any:
    """Start the bar's clock when the calls start (it was made before the heads were fetched
    and the workload priced, and a rate over that time would be far too low), with the calls
    already answered (a dataset's rows, the cache's answers) counted as done but not in the
    rate. Returns the bar, or None when it failed (see the module doc)."""
    if bar is None:
        return None
    try:
        reset = getattr(bar, "reset", None)
        if reset is not None:
            reset(total=total)
        if done_already:
            if hasattr(bar, "initial"):  # tqdm: its rate is (n - initial) / elapsed
                bar.initial = done_already
            bar.update(done_already)
    except Exception as error:
        warn(f"the progress bar failed and is no longer updated: {error!r}", RuntimeWarning)
        return None
    return bar


def close_progress(bar: Any, progress: Any = True) -> None:
    """Close the bar the run made (a bar the caller passed in is theirs to close); one that
    fails to close must not cost the run's results."""
    if bar is None or progress is not True:
        return
    try:
        bar.close()
    except Exception as error:
        warn(f"the progress bar failed to close: {error!r}", RuntimeWarning)
