"""The sandbox gateway: routing, auth, and the life of one request, with no I/O of its own.

`SandboxApp.handle` takes a request as values (`Incoming`) and says what to do about it
(`Handling`): wait a fault's delay, then drop the connection or send the reply. Two ways in share
it: `SandboxApp.asgi`, the one Starlette route a loopback server runs (it awaits the delay, aborts
the connection, runs a blocking reply off its loop), and `SandboxApp.handle_url`, a request
handed over in process with no socket and no thread (the client's `InProcessTransport`).

Routes:

- ``/<ACCESS_KEY>[/<path>]``: a node. The key picks the node, the node's chain picks the
  endpoints, and the catalog says which endpoints each chain has: every JSON-RPC method of a chain
  is served at its path (the node base, hyperliquid's ``/evm``, TRON's ``/jsonrpc``, TON's
  ``/api/v2/jsonRPC``), every REST method at its own. A trailing slash is ignored. Unknown key: 403;
  no key: 401; a listed node that is not running: 503.
- ``GET /v2/nodes/``: the platform API, ``Authorization: Bearer <api_key>``.
- ``/_sandbox/metering`` (GET), ``/_sandbox/metering/reset`` (POST), ``/_sandbox/faults`` (GET
  lists, POST sets one from a JSON body, DELETE clears, optionally ``?node=``), ``/_sandbox/limits``
  (GET: each node's plan limits and how many requests its ceiling refused): sandbox controls,
  with the same Bearer key; never metered, never faulted, never rate limited.

One node request: resolve the node, check the body, hold it to the node's rate ceiling when its
plan has one (`_limits`: over it, a 429 at once, not metered), take the chain head once (the
answer and the price both use it), draw faults (delay, then drop, a replacement answer, or a
distortion of the real one), meter (see `_metering` for the rule); after the delay, answer.

The HTTP edge is hardened like a real gateway's: a body over `MAX_BODY_BYTES` (geth's own limit)
is answered 413 with a JSON error before it is read whole; a body that is not JSON, or nests
deeper than `_jsonrpc.MAX_DEPTH`, gets JSON-RPC's -32700 parse error (never a 500); access keys
and the API key are compared in constant time; an unexpected failure is a JSON 500 with no
traceback in the body.
"""

from __future__ import annotations

import asyncio
import hmac
import math
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .._browser import in_browser
from .._errors import ValidationError
from ..catalog import BILLING, CHAINS, BoundCall, Method, Surface
from . import _jsonrpc as jsonrpc
from . import _platform
from ._evm import EvmChain
from ._evm_beyond import beyond_spec_handlers
from ._faults import TRANSPORT_STATE_KEY, FaultKind, Faults, distort, rate_limited, replacement
from ._jsonrpc import Call, RpcError
from ._limits import Limits
from ._metering import PLATFORM, Metering
from ._response import Reply, error_body
from ._world import NodeRecord, World

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
MAX_BODY_BYTES = 5 * 1024 * 1024  # geth's HTTP body limit (node/rpcstack.go: 5 MB)


class MissingHandler(RuntimeError):
    """The catalog has a method this sandbox cannot answer: it refuses to start rather than
    answer a catalog method with "Method not found"."""


class BodyTooLarge(Exception):
    """A request body over the limit; answered 413 before the rest of it is read."""

    def __init__(self, size: int, limit: int):
        self.size, self.limit = size, limit
        super().__init__(f"request body of {size:,}+ bytes is over the limit of {limit:,}")

    def answer(self) -> Reply:
        return Reply(error_body("request_too_large", str(self)), status=413)


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The body, read at most `limit` bytes far: a declared Content-Length over the limit is
    refused unread, a streamed (chunked) body as soon as it crosses it."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(int(declared), limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(size, limit)
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass
class NodePath:
    """One path of a node: a JSON-RPC endpoint serving `methods`, or one REST method."""

    http_method: str
    path: str
    jsonrpc: bool
    named: bool = False  # JSON-RPC with named params (TON): one catalog method, any inner name
    methods: dict[str, Method] = field(default_factory=dict)

    @property
    def only_method(self) -> Method:
        return next(iter(self.methods.values()))


def endpoints_of(chain_name: str) -> dict[tuple[str, str], NodePath]:
    """(HTTP method, path) -> endpoint, read from the catalog."""
    chain = CHAINS[chain_name]
    table: dict[tuple[str, str], NodePath] = {}
    for method in chain.methods:
        if method.surface in (Surface.JSONRPC, Surface.JSONRPC_NAMED):
            path = (method.path or chain.rpc_path).rstrip("/")
            named = method.surface is Surface.JSONRPC_NAMED
            endpoint = table.setdefault(("POST", path), NodePath("POST", path, True, named))
            endpoint.methods[method.name] = method
        else:
            path = method.path.rstrip("/")
            table[(method.http_method, path)] = NodePath(
                method.http_method, path, False, methods={method.name: method}
            )
    return table


def create_app(
    world: World,
    *,
    meter: Metering | None = None,
    faults: Faults | None = None,
    batch_limit: int | None = None,
    limits: Limits | None = None,
) -> Starlette:
    """The gateway for `world` as an ASGI app; pass `meter`/`faults` to share them with the
    caller. `batch_limit`: the most calls a JSON-RPC batch may hold; a larger one is refused as
    geth refuses it (one -32600 "batch too large" error), and billed as received. None (the
    default): any. `limits`: the nodes' plan limits, as `Sandbox(plan=...)` sets them (None:
    none)."""
    gateway = SandboxApp(world, meter, faults, batch_limit, limits)
    route = Route("/{path:path}", gateway.asgi, methods=ALL_METHODS)  # `handle` routes
    app = Starlette(routes=[route], exception_handlers={Exception: _internal_error})
    app.state.gateway = gateway
    return app


class Incoming(NamedTuple):
    """One HTTP request as the gateway reads it, from a socket or handed over in process."""

    method: str
    path: str  # percent-decoded, as a server's router matches it
    query: Mapping[str, str]
    headers: Mapping[str, str]  # looked up by lower-case name
    body: bytes | BodyTooLarge  # the body, or why it was not read whole
    base_url: str  # ``scheme://host:port/`` as the client addressed the gateway


class Handling(NamedTuple):
    """What the gateway does about one request, decided (and metered) at once: wait `delay`
    seconds, then close the connection unanswered (`drop`) or send what `reply()` makes. A
    server awaits the delay and runs a `blocking` reply (Solana's simulator) off its event
    loop; in process, the reply is simply called."""

    reply: Callable[[], Reply]
    delay: float = 0.0
    drop: bool = False
    blocking: bool = False


_simulator: Any = None  # one worker thread for blocking replies, made on first use


def off_the_callers_thread(reply: Callable[[], Reply]) -> Reply:
    """A blocking reply (Solana's simulator) made on a worker thread, as the server makes it:
    LiteSVM leaves the thread it simulates in unable to run LAPACK's eigenvalue solver with
    numpy 1.x's OpenBLAS (matplotlib's curve extents call it), and the caller's thread is a
    notebook's. Where no thread can start (a browser's Python), in the caller's."""
    global _simulator
    if in_browser():
        return reply()
    try:
        if _simulator is None:
            from concurrent.futures import ThreadPoolExecutor

            _simulator = ThreadPoolExecutor(1, thread_name_prefix="toolkit-sandbox-simulator")
        return _simulator.submit(reply).result()
    except RuntimeError:  # "can't start new thread"
        return reply()


def _now(reply: Reply) -> Handling:
    return Handling(lambda: reply)


_NODE_PATH = re.compile(r"/(?P<key>[^/]+)(?:/(?P<rest>.*))?")  # /{key} and /{key}/{rest:path}
_NO_QUERY: Mapping[str, str] = MappingProxyType({})
_GET = frozenset({"GET", "HEAD"})  # a GET route answers HEAD too, as Starlette's do


class SandboxApp:
    """The gateway's core, over a world, a meter and fault knobs: `handle` turns a request
    into a `Handling` with no I/O; `asgi` serves it on a socket, `handle_url` in process."""

    def __init__(
        self,
        world: World,
        meter: Metering | None,
        faults: Faults | None,
        batch_limit: int | None = None,
        limits: Limits | None = None,
    ):
        names = [node.name for node in world.served_nodes]
        self.world = world
        self.batch_limit = batch_limit
        self.limits = limits or Limits(names)
        self.meter = meter or Metering(names)
        self.faults = faults or Faults(world.seed, [*names, PLATFORM])
        self.endpoints = {node.name: endpoints_of(node.chain) for node in world.served_nodes}
        self.handlers = {chain: svc.handlers() for chain, svc in world.services.items()}
        # EVM read methods beyond the spec (`_evm_beyond`), on the endpoint of the eth_ methods.
        self.beyond = {
            chain: beyond_spec_handlers(svc)
            for chain, svc in world.services.items()
            if isinstance(svc, EvmChain)
        }
        unhandled = [
            f"{method.name} ({chain})"
            for chain in self.handlers
            for method in CHAINS[chain].methods
            if method.name not in self.handlers[chain]
        ]
        if unhandled:  # a catalog method the sandbox would answer with "Method not found"
            raise MissingHandler(f"no sandbox handler for: {', '.join(unhandled)}")
        # The world, services and clock are served one request at a time, as a server's one
        # event loop serves them, however many threads call in process (a blocking reply runs
        # alone, as a server runs it in its thread pool).
        self.one_at_a_time = threading.Lock()
        self.controls: dict[str, tuple[frozenset[str], Callable[[Incoming], Reply]]] = {
            "/_sandbox/metering": (_GET, lambda _: Reply(self.meter.snapshot())),
            "/_sandbox/metering/reset": (frozenset({"POST"}), lambda _: Reply(self.meter.reset())),
            "/_sandbox/faults": (frozenset({"GET", "HEAD", "POST", "DELETE"}), self.fault_knobs),
            "/_sandbox/limits": (_GET, lambda _: Reply(self.limits.to_json())),
        }

    # --- the two ways in -----------------------------------------------------------------------

    async def asgi(self, request: Request) -> Response:
        """A request from the socket: read its body (at most `MAX_BODY_BYTES`), `handle` it,
        await the delay, then drop the connection or answer."""
        try:
            body: bytes | BodyTooLarge = await read_body(request)
        except BodyTooLarge as too_large:
            body = too_large
        incoming = Incoming(
            request.method,
            request.scope["path"],
            request.query_params,
            request.headers,
            body,
            str(request.base_url),
        )
        with self.one_at_a_time:
            handling = self.handle(incoming)
        if handling.delay:
            await asyncio.sleep(handling.delay)
        if handling.drop:
            return await _drop(request)
        if handling.blocking:
            return (await run_in_threadpool(handling.reply)).to_response()
        with self.one_at_a_time:
            return handling.reply().to_response()

    def handle_url(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes
    ) -> Handling:
        """A request handed over in process (no socket, no thread): how it is handled, whose
        reply, like the server's, is a JSON 500 for a failure the sandbox did not foresee."""
        address = urlsplit(url)
        incoming = Incoming(
            method,
            unquote(address.path) or "/",
            QueryParams(address.query) if address.query else _NO_QUERY,
            {name.lower(): value for name, value in headers.items()},
            body if len(body) <= MAX_BODY_BYTES else BodyTooLarge(len(body), MAX_BODY_BYTES),
            f"{address.scheme}://{address.netloc}/",
        )
        try:
            with self.one_at_a_time:
                handling = self.handle(incoming)
        except Exception as error:
            return _now(internal_error(error))

        def reply() -> Reply:
            try:
                if handling.blocking:
                    return off_the_callers_thread(handling.reply)
                with self.one_at_a_time:
                    return handling.reply()
            except Exception as error:
                return internal_error(error)

        return handling._replace(reply=reply)

    def handle(self, request: Incoming) -> Handling:
        """Route `request`, check its keys, draw its faults and meter it: what to do about it.
        The answer itself is made by its `reply`, after any delay."""
        path, method = request.path, request.method
        if path in ("/v2/nodes/", "/v2/nodes") and method in _GET:  # not a key named "v2"
            return self.list_nodes(request)
        control = self.controls.get(path)
        if control is not None and method in control[0]:
            refused = self._refuse(request)
            return _now(refused or control[1](request))
        if method not in ALL_METHODS:  # as Starlette's router refuses it on the socket
            return _now(_plain("Method Not Allowed", 405, {"Allow": ", ".join(ALL_METHODS)}))
        if path == "/":
            message = "missing access key: node URLs look like <host>/<ACCESS_KEY>"
            return _now(Reply(error_body("missing_access_key", message), status=401))
        found = _NODE_PATH.fullmatch(path)
        if found is None:
            return _now(_plain("Not Found", 404))
        return self.node_request(request, found["key"], found["rest"] or "")

    # --- nodes ---------------------------------------------------------------------------------

    def node_request(self, request: Incoming, key: str, rest: str) -> Handling:
        node = self.world.node_by_key(key)
        if node is None:
            message = "invalid access key for this endpoint"
            return _now(Reply(error_body("invalid_access_key", message), status=403))
        if not node.serving:
            message = f"node {node.node_id} ({node.name}) is {node.status}, not running"
            return _now(Reply(error_body("node_unavailable", message), status=503))
        path = "/" + rest.rstrip("/")
        path = "" if path == "/" else path
        endpoint = self.endpoints[node.name].get((request.method, path))
        body = request.body
        if isinstance(body, BodyTooLarge):  # refused, not answered: not metered
            return _now(body.answer())
        # A JSON-RPC body is read once, for the ceiling, the meter and the answer.
        decoded = jsonrpc.read(body) if endpoint is not None and endpoint.jsonrpc else None
        calls = _calls(endpoint, path, decoded)
        batch = endpoint is not None and endpoint.jsonrpc and body.lstrip().startswith(b"[")
        over = self._over_ceiling(node.name, calls, batch, endpoint)
        if over is not None:  # refused before any work: not metered, the clock not moved
            return _now(over)
        self.world.clock.tick()
        head = self.world.head(node.chain)

        def answer() -> Reply:
            return self._answer(node, endpoint, path, request, decoded, head)

        blocking = getattr(self.world.services[node.chain], "blocking", False)
        return self._serve(node.name, calls, head, answer, batch, blocking)

    def _answer(
        self,
        node: NodeRecord,
        endpoint: NodePath | None,
        path: str,
        request: Incoming,
        decoded: jsonrpc.Decoded | None,
        head: int | None,
    ) -> Reply:
        if endpoint is None:
            paths = {p for _, p in self.endpoints[node.name]}
            if path in paths:
                message = f"{request.method} is not allowed on {path or '/'}"
                return Reply(error_body("method_not_allowed", message), status=405)
            served = ", ".join(sorted(p or "/" for p in paths))
            message = f"{node.name} serves no path {path or '/'}; it serves {served}"
            return Reply(error_body("not_found", message), status=404)
        service = self.world.services[node.chain]
        if not endpoint.jsonrpc:
            handler = self.handlers[node.chain][endpoint.only_method.name]
            assert isinstance(request.body, bytes)  # a body over the limit was refused
            return service.rest(endpoint.only_method, handler, request.body, request.query, head)
        style = jsonrpc.TONCENTER if endpoint.named else jsonrpc.JSONRPC
        assert decoded is not None  # read for every JSON-RPC endpoint (`node_request`)
        refused = self._over_batch_limit(decoded)
        if refused is not None:
            return Reply(jsonrpc.refuse_batch(refused, style))
        evm = any(name.startswith("eth_") for name in endpoint.methods)
        beyond = self.beyond.get(node.chain) if evm else None
        bound = _bound_in_batch(endpoint, decoded)
        handlers = self.handlers[node.chain]
        log_cap = self.limits.of[node.name].max_log_blocks if evm else None
        if log_cap is not None and "eth_getLogs" in handlers:
            handlers = {**handlers, "eth_getLogs": self._capped_logs(node.name, service, handlers)}
        dispatch = self._dispatcher(endpoint, handlers, head, beyond, bound)
        return Reply(jsonrpc.answer(decoded, dispatch, style))

    def _over_ceiling(
        self, name: str, calls: list[Call], batch: bool, endpoint: NodePath | None
    ) -> Reply | None:
        """The refusal of a request that `name`'s rate ceiling does not admit now, in the
        limits' shape (a REST path gets the HTTP 429 one: it has no JSON-RPC envelope); else
        None, the calls booked."""
        ceiling = self.limits.ceilings.get(name)
        wait = ceiling.admit(len(calls)) if ceiling is not None else 0.0
        if not wait:
            return None
        shape = self.limits.reply
        if shape is FaultKind.RATE_LIMIT_RPC and not (endpoint is not None and endpoint.jsonrpc):
            shape = FaultKind.RATE_LIMIT
        # Retry-After is whole seconds (RFC 9110); try_again_in a Go duration, to the millisecond.
        retry_after, try_again_in = max(1, math.ceil(wait)), f"{max(1, math.ceil(wait * 1000))}ms"
        return rate_limited(shape, calls, batch, retry_after, try_again_in)

    def _over_batch_limit(self, decoded: jsonrpc.Decoded) -> list[Any] | None:
        """The entries of `decoded` when it is a batch of more calls than the sandbox's opt-in
        limit; else None."""
        limit = self.batch_limit
        if limit is None or not isinstance(decoded, tuple):
            return None
        is_batch, entries = decoded
        return entries if is_batch and len(entries) > limit else None

    def _capped_logs(self, name: str, service: Any, handlers: dict[str, Any]) -> Any:
        """eth_getLogs held to node `name`'s plan cap: an oversized range is refused in the
        words the limits chose, before any log is read."""
        get_logs = handlers["eth_getLogs"]

        def capped(call: BoundCall, head: int) -> Any:
            blocks = service.log_range(call, head)
            if blocks is not None:
                self.limits.refuse_log_range(name, *blocks)
            return get_logs(call, head)

        return capped

    def _dispatcher(
        self,
        endpoint: NodePath,
        handlers: dict[str, Any],
        head: int | None,
        beyond: dict[str, Any] | None = None,
        bound: Bound | None = None,
    ) -> jsonrpc.Dispatch:
        """`bound`: calls of the request bound already (`_bound_in_batch`), by their params."""
        known = bound or {}

        def dispatch(name: str, params: Any) -> Any:
            method: Method | None
            if endpoint.named:
                method = endpoint.only_method
                call = _bind(method, (), {"method": name, "params": params})
            else:
                method = endpoint.methods.get(name)
                if method is None and beyond and name in beyond:
                    return beyond[name](params, head)  # beyond the spec: geth's params
                if method is None:
                    raise RpcError(jsonrpc.METHOD_NOT_FOUND, "Method not found")
                if not isinstance(params, list):
                    raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: must be an array")
                found = known.get(id(params))
                if found is not None and found[0] is params:
                    call = found[1]
                else:
                    call = _bind(method, params, {})
            return handlers[method.name](call, head)

        return dispatch

    # --- platform and controls -----------------------------------------------------------------

    def list_nodes(self, request: Incoming) -> Handling:
        refused = self._refuse(request)
        if refused:
            return _now(refused)

        def answer() -> Reply:
            return _platform.list_page(self.world, request.base_url, request.query)

        calls = [Call("v2/nodes/", None, None)]
        return self._serve(PLATFORM, calls, None, answer, batch=False)

    def fault_knobs(self, request: Incoming) -> Reply:
        if request.method == "GET":
            return Reply({"faults": self.faults.list()})
        if request.method == "DELETE":
            return Reply({"removed": self.faults.clear(request.query.get("node"))})
        if isinstance(request.body, BodyTooLarge):
            return request.body.answer()
        try:
            settings = jsonrpc.load_json(request.body)
            if not isinstance(settings, dict):
                raise ValueError("the body must be a JSON object of fault settings")
            fault = self.faults.set(**settings)
        except (ValueError, TypeError) as error:
            return Reply(error_body("invalid_fault", str(error)), status=400)
        return Reply(fault.to_json())

    def _refuse(self, request: Incoming) -> Reply | None:
        """None when the request carries the platform API key; else the 401/403 answer."""
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            message = "Authentication credentials were not provided: send Authorization: Bearer"
            return Reply(error_body("not_authenticated", message), status=401)
        given = token.strip().encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(self.world.api_key.encode(), given):  # constant time
            return Reply(error_body("permission_denied", "Invalid API key."), status=403)
        return None

    # --- faults and metering around an answer --------------------------------------------------

    def _serve(
        self,
        name: str,
        calls: list[Call],
        head: int | None,
        answer: Callable[[], Reply],
        batch: bool,
        blocking: bool = False,
    ) -> Handling:
        draw = self.faults.draw(name)
        fault = draw.fault
        given = replacement(fault, calls, batch) if fault else None
        # Billed on receipt (see `_metering`), as the client counts it: an error status it counts
        # as "maybe" (a 503 of an overloaded node) is billed here, so its budget is never short.
        if given is None or BILLING[self.meter.pricing.fate_of_status(given.status)].counted:
            self.meter.record(name, calls, head)
        if fault is not None and fault.kind is FaultKind.DROP:
            return Handling(answer, draw.delay, drop=True)
        if given is not None:
            return Handling(lambda: given, draw.delay)
        if fault is None:
            return Handling(answer, draw.delay, blocking=blocking)

        def distorted() -> Reply:
            return distort(fault, answer())

        return Handling(distorted, draw.delay, blocking=blocking)


def internal_error(error: Exception) -> Reply:
    """A JSON 500 for a failure the sandbox did not foresee: its type, never its message or a
    traceback (a server logs those)."""
    message = f"internal error ({type(error).__name__})"
    return Reply(error_body("internal_error", message), status=500)


def _plain(text: str, status: int, headers: dict[str, str] | None = None) -> Reply:
    """Starlette's own plain-text refusal, as its router answered an unrouted request."""
    return Reply(status=status, headers=headers or {}, content_type="text/plain", raw=text.encode())


async def _internal_error(request: Request, error: Exception) -> Response:
    """`internal_error`'s answer; the traceback goes to the server's log."""
    return internal_error(error).to_response()


def _bind(method: Method, args: Any, kwargs: dict[str, Any]) -> BoundCall:
    try:
        return method.bind(*args, **kwargs)
    except ValidationError as error:
        data = {"param": error.param, "rule": error.rule}
        raise RpcError(jsonrpc.INVALID_PARAMS, f"Invalid params: {error.detail}", data) from None


Bound = dict[int, tuple[list[Any], BoundCall]]
"""Calls bound ahead, by the id of their params list: (that list, its `BoundCall`)."""


def _bound_in_batch(endpoint: NodePath, decoded: jsonrpc.Decoded | None) -> Bound:
    """A batch's calls of each of the endpoint's methods (positional), bound together by
    `Method.bind_many`: a batch is mostly many calls of one method, and binding them in one pass
    costs less than binding each alone. The calls of a method that do not all bind (one bad
    call, whatever `bind_many` raises) are left out, to be bound one at a time when answered,
    each answering its own error. Binding is pure, so a call bound here binds as it would there;
    one that is not answered (a bad envelope around it) is bound for nothing."""
    if endpoint.named or not isinstance(decoded, tuple) or len(decoded[1]) < 2:
        return {}
    by_method: dict[str, list[list[Any]]] = {}
    for entry in decoded[1]:
        if type(entry) is dict:
            name, params = entry.get("method"), entry.get("params")
            if type(params) is list and type(name) is str and name in endpoint.methods:
                by_method.setdefault(name, []).append(params)
    bound: Bound = {}
    for name, lists in by_method.items():
        try:
            calls = endpoint.methods[name].bind_many([(tuple(params), {}) for params in lists])
        except Exception:  # each call is then bound alone when answered, and raises there
            continue
        for params, call in zip(lists, calls, strict=True):
            bound[id(params)] = (params, call)
    return bound


def _calls(endpoint: NodePath | None, path: str, decoded: jsonrpc.Decoded | None) -> list[Call]:
    """The calls of a request, as the meter counts them (`decoded`: a JSON-RPC body, read)."""
    if endpoint is None:
        return [Call(path.lstrip("/"), None, None)]
    if decoded is None:
        return [Call(endpoint.only_method.name, None, None)]
    calls = jsonrpc.calls_of(decoded)
    if endpoint.named:  # priced and counted as the catalog's method, whatever the inner one
        return [Call(endpoint.only_method.name, c.params, c.id, c.method) for c in calls]
    return calls


async def _drop(request: Request) -> Response:
    """Close the connection without answering (needs the sandbox's uvicorn protocol)."""
    transport = request.scope.get("state", {}).get(TRANSPORT_STATE_KEY)
    if transport is None:
        raise ConnectionAbortedError("drop fault: this server does not expose its transport")
    transport.abort()
    # Let the loop deliver connection_lost, so the server knows there is no one to answer.
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    return Response(status_code=204)  # discarded: the connection is gone
