"""The one pricing path: rule -> block -> estimate, for the client's every send path and for the
sandbox's meter alike.

A `Pricer` reads the pricing table in force from its `source` (any object with a ``pricing``
attribute: the client's `Meter`, the sandbox's `Metering`), so a table replaced whole applies
at once. Where the archive rule needs the chain head, it asks its `heads` (an object with
``for_pricing()`` and ``drift()``: the client's head tracker) or is given the head (the sandbox
knows it). Pure: no I/O; a call whose head must be fetched first is priced as None, and the
caller fetches the head and asks again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, cast

from .._errors import ValidationError
from ._pricing import (
    ArchiveByBlock,
    ByInnerMethod,
    Estimate,
    PricingTable,
    Rule,
    block_argument,
    is_block_hash,
)
from .encoding import is_hex_quantity

_BLOCK_TYPES = frozenset((str, int, type(None)))  # block arguments an estimate is kept for
_MEMO_SIZE = 4096


class HasPricing(Protocol):
    @property
    def pricing(self) -> PricingTable: ...


class Heads(Protocol):
    def for_pricing(self) -> int | None: ...

    def drift(self) -> int: ...


class Pricer:
    """Prices calls by the table of `source`; `by_head`: whether a block number is priced
    against the chain head (EVM chains; elsewhere no rule reads a head)."""

    __slots__ = ("_by_head", "_estimates", "_heads", "_rules", "_source")

    def __init__(self, source: HasPricing, heads: Heads | None = None, *, by_head: bool = True):
        self._source = source
        self._heads = heads
        self._by_head = by_head
        # Estimates by (table, rule, block, head, drift): a workload prices many calls at few
        # blocks, and each call twice (the preview, then the send). Entries keep their table
        # and rule, so an id reused by a new one is never mistaken.
        self._estimates: dict[tuple[Any, ...], tuple[Any, Rule, Estimate]] = {}
        # Rules by (method, catalog rule, inner method), for the sandbox's meter, which prices
        # every call it serves by its name; entries keep their table and catalog rule, as above.
        self._rules: dict[tuple[Any, ...], tuple[Any, Rule | None, Rule]] = {}

    @property
    def table(self) -> PricingTable:
        return self._source.pricing

    def rule(self, method: str, catalog_rule: Rule | None, inner: str | None = None) -> Rule:
        """The rule a call of `method` is priced by: the table's override, else the catalog
        entry's, else the table's pattern (else its highest price). `inner`: the method a
        request carries (TON's jsonRPC)."""
        table = self.table
        key = (method, id(catalog_rule), inner)
        known = self._rules.get(key)
        if known is not None and known[0] is table and known[1] is catalog_rule:
            return known[2]
        rule = table.rule_for(method, catalog_rule)
        if isinstance(rule, ByInnerMethod):
            rule = rule.resolve(inner)
        if len(self._rules) >= _MEMO_SIZE:
            self._rules.clear()
        self._rules[key] = (table, catalog_rule, rule)
        return rule

    def needs_head(self, rule: Rule, block: Any) -> bool:
        """Whether pricing by `rule` at `block` reads the chain head (a block number)."""
        return self._by_head and isinstance(rule, ArchiveByBlock) and _is_number(block)

    def call_needs_head(self, call: Any) -> bool:
        """Whether pricing a prepared call needs the chain head."""
        bound = call.bound
        method = bound.method
        rule = self.rule(method.name, method.ru, bound.rpc_method)
        return self.needs_head(rule, block_argument(rule, bound.wire_params, method.param_names))

    def price(
        self,
        method: str,
        catalog_rule: Rule | None,
        params: Any,
        names: tuple[str, ...] = (),
        *,
        inner: str | None = None,
        head: int | None = None,
        fetch: bool = False,
    ) -> Estimate | None:
        """The rule -> block -> estimate sequence. `head`: the chain head when the caller knows
        it (else the head tracker's); with `fetch`, None when the head is needed and unknown
        (fetch it, then ask again with it)."""
        rule = self.rule(method, catalog_rule, inner)
        return self.price_by(rule, block_argument(rule, params, names), head=head, fetch=fetch)

    def price_by(
        self, rule: Rule, block: Any, *, head: int | None = None, fetch: bool = False
    ) -> Estimate | None:
        """`price` for a rule and block argument found already."""
        if not self.needs_head(rule, block):
            return self._estimate(rule, block, None, 0)
        heads = self._heads
        if head is None and heads is not None:
            head = heads.for_pricing()
        if head is None and fetch:
            return None
        return self._estimate(rule, block, head, heads.drift() if heads is not None else 0)

    def price_calls(self, calls: Iterable[Any], *, fetch: bool) -> list[Estimate | None]:
        """`price` for many prepared calls at one moment (a batch, a preview), each call's
        `estimate` set: the table is read once, each method's rule once (a workload is thousands
        of calls of one method), and the head and its drift once."""
        pricing, by_head = self.table, self._by_head
        rules: dict[int, tuple[Any, Rule, int | None, bool]] = {}
        moment: tuple[int | None, int] | None = None
        estimates: list[Estimate | None] = []
        # This batch's estimates by rule and block: the table, the head and its drift are the
        # same for all its calls, and a workload asks for few blocks many times over.
        by_block: dict[tuple[int, Any], Estimate] = {}
        for call in calls:
            bound = call.bound
            method = bound.method
            known = rules.get(id(method))
            if known is None or known[0] is not method:
                known = rules[id(method)] = _method_pricing(method, pricing)
            _, rule, position, logs = known
            if logs:
                self.check_plan(method.name, bound.wire_params)
            if type(rule) is not ArchiveByBlock:  # no block to read: the commonest fast path
                if isinstance(rule, ByInnerMethod):
                    rule = rule.resolve(bound.rpc_method)
                estimate = self._estimate(rule, None, None, 0, pricing)
            else:
                params = bound.wire_params
                # The block at its known position in a JSON-RPC list; elsewhere, or absent
                # there (a fallback may name it), found as `block_argument` finds it.
                block = None
                if position is not None and type(params) is list and position < len(params):
                    block = params[position]
                if block is None:
                    block = block_argument(rule, params, method.param_names)
                seen = (id(rule), block) if type(block) in _BLOCK_TYPES else None
                found = by_block.get(seen) if seen is not None else None
                if found is not None:
                    estimate = found
                elif not (by_head and _is_number(block)):
                    estimate = self._estimate(rule, block, None, 0, pricing)
                else:
                    if moment is None:  # the head and its drift, read once for all the calls
                        heads = self._heads
                        moment = (
                            (None, 0) if heads is None else (heads.for_pricing(), heads.drift())
                        )
                    if moment[0] is None and fetch:
                        estimates.append(None)
                        continue
                    estimate = self._estimate(rule, block, moment[0], moment[1], pricing)
                if seen is not None:
                    by_block[seen] = estimate
            call.estimate = estimate
            estimates.append(estimate)
        return estimates

    def price_call(self, call: Any, *, head: int | None = None, fetch: bool = False):
        """`price` for a prepared call (its `estimate` set when priced)."""
        bound = call.bound
        method = bound.method
        if method.name == "eth_getLogs":
            self.check_plan(method.name, bound.wire_params)
        estimate = self.price(
            method.name,
            method.ru,
            bound.wire_params,
            method.param_names,
            inner=bound.rpc_method,
            head=head,
            fetch=fetch,
        )
        if estimate is not None:
            call.estimate = estimate
        return estimate

    @staticmethod
    def total(estimates: list[Estimate], what: str) -> Estimate:
        """The price of a request carrying calls priced `estimates` (a batch of N is N calls)."""
        low = sum(e.low for e in estimates)
        high = sum(e.high for e in estimates)
        return Estimate(low, high, what, archive=None)

    def check_plan(self, method: str, params: Any) -> None:
        """Refuse (0 RU) what the account's plan caps, when the table knows the plan: an
        eth_getLogs range wider than the plan's `max_log_blocks`."""
        cap = self.table.max_log_blocks
        if cap is None or method != "eth_getLogs":
            return
        query = params[0] if isinstance(params, list) and params else None
        if not isinstance(query, dict):
            return
        ends = [query.get(end) for end in ("fromBlock", "toBlock")]
        if not all(isinstance(n, str) and is_hex_quantity(n) for n in ends):
            return  # a tag or an absent end: the node bounds it
        start, end = (int(cast(str, n), 16) for n in ends)
        if end - start + 1 > cap:
            raise ValidationError(
                f"asks for {end - start + 1:,} blocks; the {self.table.plan_name} plan allows "
                f"at most {cap:,} per eth_getLogs call: split the range into several calls",
                param="filter.toBlock",
                rule="max-range",
            )

    def _estimate(
        self, rule: Rule, block: Any, head: int | None, drift: int, pricing: Any = None
    ) -> Estimate:
        """`PricingTable.estimate`, remembered: a pure function of the table (immutable, replaced
        whole when changed), the rule (immutable), the block, the head and the drift."""
        if pricing is None:
            pricing = self.table
        if type(block) not in _BLOCK_TYPES:
            return pricing.estimate(rule, block, head, drift=drift)
        key = (id(pricing), id(rule), block, head, drift)
        known = self._estimates.get(key)
        if known is not None and known[0] is pricing and known[1] is rule:
            return known[2]
        estimate = pricing.estimate(rule, block, head, drift=drift)
        if len(self._estimates) >= _MEMO_SIZE:
            self._estimates.clear()
        self._estimates[key] = (pricing, rule, estimate)
        return estimate


def _method_pricing(method: Any, pricing: PricingTable) -> tuple[Any, Rule, int | None, bool]:
    """What `Pricer.price_calls` reads once per method: the method, its rule in `pricing`, the
    position of the rule's block parameter in a JSON-RPC list of its params (None: found by
    `block_argument`), and whether the plan's eth_getLogs cap applies."""
    rule = pricing.rule_for(method.name, method.ru)
    position = None
    if type(rule) is ArchiveByBlock:
        where, names = rule.param, method.param_names
        position = names.index(where) if isinstance(where, str) and where in names else None
        if type(where) is int:
            position = where
    return method, rule, position, method.name == "eth_getLogs"


def _is_number(block: Any) -> bool:
    """Whether a block argument is a block number (priced against the head): an int, 0x hex
    that is not a block hash, or EIP-1898's ``{"blockNumber": ...}``."""
    kind = type(block)
    if kind is str:
        return block[:2] == "0x" and not is_block_hash(block)
    if kind is int:
        return True
    if kind is dict:
        return _is_number(block.get("blockNumber"))
    return isinstance(block, int) and not isinstance(block, bool)
