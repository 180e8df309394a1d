"""Errors keep their cause and say what to do, on real sockets: a name that does not resolve, a
port where nothing listens, ``https://`` to a port that speaks plain HTTP (answering, or silent:
then within the connect timeout, not the call's 30 s), a URL without a scheme. Sync and both
async stacks; nothing is billed, since nothing was sent."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

import toolkit
from toolkit.client import _http

KEY = "0f9e8d7c6b5a49382716a5b4c3d2e1f0"
STACKS = ["sync", "httpx", "aiohttp"]
# Every attempt a node makes by default, without the waits between them: the error is the last
# attempt's either way, and the waits were most of these tests' time.
NO_WAITS = toolkit.RetryPolicy(backoff_s=0.0, backoff_max_s=0.0)


def _call(url: str, stack: str, **options):
    kind = "httpx" if stack == "httpx" else "auto"
    options.setdefault("retry", NO_WAITS)
    node = toolkit.node(url, chain="ethereum", cache=False, async_transport=kind, **options)
    if stack == "aiohttp":
        pytest.importorskip("aiohttp")
    try:
        if stack == "sync":
            return node, node.block_number
        return node, lambda: asyncio.run(node.aio.block_number())
    except BaseException:
        node.close()
        raise


def _fails(url: str, stack: str, error=toolkit.TransportError, **options):
    node, call = _call(url, stack, **options)
    started = time.monotonic()
    try:
        with pytest.raises(error) as caught:
            call()
        message = str(caught.value)
        assert KEY not in message and KEY not in repr(caught.value)
        assert node.ledger.total_ru == 0  # never sent: free
        return message, time.monotonic() - started
    finally:
        node.close()


class _Server:
    """A loopback TCP server that plays a plain-HTTP port: it answers what it reads with
    `reply` (a 400, as most HTTP servers answer a TLS hello), or says nothing when None."""

    def __init__(self, reply: bytes | None):
        self.reply = reply
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.reply is None:
                self.held.append(conn)  # silent: a TLS hello gets no answer
                continue
            try:
                conn.recv(65536)
                conn.sendall(self.reply)
            except OSError:
                pass
            conn.close()

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def plain_port():
    server = _Server(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    yield server.port
    server.close()


@pytest.fixture
def silent_port():
    server = _Server(None)
    yield server.port
    server.close()


@pytest.mark.parametrize("stack", STACKS)
def test_a_name_that_does_not_resolve_says_dns(stack):
    message, _ = _fails(f"https://nd-000-000-000.invalid/{KEY}", stack)
    assert "does not resolve" in message and "DNS" in message
    assert "nd-000-000-000.invalid" in message and "check the URL's host" in message


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("stack", STACKS)
def test_a_port_where_nothing_listens_says_refused(stack):
    port = _free_port()
    message, _ = _fails(f"http://127.0.0.1:{port}/{KEY}", stack)
    assert f"127.0.0.1:{port} refused the connection" in message
    assert "Check the URL's port" in message


@pytest.mark.parametrize("stack", STACKS)
def test_https_to_a_plain_http_port_names_tls(stack, plain_port):
    message, elapsed = _fails(f"https://127.0.0.1:{plain_port}/{KEY}", stack)
    assert "TLS handshake" in message and "plain HTTP" in message
    assert elapsed < 10


@pytest.mark.parametrize("stack", STACKS)
def test_https_to_a_silent_port_fails_within_the_connect_timeout(stack, silent_port, monkeypatch):
    monkeypatch.setattr(_http, "CONNECT_TIMEOUT_S", 1.0)
    message, elapsed = _fails(
        f"https://127.0.0.1:{silent_port}/{KEY}", stack, error=toolkit.Timeout, timeout=30
    )
    assert elapsed < 6  # the connect timeout (1 s), not the call's 30 s deadline
    assert "1 s connect timeout" in message and "TLS handshake" in message


def test_the_connect_timeout_is_well_under_the_call_deadline():
    from toolkit.client._transport import DEFAULT_TIMEOUT

    assert _http.CONNECT_TIMEOUT_S <= DEFAULT_TIMEOUT / 3
    assert _http.httpx_timeout(2.0).connect == 2.0  # never more than the call's deadline


@pytest.mark.parametrize(
    "url", ["rpc.ankr.com/eth/" + KEY, "://rpc.ankr.com/eth/" + KEY, "//rpc.ankr.com/" + KEY]
)
def test_a_url_without_a_scheme_says_so(url):
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.node(url)
    message = str(caught.value)
    assert "has no scheme" in message and "https://" in message and KEY not in message
    assert "got ://" not in message
