"""The transports over the network: httpx's blocking client, and aiohttp (by default) or
`httpx.AsyncClient` for async and bulk calls, all set up the same way. Each keeps the transport
contract (`_http.Transport`) and turns its own library's errors into the toolkit's tree at its
own edge: a `NoAnswer` with the error users read (named as httpx names the failure, whichever
stack sent) and whether the request may have left.

Why aiohttp (the figures are in ``bench/``): `httpx.AsyncClient`'s connection pool does not
scale with concurrency; httpx over an aiohttp transport (``httpx_aiohttp``) is faster but then
spends most of its time in httpx's own client layer (URL parsing, header models, the auth and
redirect machinery); aiohttp driven directly is the fastest of the three. Its answer is read into
an `Answer`: building an `httpx.Response` from it (its header model, its byte stream and
decoder) was a visible share of a bulk REST run's time.
"""

from __future__ import annotations

import functools
import json
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from .._errors import MalformedResponse, Timeout, TransportError
from .._redact import scrub_logs
from ._causes import explain as explain_failure
from ._deadlines import before
from ._http import (
    KEEPALIVE_S,
    Answer,
    AsyncTransportKind,
    LazyModule,
    NoAnswer,
    Send,
    Transport,
    connect_timeout_s,
    env_proxy,
    httpx_timeout,
    mark_delivery,
    tls_context,
    track_delivery,
)

if TYPE_CHECKING:
    import asyncio
    import ssl

    import httpx
else:
    asyncio = LazyModule("asyncio", globals())
    httpx = LazyModule("httpx", globals())
    ssl = LazyModule("ssl", globals())

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


def _trace(event: str, info: dict[str, Any]) -> None:
    """httpcore's report of each step of a request: once it starts writing it (its headers, or
    through a proxy's tunnel its CONNECT request's: on the safe side), it may have left."""
    if event.endswith("send_request_headers.started"):
        mark_delivery()


async def _atrace(event: str, info: dict[str, Any]) -> None:
    _trace(event, info)  # the async client awaits its hooks and traces


def _trace_delivery(request: httpx.Request) -> None:
    """httpx's request hook: httpcore then reports each step of the request to `_trace`."""
    request.extensions["trace"] = _trace


async def _atrace_delivery(request: httpx.Request) -> None:
    request.extensions["trace"] = _atrace


@functools.cache
def _delivery_connector() -> type:
    """aiohttp's TCPConnector, marking the request's `Delivery` once it has a connection (from
    the pool, or made: through the proxy's tunnel, when there is one)."""
    import aiohttp

    class DeliveryConnector(aiohttp.TCPConnector):
        async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
            connection = await super().connect(req, traces, timeout)
            mark_delivery()
            return connection

    return DeliveryConnector


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


# --- the transports -----------------------------------------------------------------------------


class HttpxTransport(Transport):
    """httpx's blocking client (made by `sync_transport`), every socket operation bounded by
    what is left of its call's deadline (`call_deadline`, and why above it)."""

    def __init__(self, client: httpx.Client):
        self.client = client

    def send(self, step: Send) -> Answer | NoAnswer:
        request, deadline = step.request, step.deadline
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return deadline_passed(step)
        track_delivery(step.delivery)
        bounded = call_deadline(deadline)  # every socket operation, headers included
        try:
            with self.client.stream(
                request.method,
                request.url,
                json=request.json,
                params=request.params,
                headers=request.headers,
                timeout=httpx.Timeout(remaining, connect=min(remaining, connect_timeout_s())),
            ) as response:
                chunks, size = [], 0
                for chunk in iter_decoded(response):  # decoded from gzip or deflate, piece by piece
                    size += len(chunk)
                    if size > step.max_bytes:  # a decompression bomb: stop before it grows whole
                        return too_large(step.max_bytes, response.status_code)
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise httpx.ReadTimeout("the call's deadline passed while reading")
                return Answer(response.status_code, response.headers, b"".join(chunks))
        except httpx.HTTPError as error:
            return _httpx_failure(error, step)
        finally:
            reset_deadline(bounded)

    def close(self) -> None:
        self.client.close()


class AsyncHttpxTransport(Transport):
    """`httpx.AsyncClient`, its answer read in decoded chunks up to `Send.max_bytes`."""

    def __init__(self, client: httpx.AsyncClient):
        self.client = client

    async def asend(self, step: Send) -> Answer | NoAnswer:
        return await _before_deadline(step, self._exchange)

    async def _exchange(self, step: Send) -> Answer | NoAnswer:
        request = step.request
        try:
            async with self.client.stream(
                request.method,
                request.url,
                json=request.json,
                params=request.params,
                headers=request.headers,
            ) as response:
                chunks = aiter_decoded(response)
                return await _read(chunks, response.status_code, response.headers, step.max_bytes)
        except httpx.HTTPError as error:
            return _httpx_failure(error, step)

    async def aclose(self) -> None:
        await self.client.aclose()


class AiohttpTransport(Transport):
    """aiohttp underneath, answering with an `Answer`.

    It sets no timeout of its own: every request is sent under its call's deadline
    (`_before_deadline`), which bounds connecting, sending and reading together. aiohttp's
    timeouts would only add timers that never fire first (its read timeout is a timer moved on
    each chunk received)."""

    def __init__(self, *, proxy: str | None = None, tls: ssl.SSLContext | None = None):
        import aiohttp

        self._aiohttp = aiohttp
        # Only connecting has a bound of its own (the TLS handshake included), armed once per
        # new connection: a plain-HTTP port never answers a TLS handshake.
        no_timeout = aiohttp.ClientTimeout(
            total=None, connect=None, sock_connect=connect_timeout_s(), sock_read=None
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

    async def asend(self, step: Send) -> Answer | NoAnswer:
        return await _before_deadline(step, self._exchange)

    async def _exchange(self, step: Send) -> Answer | NoAnswer:
        """Send, and read the answer decoded (gzip, deflate) to at most `max_bytes` bytes
        (`_read`). `request.content`: its `json` encoded already, as `json_bytes` would."""
        request = step.request
        body = None
        if request.json is not None:  # a payload as aiohttp makes for its json=: no type lookup
            body = self._aiohttp.payload.BytesPayload(
                json_bytes(request.json) if request.content is None else request.content,
                content_type="application/json",
            )
        url = request.url
        if request.params:
            url = str(httpx.URL(url, params=request.params))  # httpx's encoding (bools: true)
        try:
            # No redirect is followed, as with httpx: the URL's path holds the access key, and a
            # redirect would re-send it wherever the answer points (`check_status` refuses it).
            async with self._session.request(
                request.method,
                url,
                data=body,
                headers=self._headers_for(request.headers),
                allow_redirects=False,
                proxy=self._proxy,
            ) as answer:
                length = answer.content_length
                if (
                    length is not None
                    and length <= step.max_bytes
                    and not answer.headers.get("Content-Encoding")
                ):  # the body is as long as it says (aiohttp checks): read it in one go
                    return Answer(answer.status, answer.headers, await answer.read())
                chunks = answer.content.iter_chunked(_CHUNK)
                return await _read(chunks, answer.status, answer.headers, step.max_bytes)
        except (TimeoutError, self._aiohttp.ClientError) as error:
            return _aiohttp_failure(self._aiohttp, error, step)

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
        from asyncio.events import _get_running_loop  # None outside a loop: it never raises

        if _get_running_loop() is loop:
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


# What httpx sends for json=...: compact, UTF-8, no NaN. One encoder for every request: json.dumps
# with options builds a new one per call.
_REQUEST_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def json_bytes(value: Any) -> bytes:
    return _REQUEST_JSON.encode(value).encode()


def sync_transport(url: str, timeout: float, *, trust_env: bool) -> HttpxTransport:
    """A blocking transport for the node or platform at `url`; every request it sends ends by
    its call's deadline, headers included."""
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
    return HttpxTransport(client)


def async_transport(
    kind: AsyncTransportKind, url: str, timeout: float, *, trust_env: bool
) -> Transport:
    """A new async transport of the chosen kind for the node at `url` (checked by the node
    client that holds it); make it inside the loop that will use it."""
    transport: Transport
    if kind == "httpx" or (kind == "auto" and not aiohttp_available()):
        options = _httpx_options(url, timeout, trust_env)
        client = httpx.AsyncClient(**options, event_hooks={"request": [_atrace_delivery]})
        transport = AsyncHttpxTransport(client)
    else:
        proxy = env_proxy(url) if trust_env else None
        transport = AiohttpTransport(proxy=proxy, tls=tls_context(trust_env))
    scrub_logs()  # aiohttp or httpx, imported on first use, have just made their loggers
    return transport


def _httpx_options(url: str, timeout: float, trust_env: bool) -> dict[str, Any]:
    return {
        "timeout": httpx_timeout(timeout),
        "limits": httpx.Limits(keepalive_expiry=KEEPALIVE_S),
        "follow_redirects": False,  # see AiohttpTransport._exchange
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


# --- each library's errors as the toolkit's, at its own edge -------------------------------------


@functools.cache
def _never_sent() -> tuple[type[BaseException], ...]:
    """httpx's failures that prove the request never reached the gateway; any other may have."""
    return (
        httpx.ConnectError,
        httpx.ConnectTimeout,
        httpx.PoolTimeout,
        httpx.ProxyError,
        httpx.UnsupportedProtocol,
    )


def _httpx_failure(error: httpx.HTTPError, step: Send) -> NoAnswer:
    sent = not isinstance(error, _never_sent())
    if isinstance(error, httpx.TimeoutException):
        return timed_out(error, type(error).__name__, step, sent)
    if isinstance(error, httpx.DecodingError):
        return _garbled(str(error))
    return unreachable(error, type(error).__name__, str(error), step, sent)


def _aiohttp_failure(aiohttp: Any, error: BaseException, step: Send) -> NoAnswer:
    """aiohttp's error, named as httpx names the same failure: what a user reads does not
    depend on the stack that sent."""
    reason = str(error) or type(error).__name__
    connect_timeout = getattr(aiohttp, "ConnectionTimeoutError", None)  # aiohttp 3.10+
    if connect_timeout is not None and isinstance(error, connect_timeout):
        return timed_out(error, "ConnectTimeout", step, sent=False)
    if isinstance(error, TimeoutError | aiohttp.ServerTimeoutError):
        return timed_out(error, "ReadTimeout", step, sent=True)
    if isinstance(error, aiohttp.ClientPayloadError) and "content-encoding" in reason.lower():
        return _garbled(reason)  # what httpx says of the same body
    kind, sent = "TransportError", True
    if isinstance(error, aiohttp.ClientConnectorError):
        kind, sent = "ConnectError", False
    elif isinstance(error, aiohttp.ServerDisconnectedError):
        kind = "RemoteProtocolError"
    elif isinstance(error, aiohttp.ClientPayloadError | aiohttp.ClientOSError):
        kind = "ReadError"
    return unreachable(error, kind, reason, step, sent)


async def _read(
    chunks: AsyncIterator[bytes], status: int, headers: Mapping[str, str], max_bytes: int
) -> Answer | NoAnswer:
    """An async answer's decoded body, read in chunks: a bomb is stopped near `max_bytes`, not
    after it has grown whole in memory."""
    read, size = [], 0
    async for chunk in chunks:
        size += len(chunk)
        if size > max_bytes:
            return too_large(max_bytes, status)
        read.append(chunk)
    return Answer(status, headers, b"".join(read))


async def _before_deadline(
    step: Send, exchange: Callable[[Send], Awaitable[Answer | NoAnswer]]
) -> Answer | NoAnswer:
    """An async exchange run under its call's deadline, which bounds it whole."""
    if step.deadline - time.monotonic() <= 0:
        return deadline_passed(step)
    track_delivery(step.delivery)
    try:
        return await before(step.deadline, exchange(step))
    except TimeoutError as error:
        if not step.delivery.may_have_left:  # still connecting: never sent, as httpx's own says
            return timed_out(error, "ConnectTimeout", step, sent=False)
        return timed_out(error, "ReadTimeout", step, sent=True)


def deadline_passed(step: Send) -> NoAnswer:
    """The call's deadline passed before this attempt could be sent (so it was not)."""
    return NoAnswer(Timeout(f"no answer within the call's {step.timeout_s:g} s deadline"), False)


def timed_out(error: BaseException, kind: str, step: Send, sent: bool) -> NoAnswer:
    if kind == "ConnectTimeout" and time.monotonic() < step.deadline - 0.05:
        cause = explain_failure(error, step.request.url, connect_timeout=True)  # not ours
        if cause is not None:
            return NoAnswer(Timeout(cause), sent)
    return NoAnswer(
        Timeout(f"no answer within the call's {step.timeout_s:g} s deadline ({kind})"), sent
    )


def _garbled(reason: str) -> NoAnswer:
    return NoAnswer(
        MalformedResponse(
            f"the body does not decode as its Content-Encoding says ({reason})",
            retryable=True,  # a body cut or garbled on the way may pass next time
        ),
        sent=True,
    )


def too_large(limit: int, status: int) -> NoAnswer:
    """An answer whose decoded body grew past `limit` bytes; reading stopped there. The server
    answered (`status`), so the attempt is billed as answered."""
    return NoAnswer(
        MalformedResponse(
            f"HTTP {status}: the answer decoded to more than {limit:,} bytes, the bound on an "
            "answer's size (max_answer_bytes); reading stopped there. A compressed body that "
            "grows this far is refused, not retried; raise max_answer_bytes if a node's answers "
            "really are this large",
            status=status,
        ),
        sent=True,
        status=status,
    )


def unreachable(error: BaseException, kind: str, reason: str, step: Send, sent: bool) -> NoAnswer:
    untrusted = _certificate_refusal(error)
    if untrusted is not None:
        message = (
            f"the server's TLS certificate is not trusted ({untrusted}); "
            "if your network has its own root, point SSL_CERT_FILE at a bundle with it"
        )
    elif (cause := explain_failure(error, step.request.url)) is not None:
        message = f"could not reach the gateway: {cause}"
    else:
        reason = reason.strip()
        message = f"could not reach the gateway ({kind}" + (f": {reason})" if reason else ")")
    return NoAnswer(TransportError(message), sent)


def _certificate_refusal(error: BaseException) -> str | None:
    """Why the certificate was refused, when that is what is behind a connection error (httpx
    and aiohttp both chain the `ssl` error; aiohttp's own error also is one, wrapping it)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, ssl.SSLCertVerificationError):
            cause = getattr(cause, "certificate_error", cause)
            return getattr(cause, "verify_message", None) or str(cause)
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None
