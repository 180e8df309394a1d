"""The plain HTTP server the tests stand up on loopback when the sandbox is not what they need (a
server that answers one fixed body, or breaks the connection on purpose)."""

from __future__ import annotations

import socket
import sys
from http.server import ThreadingHTTPServer


class LoopbackHTTPServer(ThreadingHTTPServer):
    """`ThreadingHTTPServer` on an address given (port 0: any free one), its handler threads
    daemons, and no traceback printed when a client drops its connection: the tests drop them
    on purpose (a deadline, a cancelled run, a pool closed with calls in flight), and the
    standard server would print each one into the test run's output."""

    daemon_threads = True

    def get_request(self) -> tuple[socket.socket, tuple[str, int]]:
        # A handler writes its headers and then its body, two small sends: with Nagle's algorithm
        # the body waited for the client's delayed ACK of the headers, 40 ms a request on Linux
        # over a kept-alive connection (the hostile-answers sweep spent 22 of its 28 s so).
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address

    def serve_forever(self, poll_interval: float = 0.01) -> None:
        # `shutdown()` waits for the loop to look at its flag, which it does between polls: at
        # the standard half second, stopping a test's server took up to that, and the tests that
        # stand one up mostly waited (118 of them: 60 s, 5 of them CPU).
        super().serve_forever(poll_interval)

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)
