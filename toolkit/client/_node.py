"""The node clients: `Node` (blocking) and `AsyncNode`, over one `NodeCore` each.

Both drive the same call steps (`_core.NodeCore`, no I/O) with a transport: `Node` with a
blocking one, `AsyncNode` with one per event loop. Which transport carries a node's calls is
decided in one place, `_transport_of`: the embedded sandbox in process, else the network, and on
a tape the tape's over it. The typed helpers in `_chains` are written once for both flavours.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from .._errors import ValidationError
from .._reprs import key_values_html
from ..catalog import (
    Chain,
    Estimate,
    Method,
    chain_for,
)
from ._cache import ResponseCache
from ._core import NodeCore, NodeSpec, Steps
from ._http import LazyModule, Transport
from ._inprocess import for_another_process, in_process_transport
from ._ledger import Meter
from ._network import async_transport, sync_transport
from ._prepared import PreparedCall
from ._ratelimit import RateLimiter
from ._settings import Settings
from ._tape import TapeNode, transport_for
from ._transport import (
    drive_async,
    drive_sync,
)

if TYPE_CHECKING:
    import asyncio

    import httpx
else:
    asyncio = LazyModule("asyncio", globals())
    httpx = LazyModule("httpx", globals())  # imported on first use: see `_http.LazyModule`


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
        """The rate limiter this node's calls wait for (None when off): the handle's, or the
        node's own at its plan's ceiling (`Settings.rate_limit`)."""
        return self._core.shared.limiter_for(self._core.endpoint.label)

    def forget_head(self) -> None:
        """Forget the chain head this client saw: the next call that needs one fetches it."""
        self._core.heads.forget()

    @property
    def accepts_batches(self) -> bool | None:
        """None until a JSON-RPC batch was tried; False once the node refused one."""
        return self._core.batches.accepts_batches

    @property
    def max_batch(self) -> int | None:
        """The most calls this client puts in one JSON-RPC batch to the node, learned when the
        node refused a larger batch as too large (a larger batch goes in parts); None while it
        refused none so."""
        return self._core.batches.max_batch

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
        url = for_another_process(self._core.shared.sandbox, self._core.endpoint.url)
        return NodeSpec(url, self._core.chain.name, self.name)

    def needs_head(self, call: PreparedCall, *, for_cache: bool = False) -> bool:
        """Whether pricing `call` needs the chain head (an archive rule on a block number); with
        `for_cache`, also whether storing its answer does (an answer pinned to a block)."""
        if self._core.pricer.call_needs_head(call):
            return True
        cacheable = self._core.cached.cacheable(call.bound) if for_cache else None
        return cacheable is not None and cacheable.block is not None

    def in_cache(self, calls: Sequence[PreparedCall]) -> list[bool]:
        """Which of `calls` the response cache answers now, at 0 RU (asks nothing of the node)."""
        return self._core.cached.in_cache(calls)

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
        return self._core.cached.answered(calls)

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
    """The transport of `core`'s calls: the embedded sandbox's in process, else the network's
    (`network()`); on a tape, the tape's over it."""
    meter = core.meter
    node = TapeNode(
        core.endpoint.label,
        core.chain.name,
        core.endpoint.url,
        lambda: meter.pricing,
        lambda: meter.clock(),  # read at each answer: the gateway may set its clock later
    )
    local = in_process_transport(core.shared.sandbox, core.endpoint.url)
    return transport_for(core.shared.tape, network if local is None else lambda: local, node)


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
