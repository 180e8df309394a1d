"""The sandbox gateway as an ASGI app: routing, auth, and the life of one request.

Routes:

- ``/<ACCESS_KEY>[/<path>]``: a node. The key picks the node, the node's chain picks the
  endpoints, and the catalog says which endpoints each chain has: every JSON-RPC method of a chain
  is served at its path (the node base, hyperliquid's ``/evm``, TRON's ``/jsonrpc``, TON's
  ``/api/v2/jsonRPC``), every REST method at its own. A trailing slash is ignored. Unknown key: 403;
  no key: 401; a listed node that is not running: 503.
- ``GET /v2/nodes/``: the platform API, ``Authorization: Bearer <api_key>``.
- ``/_sandbox/metering`` (GET), ``/_sandbox/metering/reset`` (POST), ``/_sandbox/faults`` (GET
  lists, POST sets one from a JSON body, DELETE clears, optionally ``?node=``): sandbox controls,
  with the same Bearer key; never metered, never faulted.

One node request: resolve the node, read the body, take the chain head once (the answer and the
price both use it), draw faults (delay, then drop, a replacement answer, or a distortion of the
real one), answer, meter (see `_metering` for the rule), respond.

The HTTP edge is hardened like a real gateway's: a body over `MAX_BODY_BYTES` (geth's own limit)
is answered 413 with a JSON error before it is read whole; a body that is not JSON, or nests
deeper than `_jsonrpc.MAX_DEPTH`, gets JSON-RPC's -32700 parse error (never a 500); access keys
and the API key are compared in constant time; an unexpected failure is a JSON 500 with no
traceback in the body.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .._errors import ValidationError
from ..catalog import BILLING, CHAINS, BoundCall, Method, Surface
from . import _jsonrpc as jsonrpc
from . import _platform
from ._evm import EvmChain
from ._evm_beyond import beyond_spec_handlers
from ._faults import TRANSPORT_STATE_KEY, FaultKind, Faults, distort, replacement
from ._jsonrpc import Call, RpcError
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
) -> Starlette:
    """The gateway for `world`; pass `meter`/`faults` to share them with the caller.
    `batch_limit`: the most calls a JSON-RPC batch may hold; a larger one is refused as geth
    refuses it (one -32600 "batch too large" error), and billed as received. None (the
    default): any."""
    gateway = SandboxApp(world, meter, faults, batch_limit)
    app = Starlette(routes=gateway.routes(), exception_handlers={Exception: _internal_error})
    app.state.gateway = gateway
    return app


class SandboxApp:
    """The app's endpoints, over a world, a meter and fault knobs."""

    def __init__(
        self,
        world: World,
        meter: Metering | None,
        faults: Faults | None,
        batch_limit: int | None = None,
    ):
        names = [node.name for node in world.served_nodes]
        self.world = world
        self.batch_limit = batch_limit
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

    def routes(self) -> list[Route]:
        return [
            Route("/v2/nodes/", self.list_nodes, methods=["GET"]),
            Route("/v2/nodes", self.list_nodes, methods=["GET"]),  # not a key named "v2"
            Route("/_sandbox/metering", self.read_metering, methods=["GET"]),
            Route("/_sandbox/metering/reset", self.reset_metering, methods=["POST"]),
            Route("/_sandbox/faults", self.fault_knobs, methods=["GET", "POST", "DELETE"]),
            Route("/", self.no_key, methods=ALL_METHODS),
            Route("/{key}", self.node_request, methods=ALL_METHODS),
            Route("/{key}/{rest:path}", self.node_request, methods=ALL_METHODS),
        ]

    # --- nodes ---------------------------------------------------------------------------------

    async def no_key(self, request: Request) -> Response:
        message = "missing access key: node URLs look like <host>/<ACCESS_KEY>"
        return Reply(error_body("missing_access_key", message), status=401).to_response()

    async def node_request(self, request: Request) -> Response:
        node = self.world.node_by_key(request.path_params["key"])
        if node is None:
            message = "invalid access key for this endpoint"
            return Reply(error_body("invalid_access_key", message), status=403).to_response()
        if not node.serving:
            message = f"node {node.node_id} ({node.name}) is {node.status}, not running"
            return Reply(error_body("node_unavailable", message), status=503).to_response()
        path = "/" + request.path_params.get("rest", "").rstrip("/")
        path = "" if path == "/" else path
        endpoint = self.endpoints[node.name].get((request.method, path))
        try:
            body = await read_body(request)
        except BodyTooLarge as too_large:  # refused, not answered: not metered
            return too_large.answer().to_response()
        self.world.clock.tick()
        head = self.world.head(node.chain)
        # A JSON-RPC body is read once, for the meter and for the answer.
        decoded = jsonrpc.read(body) if endpoint is not None and endpoint.jsonrpc else None
        calls = _calls(endpoint, path, decoded)

        async def answer() -> Reply:
            return await self._answer(node, endpoint, path, request, body, decoded, head)

        batch = endpoint is not None and endpoint.jsonrpc and body.lstrip().startswith(b"[")
        return await self._serve(request, node.name, calls, head, answer, batch)

    async def _answer(
        self,
        node: NodeRecord,
        endpoint: NodePath | None,
        path: str,
        request: Request,
        body: bytes,
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
            return service.rest(endpoint.only_method, handler, body, request.query_params, head)
        style = jsonrpc.TONCENTER if endpoint.named else jsonrpc.JSONRPC
        assert decoded is not None  # read for every JSON-RPC endpoint (`node_request`)
        refused = self._over_batch_limit(decoded)
        if refused is not None:
            return Reply(jsonrpc.refuse_batch(refused, style))
        evm = any(name.startswith("eth_") for name in endpoint.methods)
        beyond = self.beyond.get(node.chain) if evm else None
        bound = _bound_in_batch(endpoint, decoded)
        dispatch = self._dispatcher(endpoint, self.handlers[node.chain], head, beyond, bound)
        if getattr(service, "blocking", False):
            return Reply(await run_in_threadpool(jsonrpc.answer, decoded, dispatch, style))
        return Reply(jsonrpc.answer(decoded, dispatch, style))

    def _over_batch_limit(self, decoded: jsonrpc.Decoded) -> list[Any] | None:
        """The entries of `decoded` when it is a batch of more calls than the sandbox's opt-in
        limit; else None."""
        limit = self.batch_limit
        if limit is None or not isinstance(decoded, tuple):
            return None
        is_batch, entries = decoded
        return entries if is_batch and len(entries) > limit else None

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

    async def list_nodes(self, request: Request) -> Response:
        refused = self._refuse(request)
        if refused:
            return refused.to_response()

        async def answer() -> Reply:
            return _platform.list_page(self.world, str(request.base_url), request.query_params)

        calls = [Call("v2/nodes/", None, None)]
        return await self._serve(request, PLATFORM, calls, None, answer, batch=False)

    async def read_metering(self, request: Request) -> Response:
        refused = self._refuse(request)
        return (refused or Reply(self.meter.snapshot())).to_response()

    async def reset_metering(self, request: Request) -> Response:
        refused = self._refuse(request)
        return (refused or Reply(self.meter.reset())).to_response()

    async def fault_knobs(self, request: Request) -> Response:
        refused = self._refuse(request)
        if refused:
            return refused.to_response()
        if request.method == "GET":
            return Reply({"faults": self.faults.list()}).to_response()
        if request.method == "DELETE":
            removed = self.faults.clear(request.query_params.get("node"))
            return Reply({"removed": removed}).to_response()
        try:
            settings = jsonrpc.load_json(await read_body(request))
            if not isinstance(settings, dict):
                raise ValueError("the body must be a JSON object of fault settings")
            fault = self.faults.set(**settings)
        except BodyTooLarge as too_large:
            return too_large.answer().to_response()
        except (ValueError, TypeError) as error:
            return Reply(error_body("invalid_fault", str(error)), status=400).to_response()
        return Reply(fault.to_json()).to_response()

    def _refuse(self, request: Request) -> Reply | None:
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

    async def _serve(
        self,
        request: Request,
        name: str,
        calls: list[Call],
        head: int | None,
        answer: Callable[[], Awaitable[Reply]],
        batch: bool,
    ) -> Response:
        draw = self.faults.draw(name)
        fault = draw.fault
        given = replacement(fault, calls, batch) if fault else None
        # Billed on receipt (see `_metering`), as the client counts it: an error status it counts
        # as "maybe" (a 503 of an overloaded node) is billed here, so its budget is never short.
        if given is None or BILLING[self.meter.pricing.fate_of_status(given.status)].counted:
            self.meter.record(name, calls, head)
        if draw.delay:
            await asyncio.sleep(draw.delay)
        if fault is not None and fault.kind is FaultKind.DROP:
            return await _drop(request)
        if given is None:
            given = await answer()
            if fault is not None:
                given = distort(fault, given)
        return given.to_response()


async def _internal_error(request: Request, error: Exception) -> Response:
    """A JSON 500 for a failure the sandbox did not foresee; the traceback goes to the server's
    log, never into the body."""
    message = f"internal error ({type(error).__name__})"
    return Reply(error_body("internal_error", message), status=500).to_response()


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
