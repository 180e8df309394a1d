"""The plain HTTP server the tests stand up on loopback when the sandbox is not what they need (a
server that answers one fixed body, or breaks the connection on purpose)."""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer


class LoopbackHTTPServer(ThreadingHTTPServer):
    """`ThreadingHTTPServer` on an address given (port 0: any free one), its handler threads
    daemons, and no traceback printed when a client drops its connection: the tests drop them
    on purpose (a deadline, a cancelled run, a pool closed with calls in flight), and the
    standard server would print each one into the test run's output."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)
