"""The transport contract every call goes through, and what both network stacks share.

A call (`_transport.Exchange`) asks its transport to carry one HTTP exchange at a time: a `Send`
of an `HTTPRequest`, answered by an `Answer` (status, headers, decoded body) or a `NoAnswer`
(the toolkit's own error, and whether the request may have reached the gateway). `Transport` is
that contract, after httpx's `BaseTransport`: `send` and `asend` never raise for a failed
exchange. The network transports (`_network`: httpx blocking and async, aiohttp) and the tape
(`_tape`) keep it; so may a user's own, with no subclassing.

Two HTTP stacks, one behaviour: the proxy for a node (`env_proxy`) and the CA roots (`tls_context`)
are decided here once and handed to whichever client is made, never left to each library's own
reading of the environment (aiohttp's would also add ~/.netrc credentials to the gateway's
requests; httpx's parses NO_PROXY its own way). With `Settings.trust_env` off, no proxy and
certifi's roots.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from .._errors import GatewayError
from .._redact import redact_url, register_secret


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


class Delivery:
    """Whether a request may have reached the server yet: not until the client starts writing
    it (httpx) or holds a connection for it (aiohttp). An attempt stopped before then, by its
    deadline, a cancel or an interrupt, was never sent: no RU (a gateway that accepts no
    connection would otherwise show every call as maybe billed).

    The exchange makes one per attempt (`Send.delivery`), a network transport tracks it
    (`track_delivery`), and its HTTP stack marks it from the request's own task or thread,
    through a context variable, with no hook of its own per call."""

    __slots__ = ("may_have_left",)

    def __init__(self) -> None:
        self.may_have_left = False


_DELIVERY: ContextVar[Delivery | None] = ContextVar("toolkit_delivery", default=None)


def track_delivery(delivery: Delivery) -> None:
    """Let the request the current task or thread sends next mark `delivery`."""
    _DELIVERY.set(delivery)


def mark_delivery() -> None:
    """The request of the current task or thread may have left (a network transport's hook)."""
    delivery = _DELIVERY.get()
    if delivery is not None:
        delivery.may_have_left = True


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


# How long an idle connection is kept for reuse, by both stacks: under the 5 s after which
# common servers close an idle one (uvicorn, Node's http), so that we never send on a connection
# the server is closing. That race failed the attempt after it was sent (counted as maybe billed,
# then retried), and did on the sandbox with aiohttp's 15 s default.
KEEPALIVE_S = 4.0


# --- the transport contract ---------------------------------------------------------------------

_NO_HEADERS: Mapping[str, str] = MappingProxyType({})


# Named tuples, as the steps of an exchange: one of each is made per call, and a tuple is quicker
# to make than a frozen dataclass, which sets each field through object.__setattr__
# (bench/bench_records.py).
class HTTPRequest(NamedTuple):
    method: str
    url: str
    json: Any = None
    params: dict[str, Any] | None = None
    headers: Mapping[str, str] = _NO_HEADERS
    # `json` as the bytes the aiohttp transport would encode it to, when the request's maker has
    # them at hand (a JSON-RPC batch, from its calls' params texts); None: encoded from `json`.
    content: bytes | None = None

    def __repr__(self) -> str:
        return f"HTTPRequest({self.method} {redact_url(self.url)})"


class Send(NamedTuple):
    """Send `request` and answer before `deadline` (a `time.monotonic()` value, the end of a call
    of `timeout_s` seconds); the transport marks `delivery` once the request may have reached the
    server. `parts` (a batch's calls) or `likely` and `ru` (one call) are its price, for a
    transport that records what it cost."""

    request: HTTPRequest
    deadline: float
    delivery: Delivery
    parts: tuple[tuple[str, int, int, bool | None], ...] = ()
    likely: int = 0
    ru: int = 0
    max_bytes: int = MAX_ANSWER_BYTES  # the most the answer may decode to
    timeout_s: float = 30.0  # for the messages of a call that timed out


class NoAnswer(NamedTuple):
    """An exchange that got no usable HTTP answer: the toolkit's `error` for it (a `Timeout`, a
    `TransportError`, a `TapeMiss`...), and whether the request may have reached the gateway
    (`sent`: billed as maybe billed, else free). An answer refused unread (it decoded to more
    than `Send.max_bytes`) keeps its `status`, and is billed as answered with it."""

    error: GatewayError
    sent: bool
    status: int | None = None


class Transport(Protocol):
    """Carries one HTTP exchange: `send` (blocking) or `asend` (async) returns the `Answer`, or
    a `NoAnswer` for a failed exchange, and never raises for one (a cancel or an interrupt goes
    on up). A transport need not subclass this: the drivers only call its methods."""

    def send(self, step: Send) -> Answer | NoAnswer:
        raise TypeError(f"{type(self).__name__} sends only from an event loop")

    async def asend(self, step: Send) -> Answer | NoAnswer:
        raise TypeError(f"{type(self).__name__} sends only from a blocking call")

    def close(self) -> None:
        return None

    async def aclose(self) -> None:
        return None
