"""The call pipeline and the node clients.

A call is made once, by validation: `Node.prepare` binds it against the catalog (a bad call is a
`ValidationError` here, 0 RU) into a `PreparedCall`, which then goes down three named steps:

1. plan (`NodeCore.price`): the price with its reason, by the one pricing path (`Pricer`), using
   the chain head (`HeadTracker`) where the archive rule needs one; the transport reserves that
   price against the budget before each attempt.
2. protocol (`_protocol`): the HTTP request for the call's surface, and how to read the answer.
3. transport (`NodeCore.exchange`, the one exchange factory): attempts, retries, the rate limit,
   the call's total deadline, and billing by each attempt's fate.

`Node` drives the steps with `httpx.Client`, `AsyncNode` with an async client; the typed helpers
in `_chains` are written once for both. Workloads, widgets and provenance use only the public
`prepare`, `price`, `send`, `send_batch` and `answered_from_cache`, never `NodeCore`.
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, is_, itemgetter
from typing import TYPE_CHECKING, Any, cast

from .._errors import BudgetExceeded, GatewayError, MalformedResponse, ValidationError
from .._json import COMPACT_JSON
from .._redact import clip
from .._reprs import key_values_html
from ..catalog import (
    CATALOG,
    BoundCall,
    Chain,
    Estimate,
    Method,
    Pricer,
    PricingTable,
    Surface,
    chain_for,
    lookup,
)
from ._cache import MISS, Cacheable, ResponseCache, is_final
from ._heads import HeadTracker
from ._http import LazyModule, Transport
from ._identity import gateway_identity
from ._ledger import Entry, Meter
from ._network import async_transport, sync_transport
from ._protocol import (
    Interpret,
    batch_request,
    body_is_result,
    body_text,
    platform_request,
    read_platform,
    request_for,
    rpc_request,
    url_for,
)
from ._ratelimit import RateLimiter
from ._settings import Settings, Shared
from ._tape import TapeNode, transport_for
from ._transport import (
    CACHE_HIT,
    NOT_SENT,
    USER_AGENT,
    Advice,
    Endpoint,
    Exchange,
    HTTPRequest,
    Receipt,
    StillToSend,
    drive_async,
    drive_sync,
)

if TYPE_CHECKING:
    import asyncio

    import httpx
else:
    asyncio = LazyModule("asyncio", globals())
    httpx = LazyModule("httpx", globals())  # imported on first use: see `_http.LazyModule`

Steps = Generator[Any, Any, Any]
HEAD_NOTE = "chain head, fetched to price archive calls"
CACHE_HEAD_NOTE = "chain head, fetched to decide which answers are final (cacheable)"
CACHE_HIT_NOTE = "answered from the response cache"
ALONE_AFTER_REFUSAL = "sent alone: the node refused it in a larger JSON-RPC batch"
_HEADERS = {"User-Agent": USER_AGENT}


# slots: a bulk run makes one per call, and a slotted instance is quicker to make
# (bench/bench_records.py)
@dataclass(eq=False, slots=True)
class PreparedCall:
    """A call validated against the catalog for one node: the second of the four call wrappers.

    It adds to the catalog's `BoundCall` (method and wire arguments) the name of the node it is
    for and what the pipeline found: after `node.price(call)` its `estimate`, after
    `node.send(call)` its `receipt` (billed `ru`, `unconfirmed_ru`, how it ended).

    Made once, by validation: `node.prepare(...)`, the handle a user gets, and `prepare_many`
    (the node core's `prepare_batch` for a batch). Read by the node's pricing and send paths
    (`price`, `estimate`, `send`, the cache lookup), and carried by a workload's `PlannedCall`
    and a bulk run's `Item`."""

    node: str  # the node's name (never its URL)
    bound: BoundCall
    estimate: Estimate | None = None
    receipt: Receipt = NOT_SENT  # shared until a send gives the call its own

    @property
    def method(self) -> str:
        return self.bound.method.name

    @property
    def arguments(self) -> dict[str, Any]:
        """The validated arguments by parameter name, in wire form."""
        return self.bound.arguments

    @property
    def params(self) -> Any:
        """The wire params: a JSON-RPC list, or the REST body or query (a copy: the call's own
        are shared by every call made of the same arguments)."""
        return copy.deepcopy(self.bound.wire_params)

    def __repr__(self) -> str:
        return f"<PreparedCall {self.method} on {self.node}>"


@dataclass(frozen=True)
class NodeSpec:
    """What another process needs to open the same node (`toolkit.client.open_nodes`): its URL
    with the access key, its chain and its name. Picklable, for task payloads; the URL is in no
    repr."""

    url: str = field(repr=False)
    chain: str
    name: str


class NodeCore:
    """One node's address, chain and shared settings, and every step of a call that is not I/O.
    Private to the client layer: everything above uses `Node`'s public methods."""

    def __init__(
        self,
        url: str,
        chain: Chain,
        *,
        shared: Shared,
        name: str | None = None,
        headers: dict[str, str] | None = None,
        advice: tuple[Advice, ...] = (),
    ):
        self.endpoint = Endpoint(url, label=name or "", advice=advice)
        self.headers = {**_HEADERS, **(headers or {})}
        self.chain = chain
        self.shared = shared
        tape = shared.tape
        # Replayed answers are the recording's gateway's, whatever URL this handle was given:
        # a dataset's rows are then never taken for this URL's gateway's answers.
        answered_by = (
            url if tape is None else tape.answered_at(url, self.endpoint.label, chain.name)
        )
        self.gateway = gateway_identity(answered_by, chain.name)
        # None until a batch is tried; False once the node refused one (then calls go singly).
        self.accepts_batches: bool | None = None
        # The most calls a batch to this node holds, once it refused a larger one as too large
        # (a batch over it is sent in parts); None while no batch was refused so.
        self.max_batch: int | None = None
        self.heads = HeadTracker(
            lambda: shared.head_ttl_s,
            lambda: shared.timeout,
            chain.block_time_s,
            lambda: shared.meter.seconds(),  # read at each use: the gateway may set it later
            lambda: shared.meter.heads_held,
        )
        # Only EVM rules read the head: a number elsewhere is priced without one.
        self.pricer = Pricer(self, self.heads, by_head=chain.family == "evm")
        self._cacheables: dict[int, tuple[BoundCall, Cacheable | None]] = {}
        self._cacheables_cache: ResponseCache | None = None  # the cache they were worked out for

    @property
    def meter(self) -> Meter:
        return self.shared.meter

    @property
    def pricing(self) -> PricingTable:
        """The pricing table in force (the meter's: replaced whole when changed)."""
        return self.shared.meter.pricing

    @property
    def cache(self) -> ResponseCache | None:
        return self.shared.cache

    def _cache(self) -> ResponseCache:
        """The cache, for a step that runs only when a call was found cacheable (so one is set)."""
        return cast(ResponseCache, self.shared.cache)

    # --- plan: validation and price ---

    def prepare(self, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> PreparedCall:
        return PreparedCall(self.endpoint.label, self._served(name).bind(*args, **kwargs))

    def prepare_many(
        self, name: str, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]]
    ) -> list[PreparedCall]:
        """`prepare` for many calls of one method, given as ``(args, kwargs)`` pairs: the method
        is looked up once (a workload's grid is thousands of calls of one method)."""
        label = self.endpoint.label
        return [PreparedCall(label, bound) for bound in self._served(name).bind_many(calls)]

    def _served(self, name: str) -> Method:
        """The catalog method `name`, if this node's chain serves it."""
        method = CATALOG.get(name) if type(name) is str else None
        if method is None:
            method = lookup(name)  # a name that is not text is refused there, with a hint
        if self.chain.name not in method.chains:
            raise ValidationError(
                f"{method.name} is not served on {self.chain.name} nodes "
                f"(it is a {', '.join(method.chains)} method)",
                rule="chain",
                method=method.name,
                node=self.endpoint.label,
            )
        return method

    def prepare_batch(self, calls: Any) -> list[PreparedCall]:
        """``[("eth_getBalance", address, block), ...]`` as prepared calls."""
        if isinstance(calls, str | bytes) or not isinstance(calls, Iterable):
            raise ValidationError(
                "must be a list of (method, *params) tuples", param="calls", rule="type"
            )
        prepared = []
        for index, call in enumerate(calls):
            if isinstance(call, str | bytes) or not isinstance(call, Sequence) or not call:
                raise ValidationError(
                    f"item {index} must be a (method, *params) tuple, got {clip(repr(call), 60)}",
                    param="calls",
                    rule="type",
                )
            name, *args = call
            prepared.append(self.prepare(name, args, {}))
        return prepared

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

    # --- the chain head ---

    def head(self, note: str = HEAD_NOTE) -> Steps:
        """The chain head, a billed call recorded in the ledger as such: the chain's catalog head
        source (``eth_blockNumber`` on EVM chains, the latest block on TRON, the masterchain's
        last block on TON)."""
        source = self.chain.head
        if source is None:
            raise ValidationError(f"the head is not tracked for {self.chain.name}", rule="chain")
        call = PreparedCall(self.endpoint.label, lookup(source.method).bind(**source.arguments))
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

    # --- transport: the one exchange factory ---

    def exchange(
        self,
        request: HTTPRequest,
        interpret: Interpret,
        *,
        method: str,
        estimate: Estimate,
        receipt: Receipt | None = None,
        note: str = "",
        parts: tuple[tuple[str, int, int, bool | None], ...] = (),
        params: tuple[str, ...] = (),
        records_budget_refusal: bool = True,
    ) -> Exchange:
        return Exchange(
            endpoint=self.endpoint,
            meter=self.meter,
            policy=self.shared.retry,
            request=request,
            interpret=interpret,
            method=method,
            ru=estimate.ru,
            ru_likely=estimate.low,
            timeout_s=self.shared.timeout,
            max_answer_bytes=self.shared.settings.max_answer_bytes,
            archive=estimate.archive,
            note=note,
            limiter=self.shared.limiter,
            receipt=Receipt() if receipt is None else receipt,
            parts=parts,
            params=params,
            records_budget_refusal=records_budget_refusal,
        )

    # --- sending ---

    def send(self, call: PreparedCall, *, note: str = "", check_cache: bool = True) -> Steps:
        """Answer a prepared call: from the response cache when it holds it (0 RU), else over
        HTTP. `check_cache=False` is for a caller that just asked the cache."""
        call.receipt = Receipt()
        cacheable = self.cacheable(call.bound)
        if cacheable is not None and check_cache:
            found = self._cache().lookup([cacheable.key])
            if cacheable.key in found:
                self.record_cache_hit(call)
                return found[cacheable.key]
        estimate = self.pricer.price_call(call, fetch=True)
        if estimate is None:
            estimate = yield from self.price(call)
        request, interpret = request_for(call.bound, self.endpoint, self.chain, self.headers)
        exchange = self.exchange(
            request,
            interpret,
            method=call.method,
            estimate=estimate,
            receipt=call.receipt,
            note=note,
            params=(call.bound.wire_json,),
        )
        result = yield from exchange.run()
        source = self.chain.head
        if source is not None and source.matches(call.bound):  # any head fetch prices calls
            try:
                self.heads.saw(source.read(result))
            except ValueError as error:
                raise MalformedResponse(str(error)) from None
        if cacheable is not None:
            # A TRON answer's body is the result's JSON text already: kept as it is, the cache
            # need not encode the result again (that cost as much as decoding it).
            answer = exchange.answer
            known = answer is not None and body_is_result(call.bound.method, self.chain)
            text = body_text(answer) if answer is not None and known else None
            yield from self.remember([(cacheable, call.bound, result, text)])
        return result

    def call_raw(self, method: str, params: list[Any]) -> Steps:
        """A JSON-RPC method outside the catalog: no validation, priced by the table's rule for
        its name (an override or a pattern), through the same exchange as every call."""
        self._check_raw_call(method, params)
        estimate = yield from self.price_raw(method, params)
        url = self.endpoint.join(self.chain.rpc_path)
        request, interpret = rpc_request(url, method, params, self.headers)
        exchange = self.exchange(
            request, interpret, method=method, estimate=estimate, params=(_compact(params),)
        )
        return (yield from exchange.run())

    def _check_raw_call(self, method: Any, params: Any) -> None:
        if not isinstance(method, str) or not method:
            raise ValidationError("must be a JSON-RPC method name", param="method", rule="type")
        if self.chain.family not in ("evm", "solana"):
            raise ValidationError(
                f"call_raw sends JSON-RPC, which {self.chain.name} nodes serve only for the "
                "catalog's methods",
                rule="chain",
            )
        if not isinstance(params, list):
            raise ValidationError("params must be a list", param="params", rule="type")

    def follow(self, url: str, method: str, *, note: str = "") -> Steps:
        """GET a link the API gave (a page's `next`), only on the API's own origin."""
        own = httpx.URL(self.endpoint.url)
        try:
            link = httpx.URL(url)
        except (httpx.InvalidURL, UnicodeError):  # a bad port, a control character, a surrogate
            raise MalformedResponse(
                "the API linked to an address that is not a URL; not followed", method=method
            ) from None
        if (link.scheme, link.host, link.port) != (own.scheme, own.host, own.port):
            raise MalformedResponse(
                f"the API linked to another origin ({link.scheme}://{link.host}); not followed, "
                "so the API key is not sent there",
                method=method,
            )
        estimate = yield from self.price_raw(method, None)
        request = platform_request(url, self.headers)
        exchange = self.exchange(
            request, read_platform, method=method, estimate=estimate, note=note
        )
        return (yield from exchange.run())

    def send_batch(
        self,
        calls: Sequence[PreparedCall],
        *,
        return_exceptions: bool,
        check_cache: bool = True,
        records_budget_refusal: bool = True,
    ) -> Steps:
        """Many JSON-RPC calls as one batch request, billed as one call each. Calls the response
        cache holds are answered from it (0 RU) and left out of the request.
        `records_budget_refusal=False` is for a caller that sends the calls again one by one
        when the budget refuses the batch whole (see `Exchange.records_budget_refusal`)."""
        quiet = {"records_budget_refusal": records_budget_refusal}
        if not calls:
            return []
        methods = list(map(_METHOD_OF, calls))
        # A batch is nearly always of one method: its surface and path are read once then.
        shown = methods[:1] if all(map(is_, methods, repeat(methods[0]))) else methods
        surfaces = {method.surface for method in shown}
        paths = {method.path for method in shown}
        if surfaces != {Surface.JSONRPC} or len(paths) != 1:
            raise ValidationError(
                "a batch holds JSON-RPC calls to one endpoint only", param="calls", rule="batch"
            )
        for call in calls:
            call.receipt = Receipt()
        cacheables = self.cacheables(list(map(_BOUND_OF, calls)))
        if check_cache:
            results, unanswered = self.from_cache(calls, cacheables)
        else:
            results, unanswered = [None] * len(calls), list(range(len(calls)))
        if not unanswered:
            return results
        if len(unanswered) == len(calls):  # none answered from the cache: the batch as it is
            results = yield from self._send_batch(
                list(calls), return_exceptions=return_exceptions, **quiet
            )
        else:
            sent = yield from self._send_batch(
                [calls[i] for i in unanswered], return_exceptions=return_exceptions, **quiet
            )
            for index, result in zip(unanswered, sent, strict=True):
                results[index] = result
        if cacheables.count(None) == len(cacheables):  # nothing to cache (the cache is off)
            return results
        answers: list[tuple[Cacheable, BoundCall, Any, str | None]] = [
            (cacheable, calls[i].bound, results[i], None)
            for i in unanswered
            if (cacheable := cacheables[i]) is not None and not isinstance(results[i], GatewayError)
        ]
        if answers:
            yield from self.remember(answers)
        return results

    def _send_batch(
        self,
        calls: list[PreparedCall],
        *,
        return_exceptions: bool,
        records_budget_refusal: bool = True,
    ) -> Steps:
        """Send calls as one JSON-RPC batch request."""
        estimates, total = yield from self.price_batch(calls)
        url = url_for(self.endpoint, self.chain, calls[0].bound.method)
        bounds = list(map(_BOUND_OF, calls))
        method = bounds[0].method
        wire: list[tuple[str, Any, str | None]]
        if all(map(is_, map(_METHOD_OF_BOUND, bounds), repeat(method))):
            # One method (nearly every batch): its name and result kind read once. A batch
            # holds JSON-RPC calls only, whose `rpc_method` is the method's name.
            name, kind = method.name, method.result
            wire = [(name, params, kind) for params in map(_WIRE_PARAMS_OF, bounds)]
        else:
            wire = [(bound.rpc_method, bound.wire_params, bound.method.result) for bound in bounds]
        receipts = list(map(_RECEIPT_OF, calls))
        return (
            yield from self._exchange_batch(
                url,
                wire,
                estimates,
                total,
                receipts,
                return_exceptions=return_exceptions,
                params_texts=list(map(_WIRE_JSON_OF, bounds)),
                records_budget_refusal=records_budget_refusal,
            )
        )

    def call_raw_batch(self, calls: Sequence[tuple[str, list[Any]]]) -> Steps:
        """Many JSON-RPC calls as one batch request, methods of the catalog and others mixed
        (``w3.batch_requests()`` of `toolkit.web3`): a catalog method is validated, priced,
        answered from the cache and cached as `send_batch` does; any other goes as given,
        priced by the table's rule for its name as `call_raw` prices it. Every call is
        priced, and the whole batch budgeted, before anything is sent; the ledger gets one
        entry per call. The results come in order, a failed call as its `GatewayError`."""
        if not calls:
            return []
        items: list[PreparedCall | tuple[str, list[Any]]] = []
        for method, params in calls:
            self._check_raw_call(method, params)
            catalog = CATALOG.get(method)
            if catalog is not None and self.chain.name in catalog.chains:
                if catalog.surface is not Surface.JSONRPC or catalog.path:
                    raise ValidationError(
                        f"{method} is not sent to the JSON-RPC endpoint; it cannot join a batch",
                        param="calls",
                        rule="batch",
                    )
                items.append(self.prepare(method, params, {}))
            else:
                items.append((method, params))
        prepared = [(i, item) for i, item in enumerate(items) if isinstance(item, PreparedCall)]
        for _, call in prepared:
            call.receipt = Receipt()
        results: list[Any] = [None] * len(items)
        pending = [i for i, item in enumerate(items) if not isinstance(item, PreparedCall)]
        cacheables = {i: self.cacheable(call.bound) for i, call in prepared}
        if prepared:
            answered, unanswered = self.from_cache(
                [call for _, call in prepared], [cacheables[i] for i, _ in prepared]
            )
            missed = {prepared[k][0] for k in unanswered}
            for (index, _), answer in zip(prepared, answered, strict=True):
                if index not in missed:
                    results[index] = answer
            pending = sorted([*pending, *missed])
        if not pending:
            return results
        to_send = [items[i] for i in pending]
        priced = [item for item in to_send if isinstance(item, PreparedCall)]
        by_catalog = iter((yield from self.price_batch(priced))[0] if priced else ())
        estimates: list[Estimate] = []
        wire: list[tuple[str, Any, str | None]] = []
        receipts: list[Receipt] = []
        for item in to_send:
            if isinstance(item, PreparedCall):
                estimates.append(next(by_catalog))
                bound = item.bound
                wire.append((bound.rpc_method, bound.wire_params, bound.method.result))
                receipts.append(item.receipt)
            else:
                method, params = item
                estimates.append((yield from self.price_raw(method, params)))
                wire.append((method, params, None))
                receipts.append(Receipt())
        total = Pricer.total(estimates, f"a batch of {len(to_send)}")
        url = self.endpoint.join(self.chain.rpc_path)
        sent = yield from self._exchange_batch(
            url, wire, estimates, total, receipts, return_exceptions=True
        )
        for index, result in zip(pending, sent, strict=True):
            results[index] = result
        by_index = dict(prepared)
        answers: list[tuple[Cacheable, BoundCall, Any, str | None]] = [
            (cacheable, by_index[i].bound, results[i], None)
            for i in pending
            if (cacheable := cacheables.get(i)) is not None
            and not isinstance(results[i], GatewayError)
        ]
        if answers:
            yield from self.remember(answers)
        return results

    def _exchange_batch(
        self,
        url: str,
        wire: list[tuple[str, Any, str | None]],
        estimates: list[Estimate],
        total: Estimate,
        receipts: list[Receipt],
        *,
        return_exceptions: bool,
        params_texts: list[str] | None = None,
        records_budget_refusal: bool = True,
    ) -> Steps:
        """One batch request through the exchange, billed as one call each (each call's
        receipt set). A refusal (see `BatchRefused`) is not retried; it marks the node as one
        that takes no batches (`accepts_batches`), unless it refused the batch as too large:
        then the calls go again in smaller batches (`_exchange_in_parts`), the refused one
        billed as the gateway bills every request it receives. Recording on from a recording
        that died (`Tape.resumed`), the tape answers the calls it holds (0 RU, as a replay) and
        the others go next, on their own (`_send_still_to_send`)."""
        from .._errors import BatchRefused

        def in_parts() -> Steps:  # the calls in smaller batches: over the node's size, or refused
            return self._exchange_in_parts(
                url,
                wire,
                estimates,
                receipts,
                return_exceptions,
                params_texts,
                records_budget_refusal,
            )

        if self.max_batch is not None and len(wire) > self.max_batch:
            return (yield from in_parts())
        tape = self.shared.tape
        resumed = tape is not None and tape.resumed
        request, interpret = batch_request(
            wire,
            url,
            self.headers,
            # Each call's own result, a call the tape lacks included (`StillToSend`), to send
            # those, then raise the first error if the caller wants it raised.
            return_exceptions=return_exceptions or resumed,
            node=self.endpoint.label,
            params_texts=params_texts,
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
            params=tuple(params_texts or (_compact(params) for _, params, _ in wire)),
            records_budget_refusal=records_budget_refusal,
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
            for receipt, estimate in zip(receipts, estimates, strict=True):
                billed, unconfirmed = costs[id(estimate)]
                receipt.ru += billed
                receipt.unconfirmed_ru += unconfirmed
                receipt.answered += answered
                receipt.status = status
        if too_large:  # sent again in parts
            return (yield from in_parts())
        self.accepts_batches = True
        if resumed:
            return (
                yield from self._send_still_to_send(
                    url,
                    wire,
                    estimates,
                    receipts,
                    results,
                    return_exceptions,
                    params_texts,
                    records_budget_refusal,
                )
            )
        return results

    def _send_still_to_send(
        self,
        url: str,
        wire: list[tuple[str, Any, str | None]],
        estimates: list[Estimate],
        receipts: list[Receipt],
        results: list[Any],
        return_exceptions: bool,
        params_texts: list[str] | None,
        records_budget_refusal: bool,
    ) -> Steps:
        """A batch's results once a resumed recording's tape has answered the calls it holds:
        the others (`StillToSend`) sent now, as a smaller batch or alone when one, billed,
        entered in the ledger and recorded as such, so a run again in batches never pays twice
        for what the tape kept. Without `return_exceptions`, an answered call's error is
        raised first, as the whole batch's would have been."""
        lacking = [i for i, result in enumerate(results) if isinstance(result, StillToSend)]
        if not return_exceptions:
            for result in results:
                if isinstance(result, GatewayError) and not isinstance(result, StillToSend):
                    raise result
        if not lacking:
            return results
        sent = yield from self._exchange_in_parts(
            url,
            [wire[i] for i in lacking],
            [estimates[i] for i in lacking],
            [receipts[i] for i in lacking],
            return_exceptions,
            None if params_texts is None else [params_texts[i] for i in lacking],
            records_budget_refusal,
            alone="sent alone: the tape answered the rest of its JSON-RPC batch",
        )
        for index, result in zip(lacking, sent, strict=True):
            results[index] = result
        return results

    def _exchange_in_parts(
        self,
        url: str,
        wire: list[tuple[str, Any, str | None]],
        estimates: list[Estimate],
        receipts: list[Receipt],
        return_exceptions: bool,
        params_texts: list[str] | None,
        records_budget_refusal: bool,
        alone: str = ALONE_AFTER_REFUSAL,
    ) -> Steps:
        """A batch's calls in batches of at most `max_batch` (read again before each part: a
        part refused as too large lowers it), a part of one sent as a plain call (its ledger
        note: `alone`). With
        `return_exceptions`, a part that fails whole after an earlier part was answered gives
        its error to each call not answered, so the answers already paid for are kept; the
        first part's failure is raised, as one batch's would be."""
        results: list[Any] = []
        start = 0
        while start < len(wire):
            size = self.max_batch or len(wire)
            end = min(start + size, len(wire))
            try:
                if end - start == 1:
                    results.append(
                        (
                            yield from self._exchange_alone(
                                url,
                                wire[start],
                                estimates[start],
                                receipts[start],
                                return_exceptions,
                                None if params_texts is None else params_texts[start],
                                records_budget_refusal,
                                alone,
                            )
                        )
                    )
                else:
                    part = estimates[start:end]
                    results.extend(
                        (
                            yield from self._exchange_batch(
                                url,
                                wire[start:end],
                                part,
                                Pricer.total(part, f"a batch of {end - start}"),
                                receipts[start:end],
                                return_exceptions=return_exceptions,
                                params_texts=None
                                if params_texts is None
                                else params_texts[start:end],
                                records_budget_refusal=records_budget_refusal,
                            )
                        )
                    )
            except GatewayError as error:
                if not return_exceptions or not results:
                    raise
                error.node = self.endpoint.label
                results.extend([error] * (len(wire) - start))
                return results
            start = end
        return results

    def _exchange_alone(
        self,
        url: str,
        call: tuple[str, Any, str | None],
        estimate: Estimate,
        receipt: Receipt,
        return_exceptions: bool,
        params_text: str | None,
        records_budget_refusal: bool,
        note: str = ALONE_AFTER_REFUSAL,
    ) -> Steps:
        """One call of a batch sent as a plain JSON-RPC request (its receipt adds the cost)."""
        method, params, kind = call
        request, interpret = rpc_request(url, method, params, self.headers, kind)
        exchange = self.exchange(
            request,
            interpret,
            method=method,
            estimate=estimate,
            receipt=receipt,
            note=note,
            params=(_compact(params) if params_text is None else params_text,),
            records_budget_refusal=records_budget_refusal,
        )
        try:
            return (yield from exchange.run())
        except GatewayError as error:
            if not return_exceptions or isinstance(error, BudgetExceeded):
                raise
            return error

    # --- the response cache ---

    def cacheable(self, bound: BoundCall) -> Cacheable | None:
        """The call's cache key when a cache is set and the call's answer could be cached."""
        cache = self.shared.cache
        if cache is None:
            return None
        # A bulk run asks several times per call (preview, cache pass, batch): compute once.
        known = self._cacheables_for(cache).get(id(bound))
        if known is not None:
            return known[1]
        cacheable = cache.cacheable(self.endpoint.url, self.chain.name, bound)
        if len(self._cacheables) >= 100_000:
            self._cacheables.clear()
        # Keyed by id: the entry holds the call, so no other object takes its id meanwhile.
        self._cacheables[id(bound)] = (bound, cacheable)
        return cacheable

    def cacheables(self, bounds: Sequence[BoundCall]) -> list[Cacheable | None]:
        """`cacheable` for many calls (a bulk run's cache pass), the known ones found in one
        pass without a call for each."""
        cache = self.shared.cache
        if cache is None:
            return [None] * len(bounds)
        known = list(map(self._cacheables_for(cache).get, map(id, bounds)))
        if None in known:
            return [self.cacheable(bound) for bound in bounds]
        return list(map(_SECOND, known))

    def _cacheables_for(self, cache: ResponseCache) -> dict[int, tuple[BoundCall, Any]]:
        """The keys worked out for `cache`: forgotten when the settings change the cache."""
        if self._cacheables_cache is not cache:
            self._cacheables.clear()
            self._cacheables_cache = cache
        return self._cacheables

    def in_cache(self, calls: Sequence[PreparedCall]) -> list[bool]:
        """Which calls the cache answers now (for previews: not counted as hits)."""
        keys = self.cacheables([call.bound for call in calls])
        held = self.cache.contains([k.key for k in keys if k is not None]) if self.cache else set()
        return [k is not None and k.key in held for k in keys]

    def from_cache(
        self, calls: Sequence[PreparedCall], cacheables: Sequence[Cacheable | None]
    ) -> tuple[list[Any], list[int]]:
        """The answers the cache holds (each recorded as a 0 RU hit), and the positions of the
        calls it does not answer (their results are None)."""
        if None in cacheables:  # no cache, or calls whose answers are never cached: misses
            known = [i for i, cacheable in enumerate(cacheables) if cacheable is not None]
            results: list[Any] = [MISS] * len(calls)
            if known:
                keys = [cacheable.key for cacheable in cacheables if cacheable is not None]
                answers = self._cache().answers(keys)
                for index, answer in zip(known, answers, strict=True):
                    results[index] = answer
        else:
            results = self._cache().answers(list(map(_KEY_OF, cacheables)))
        if MISS not in results:  # every call answered (a re-run): no position to sort out
            self.record_cache_hits(calls)
            return results, []
        unanswered = [index for index, result in enumerate(results) if result is MISS]
        missed = set(unanswered)
        self.record_cache_hits([call for i, call in enumerate(calls) if i not in missed])
        for index in unanswered:
            results[index] = None
        return results, unanswered

    def record_cache_hit(self, call: PreparedCall) -> None:
        self.record_cache_hits([call])

    def record_cache_hits(self, calls: Sequence[PreparedCall]) -> None:
        """One ledger entry per call answered from the cache (0 RU), written in one go."""
        if not calls:
            return  # nothing to write, and no ledger display to wake
        now = self.meter.clock()
        label = self.endpoint.label
        make = Entry._make
        # Every field but `params` (the last) is the same for a method's hits: made once each.
        heads = {
            name: Entry(now, label, name, 0, 0.0, "ok", cache_hit=True, note=CACHE_HIT_NOTE)[:-1]
            for name in set(map(_METHOD_NAME_OF, calls))
        }
        params = map(_WIRE_JSON_OF, map(_BOUND_OF, calls))
        if len(heads) == 1:
            head = next(iter(heads.values()))
            recorded = [make((*head, text)) for text in params]
        else:
            names = map(_METHOD_NAME_OF, calls)
            recorded = [
                make((*heads[name], text)) for name, text in zip(names, params, strict=True)
            ]
        for call in calls:
            call.receipt = CACHE_HIT
        self.meter.ledger.record_many(recorded)

    def record_not_sent(self, calls: Sequence[PreparedCall], status: str, note: str) -> None:
        """One 0 RU ledger entry per call never sent (see `Node.record_not_sent`)."""
        if not calls:
            return
        now, label, note = self.meter.clock(), self.endpoint.label, clip(note, 300)
        self.meter.ledger.record_many(
            [
                Entry(now, label, call.method, 0, 0.0, status, note=note, params=wire)
                for call, wire in zip(calls, map(_WIRE_JSON_OF, map(_BOUND_OF, calls)), strict=True)
            ]
        )

    def remember(self, answers: list[tuple[Cacheable, BoundCall, Any, str | None]]) -> Steps:
        """Store the answers that are final now (see `_cache` for the policy), each given with
        its result's JSON text when known (else None: the cache encodes the result)."""
        pinned = [answer[0].block for answer in answers if answer[0].block is not None]
        head = (yield from self.head_for_finality(max(pinned))) if pinned else None
        depth = self.chain.finality_depth

        def final(block: int | None) -> bool:
            return block is None or (head is not None and is_final(block, head, depth))

        self._cache().store(
            (cacheable.key, self.endpoint.label, bound.method.name, result, text)
            for cacheable, bound, result, text in answers
            if final(cacheable.block)
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


_BOUND_OF = attrgetter("bound")
_METHOD_OF_BOUND = attrgetter("method")
_WIRE_PARAMS_OF = attrgetter("wire_params")
_METHOD_OF = attrgetter("bound.method")
_RECEIPT_OF = attrgetter("receipt")
_WIRE_JSON_OF = attrgetter("wire_json")
_METHOD_NAME_OF = attrgetter("bound.method.name")
_FIRST: Callable[[Any], Any] = itemgetter(0)
_SECOND: Callable[[Any], Any] = itemgetter(1)
_KEY_OF = attrgetter("key")


def _compact(params: Any) -> str:
    """Params outside the catalog's binding as compact JSON (the ledger's `params`)."""
    try:
        return COMPACT_JSON.encode(params)
    except (TypeError, ValueError):  # not JSON: the request itself will say so
        return repr(params)


def _catalog_method(name: str) -> Method | None:
    try:
        return lookup(name)
    except ValidationError:
        return None


# --- the two flavours -------------------------------------------------------------------------


class _BaseNode:
    """What both flavours share: identity, the catalog view, the planning step (no I/O), and no
    key in any repr."""

    def __init__(self, core: NodeCore):
        self._core = core

    @property
    def name(self) -> str:
        return self._core.endpoint.label

    @property
    def chain(self) -> Chain:
        return self._core.chain

    @property
    def settings(self) -> Settings:
        return self._core.shared.settings

    @property
    def meter(self) -> Meter:
        return self._core.meter

    @property
    def ledger(self):
        return self._core.meter.ledger

    @property
    def methods(self) -> tuple[Method, ...]:
        """The catalog methods this node's chain serves."""
        return self._core.chain.methods

    @property
    def last_head(self) -> int | None:
        """The last chain head this client saw, however old (None if it never fetched one)."""
        return self._core.heads.last

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache this client shares (None when off)."""
        return self._core.cache

    @property
    def rate_limiter(self) -> RateLimiter | None:
        """The rate limiter this client shares (None when off)."""
        return self._core.shared.limiter

    def forget_head(self) -> None:
        """Forget the chain head this client saw: the next call that needs one fetches it."""
        self._core.heads.forget()

    @property
    def accepts_batches(self) -> bool | None:
        """None until a JSON-RPC batch was tried; False once the node refused one."""
        return self._core.accepts_batches

    @property
    def max_batch(self) -> int | None:
        """The most calls this client puts in one JSON-RPC batch to the node, learned when the
        node refused a larger batch as too large (a larger batch goes in parts); None while it
        refused none so."""
        return self._core.max_batch

    def prepare(self, name: str, *args: Any, **kwargs: Any) -> PreparedCall:
        """Validate a call against the catalog (a `ValidationError` here costs 0 RU), ready to
        price (`price`) and send (`send`) once or many times."""
        return self._core.prepare(name, args, kwargs)

    def prepare_many(
        self, name: str, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]]
    ) -> list[PreparedCall]:
        """`prepare` for many calls of one method, each given as an ``(args, kwargs)`` pair:
        ``node.prepare_many("eth_getBalance", [((address, block), {}) for ...])``. The first
        invalid call raises, naming its parameter and rule."""
        return self._core.prepare_many(name, calls)

    @property
    def gateway(self) -> str:
        """The identity of the gateway this node is reached through (a digest of its host and
        chain, never its key or port): with the node's name, method and params, a call's
        identity for the response cache and datasets. Replaying a tape, the gateway the tape
        recorded this node at."""
        return self._core.gateway

    def record_not_sent(self, calls: Sequence[PreparedCall], error: BaseException) -> None:
        """One ledger entry per call that a caller decided not to send for `error` (a bulk run
        that the budget stopped): 0 RU, its status the error's name, its note the error."""
        self._core.record_not_sent(calls, type(error).__name__, str(error))

    def spec(self) -> NodeSpec:
        """This node as another process opens it (a worker of a distributed run)."""
        return NodeSpec(self._core.endpoint.url, self._core.chain.name, self.name)

    def needs_head(self, call: PreparedCall, *, for_cache: bool = False) -> bool:
        """Whether pricing `call` needs the chain head (an archive rule on a block number); with
        `for_cache`, also whether storing its answer does (an answer pinned to a block)."""
        if self._core.pricer.call_needs_head(call):
            return True
        cacheable = self._core.cacheable(call.bound) if for_cache else None
        return cacheable is not None and cacheable.block is not None

    def in_cache(self, calls: Sequence[PreparedCall]) -> list[bool]:
        """Which of `calls` the response cache answers now, at 0 RU (asks nothing of the node)."""
        return self._core.in_cache(calls)

    def price_known(self, calls: Iterable[PreparedCall]) -> list[Estimate]:
        """Price calls with the head this client knows, fetching nothing: ``price(call,
        fetch_head=False)`` for each (without a head, an archive-rule call is priced as a
        range); each call carries its `estimate` after."""
        # Without fetching, every call gets an estimate (a range where the head is unknown).
        return cast("list[Estimate]", self._core.pricer.price_calls(calls, fetch=False))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} chain={self.chain.name}>"

    def _repr_html_(self) -> str:
        head = self.last_head
        rows = [
            ("chain", self.chain.name),
            ("last head seen", f"{head:,}" if head is not None else "not fetched yet"),
        ]
        return key_values_html(f"{type(self).__name__} {self.name}", rows)


class Node(_BaseNode):
    """A blocking client for one node. Safe inside a running event loop (Jupyter): it never
    touches the loop. `node.aio` is the async twin, sharing the meter and settings."""

    aio_class: type[AsyncNode]  # set below, and by each chain's node class

    def __init__(self, core: NodeCore):
        super().__init__(core)
        self._transport: Transport | None = None
        self._lock = threading.Lock()
        self._aio: AsyncNode | None = None

    def _http(self) -> Transport:
        if self._transport is None:
            with self._lock:
                if self._transport is None:
                    core = self._core
                    transport = _transport_of(
                        core,
                        lambda: sync_transport(
                            core.endpoint.url,
                            core.shared.timeout,
                            trust_env=core.shared.settings.trust_env,
                        ),
                    )
                    # A transport dropped without `close()` (a notebook cell run again) closes
                    # its pooled sockets when collected, not at exit with a ResourceWarning each.
                    self._closer = weakref.finalize(self, transport.close)
                    self._transport = transport
        return self._transport

    def _run(self, steps: Steps) -> Any:
        return drive_sync(self._http(), steps)

    def _request(self, name: str, args: Sequence[Any], kwargs: dict[str, Any], convert=None):
        result = self.send(self._core.prepare(name, args, kwargs))
        return convert(result) if convert else result

    def send(self, call: PreparedCall) -> Any:
        """Send a prepared call (or answer it from the cache); its `receipt` says what it cost."""
        return self._run(self._core.send(call))

    def price(self, call: PreparedCall, *, fetch_head: bool = True) -> Estimate:
        """What a prepared call will cost, with the reason; fetching the head costs 1 RU."""
        return self._run(self._core.price(call, fetch=fetch_head))

    def send_batch(
        self, calls: Sequence[PreparedCall], *, return_exceptions: bool = False
    ) -> list[Any]:
        """Send prepared JSON-RPC calls as one batch (billed as one call each)."""
        return self._run(self._core.send_batch(calls, return_exceptions=return_exceptions))

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call any catalog method by its exact spec name; returns the raw JSON result."""
        return self._request(name, args, kwargs)

    def call_raw(self, method: str, params: list[Any] | None = None) -> Any:
        """A JSON-RPC method outside the spec: unvalidated, priced by the pricing table's rule
        for its name, rate-limited and budgeted like every call."""
        return self._run(self._core.call_raw(method, [] if params is None else params))

    def batch(self, calls: Iterable[Sequence[Any]], *, return_exceptions: bool = False) -> list:
        """Send JSON-RPC calls as one batch: ``[("eth_getBalance", address, "latest"), ...]``.

        Each call is validated first; the batch is billed as one call each. With
        `return_exceptions`, a failed item is its exception in the result list.
        """
        prepared = self._core.prepare_batch(calls)
        return self.send_batch(prepared, return_exceptions=return_exceptions)

    def estimate(self, name: str, *args: Any, fetch_head: bool = True, **kwargs: Any) -> Estimate:
        """What a call would cost, with the reason; fetching the head costs 1 RU (in the ledger)."""
        return self.price(self._core.prepare(name, args, kwargs), fetch_head=fetch_head)

    def head(self) -> int:
        """The chain head, from the cache when fresh."""
        return self._core.heads.fresh() or self._run(self._core.head())

    @property
    def aio(self) -> AsyncNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        if self._aio is None:
            self._aio = self.aio_class(self._core)
        return self._aio

    def close(self) -> None:
        if self._transport is not None:
            self._closer.detach()
            self._transport.close()
            self._transport = None
        if self._core.shared.tape is not None:
            self._core.shared.tape.close()  # a recording is kept whole when its client closes

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncNode(_BaseNode):
    """An async client for one node: ``await node.get_balance(...)``. Works from any event loop
    (an HTTP client is kept per loop), including a notebook's top-level await.

    It sends with aiohttp when installed (`async_transport="auto"`: the fastest async stack
    measured, see the Benchmarks guide), or with `httpx.AsyncClient` (`async_transport="httpx"`).
    """

    def __init__(self, core: NodeCore):
        super().__init__(core)
        # Keyed by loop, not weakly: an aiohttp session holds its loop, so a weak key never dies.
        self._transports: dict[asyncio.AbstractEventLoop, Transport] = {}

    def _http(self) -> Transport:
        loop = asyncio.get_running_loop()
        transport = self._transports.get(loop)
        if transport is None:
            self._forget_closed_loops()
            settings, url = self._core.shared.settings, self._core.endpoint.url
            transport = self._transports[loop] = _transport_of(
                self._core,
                lambda: async_transport(
                    settings.async_transport, url, settings.timeout, trust_env=settings.trust_env
                ),
            )
        return transport

    def _forget_closed_loops(self) -> None:
        for loop in [loop for loop in self._transports if loop.is_closed()]:
            abandon = getattr(self._transports.pop(loop), "abandon", None)
            if abandon is not None:  # a transport with a session on that loop
                abandon()

    async def _run(self, steps: Steps) -> Any:
        return await drive_async(self._http(), steps)

    async def _request(self, name: str, args: Sequence[Any], kwargs: dict[str, Any], convert=None):
        result = await self.send(self._core.prepare(name, args, kwargs))
        return convert(result) if convert else result

    async def send(self, call: PreparedCall, *, check_cache: bool = True) -> Any:
        """Send a prepared call; see `Node.send`. `check_cache=False` when the caller has just
        asked the cache for it (`answered_from_cache`)."""
        return await drive_async(self._http(), self._core.send(call, check_cache=check_cache))

    async def price(self, call: PreparedCall, *, fetch_head: bool = True) -> Estimate:
        return await self._run(self._core.price(call, fetch=fetch_head))

    async def send_batch(
        self,
        calls: Sequence[PreparedCall],
        *,
        return_exceptions: bool = False,
        check_cache: bool = True,
        records_budget_refusal: bool = True,
    ) -> list[Any]:
        steps = self._core.send_batch(
            calls,
            return_exceptions=return_exceptions,
            check_cache=check_cache,
            records_budget_refusal=records_budget_refusal,
        )
        return await self._run(steps)

    def answered_from_cache(self, calls: Sequence[PreparedCall]) -> tuple[list[Any], list[int]]:
        """Answer what the cache holds (each a 0 RU hit, with a receipt that says so): the
        results (None for a call not answered) and the positions of the calls not answered."""
        core = self._core
        if core.cache is None:
            return [None] * len(calls), list(range(len(calls)))
        return core.from_cache(calls, core.cacheables(list(map(_BOUND_OF, calls))))

    async def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call any catalog method by its exact spec name; returns the raw JSON result."""
        return await self._request(name, args, kwargs)

    async def call_raw(self, method: str, params: list[Any] | None = None) -> Any:
        """A JSON-RPC method outside the spec; see `Node.call_raw`."""
        return await self._run(self._core.call_raw(method, [] if params is None else params))

    async def batch(
        self, calls: Iterable[Sequence[Any]], *, return_exceptions: bool = False
    ) -> list:
        """Send JSON-RPC calls as one batch; see `Node.batch`."""
        prepared = self._core.prepare_batch(calls)
        return await self.send_batch(prepared, return_exceptions=return_exceptions)

    async def estimate(
        self, name: str, *args: Any, fetch_head: bool = True, **kwargs: Any
    ) -> Estimate:
        """What a call would cost, with the reason; see `Node.estimate`."""
        return await self.price(self._core.prepare(name, args, kwargs), fetch_head=fetch_head)

    async def head(self) -> int:
        return self._core.heads.fresh() or await self._run(self._core.head())

    async def aclose(self) -> None:
        """Close this loop's transport (those of other, still running loops stay theirs)."""
        transport = self._transports.pop(asyncio.get_running_loop(), None)
        if transport is not None:
            await transport.aclose()
        self._forget_closed_loops()
        if self._core.shared.tape is not None:
            self._core.shared.tape.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


Node.aio_class = AsyncNode


def _transport_of(core: NodeCore, network: Callable[[], Transport]) -> Transport:
    """The transport of `core`'s calls: the network's (`network()`), or its tape's."""
    meter = core.meter
    node = TapeNode(
        core.endpoint.label,
        core.chain.name,
        core.endpoint.url,
        lambda: meter.pricing,
        lambda: meter.clock(),  # read at each answer: the gateway may set its clock later
    )
    return transport_for(core.shared.tape, network, node)


def resolve_chain(chain: str | Chain | None, url: str, name: str | None) -> Chain:
    """The chain from an explicit value, else from the node name, else from the URL's host."""
    if isinstance(chain, Chain):
        return chain
    for label in filter(None, (chain, name, httpx.URL(url).host)):
        try:
            return chain_for(label)
        except ValidationError:
            if label is chain:
                raise
    raise ValidationError(
        "cannot tell the chain from the node's name or host; pass chain='ethereum' (or "
        "arbitrum, polygon, hyperliquid, solana, tron, ton)",
        param="chain",
        rule="chain",
    )
