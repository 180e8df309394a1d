"""The HTTP clients every call goes through: `httpx.Client` for blocking calls, aiohttp (by
default) or `httpx.AsyncClient` for async and bulk calls, all set up here the same way.

Why aiohttp (the figures are in ``bench/``): `httpx.AsyncClient`'s connection pool does not
scale with concurrency; httpx over an aiohttp transport (``httpx_aiohttp``) is faster but then
spends most of its time in httpx's own client layer (URL parsing, header models, the auth and
redirect machinery); aiohttp driven directly is the fastest of the three. So the async flavour
sends with aiohttp directly, through `AiohttpClient`,
which speaks the one method the exchange drivers use (``request(method, url, json=, params=,
headers=)``) and answers with an `Answer` or raises an `httpx` exception: everything above it
(interpretation, retries, errors) is unchanged and shared with the blocking flavour.

`Answer` is the whole of what the exchange reads from an HTTP answer: its status, its headers
(looked up case-insensitively) and its body, decoded from gzip or deflate. An `httpx.Response`
has the same three attributes, so `httpx.AsyncClient`'s answers pass as they are. Building an
`httpx.Response` from aiohttp's answer instead (its header model, its byte stream and decoder)
was a visible share of a bulk REST run's time.

Two HTTP stacks, one behaviour: the proxy for a node (`env_proxy`) and the CA roots (`tls_context`)
are decided here once and handed to whichever client is made, never left to each library's own
reading of the environment (aiohttp's would also add ~/.netrc credentials to the gateway's
requests; httpx's parses NO_PROXY its own way). With `Settings.trust_env` off, no proxy and
certifi's roots.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import time
import weakref
from collections.abc import Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from .._redact import register_secret, scrub_logs


class LazyModule:
    """Stands in for a module until its first attribute is read: that read imports the module and
    puts it in place of the stand-in in `namespace` (the globals of the module that made it), so
    every later use there is the plain module's, at no cost. `import toolkit` then does not pay
    for httpx (a large share of its time, click for httpx's command line included) nor asyncio
    and ssl before a call is made. Type checkers see the real import, under
    `TYPE_CHECKING`."""

    def __init__(self, name: str, namespace: dict[str, Any]) -> None:
        self._name = name
        self._namespace = namespace

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        if self._namespace.get(self._name) is self:
            self._namespace[self._name] = module
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<{self._name}, imported on first use>"


if TYPE_CHECKING:
    import asyncio
    import ssl

    import httpx
else:
    asyncio = LazyModule("asyncio", globals())
    httpx = LazyModule("httpx", globals())
    ssl = LazyModule("ssl", globals())

AsyncTransportKind = Literal["auto", "aiohttp", "httpx"]
ASYNC_TRANSPORTS = ("auto", "aiohttp", "httpx")


class Replayed(NamedTuple):
    """What a tape says of the answer it replays: what each call it answers cost when it was
    recorded (billed, maybe billed), and when that was (ISO 8601, UTC; None when the tape held
    none of its calls). `misses`: the calls of a JSON-RPC batch the tape does not hold, by
    request id, each its own `TapeMiss` (the batch answer lacks them; the others replay), or,
    recording on from a recording that died, its `StillToSend` (the node sends them next)."""

    costs: tuple[tuple[int, int], ...]
    at: str | None
    latency_s: float = 0.0  # how long the recorded request took
    misses: Mapping[Any, BaseException] = MappingProxyType({})


class Answer(NamedTuple):
    """An HTTP answer as the exchange reads it (an `httpx.Response` reads the same way)."""

    status_code: int
    headers: Mapping[str, str]  # looked up case-insensitively: ``headers.get("retry-after")``
    content: bytes  # the body, content-encoding decoded
    replayed: Replayed | None = None  # from a tape: nothing was sent (`toolkit.client._tape`)

    def __repr__(self) -> str:  # never the body or headers: an error page may echo the key
        return f"<Answer {self.status_code}, {len(self.content):,} bytes>"


# The most an answer may decode to, by default: far above any answer of the spec (a full block
# of a busy chain is a few MiB), far below what a decompression bomb grows to (127 KiB of gzip
# made 268 MiB). `Settings.max_answer_bytes` changes it.
MAX_ANSWER_BYTES = 32 * 1024 * 1024
# Seconds to open a connection, the TLS handshake included (never more than the call's deadline):
# a port that speaks plain HTTP never answers a TLS handshake, and waited out the whole 30 s.
CONNECT_TIMEOUT_S = 10.0


def connect_timeout_s() -> float:
    """`CONNECT_TIMEOUT_S` as it is now (a test may change it)."""
    return CONNECT_TIMEOUT_S


def httpx_timeout(seconds: float) -> httpx.Timeout:
    """httpx's timeouts for `seconds` in all, connecting bounded by `CONNECT_TIMEOUT_S`."""
    return httpx.Timeout(seconds, connect=min(seconds, CONNECT_TIMEOUT_S))


_CHUNK = 64 * 1024


class _Inflate:
    """gzip or deflate decoded a piece of at most `_CHUNK` bytes at a time. httpx decodes each
    chunk it reads whole, and a 64 KiB chunk of a bomb inflates to 64 MiB at once; pieces keep
    what a refused answer holds near `max_answer_bytes`. Undecodable bytes raise httpx's own
    `DecodingError`, as its decoders do."""

    def __init__(self, encoding: str):
        import zlib

        self._zlib = zlib
        self._deflate = encoding == "deflate"
        wbits = zlib.MAX_WBITS if self._deflate else zlib.MAX_WBITS | 16
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def feed(self, data: bytes):
        try:
            yield from self._pieces(data)
        except self._zlib.error as error:
            if not (self._deflate and not self._started):
                raise httpx.DecodingError(str(error)) from None
            # "deflate" that is raw DEFLATE, without the zlib wrapper: tried as httpx tries it
            self._inflate = self._zlib.decompressobj(-self._zlib.MAX_WBITS)
            self._started = True
            try:
                yield from self._pieces(data)
            except self._zlib.error as error:
                raise httpx.DecodingError(str(error)) from None

    def _pieces(self, data: bytes):
        inflate = self._inflate
        piece = inflate.decompress(data, _CHUNK)
        while True:
            self._started = True
            if piece:
                yield piece
            if not inflate.unconsumed_tail:
                return
            piece = inflate.decompress(inflate.unconsumed_tail, _CHUNK)

    def flush(self) -> bytes:
        try:
            return self._inflate.flush()
        except self._zlib.error as error:
            raise httpx.DecodingError(str(error)) from None


def _inflater(response: httpx.Response) -> _Inflate | None:
    """The bounded decoder for the answer's Content-Encoding, or None for httpx's own (none,
    identity, or an encoding the toolkit did not ask for)."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    return _Inflate(encoding) if encoding in ("gzip", "deflate") else None


def iter_decoded(response: httpx.Response):
    """An httpx answer's body decoded, in pieces of at most `_CHUNK` bytes where it is gzip or
    deflate (so a reader that stops at a bound holds little more than the bound)."""
    inflate = _inflater(response)
    if inflate is None:
        yield from response.iter_bytes()
        return
    for raw in response.iter_raw():
        yield from inflate.feed(raw)
    if tail := inflate.flush():
        yield tail


async def aiter_decoded(response: httpx.Response):
    """`iter_decoded` for an answer of `httpx.AsyncClient`."""
    inflate = _inflater(response)
    if inflate is None:
        async for chunk in response.aiter_bytes():
            yield chunk
        return
    async for raw in response.aiter_raw():
        for piece in inflate.feed(raw):
            yield piece
    if tail := inflate.flush():
        yield tail


class AnswerTooLarge(Exception):
    """An answer whose decoded body grew past `limit` bytes; reading stopped there. The server
    answered (`status`), so the attempt is billed as answered."""

    def __init__(self, limit: int, status: int):
        self.limit = limit
        self.status = status
        super().__init__(f"the answer decoded to more than {limit:,} bytes")


class Delivery:
    """Whether a request may have reached the server yet: not until the client starts writing
    it (httpx) or holds a connection for it (aiohttp). An attempt stopped before then, by its
    deadline, a cancel or an interrupt, was never sent: no RU (a gateway that accepts no
    connection would otherwise show every call as maybe billed).

    The exchange makes one per attempt, the drivers hand it to the client (`track_delivery`),
    and the client marks it from the request's own task or thread, through a context variable,
    with no hook of its own per call."""

    __slots__ = ("may_have_left",)

    def __init__(self) -> None:
        self.may_have_left = False


_DELIVERY: ContextVar[Delivery | None] = ContextVar("toolkit_delivery", default=None)


def track_delivery(delivery: Delivery) -> None:
    """Let the request the current task or thread sends next mark `delivery`."""
    _DELIVERY.set(delivery)


def _may_have_left() -> None:
    delivery = _DELIVERY.get()
    if delivery is not None:
        delivery.may_have_left = True


def _writes_the_request(event: str) -> bool:
    """httpcore's trace event for the start of writing a request ("http11.send_request_headers
    .started", or http2's; through a proxy's tunnel, its CONNECT request's first: on the safe
    side)."""
    return event.endswith("send_request_headers.started")


def _trace_delivery(request: httpx.Request) -> None:
    """httpx's request hook (blocking client): httpcore then reports each step to the trace."""
    request.extensions["trace"] = _trace


def _trace(event: str, info: dict[str, Any]) -> None:
    if _writes_the_request(event):
        _may_have_left()


async def _atrace_delivery(request: httpx.Request) -> None:
    """`_trace_delivery` for the async client, whose hooks and traces are awaited."""
    request.extensions["trace"] = _atrace


async def _atrace(event: str, info: dict[str, Any]) -> None:
    if _writes_the_request(event):
        _may_have_left()


@functools.cache
def _delivery_connector() -> type:
    """aiohttp's TCPConnector, marking the request's `Delivery` once it has a connection (from
    the pool, or made: through the proxy's tunnel, when there is one)."""
    import aiohttp

    class DeliveryConnector(aiohttp.TCPConnector):
        async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
            connection = await super().connect(req, traces, timeout)
            _may_have_left()
            return connection

    return DeliveryConnector


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for `url` (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY,
    either case, read as the standard library reads them), or None."""
    import urllib.request  # only now: httpx, which needs it too, is loaded on first use as well

    target = httpx.URL(url)
    host = target.host if target.port is None else f"{target.host}:{target.port}"
    if urllib.request.proxy_bypass(host):
        return None
    proxies = urllib.request.getproxies()
    proxy = proxies.get(target.scheme) or proxies.get("all")
    if proxy:
        # A proxy's password is a secret like a node key: scrubbed wherever it might show.
        password = httpx.URL(proxy).password
        if password:
            register_secret(proxy)
            register_secret(password)
    return proxy or None


def tls_context(trust_env: bool = True) -> ssl.SSLContext:
    """The CA roots every client verifies with: SSL_CERT_FILE, else SSL_CERT_DIR, else certifi's
    bundle (httpx's own rule, so the sync path is unchanged), one context per setting."""
    if not trust_env:
        return _tls_context(None, None)
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=8)
def _tls_context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    if cafile:
        return ssl.create_default_context(cafile=cafile)
    if capath:
        return ssl.create_default_context(capath=capath)
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


# --- a deadline for the whole blocking exchange --------------------------------------------------
# httpx's timeouts bound each read, not the exchange: a server that drips its headers (a line every
# 0.2 s) held a call with timeout=1.5 for as long as it went on. The blocking clients' sockets are
# made by a network backend whose streams bound every read, write, connect and TLS handshake by
# what is left of the call's deadline (set for the current thread by `call_deadline`), so the
# deadline bounds the whole call, headers included. (The async stacks run the whole exchange under
# the deadline already: `_deadlines.before`.)

_CALL_DEADLINE: ContextVar[float | None] = ContextVar("toolkit_call_deadline", default=None)


def call_deadline(deadline: float) -> Any:
    """Bound the blocking requests this thread makes (until `reset_deadline`) by `deadline`,
    a `time.monotonic()` value; returns the token for `reset_deadline`."""
    return _CALL_DEADLINE.set(deadline)


def reset_deadline(token: Any) -> None:
    _CALL_DEADLINE.reset(token)


def _left(timeout: float | None) -> float | None:
    """`timeout` for one socket operation, never past the call's deadline. Once it has passed,
    a sliver: the socket then times out as httpcore expects, and says so in its own error."""
    deadline = _CALL_DEADLINE.get()
    if deadline is None:
        return timeout
    left = max(deadline - time.monotonic(), 0.001)
    return left if timeout is None else min(timeout, left)


@functools.cache
def _deadline_backend() -> type:
    import httpcore

    class DeadlineStream(httpcore.NetworkStream):
        def __init__(self, stream: Any):
            self._stream = stream

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self._stream.read(max_bytes, _left(timeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._stream.write(buffer, _left(timeout))

        def close(self) -> None:
            self._stream.close()

        def start_tls(self, ssl_context: Any, server_hostname: Any = None, timeout: Any = None):
            return DeadlineStream(
                self._stream.start_tls(ssl_context, server_hostname, _left(timeout))
            )

        def get_extra_info(self, info: str) -> Any:
            return self._stream.get_extra_info(info)

    class DeadlineBackend(httpcore.NetworkBackend):
        def __init__(self, backend: Any):
            self._backend = backend

        def connect_tcp(self, host: str, port: int, timeout: Any = None, *args: Any, **kw: Any):
            stream = self._backend.connect_tcp(host, port, _left(timeout), *args, **kw)
            return DeadlineStream(stream)

        def connect_unix_socket(self, path: str, timeout: Any = None, *args: Any, **kw: Any):
            return DeadlineStream(
                self._backend.connect_unix_socket(path, _left(timeout), *args, **kw)
            )

        def sleep(self, seconds: float) -> None:
            self._backend.sleep(seconds)

    return DeadlineBackend


@functools.cache
def _deadline_transport() -> type:
    """httpx's transport, its connection pool given the deadline backend (for a proxy's pool
    too: the transport of a proxy is one of these as well)."""
    backend = _deadline_backend()

    class DeadlineTransport(httpx.HTTPTransport):
        def __init__(self, **options: Any):
            super().__init__(**options)
            self._pool._network_backend = backend(self._pool._network_backend)

    return DeadlineTransport


def sync_client(url: str, timeout: float, *, trust_env: bool) -> httpx.Client:
    """A blocking client for the node or platform at `url`; every request it sends under
    `call_deadline` ends by that deadline, headers included."""
    options = _httpx_options(url, timeout, trust_env)
    proxy = options.pop("proxy")
    made = {"verify": options.pop("verify"), "limits": options["limits"]}
    transport = _deadline_transport()
    client = httpx.Client(
        **options,
        transport=transport(**made),
        mounts={"all://": transport(proxy=proxy, **made)} if proxy else None,
        event_hooks={"request": [_trace_delivery]},
    )
    scrub_logs()  # httpx and httpcore (imported by its transport) have just made their loggers
    return client


def async_client(kind: AsyncTransportKind, url: str, timeout: float, *, trust_env: bool) -> Any:
    """A new async client of the chosen kind for the node at `url` (checked by the node client
    that holds it); call it inside the loop that will use it."""
    client: Any  # httpx's, or ours over aiohttp: the same few methods (see `AiohttpClient`)
    if kind == "httpx" or (kind == "auto" and not aiohttp_available()):
        options = _httpx_options(url, timeout, trust_env)
        client = httpx.AsyncClient(**options, event_hooks={"request": [_atrace_delivery]})
    else:
        proxy = env_proxy(url) if trust_env else None
        client = AiohttpClient(proxy=proxy, tls=tls_context(trust_env))
    scrub_logs()  # aiohttp or httpx, imported on first use, have just made their loggers
    return client


# How long an idle connection is kept for reuse, by both stacks: under the 5 s after which
# common servers close an idle one (uvicorn, Node's http), so that we never send on a connection
# the server is closing. That race failed the attempt after it was sent (counted as maybe billed,
# then retried), and did on the sandbox with aiohttp's 15 s default.
KEEPALIVE_S = 4.0


def _httpx_options(url: str, timeout: float, trust_env: bool) -> dict[str, Any]:
    return {
        "timeout": httpx_timeout(timeout),
        "limits": httpx.Limits(keepalive_expiry=KEEPALIVE_S),
        "follow_redirects": False,  # see AiohttpClient.request
        "verify": tls_context(trust_env),
        "proxy": env_proxy(url) if trust_env else None,
        "trust_env": False,  # decided above, for both stacks alike
    }


def aiohttp_available() -> bool:
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return False
    return True


class AiohttpClient:
    """aiohttp underneath; it answers with an `Answer` and fails with httpx exceptions.

    It sets no timeout of its own: every request is sent under its call's deadline (see
    `_transport._send_async`), which bounds connecting, sending and reading together. aiohttp's
    timeouts would only add timers that never fire first (its read timeout is a timer moved on
    each chunk received)."""

    def __init__(self, *, proxy: str | None = None, tls: ssl.SSLContext | None = None):
        import aiohttp

        self._aiohttp = aiohttp
        # Only connecting has a bound of its own (the TLS handshake included), armed once per
        # new connection: a plain-HTTP port never answers a TLS handshake.
        no_timeout = aiohttp.ClientTimeout(
            total=None, connect=None, sock_connect=CONNECT_TIMEOUT_S, sock_read=None
        )
        self._session = aiohttp.ClientSession(
            connector=_delivery_connector()(
                ssl=tls if tls is not None else tls_context(), keepalive_timeout=KEEPALIVE_S
            ),
            auto_decompress=True,  # gzip and deflate, which `Accept-Encoding` offers
            timeout=no_timeout,
            trust_env=False,  # the proxy is decided by `env_proxy`, for both stacks alike
        )
        # Whole, credentials included: aiohttp sends them as Proxy-Authorization for http and
        # https targets alike (its `proxy_headers` reach only an https tunnel's CONNECT).
        self._proxy = proxy
        self._given_headers: Any = _NOT_YET  # the headers `_headers` was made from
        self._headers: Any = None
        # Whoever forgets the client without closing it (a gateway dropped in a notebook, an
        # ``asyncio.run`` that ended, the interpreter exiting), the session is closed quietly.
        self._release = weakref.finalize(self, _release, self._session, asyncio.get_running_loop())

    async def request(
        self,
        method: str,
        url: str,
        *,
        json: Any = None,  # the name httpx uses
        params: dict[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        max_bytes: int = MAX_ANSWER_BYTES,
        content: bytes | None = None,
    ) -> Answer:
        """Send, and read the answer decoded (gzip, deflate) to at most `max_bytes` bytes, else
        raise `AnswerTooLarge`: read in chunks, so a bomb is stopped near the bound, not after it
        has grown whole in memory. `content`: `json` encoded already, as `_json_bytes` would."""
        body = None
        if json is not None:  # a payload, as aiohttp makes for its own json=: no type lookup
            body = self._aiohttp.payload.BytesPayload(
                _json_bytes(json) if content is None else content,
                content_type="application/json",
            )
        if params:
            url = str(httpx.URL(url, params=params))  # httpx's encoding (true/false for bools)
        try:
            # No redirect is followed, as with httpx: the URL's path holds the access key, and a
            # redirect would re-send it wherever the answer points (`check_status` refuses it).
            async with self._session.request(
                method,
                url,
                data=body,
                headers=self._headers_for(headers),
                allow_redirects=False,
                proxy=self._proxy,
            ) as answer:
                length = answer.content_length
                if (
                    length is not None
                    and length <= max_bytes
                    and not answer.headers.get("Content-Encoding")
                ):  # the body is as long as it says (aiohttp checks): read it in one go
                    return Answer(answer.status, answer.headers, await answer.read())
                chunks, size = [], 0
                async for chunk in answer.content.iter_chunked(_CHUNK):
                    size += len(chunk)
                    if size > max_bytes:
                        raise AnswerTooLarge(max_bytes, answer.status)
                    chunks.append(chunk)
                return Answer(answer.status, answer.headers, b"".join(chunks))
        except (TimeoutError, self._aiohttp.ClientError) as error:
            raise _as_httpx_error(self._aiohttp, error) from error

    def _headers_for(self, headers: Mapping[str, str] | None) -> Any:
        """`headers` with Accept-Encoding, as aiohttp's own header type, made once: a node sends
        the same headers object with every request."""
        if headers is not self._given_headers:
            from multidict import CIMultiDict  # aiohttp's

            merged = CIMultiDict({"Accept-Encoding": "gzip, deflate", **(headers or {})})
            self._given_headers, self._headers = headers, merged
        return self._headers

    async def aclose(self) -> None:
        self._release.detach()
        await self._session.close()
        # Closing a transport finishes on the loop's next turn; without it, an `asyncio.run`
        # that ends now leaves its sockets open (a ResourceWarning for each).
        await asyncio.sleep(0)

    def abandon(self) -> None:
        """Let go of the client now, closing its session as well as its loop allows."""
        self._release()


_NOT_YET = object()


def _release(session: Any, loop: asyncio.AbstractEventLoop) -> None:
    """Close a session nobody closed, without awaiting on the caller's side."""
    if session.closed:
        return
    if loop.is_running():
        if _running_loop() is loop:
            loop.create_task(session.close())
            return
        try:
            asyncio.run_coroutine_threadsafe(session.close(), loop).result(timeout=2)
            return
        except Exception:  # the loop stopped meanwhile: let go below
            pass
    # Nothing can be awaited on a closed or stopped loop; its sockets go with its transports.
    connector = session.connector
    session.detach()
    if connector is not None:
        connector._close()  # on a closed loop this only marks the connector closed


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


# What httpx sends for json=...: compact, UTF-8, no NaN. One encoder for every request: json.dumps
# with options builds a new one per call.
_REQUEST_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _json_bytes(value: Any) -> bytes:
    return _REQUEST_JSON.encode(value).encode()


def _as_httpx_error(aiohttp: Any, error: BaseException) -> httpx.HTTPError:
    """aiohttp's exception as the httpx exception the exchange understands."""
    message = str(error) or type(error).__name__
    connect_timeout = getattr(aiohttp, "ConnectionTimeoutError", None)  # aiohttp 3.10+
    if connect_timeout is not None and isinstance(error, connect_timeout):
        return httpx.ConnectTimeout(message)  # never sent
    if isinstance(error, TimeoutError | aiohttp.ServerTimeoutError):
        return httpx.ReadTimeout(message)
    if isinstance(error, aiohttp.ClientConnectorError):
        return httpx.ConnectError(message)
    if isinstance(error, aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError(message)
    if isinstance(error, aiohttp.ClientPayloadError) and "content-encoding" in message.lower():
        return httpx.DecodingError(message)  # what httpx raises for the same body
    if isinstance(error, aiohttp.ClientPayloadError | aiohttp.ClientOSError):
        return httpx.ReadError(message)
    return httpx.TransportError(message)
