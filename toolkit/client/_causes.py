"""Why a request never got an answer, in words that say what to do.

httpx and aiohttp chain the operating system's error under their own: a name that does not
resolve (`socket.gaierror`), a port where nothing listens (`ConnectionRefusedError`), a TLS
handshake with a server that speaks plain HTTP (`ssl.SSLError`, or no answer to the handshake at
all). `explain` walks that chain and names the cause; each network transport (`_network`) puts
it in the error it answers with, scrubbed like every message.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Any

from . import _http


def causes(error: BaseException) -> Iterator[BaseException]:
    """`error` and what it was raised from, in order (aiohttp's `os_error` included)."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        cause = pending.pop(0)
        if cause is None or id(cause) in seen:
            continue
        seen.add(id(cause))
        yield cause
        pending += [cause.__cause__, cause.__context__, getattr(cause, "os_error", None)]


def _where(url: Any) -> str:
    try:
        import httpx

        parsed = httpx.URL(str(url))
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        return f"{parsed.host}:{port}"
    except Exception:
        return "the node"


def _scheme(url: Any) -> str:
    return str(url).partition("://")[0].lower()


def _in_handshake(chain: list[BaseException]) -> bool:
    """Whether one of `chain` was raised inside a TLS handshake (httpcore's ``start_tls``, the
    `ssl` module's ``do_handshake``): the TCP connection was made, TLS never came."""
    for cause in chain:
        trace = cause.__traceback__
        while trace is not None:
            if trace.tb_frame.f_code.co_name in ("start_tls", "do_handshake"):
                return True
            trace = trace.tb_next
    return False


_PLAIN_HTTP = (
    ": the port may serve plain HTTP, not TLS. Check the URL's scheme and port (https:// needs a"
    " TLS port; plain http:// is allowed to loopback)"
)


def explain(error: BaseException, url: Any, *, connect_timeout: bool = False) -> str | None:
    """What stopped a request to `url` from reaching the gateway, and what to do; None when the
    chain says nothing the exception's name would not. `connect_timeout`: `error` is the
    connection's own timeout (not the call's deadline)."""
    import socket  # here, not at the top: `import toolkit` loads neither (test_startup)
    import ssl

    where = _where(url)
    within = f"within the {_http.CONNECT_TIMEOUT_S:g} s connect timeout"
    chain = list(causes(error))
    handshaking = _in_handshake(chain)
    for cause in chain:
        if isinstance(cause, socket.gaierror) or "getaddrinfo" in str(cause).lower():
            reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else cause
            host = where.rpartition(":")[0]
            return (
                f"the host name {host} does not resolve (DNS: {reason}): check the URL's host "
                "(a placeholder such as the README's is no real node), or your network's DNS"
            )
    for cause in chain:
        if isinstance(cause, ConnectionRefusedError) or (
            isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED
        ):
            return (
                f"{where} refused the connection: nothing listens on that port. Check the URL's "
                "port, and that the node (or the sandbox) is running"
            )
    if connect_timeout and _scheme(url) == "https" and handshaking:
        return f"the TLS handshake with {where} did not finish {within}{_PLAIN_HTTP}"
    for cause in chain:
        if isinstance(cause, ssl.SSLCertVerificationError):
            return None  # said by the exchange, with what to do about it
        if isinstance(cause, ssl.SSLError):
            reason = getattr(cause, "reason", None) or str(cause)
            return f"the TLS handshake with {where} failed ({reason}){_PLAIN_HTTP}"
    if connect_timeout:
        tls = " or the TLS handshake" if _scheme(url) == "https" else ""
        return (
            f"no connection to {where} {within} (the TCP connection{tls}): check the URL's host "
            "and port, and any firewall on the way"
        )
    return None
