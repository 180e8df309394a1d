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
from itertools import repeat, starmap
from operator import attrgetter, is_not
from typing import TYPE_CHECKING, Any

from .._browser import in_browser
from .._errors import BatchRefused, BudgetExceeded, GatewayError, ValidationError
from .._redact import warn
from ..catalog import Surface
from ..client import CACHE_HIT, NOT_SENT, PreparedCall, SharedReceipt
from ._planned import positions_by_node
from ._rows import Interrupted, Item, all_same

if TYPE_CHECKING:
    from ..client import Node


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
        self.items = list(starmap(Item, calls))  # (node, call) pairs, unpacked in C
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
        self._workers: list[asyncio.Task[None]] = []
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
            elif not hits:  # a first run: every call to send, no pass to pick them
                self._to_send = list(self.items)
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
        workers = self._workers
        self._add_workers()
        try:
            await self._queue.join()
        except (asyncio.CancelledError, KeyboardInterrupt) as stop:
            self.stopped = stop
        finally:
            for worker in workers:
                worker.cancel()
            # Each call in flight settles here (its reservation, ledger entry and receipt). A stop
            # that comes now, as the last calls finish, is this run's stop too: the workers are
            # still waited for, and the rows they finished are kept (it lost them all once).
            while True:
                try:
                    await asyncio.gather(*workers, return_exceptions=True)
                    break
                except asyncio.CancelledError as stop:
                    self.stopped = self.stopped or stop
        if self.stopped is not None:
            self.mark_unfinished()
        nodes = list(map(_NODE_OF, to_send))  # one node, the usual run: no pass per call
        nodes = nodes[:1] if all_same(nodes) else list({id(n): n for n in nodes}.values())
        caches = {id(node.cache): node.cache for node in nodes}
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
        items = self.items
        estimates = list(map(_ESTIMATE_OF, items))
        if all(map(is_not, estimates, repeat(None))) and not any(
            issubclass(kind, SharedReceipt) for kind in set(map(type, map(_RECEIPT_OF, items)))
        ):  # every call sent (none answered by the cache, none unsent): passes in C
            return sum(map(_HIGH_OF, estimates))
        total = 0
        unsent: dict[int, tuple[Node, list[PreparedCall]]] = {}
        for item in items:
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
        for indexes in positions_by_node(items):
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
            and all_same(list(map(attrgetter("node"), items)))
            and all_same(list(map(_ITEM_METHOD_OF, items)))
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
            tally(unit)
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
        self._add_workers()

    def _add_workers(self) -> None:
        """As many workers as there are units queued, up to `concurrency`: a run of ten batches
        made 32 tasks, 22 of them only to wait and be cancelled. A refused batch's calls, queued
        again one by one, get the workers they can use."""
        wanted = min(self.concurrency, len(self._workers) + self._queue.qsize())
        while len(self._workers) < wanted:
            self._workers.append(asyncio.create_task(self._work()))

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


_ITEM_METHOD_OF = attrgetter("call.bound.method")
_NODE_OF = attrgetter("node")
_RECEIPT_OF = attrgetter("receipt")
_ESTIMATE_OF = attrgetter("call.estimate")
_HIGH_OF = attrgetter("high")
_CALL_RECEIPT_OF = attrgetter("call.receipt")


def tally(items: list[Item]) -> None:
    """`Item.tally` for each of `items`, sent together. The usual batch is each call's first
    send (every item's receipt still `NOT_SENT`, every call a receipt of its own): then the
    item's receipt is its call's, taken in passes in C rather than a method call per item."""
    mine = list(map(_RECEIPT_OF, items))
    if mine and mine[0] is NOT_SENT and all_same(mine):
        sent = list(map(_CALL_RECEIPT_OF, items))
        if not any(issubclass(kind, SharedReceipt) for kind in set(map(type, sent))):
            for item, receipt in zip(items, sent, strict=True):
                item.receipt = receipt
            return
    for item in items:
        item.tally()


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

        if in_browser():
            tqdm.monitor_interval = 0  # its monitor is a thread, which a browser tab cannot start
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
    """Say on the bar that `failed` calls failed, and `refused` were not sent for the budget,
    in red: a bar that filled up green read as a run that went well when every call had been
    refused."""
    said = [f"{failed:,} failed"] if failed else []
    if refused:
        said.append(f"{refused:,} not sent: budget")
    say_on_bar(bar, ", ".join(said), red=True)  # drawn by the update that follows


def say_on_bar(bar: Any, text: str, *, red: bool, refresh: bool = False) -> None:
    """Show `text` in the bar's postfix, the bar red or in its own colour, where it has them
    (tqdm's text and notebook bars). Only cosmetic: a bar that has neither, or refuses them, is
    left as it is (the run warns anyway)."""
    colour = "red" if red else None
    try:
        postfix = getattr(bar, "set_postfix_str", None)
        if callable(postfix):
            postfix(text, refresh=refresh)
        if hasattr(bar, "colour") and bar.colour != colour:
            bar.colour = colour
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
