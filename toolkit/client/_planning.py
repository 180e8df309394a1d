"""Planning a call: its price, by the one pricing path (`Pricer`), and the chain head that
prices archive calls and tells which answers are final (a billed call, in the ledger)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any, cast

from .._errors import GatewayError, ValidationError
from ..catalog import Chain, Estimate, Method, Pricer, lookup
from ._heads import HeadTracker
from ._prepared import PreparedCall

Steps = Generator[Any, Any, Any]
HEAD_NOTE = "chain head, fetched to price archive calls"
CACHE_HEAD_NOTE = "chain head, fetched to decide which answers are final (cacheable)"


class Planner:
    """One node's prices and chain head; `send` sends the head's call (`NodeCore.send`)."""

    def __init__(
        self,
        pricer: Pricer,
        heads: HeadTracker,
        chain: Chain,
        node: str,
        send: Callable[..., Steps],
    ):
        self.pricer = pricer
        self.heads = heads
        self.chain = chain
        self.node = node
        self.send = send

    def price(self, call: PreparedCall, *, fetch: bool = True) -> Steps:
        """The call's estimate (also set on it), fetching the head first when the pricer needs
        it and `fetch` allows."""
        estimate = self.pricer.price_call(call, fetch=fetch)
        if estimate is None:
            head = yield from self.head()
            estimate = self.pricer.price_call(call, head=head)
        return estimate

    def price_raw(self, method: str, params: Any, *, inner: str | None = None) -> Steps:
        """`price` for a call outside the catalog's binding (`call_raw`, a followed link): the
        same pricer, by the table's rule for its name."""
        catalog_method = _catalog_method(method)
        catalog_rule = catalog_method.ru if catalog_method else None
        names = catalog_method.param_names if catalog_method else ()
        self.pricer.check_plan(method, params)
        estimate = self.pricer.price(method, catalog_rule, params, names, inner=inner, fetch=True)
        if estimate is None:
            head = yield from self.head()
            estimate = self.pricer.price(method, catalog_rule, params, names, head=head)
        return estimate

    def price_batch(self, calls: Sequence[PreparedCall]) -> Steps:
        """Each call's estimate (the head fetched once, when one needs it), and their total."""
        estimates = self.pricer.price_calls(calls, fetch=True)
        for index, estimate in enumerate(estimates):
            if estimate is None:  # the head must be fetched first (once: the rest then have it)
                estimates[index] = yield from self.price(calls[index])
        priced = cast("list[Estimate]", estimates)  # each one priced by now
        return priced, Pricer.total(priced, f"a batch of {len(calls)}")

    def head(self, note: str = HEAD_NOTE) -> Steps:
        """The chain head, a billed call recorded in the ledger as such: the chain's catalog head
        source (``eth_blockNumber`` on EVM chains, the latest block on TRON, the masterchain's
        last block on TON)."""
        source = self.chain.head
        if source is None:
            raise ValidationError(f"the head is not tracked for {self.chain.name}", rule="chain")
        call = PreparedCall(self.node, lookup(source.method).bind(**source.arguments))
        yield from self.price(call, fetch=False)
        with self.heads.fetching():
            yield from self.send(call, note=note)  # sets the head (see `send`)
        return self.heads.last

    def head_for_finality(self, block: int) -> Steps:
        """A head to judge whether `block` is final by, or None if none can be had; a fresh one
        is fetched only when the one known does not make `block` final and no fetch is under
        way."""
        known, fetch = self.heads.for_finality(block, self.chain.finality_depth)
        if not fetch:
            return known
        try:
            return (yield from self.head(note=CACHE_HEAD_NOTE))
        except GatewayError:
            return known  # the answer is still good; it just is not cached


def _catalog_method(name: str) -> Method | None:
    try:
        return lookup(name)
    except ValidationError:
        return None
