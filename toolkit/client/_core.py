"""The call pipeline: one node's calls, every step of them but the I/O (`NodeCore`).

A call is made once, by validation: `Node.prepare` binds it against the catalog (a bad call is a
`ValidationError` here, 0 RU) into a `PreparedCall`, which then goes down three named steps:

1. plan (`_planning.Planner`): the price with its reason, by the one pricing path (`Pricer`),
   using the chain head (`HeadTracker`) where the archive rule needs one; the transport reserves
   that price against the budget before each attempt.
2. protocol (`_protocol`): the HTTP request for the call's surface, and how to read the answer.
3. transport (`NodeCore.exchange`, the one exchange factory): attempts, retries, the rate limit,
   the call's total deadline, and billing by each attempt's fate.

A call, alone or in a batch (`send`, `send_batch`, `call_raw_batch`), goes one way: through the
response cache (`_cache_step.CacheStep.around`: its answers, then the others sent, then what may
be kept kept), then priced and sent alone or as one JSON-RPC batch (`_batch.Batches`).

`Node` and `AsyncNode` (`_node`) drive the steps with a transport, blocking or async. Workloads,
widgets and provenance use only their public `prepare`, `price`, `send`, `send_batch` and
`answered_from_cache`, never `NodeCore`.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

from .._errors import MalformedResponse, ValidationError
from .._json import COMPACT_JSON
from .._redact import clip
from ..catalog import (
    CATALOG,
    Chain,
    Estimate,
    Method,
    Pricer,
    PricingTable,
    Surface,
    lookup,
)
from ._batch import Batch, Batches
from ._cache import ResponseCache
from ._cache_step import CacheStep
from ._heads import HeadTracker
from ._http import LazyModule
from ._identity import gateway_identity
from ._ledger import Entry, Meter
from ._planning import Planner
from ._prepared import PreparedCall
from ._protocol import (
    Interpret,
    body_is_result,
    body_text,
    platform_request,
    read_platform,
    request_for,
    rpc_request,
    url_for,
)
from ._settings import Shared
from ._transport import (
    USER_AGENT,
    Advice,
    Endpoint,
    Exchange,
    HTTPRequest,
    Receipt,
)

if TYPE_CHECKING:
    import httpx
else:
    httpx = LazyModule("httpx", globals())  # imported on first use: see `_http.LazyModule`

Steps = Generator[Any, Any, Any]
_HEADERS = {"User-Agent": USER_AGENT}


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
        self.heads = HeadTracker(
            lambda: shared.head_ttl_s,
            lambda: shared.timeout,
            chain.block_time_s,
            lambda: shared.meter.seconds(),  # read at each use: the gateway may set it later
            lambda: shared.meter.heads_held,
        )
        # Only EVM rules read the head: a number elsewhere is priced without one.
        self.pricer = Pricer(self, self.heads, by_head=chain.family == "evm")
        planner = Planner(self.pricer, self.heads, chain, self.endpoint.label, self.send)
        self.price, self.price_raw = planner.price, planner.price_raw
        self.price_batch, self.head = planner.price_batch, planner.head
        self.head_for_finality = planner.head_for_finality
        self.batches = Batches(shared, self.endpoint.label, self.headers, self.exchange)
        self.cached = CacheStep(
            shared, self.gateway, self.endpoint.label, chain.finality_depth, self.head_for_finality
        )

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
            limiter=self.shared.limiter_for(self.endpoint.label),
            receipt=Receipt() if receipt is None else receipt,
            parts=parts,
            params=params,
            records_budget_refusal=records_budget_refusal,
        )

    # --- sending ---

    def send(self, call: PreparedCall, *, note: str = "", check_cache: bool = True) -> Steps:
        """Answer a prepared call: from the response cache when it holds it (0 RU), else over
        HTTP. `check_cache=False` is for a caller that just asked the cache."""

        def send_one(_: list[int] | None) -> Steps:
            result, text = yield from self._exchange_one(call, note)
            return [result], (text,)

        return (yield from self.cached.around([call], send_one, check_cache=check_cache))[0]

    def _exchange_one(self, call: PreparedCall, note: str) -> Steps:
        """A call over HTTP: its result, and the result's JSON text when the body is it."""
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
            params=(call.bound.params_json,),
        )
        result = yield from exchange.run()
        source = self.chain.head
        if source is not None and source.matches(call.bound):  # any head fetch prices calls
            try:
                self.heads.saw(source.read(result))
            except ValueError as error:
                raise MalformedResponse(str(error)) from None
        # A TRON answer's body is the result's JSON text already: kept as it is, the cache
        # need not encode the result again (that cost as much as decoding it).
        answer = exchange.answer
        known = answer is not None and body_is_result(call.bound.method, self.chain)
        return result, body_text(answer) if answer is not None and known else None

    def call_raw(self, method: str, params: list[Any]) -> Steps:
        """A JSON-RPC method outside the catalog: no validation, priced by the table's rule for
        its name (an override or a pattern), through the same exchange as every call."""
        _check_raw_call(self.chain, method, params)
        estimate = yield from self.price_raw(method, params)
        url = self.endpoint.join(self.chain.rpc_path)
        request, interpret = rpc_request(url, method, params, self.headers)
        exchange = self.exchange(
            request, interpret, method=method, estimate=estimate, params=(compact(params),)
        )
        return (yield from exchange.run())

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
        url = url_for(self.endpoint, self.chain, methods[0])
        return (
            yield from self._send_through_cache(
                calls, url, check_cache, return_exceptions, records_budget_refusal
            )
        )

    def call_raw_batch(self, calls: Sequence[tuple[str, list[Any]]]) -> Steps:
        """Many JSON-RPC calls as one batch request, methods of the catalog and others mixed
        (``w3.batch_requests()`` of `toolkit.web3`): a catalog method is validated, priced,
        answered from the cache and cached as `send_batch` does; any other goes as given,
        priced by the table's rule for its name as `call_raw` prices it. Every call is
        priced, and the whole batch budgeted, before anything is sent; the ledger gets one
        entry per call. The results come in order, a failed call as its `GatewayError`."""
        items: list[PreparedCall | tuple[str, list[Any]]] = []
        for method, params in calls:
            _check_raw_call(self.chain, method, params)
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
        if not items:
            return []
        url = self.endpoint.join(self.chain.rpc_path)
        return (yield from self._send_through_cache(items, url, True, True, True))

    def _send_through_cache(
        self,
        items: Sequence[PreparedCall | tuple[str, list[Any]]],
        url: str,
        check_cache: bool,
        return_exceptions: bool,
        records_budget_refusal: bool,
    ) -> Steps:
        """A batch's way: the cache's answers, then one JSON-RPC batch of the others."""

        def send_rest(positions: list[int] | None) -> Steps:
            chosen = list(items) if positions is None else [items[i] for i in positions]
            estimates, total, wire, receipts, texts = yield from self._batch_plan(chosen)
            batch = Batch(
                url, wire, estimates, receipts, texts, return_exceptions, records_budget_refusal
            )
            return (yield from self.batches.send(batch, total)), None  # the cache encodes them

        prepared = _prepared(items)
        return (yield from self.cached.around(prepared, send_rest, check_cache=check_cache))

    def _batch_plan(self, items: list[PreparedCall | tuple[str, list[Any]]]) -> Steps:
        """Each call of a batch priced (the head fetched once, when one needs it), their total,
        and what the request carries of each: (method, params, result kind), its receipt and
        its params as the ledger writes them."""
        prepared = list(filter(None, _prepared(items)))
        estimates, total = (yield from self.price_batch(prepared)) if prepared else ([], None)
        if len(prepared) == len(items):  # catalog calls only (every `send_batch`)
            bounds = list(map(_BOUND_OF, prepared))
            method = bounds[0].method
            wire: list[tuple[str, Any, str | None]]
            if all(map(is_, map(_METHOD_OF_BOUND, bounds), repeat(method))):
                # One method (nearly every batch): its name and result kind read once. A batch
                # holds JSON-RPC calls only, whose `rpc_method` is the method's name.
                name, kind = method.name, method.result
                wire = [(name, params, kind) for params in map(_WIRE_PARAMS_OF, bounds)]
            else:
                wire = [(b.rpc_method, b.wire_params, b.method.result) for b in bounds]
            receipts = list(map(_RECEIPT_OF, prepared))
            return estimates, total, wire, receipts, list(map(_WIRE_JSON_OF, bounds))
        by_catalog = iter(estimates)
        estimates, wire, receipts, texts = [], [], [], []
        for item in items:
            if isinstance(item, PreparedCall):
                estimates.append(next(by_catalog))
                bound = item.bound
                wire.append((bound.rpc_method, bound.wire_params, bound.method.result))
                receipts.append(item.receipt)
                texts.append(bound.wire_json)
            else:
                method, params = item
                estimates.append((yield from self.price_raw(method, params)))
                wire.append((method, params, None))
                receipts.append(Receipt())
                texts.append(compact(params))
        total = Pricer.total(estimates, f"a batch of {len(items)}")
        return estimates, total, wire, receipts, texts

    def record_not_sent(self, calls: Sequence[PreparedCall], status: str, note: str) -> None:
        """One 0 RU ledger entry per call never sent (see `Node.record_not_sent`)."""
        if not calls:
            return
        now, label, note = self.meter.clock(), self.endpoint.label, clip(note, 300)
        self.meter.ledger.record_many(
            [
                Entry(now, label, call.method, 0, 0.0, status, note=note, params=wire)
                for call, wire in zip(
                    calls, map(_PARAMS_JSON_OF, map(_BOUND_OF, calls)), strict=True
                )
            ]
        )


_BOUND_OF = attrgetter("bound")
_METHOD_OF_BOUND = attrgetter("method")
_WIRE_PARAMS_OF = attrgetter("wire_params")
_METHOD_OF = attrgetter("bound.method")
_RECEIPT_OF = attrgetter("receipt")
_WIRE_JSON_OF = attrgetter("wire_json")
_PARAMS_JSON_OF = attrgetter("params_json")


def _prepared(items: Sequence[Any]) -> list[PreparedCall | None]:
    """Each item as a `PreparedCall`, None for a call outside the catalog: when every item is
    one (every `send_batch`), found by reading the types in C, not by a test per call."""
    if list(map(type, items)).count(PreparedCall) == len(items):
        return list(items)
    return [item if isinstance(item, PreparedCall) else None for item in items]


def _check_raw_call(chain: Chain, method: Any, params: Any) -> None:
    if not isinstance(method, str) or not method:
        raise ValidationError("must be a JSON-RPC method name", param="method", rule="type")
    if chain.family not in ("evm", "solana"):
        raise ValidationError(
            f"call_raw sends JSON-RPC, which {chain.name} nodes serve only for the "
            "catalog's methods",
            rule="chain",
        )
    if not isinstance(params, list):
        raise ValidationError("params must be a list", param="params", rule="type")


def compact(params: Any) -> str:
    """Params outside the catalog's binding as compact JSON (the ledger's `params`)."""
    try:
        return COMPACT_JSON.encode(params)
    except (TypeError, ValueError):  # not JSON: the request itself will say so
        return repr(params)
