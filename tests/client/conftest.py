"""The client against the embedded sandbox (tests/conftest.py), over real loopback HTTP."""

import pytest

from tests.loopback import LoopbackHTTPServer


@pytest.fixture
def server_requests(sandbox):
    """How many requests the sandbox has answered since the last reset, over all nodes."""
    return lambda: sum(usage["requests"] for usage in sandbox.metering().values())


class LoopbackServer:
    """A plain HTTP server on 127.0.0.1 whose answers a test writes: `answer(request)` gets
    ``(method, path, headers, body)`` and returns ``(status, headers, body)``. `requests` lists
    what it received. For gateways that misbehave in ways the sandbox does not (a redirect
    elsewhere, an error page that echoes the path or the key)."""

    def __init__(self, answer):
        import http.server
        import threading

        self.answer = answer
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                request = (self.command, self.path, dict(self.headers), body)
                server.requests.append(request)
                status, headers, content = server.answer(request)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = _serve

            def log_message(self, *args):  # quiet: pytest shows stderr of failures
                pass

        self._server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def loopback_server():
    """Start `LoopbackServer(answer)`s; all are stopped after the test."""
    started = []

    def start(answer):
        server = LoopbackServer(answer)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()
