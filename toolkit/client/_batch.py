"""A JSON-RPC batch through the exchange, and its ways to smaller batches: over the most calls
the node takes (`max_batch`), refused by the node as too large, and the calls a resumed
recording's tape lacks (`StillToSend`); each billed as one call per call."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from itertools import repeat
from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from .._errors import BatchRefused, BudgetExceeded, GatewayError
from ..catalog import Estimate, Pricer
from ._protocol import batch_request, rpc_request
from ._transport import Exchange, Receipt, StillToSend

if TYPE_CHECKING:
    from ._settings import Shared

Steps = Generator[Any, Any, Any]
ALONE_AFTER_REFUSAL = "sent alone: the node refused it in a larger JSON-RPC batch"


class Batches:
    """One node's JSON-RPC batches: what it was found to take, and how a batch is sent."""

    def __init__(
        self,
        shared: Shared,
        node: str,
        headers: dict[str, str],
        exchange: Callable[..., Exchange],
    ):
        self.shared = shared
        self.node = node
        self.headers = headers
        self.exchange = exchange  # `NodeCore.exchange`: the one exchange factory
        # None until a batch is tried; False once the node refused one (then calls go singly).
        self.accepts_batches: bool | None = None
        # The most calls a batch to this node holds, once it refused a larger one as too large
        # (a batch over it is sent in parts); None while no batch was refused so.
        self.max_batch: int | None = None

    def send(self, batch: Batch, total: Estimate) -> Steps:
        """One batch request through the exchange, billed as one call each (each call's
        receipt set). A refusal (see `BatchRefused`) is not retried; it marks the node as one
        that takes no batches (`accepts_batches`), unless it refused the batch as too large:
        then the calls go again in smaller batches (`_exchange_in_parts`), the refused one
        billed as the gateway bills every request it receives. Recording on from a recording
        that died (`Tape.resumed`), the tape answers the calls it holds (0 RU, as a replay) and
        the others go next, on their own (`_send_still_to_send`)."""
        wire, estimates = batch.wire, batch.estimates
        if self.max_batch is not None and len(wire) > self.max_batch:
            return (yield from self._exchange_in_parts(batch))
        tape = self.shared.tape
        resumed = tape is not None and tape.resumed
        request, interpret = batch_request(
            wire,
            batch.url,
            self.headers,
            # Each call's own result, a call the tape lacks included (`StillToSend`), to send
            # those, then raise the first error if the caller wants it raised.
            return_exceptions=batch.return_exceptions or resumed,
            node=self.node,
            params_texts=batch.params_texts,
        )
        methods = list(map(_FIRST, wire))
        names = sorted(set(methods))
        # One part per call; the calls of a batch mostly share a few estimates (one per block
        # class), so each estimate's (low, high, archive) is read once.
        distinct = dict(zip(map(id, estimates), estimates, strict=True))  # a pass in C
        sides: dict[int, tuple[int, int, bool | None]] = {
            key: (estimate.low, estimate.high, estimate.archive)
            for key, estimate in distinct.items()
        }
        exchange = self.exchange(
            request,
            interpret,
            method=f"batch[{len(wire)}]:" + ",".join(names),
            estimate=total,
            note=f"in a JSON-RPC batch of {len(wire)}",
            parts=_parts(methods, estimates, sides),
            params=tuple(batch.params_texts),
            records_budget_refusal=batch.records_budget_refusal,
        )
        too_large = False
        try:
            results = yield from exchange.run()
        except BatchRefused as refused:
            too_large = refused.too_large and len(wire) > 1
            if not too_large:
                self.accepts_batches = False
                raise
            # The limit the node stated, else half as many each time, down to one call alone.
            stated = refused.limit if refused.limit and refused.limit < len(wire) else None
            smaller = stated or len(wire) // 2
            self.max_batch = min(self.max_batch or smaller, smaller)
        finally:
            # What each call cost, by its estimate: worked out once per distinct estimate. Added
            # to what the call's earlier requests cost (a larger batch refused as too large).
            costs = {key: exchange.cost(low, high) for key, (low, high, _) in sides.items()}
            answered, status = exchange.answered_attempts, exchange.receipt.status
            for receipt, estimate in zip(batch.receipts, estimates, strict=True):
                billed, unconfirmed = costs[id(estimate)]
                receipt.ru += billed
                receipt.unconfirmed_ru += unconfirmed
                receipt.answered += answered
                receipt.status = status
        if too_large:  # sent again in parts
            return (yield from self._exchange_in_parts(batch))
        self.accepts_batches = True
        if resumed:
            return (yield from self._send_still_to_send(batch, results))
        return results

    def _send_still_to_send(self, batch: Batch, results: list[Any]) -> Steps:
        """A batch's results once a resumed recording's tape has answered the calls it holds:
        the others (`StillToSend`) sent now, as a smaller batch or alone when one, billed,
        entered in the ledger and recorded as such, so a run again in batches never pays twice
        for what the tape kept. Without `return_exceptions`, an answered call's error is
        raised first, as the whole batch's would have been."""
        lacking = [i for i, result in enumerate(results) if isinstance(result, StillToSend)]
        if not batch.return_exceptions:
            for result in results:
                if isinstance(result, GatewayError) and not isinstance(result, StillToSend):
                    raise result
        if not lacking:
            return results
        alone = "sent alone: the tape answered the rest of its JSON-RPC batch"
        sent = yield from self._exchange_in_parts(batch.only(lacking), alone)
        for index, result in zip(lacking, sent, strict=True):
            results[index] = result
        return results

    def _exchange_in_parts(self, batch: Batch, alone: str = ALONE_AFTER_REFUSAL) -> Steps:
        """A batch's calls in batches of at most `max_batch` (read again before each part: a
        part refused as too large lowers it), a part of one sent as a plain call (its ledger
        note: `alone`). With `return_exceptions`, a part that fails whole after an earlier part
        was answered gives its error to each call not answered, so the answers already paid
        for are kept; the first part's failure is raised, as one batch's would be."""
        results: list[Any] = []
        start, count = 0, len(batch.wire)
        while start < count:
            end = min(start + (self.max_batch or count), count)
            part = batch.only(range(start, end))
            try:
                if end - start == 1:
                    results.append((yield from self._exchange_alone(part, alone)))
                else:
                    total = Pricer.total(part.estimates, f"a batch of {end - start}")
                    results.extend((yield from self.send(part, total)))
            except GatewayError as error:
                if not batch.return_exceptions or not results:
                    raise
                error.node = self.node
                results.extend([error] * (count - start))
                return results
            start = end
        return results

    def _exchange_alone(self, batch: Batch, note: str) -> Steps:
        """A batch of one call sent as a plain JSON-RPC request (its receipt adds the cost)."""
        method, params, kind = batch.wire[0]
        request, interpret = rpc_request(batch.url, method, params, self.headers, kind)
        exchange = self.exchange(
            request,
            interpret,
            method=method,
            estimate=batch.estimates[0],
            receipt=batch.receipts[0],
            note=note,
            params=(batch.params_texts[0],),
            records_budget_refusal=batch.records_budget_refusal,
        )
        try:
            return (yield from exchange.run())
        except GatewayError as error:
            if not batch.return_exceptions or isinstance(error, BudgetExceeded):
                raise
            return error


class Batch(NamedTuple):
    """A batch's calls, each as the request carries it (method, params, result kind), its
    estimate, its receipt and its params as the ledger writes them; and how they go: to `url`,
    a failed call returned or raised, a refusal of the budget entered in the ledger or not
    (`Exchange.records_budget_refusal`)."""

    url: str
    wire: list[tuple[str, Any, str | None]]
    estimates: list[Estimate]
    receipts: list[Receipt]
    params_texts: list[str]
    return_exceptions: bool
    records_budget_refusal: bool

    def only(self, positions: Iterable[int]) -> Batch:
        """The calls at `positions`, to go the same way."""
        chosen = list(positions)
        return self._replace(
            wire=[self.wire[i] for i in chosen],
            estimates=[self.estimates[i] for i in chosen],
            receipts=[self.receipts[i] for i in chosen],
            params_texts=[self.params_texts[i] for i in chosen],
        )


def _parts(
    methods: list[str],
    estimates: list[Estimate],
    sides: dict[int, tuple[int, int, bool | None]],
) -> tuple[tuple[str, int, int, bool | None], ...]:
    """A batch's parts, (method, low, high, archive) per call: calls of one method and one
    estimate share one part (a part is immutable; a batch has few distinct ones)."""
    if methods and all(map(is_, methods, repeat(methods[0]))):  # one method: passes in C
        by_estimate = {key: (methods[0], *side) for key, side in sides.items()}
        return tuple(map(by_estimate.__getitem__, map(id, estimates)))
    made: dict[tuple[str, int], tuple[str, int, int, bool | None]] = {}
    parts = []
    for method, estimate in zip(methods, estimates, strict=True):
        key = (method, id(estimate))
        part = made.get(key)
        if part is None:
            part = made[key] = (method, *sides[id(estimate)])
        parts.append(part)
    return tuple(parts)


_FIRST: Callable[[Any], Any] = itemgetter(0)
