"""Node clients: the call path from catalog name to result, in a sync and an async flavour.

`NodeCore` does everything that is not I/O: it binds a call against the catalog (validation, 0 RU
when it fails), prices it (fetching the chain head when the archive rule needs it), builds the HTTP
request and says how to read the answer, as exchange generators (see `_transport`).
`Node` drives those generators with `httpx.Client`, `AsyncNode` with `httpx.AsyncClient`. The
typed helpers in `_helpers` are written once and work on both, because each helper returns
whatever `_request` returns: a value on `Node`, an awaitable on `AsyncNode`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import httpx

from .._errors import GatewayError, MalformedResponse, RateLimited, ValidationError
from ..catalog import (
    RESULT_KINDS,
    ArchiveByBlock,
    BoundCall,
    Chain,
    Estimate,
    Method,
    Rule,
    Surface,
    chain_for,
    lookup,
)
from ._cache import Cacheable, is_final
from ._http import ASYNC_TRANSPORTS, AsyncTransportKind, async_client
from ._ledger import Meter
from ._transport import (
    DEFAULT_TIMEOUT,
    USER_AGENT,
    BatchRefused,
    Endpoint,
    Exchange,
    HTTPRequest,
    Receipt,
    RetryPolicy,
    check_status,
    drive_async,
    drive_sync,
    explain_platform,
    interpret_rpc,
    interpret_ton,
    interpret_tron,
    next_request_id,
    parse_json,
)

if TYPE_CHECKING:
    from ._cache import ResponseCache
    from ._ratelimit import RateLimiter

Steps = Generator[Any, Any, Any]
HEAD_NOTE = "chain head, fetched to price archive calls"
CACHE_HEAD_NOTE = "chain head, fetched to decide which answers are final (cacheable)"
CACHE_HIT_NOTE = "answered from the response cache"


class NodeCore:
    """A node's address, chain and meter, and every step of a call that is not I/O."""

    def __init__(
        self,
        url: str,
        chain: Chain,
        *,
        name: str | None = None,
        meter: Meter | None = None,
        retry: RetryPolicy | None = None,
        head_ttl_s: float = 10.0,
        headers: dict[str, str] | None = None,
        cache: ResponseCache | None = None,
        limiter: RateLimiter | None = None,
    ):
        self.endpoint = Endpoint(url, label=name or "")
        self.headers = {**_HEADERS, **(headers or {})}
        self.chain = chain
        self.name = name
        self.meter = meter if meter is not None else Meter()
        self.retry = retry or RetryPolicy()
        self.head_ttl_s = head_ttl_s
        self.cache = cache
        self.limiter = limiter
        # None until a batch is tried; False once the node refused one (then calls go singly).
        self.accepts_batches: bool | None = None
        self._head: tuple[int, float] | None = None
        self._head_in_flight = False

    # --- binding ---

    def bind(self, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> BoundCall:
        method = lookup(name)
        if self.chain.name not in method.chains:
            raise ValidationError(
                f"{method.name} is not served on {self.chain.name} nodes "
                f"(it is a {', '.join(method.chains)} method)",
                rule="chain",
                method=method.name,
                node=self.endpoint.label,
            )
        bound = method.bind(*args, **kwargs)
        return bound

    # --- pricing ---

    def rule(self, method: str, catalog_rule: Rule | None) -> Rule:
        return self.meter.pricing.rule_for(method, catalog_rule)

    def estimate(self, method: str, catalog_rule: Rule | None, block: Any, *, fetch: bool) -> Steps:
        """Price a call; fetch the head first when the rule needs it and `fetch` allows."""
        rule = self.rule(method, catalog_rule)
        head = None
        if isinstance(rule, ArchiveByBlock) and self._needs_head(block):
            head = self.cached_head()
            if head is None and self._head_in_flight and self._head:
                head = self._head[0]  # a concurrent call is refreshing it: no second fetch
            if head is None and fetch:
                head = yield from self.head()
        return self.meter.pricing.estimate(rule, block, head)

    def _needs_head(self, block: Any) -> bool:
        if self.chain.family != "evm":
            return False
        return isinstance(block, int) or (isinstance(block, str) and block.startswith("0x"))

    @property
    def last_head(self) -> int | None:
        """The last head this client saw, however old (for provenance, not for pricing)."""
        return self._head[0] if self._head else None

    def cached_head(self) -> int | None:
        if self._head and time.monotonic() - self._head[1] < self.head_ttl_s:
            return self._head[0]
        return None

    def head(self, note: str = HEAD_NOTE) -> Steps:
        """The chain head, a billed call recorded in the ledger as such: ``eth_blockNumber`` on
        EVM chains, the latest block (``wallet/getblockbylatestnum``, num=1) on TRON."""
        if self.chain.family == "evm":
            bound, read = lookup("eth_blockNumber").bind(), _evm_head
        elif self.chain.family == "tron":
            bound, read = lookup("wallet/getblockbylatestnum").bind(num=1), _tron_head
        else:
            raise ValidationError(
                f"the head is only tracked for EVM chains and TRON, not {self.chain.name}",
                rule="chain",
            )
        rule = self.rule(bound.method.name, bound.method.ru)
        estimate = self.meter.pricing.estimate(rule, None, None)
        self._head_in_flight = True
        try:
            number = read((yield from self.exchange(bound, estimate, note=note)))
        finally:
            self._head_in_flight = False
        self._head = (number, time.monotonic())
        return number

    def head_for_finality(self, block: int) -> Steps:
        """A head to judge whether `block` is final by, or None if none can be had.

        Heads only grow, so an old head errs on the safe side (fewer answers look final); a fresh
        one is fetched only when the old one does not make `block` final and no fetch is under way.
        """
        head = self.cached_head()
        if head is not None:
            return head
        known = self._head[0] if self._head else None
        if known is not None and (
            self._head_in_flight or is_final(block, known, self.chain.finality_depth)
        ):
            return known
        try:
            return (yield from self.head(note=CACHE_HEAD_NOTE))
        except GatewayError:
            return known  # the answer is still good; it just is not cached

    # --- calling ---

    def price(self, bound: BoundCall, *, fetch: bool = True) -> Steps:
        """The estimate for a bound call (see `estimate`)."""
        method = bound.method
        rule = self.rule(method.name, method.ru)
        block = bound.argument(rule.param) if isinstance(rule, ArchiveByBlock) else None
        return (yield from self.estimate(method.name, method.ru, block, fetch=fetch))

    def call(
        self, bound: BoundCall, receipt: Receipt | None = None, *, check_cache: bool = True
    ) -> Steps:
        """Answer a call: from the response cache when it holds it (0 RU), else over HTTP.
        `check_cache=False` is for a caller that just asked the cache (`from_cache`)."""
        cacheable = self.cacheable(bound)
        if cacheable is not None and check_cache:
            found = self.cache.lookup([cacheable.key])
            if cacheable.key in found:
                self.record_cache_hit(bound, receipt)
                return found[cacheable.key]
        estimate = yield from self.price(bound)
        result = yield from self.exchange(bound, estimate, receipt=receipt)
        if bound.method.name == "eth_blockNumber":  # a head the user fetched prices calls too
            self._head = (_evm_head(result), time.monotonic())
        if cacheable is not None:
            yield from self.remember([(cacheable, bound, result)])
        return result

    def exchange(
        self, bound: BoundCall, estimate: Estimate, note: str = "", receipt: Receipt | None = None
    ) -> Steps:
        request, interpret = self.request_for(bound)
        exchange = Exchange(
            endpoint=self.endpoint,
            meter=self.meter,
            policy=self.retry,
            request=request,
            interpret=interpret,
            method=bound.method.name,
            ru=estimate.ru,
            archive=estimate.archive,
            note=note,
            limiter=self.limiter,
            receipt=receipt,
        )
        return (yield from exchange.run())

    # --- the response cache ---

    @property
    def cache(self) -> ResponseCache | None:
        return self._cache

    @cache.setter
    def cache(self, cache: ResponseCache | None) -> None:
        self._cache = cache
        self._cacheables: dict[int, tuple[BoundCall, Cacheable | None]] = {}

    def cacheable(self, bound: BoundCall) -> Cacheable | None:
        """The call's cache key when a cache is set and the call's answer could be cached."""
        if self._cache is None:
            return None
        # A bulk run asks several times per call (preview, cache pass, batch): compute once.
        known = self._cacheables.get(id(bound))
        if known is not None and known[0] is bound:
            return known[1]
        cacheable = self._cache.cacheable(self.endpoint.url, self.chain.name, bound)
        if len(self._cacheables) >= 100_000:
            self._cacheables.clear()
        self._cacheables[id(bound)] = (bound, cacheable)
        return cacheable

    def from_cache(
        self,
        bounds: Sequence[BoundCall],
        cacheables: Sequence[Cacheable | None],
        receipts: Sequence[Receipt | None],
    ) -> tuple[list[Any], list[int]]:
        """The answers the cache holds (each recorded as a 0 RU hit), and the positions of the
        calls it does not answer."""
        keys = [cacheable.key for cacheable in cacheables if cacheable is not None]
        found = self.cache.lookup(keys) if keys else {}
        results: list[Any] = [None] * len(bounds)
        unanswered = []
        for index, cacheable in enumerate(cacheables):
            if cacheable is not None and cacheable.key in found:
                results[index] = found[cacheable.key]
                self.record_cache_hit(bounds[index], receipts[index])
            else:
                unanswered.append(index)
        return results, unanswered

    def record_cache_hit(self, bound: BoundCall, receipt: Receipt | None) -> None:
        self.meter.record(
            node=self.endpoint.label,
            method=bound.method.name,
            ru=0,
            latency_s=0.0,
            status="ok",
            cache_hit=True,
            note=CACHE_HIT_NOTE,
        )
        if receipt is not None:
            receipt.cache_hit = True

    def remember(self, answers: list[tuple[Cacheable, BoundCall, Any]]) -> Steps:
        """Store the answers that are final now (see `_cache` for the policy)."""
        pinned = [cacheable.block for cacheable, _, _ in answers if cacheable.block is not None]
        head = (yield from self.head_for_finality(max(pinned))) if pinned else None
        depth = self.chain.finality_depth

        def final(block: int | None) -> bool:
            return block is None or (head is not None and is_final(block, head, depth))

        self.cache.store(
            (cacheable.key, self.endpoint.label, bound.method.name, result)
            for cacheable, bound, result in answers
            if final(cacheable.block)
        )

    def call_raw(self, method: str, params: list[Any]) -> Steps:
        """A JSON-RPC method outside the catalog: no validation, priced by name pattern."""
        if self.chain.family not in ("evm", "solana"):
            raise ValidationError(
                f"call_raw sends JSON-RPC, which {self.chain.name} nodes serve only for the "
                "catalog's methods",
                rule="chain",
            )
        if not isinstance(params, list):
            raise ValidationError("params must be a list", param="params", rule="type")
        rule = self.rule(method, None)
        block = _raw_block(rule, params)
        estimate = yield from self.estimate(method, None, block, fetch=True)
        request_id = next_request_id()
        request = _rpc_request(self.rpc_url, method, params, request_id, self.headers)
        exchange = Exchange(
            endpoint=self.endpoint,
            meter=self.meter,
            policy=self.retry,
            request=request,
            interpret=lambda response: _read_rpc(response, request_id, None),
            method=method,
            ru=estimate.ru,
            archive=estimate.archive,
        )
        return (yield from exchange.run())

    def batch(
        self,
        bounds: list[BoundCall],
        *,
        return_exceptions: bool,
        receipts: list[Receipt] | None = None,
    ) -> Steps:
        """One JSON-RPC batch request for many calls, billed as one call each. Calls the response
        cache holds are answered from it (0 RU) and left out of the request."""
        if not bounds:
            return []
        surfaces = {b.method.surface for b in bounds}
        paths = {b.method.path for b in bounds}
        if surfaces != {Surface.JSONRPC} or len(paths) != 1:
            raise ValidationError(
                "a batch holds JSON-RPC calls to one endpoint only", param="calls", rule="batch"
            )
        receipts = receipts or [Receipt() for _ in bounds]
        cacheables = [self.cacheable(bound) for bound in bounds]
        results, unanswered = self.from_cache(bounds, cacheables, receipts)
        if not unanswered:
            return results
        sent = yield from self.send_batch(
            [bounds[i] for i in unanswered],
            return_exceptions=return_exceptions,
            receipts=[receipts[i] for i in unanswered],
        )
        for index, result in zip(unanswered, sent, strict=True):
            results[index] = result
        answers = [
            (cacheables[i], bounds[i], results[i])
            for i in unanswered
            if cacheables[i] is not None and not isinstance(results[i], GatewayError)
        ]
        if answers:
            yield from self.remember(answers)
        return results

    def send_batch(
        self, bounds: list[BoundCall], *, return_exceptions: bool, receipts: list[Receipt]
    ) -> Steps:
        """Send calls as one JSON-RPC batch request. A refusal (see `BatchRefused`) is not
        retried; it marks the node as one that takes no batches (`accepts_batches`)."""
        estimates = []
        for bound in bounds:
            estimates.append((yield from self.price(bound)))
        ids = [next_request_id() for _ in bounds]
        url = self.url_for(bounds[0].method)
        body = [_envelope(b.rpc_method, b.wire_params, i) for b, i in zip(bounds, ids, strict=True)]
        kinds = [b.method.result for b in bounds]

        def interpret(response: httpx.Response) -> list[Any]:
            _refuse_batch_status(response)
            check_status(response)
            answers = parse_json(response)
            if not isinstance(answers, list):
                _refuse_batch_answer(answers, response.status_code)
            by_id = {a.get("id"): a for a in answers if isinstance(a, dict)}
            results = []
            for request_id, kind in zip(ids, kinds, strict=True):
                try:
                    if request_id not in by_id:
                        raise MalformedResponse(f"the batch answer lacks id {request_id}")
                    result = interpret_rpc(by_id[request_id], request_id, response.status_code)
                    results.append(_checked_result(result, kind))
                except GatewayError as error:
                    if not return_exceptions:
                        raise
                    error.node = self.endpoint.label
                    results.append(error)
            return results

        names = sorted({b.method.name for b in bounds})
        billed = Receipt()
        exchange = Exchange(
            endpoint=self.endpoint,
            meter=self.meter,
            policy=self.retry,
            request=HTTPRequest("POST", url, json=body, headers=self.headers),
            interpret=interpret,
            method=f"batch[{len(bounds)}]:" + ",".join(names),
            ru=sum(e.ru for e in estimates),
            note=f"in a JSON-RPC batch of {len(bounds)}",
            limiter=self.limiter,
            receipt=billed,
            parts=tuple(
                (b.method.name, e.ru, e.archive) for b, e in zip(bounds, estimates, strict=True)
            ),
        )
        try:
            results = yield from exchange.run()
        except BatchRefused:
            self.accepts_batches = False
            raise
        finally:
            for receipt, estimate in zip(receipts, estimates, strict=True):
                receipt.ru += estimate.ru * billed.answered
                receipt.answered += billed.answered
        self.accepts_batches = True
        return results

    # --- requests ---

    @property
    def rpc_url(self) -> str:
        return self.endpoint.join(self.chain.rpc_path)

    def url_for(self, method: Method) -> str:
        if method.surface is Surface.JSONRPC and not method.path:
            return self.rpc_url
        return self.endpoint.join(method.path)

    def request_for(self, bound: BoundCall) -> tuple[HTTPRequest, Callable[[httpx.Response], Any]]:
        method = bound.method
        url = self.url_for(method)
        kind = method.result
        if method.surface in (Surface.JSONRPC, Surface.JSONRPC_NAMED):
            request_id = next_request_id()
            params = bound.wire_params
            request = _rpc_request(url, bound.rpc_method, params, request_id, self.headers)
            named = method.surface is Surface.JSONRPC_NAMED
            return request, lambda response: _read_rpc(response, request_id, kind, toncenter=named)
        if method.surface is Surface.PLATFORM:
            return self.platform_request(url, bound.wire_params), self.read_platform
        if method.surface is Surface.REST_GET:
            request = HTTPRequest("GET", url, params=bound.wire_params, headers=self.headers)
        else:
            request = HTTPRequest("POST", url, json=bound.wire_params, headers=self.headers)
        unwrap = interpret_tron if self.chain.family == "tron" else interpret_ton
        return request, lambda response: _read_rest(response, kind, unwrap)

    def platform_request(self, url: str, params: dict[str, Any] | None = None) -> HTTPRequest:
        return HTTPRequest("GET", url, params=params, headers=self.headers)

    @staticmethod
    def read_platform(response: httpx.Response) -> Any:
        check_status(response, explain=explain_platform)
        return _checked_result(parse_json(response), "node-page")

    def follow(self, url: str, method: str) -> Steps:
        """GET a link the API gave (a page's `next`), only on the API's own origin and path."""
        own, link = httpx.URL(self.endpoint.url), httpx.URL(url)
        if (link.scheme, link.host, link.port) != (own.scheme, own.host, own.port):
            raise MalformedResponse(
                f"the API linked to another origin ({link.scheme}://{link.host}); not followed, "
                "so the API key is not sent there",
                method=method,
            )
        estimate = self.meter.pricing.estimate(lookup(method).ru, None, None)
        exchange = Exchange(
            endpoint=self.endpoint,
            meter=self.meter,
            policy=self.retry,
            request=self.platform_request(url),
            interpret=self.read_platform,
            method=method,
            ru=estimate.ru,
        )
        return (yield from exchange.run())


_HEADERS = {"User-Agent": USER_AGENT}


def _envelope(method: str, params: Any, request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _rpc_request(
    url: str, method: str, params: Any, request_id: int, headers: dict[str, str]
) -> HTTPRequest:
    return HTTPRequest("POST", url, json=_envelope(method, params, request_id), headers=headers)


def _checked_result(result: Any, kind: str | None) -> Any:
    if kind is not None and not RESULT_KINDS[kind].check(result):
        expected = RESULT_KINDS[kind].expected
        raise MalformedResponse(f"expected {expected}, got {str(result)[:80]!r}")
    return result


def _read_rpc(
    response: httpx.Response, request_id: int, kind: str | None, *, toncenter: bool = False
) -> Any:
    explain = interpret_ton if toncenter else None
    check_status(response, explain=explain)
    body = parse_json(response)
    if toncenter and isinstance(body, dict) and body.get("ok") is False:
        interpret_ton(body, response.status_code)  # raises TonError
    return _checked_result(interpret_rpc(body, request_id, response.status_code), kind)


def _read_rest(response: httpx.Response, kind: str, unwrap: Callable[..., Any]) -> Any:
    check_status(response, explain=unwrap)
    return _checked_result(unwrap(parse_json(response), response.status_code), kind)


def _refuse_batch_status(response: httpx.Response) -> None:
    """A 4xx to a batch is the node refusing batches, unless it is about the key, the path or
    the rate (those would refuse single calls just the same)."""
    status = response.status_code
    if 400 <= status < 500 and status not in (401, 403, 404, 429):
        body = " ".join(response.content[:160].decode("utf-8", "replace").split())
        raise BatchRefused(f"HTTP {status} to a JSON-RPC batch ({body})", status=status)


def _refuse_batch_answer(answer: Any, status: int) -> None:
    """A batch answered by one object: a rate-limit error is retried; anything else is a no."""
    if isinstance(answer, dict) and answer.get("error") is not None:
        try:
            interpret_rpc(answer, None, status)
        except RateLimited:
            raise
        except GatewayError as error:
            message = f"the node refused a JSON-RPC batch: {error}"
            raise BatchRefused(message, status=status) from None
    raise BatchRefused(
        f"the node answered a JSON-RPC batch with a {type(answer).__name__}, not an array",
        status=status,
    )


def _evm_head(result: str) -> int:
    return int(result, 16)


def _tron_head(result: dict[str, Any]) -> int:
    try:
        return int(result["block"][0]["block_header"]["raw_data"]["number"])
    except (KeyError, IndexError, TypeError, ValueError):
        shown = str(result)[:80]
        raise MalformedResponse(f"no block number in the latest block: {shown!r}") from None


def _raw_block(rule: Rule, params: list[Any]) -> Any:
    if not isinstance(rule, ArchiveByBlock):
        return None
    if isinstance(rule.param, int):
        return params[rule.param] if rule.param < len(params) else None
    first = params[0] if params else None  # eth_getLogs-style filter object
    return first.get(rule.param) if isinstance(first, dict) else None


# --- the two flavours -------------------------------------------------------------------------


class _BaseNode:
    """What both flavours share: identity, the catalog view, and no key in any repr."""

    def __init__(
        self,
        core: NodeCore,
        *,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        async_transport: AsyncTransportKind = "auto",
    ):
        if async_transport not in ASYNC_TRANSPORTS:
            raise ValidationError(
                f"must be one of {', '.join(ASYNC_TRANSPORTS)}; got {async_transport!r}",
                param="async_transport",
                rule="choice",
            )
        self._core = core
        self._timeout = timeout
        self._async_transport = async_transport

    @property
    def name(self) -> str:
        return self._core.endpoint.label

    @property
    def chain(self) -> Chain:
        return self._core.chain

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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} chain={self.chain.name}>"


class Node(_BaseNode):
    """A blocking client for one node. Safe inside a running event loop (Jupyter): it never
    touches the loop. `node.aio` is the async twin, sharing the meter and settings."""

    aio_class: type[AsyncNode]  # set below, and by each chain's node class

    def __init__(self, core: NodeCore, **kwargs: Any):
        super().__init__(core, **kwargs)
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self._aio: AsyncNode | None = None

    def _http(self) -> httpx.Client:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = httpx.Client(timeout=self._timeout)
        return self._client

    def _run(self, steps: Steps) -> Any:
        return drive_sync(self._http(), steps)

    def _request(self, name: str, args: Sequence[Any], kwargs: dict[str, Any], convert=None):
        result = self._run(self._core.call(self._core.bind(name, args, kwargs)))
        return convert(result) if convert else result

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call any catalog method by its exact spec name; returns the raw JSON result."""
        return self._request(name, args, kwargs)

    def call_raw(self, method: str, params: list[Any] | None = None) -> Any:
        """A JSON-RPC method outside the spec: unvalidated, priced by the table's patterns."""
        return self._run(self._core.call_raw(method, params or []))

    def batch(self, calls: Iterable[Sequence[Any]], *, return_exceptions: bool = False) -> list:
        """Send JSON-RPC calls as one batch: ``[("eth_getBalance", address, "latest"), ...]``.

        Each call is validated first; the batch is billed as one call each. With
        `return_exceptions`, a failed item is its exception in the result list.
        """
        bounds = [self._core.bind(name, args, {}) for name, *args in calls]
        return self._run(self._core.batch(bounds, return_exceptions=return_exceptions))

    def estimate(self, name: str, *args: Any, fetch_head: bool = True, **kwargs: Any) -> Estimate:
        """What a call would cost, with the reason; fetching the head costs 1 RU (in the ledger)."""
        bound = self._core.bind(name, args, kwargs)
        return self._run(self._core.price(bound, fetch=fetch_head))

    def head(self) -> int:
        """The chain head, from the cache when fresh."""
        return self._core.cached_head() or self._run(self._core.head())

    @property
    def aio(self) -> AsyncNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        if self._aio is None:
            self._aio = self.aio_class(
                self._core, timeout=self._timeout, async_transport=self._async_transport
            )
        return self._aio

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncNode(_BaseNode):
    """An async client for one node: ``await node.get_balance(...)``. Works from any event loop
    (an HTTP client is kept per loop), including a notebook's top-level await.

    It sends with aiohttp when installed (`async_transport="auto"`, see `_http` for why), or with
    `httpx.AsyncClient` (`async_transport="httpx"`).
    """

    def __init__(self, core: NodeCore, **kwargs: Any):
        super().__init__(core, **kwargs)
        # Keyed by loop, not weakly: an aiohttp client holds its loop, so a weak key never dies.
        self._clients: dict[asyncio.AbstractEventLoop, Any] = {}

    def _http(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            self._forget_closed_loops()
            client = self._clients[loop] = async_client(self._async_transport, self._timeout)
        return client

    def _forget_closed_loops(self) -> None:
        for loop in [loop for loop in self._clients if loop.is_closed()]:
            client = self._clients.pop(loop)
            if hasattr(client, "abandon"):
                client.abandon()

    async def _run(self, steps: Steps) -> Any:
        return await drive_async(self._http(), steps)

    async def _request(self, name: str, args: Sequence[Any], kwargs: dict[str, Any], convert=None):
        result = await self._run(self._core.call(self._core.bind(name, args, kwargs)))
        return convert(result) if convert else result

    async def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call any catalog method by its exact spec name; returns the raw JSON result."""
        return await self._request(name, args, kwargs)

    async def call_raw(self, method: str, params: list[Any] | None = None) -> Any:
        """A JSON-RPC method outside the spec: unvalidated, priced by the table's patterns."""
        return await self._run(self._core.call_raw(method, params or []))

    async def batch(
        self, calls: Iterable[Sequence[Any]], *, return_exceptions: bool = False
    ) -> list:
        """Send JSON-RPC calls as one batch; see `Node.batch`."""
        bounds = [self._core.bind(name, args, {}) for name, *args in calls]
        return await self._run(self._core.batch(bounds, return_exceptions=return_exceptions))

    async def estimate(
        self, name: str, *args: Any, fetch_head: bool = True, **kwargs: Any
    ) -> Estimate:
        """What a call would cost, with the reason; see `Node.estimate`."""
        bound = self._core.bind(name, args, kwargs)
        return await self._run(self._core.price(bound, fetch=fetch_head))

    async def head(self) -> int:
        return self._core.cached_head() or await self._run(self._core.head())

    async def aclose(self) -> None:
        """Close this loop's HTTP client (clients of other, still running loops stay theirs)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()
        self._forget_closed_loops()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


Node.aio_class = AsyncNode


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
