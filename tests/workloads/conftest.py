"""Bulk runs against the sandbox (frozen heads), a small server that refuses batches, and Anvil."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

import pytest

from tests.loopback import LoopbackHTTPServer


class BatchRefusingNode:
    """A JSON-RPC node on loopback that answers single calls and refuses every batch, in one of
    the ways real servers do: HTTP 400 with an error object, or HTTP 200 with a single object."""

    HEAD = 0x1000

    def __init__(self, refusal: str):
        self.refusal = refusal
        self.requests: list[str] = []  # "batch" or the method of a single call
        node = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, answer = node.answer(body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, body):
        if isinstance(body, list):
            self.requests.append("batch")
            error = {"code": -32600, "message": "batch requests are not supported"}
            if self.refusal == "http-400":
                return 400, {"jsonrpc": "2.0", "id": None, "error": error}
            return 200, {"jsonrpc": "2.0", "id": None, "result": "0x0"}
        self.requests.append(body["method"])
        if body["method"] == "eth_blockNumber":
            result = hex(self.HEAD)
        else:  # eth_getBalance: the balance is the address's last two bytes, at every block
            result = hex(int(body["params"][0][-4:], 16))
        return 200, {"jsonrpc": "2.0", "id": body["id"], "result": result}

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(params=["http-400", "single-object"])
def refusing_node(request):
    node = BatchRefusingNode(request.param)
    yield node
    node.close()
