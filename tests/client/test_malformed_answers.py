"""Answers that are not what the spec promises become MalformedResponse before anything reads,
converts or caches them: a balance of "0xzz" (or "0x_1", full-width digits, a trailing newline,
257 bits), odd-length data, a bad root hash, and JSON nested too deep for the decoder.

A small fake node over real loopback HTTP answers each method with a chosen raw `result` text."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler

import pytest

import toolkit
from tests.loopback import LoopbackHTTPServer

EVM = "0x" + "ab" * 20
ONE_TRY = toolkit.RetryPolicy(attempts=1)


class FakeNode:
    """JSON-RPC answers by method name: `results[method]` is the raw JSON text of `result`."""

    def __init__(self):
        self.results: dict[str, bytes] = {"eth_blockNumber": b'"0x100000"'}
        self.asked: list[str] = []
        node = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                node.asked.append(body["method"])
                result = node.results[body["method"]]
                answer = b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (body["id"], result)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/KEY0123456789abcdef"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake():
    node = FakeNode()
    yield node
    node.close()


@pytest.fixture
def cache(tmp_path):
    made = toolkit.ResponseCache(tmp_path / "answers.sqlite")
    yield made
    made.close()


@pytest.fixture
def client(fake, cache):
    made = toolkit.node(fake.url, chain="ethereum", retry=ONE_TRY, cache=cache)
    yield made
    made.close()


BAD_QUANTITIES = [
    "0xzz",
    "0x_1",
    "0x\uff11",  # a full-width 1
    "0x1\n",
    " 0x1",
    "0x",
    "12",
    "0x" + "f" * 65,  # 260 bits: wider than any EVM word
    "0x\u00b2",  # a superscript 2
]


@pytest.mark.parametrize("result", BAD_QUANTITIES)
def test_a_bad_balance_is_malformed_and_never_cached(fake, client, cache, result):
    fake.results["eth_getBalance"] = json.dumps(result).encode()
    for _ in range(2):  # a final block: it would be cached if it had passed
        with pytest.raises(toolkit.MalformedResponse, match="hex quantity"):
            client.get_balance(EVM, block=1)
    assert fake.asked.count("eth_getBalance") == 2  # asked again: nothing was cached
    assert len(cache) == 0
    fake.results["eth_getBalance"] = b'"0x0de0b6b3a7640000"'  # leading zero: still a quantity
    assert client.get_balance(EVM, block=1) == 10**18
    assert len(cache) == 1


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1E+999"])
def test_a_number_json_cannot_hold_is_malformed_never_retried_nor_cached(fake, cache, literal):
    """Python's json reads these (the first three are not JSON at all, the others overflow a
    float to infinity); a balance of NaN must not pass as a number."""
    fake.results["eth_getBalance"] = literal.encode()
    eth = toolkit.node(fake.url, chain="ethereum", cache=cache)  # the default 4 attempts
    for call in (
        lambda: eth.get_balance(EVM, block=1),
        lambda: asyncio.run(eth.aio.get_balance(EVM, block=1)),
    ):
        with pytest.raises(toolkit.MalformedResponse, match="not a JSON number"):
            call()
    assert fake.asked.count("eth_getBalance") == 2  # once per call: asking again would not help
    assert len(cache) == 0
    eth.close()


def test_a_non_json_literal_inside_an_object_result_is_malformed(fake, client):
    fake.results["eth_getBlockByNumber"] = (
        b'{"number":"0x1","transactions":[],"gasUsed":"0x0","baseFeePerGas":Infinity}'
    )
    with pytest.raises(toolkit.MalformedResponse, match="Infinity, which is not a JSON number"):
        client.call("eth_getBlockByNumber", "0x1", False)


@pytest.mark.parametrize("result", ['"0x123"', '"0xgg"', '"0x12 "', "12", '"beef"'])
def test_bad_data_is_malformed(fake, client, cache, result):
    fake.results["eth_getStorageAt"] = result.encode()
    with pytest.raises(toolkit.MalformedResponse, match="hex data"):
        client.get_storage_at(EVM, 0, block=1)
    assert len(cache) == 0


def test_a_bad_head_is_malformed(fake, client):
    fake.results["eth_blockNumber"] = b'"0x\xef\xbc\x91"'  # UTF-8 of a full-width 1
    with pytest.raises(toolkit.MalformedResponse):
        client.block_number()


@pytest.mark.parametrize("depth", [129, 5_000, 200_000])
def test_deeply_nested_json_is_malformed_not_a_recursion_error(fake, client, depth):
    fake.results["eth_getBalance"] = b"[" * depth + b"]" * depth
    with pytest.raises(toolkit.MalformedResponse, match="nested deeper than 128"):
        client.get_balance(EVM, block=1)


def test_json_nested_within_the_limit_is_read(fake, client):
    fake.results["web3_clientVersion"] = b"[" * 100 + b"]" * 100  # read, then refused as text
    with pytest.raises(toolkit.MalformedResponse, match="expected a string"):
        client.client_version()


def test_a_bad_root_hash_is_malformed(fake, tmp_path):
    made = toolkit.node(fake.url, chain="polygon", retry=ONE_TRY, cache=False)
    try:
        for bad in ("0x" + "ab" * 31, "ab" * 31 + "\uff41b", "ab" * 31 + "a\n", "gg" * 32):
            fake.results["bor_getRootHash"] = json.dumps(bad).encode()
            with pytest.raises(toolkit.MalformedResponse, match="64 hex digits"):
                made.get_root_hash(1, 2)
        fake.results["bor_getRootHash"] = json.dumps("AB" * 32).encode()
        assert made.get_root_hash(1, 2) == "AB" * 32
    finally:
        made.close()


def test_a_wrong_shape_answer_is_not_retried_at_full_price(fake):
    """Well-formed JSON with the wrong result would come back the same: one billed attempt."""
    fake.results["eth_getBalance"] = b"12"
    eth = toolkit.node(fake.url, chain="ethereum", cache=False)  # the default 4 attempts
    with pytest.raises(toolkit.MalformedResponse, match="expected"):
        eth.get_balance(EVM)
    assert fake.asked == ["eth_getBalance"]
    assert [(e.ru, e.retries) for e in eth.ledger.entries] == [(1, 0)]
    eth.close()


# --- batches ------------------------------------------------------------------------------------

OTHER = "0x" + "cd" * 20


@pytest.fixture
def batch_node(loopback_server):
    """A JSON-RPC node that answers a batch with each call's balance (its address's last byte),
    and whatever `extra(calls)` adds: answers for ids already answered."""

    class BatchNode:
        extra = staticmethod(lambda calls: [])

    node = BatchNode()

    def result(call):
        if call["method"] == "eth_blockNumber":  # the head, which prices the calls
            return "0x100000"
        return hex(int(call["params"][0][-2:], 16))

    def answer(request):
        calls = json.loads(request[3])
        if isinstance(calls, dict):
            body = {"jsonrpc": "2.0", "id": calls["id"], "result": result(calls)}
        else:
            answers = [{"jsonrpc": "2.0", "id": c["id"], "result": result(c)} for c in calls]
            body = answers + node.extra(calls)
        return 200, {"content-type": "application/json"}, json.dumps(body).encode()

    node.server = loopback_server(answer)
    node.url = node.server.url + "/KEY0123456789abcdef"
    return node


def test_two_different_answers_for_one_id_fail_that_call_only(batch_node, cache):
    batch_node.extra = lambda calls: [{"jsonrpc": "2.0", "id": calls[0]["id"], "result": "0x0"}]
    eth = toolkit.node(batch_node.url, chain="ethereum", cache=cache)
    calls = [("eth_getBalance", EVM, 1), ("eth_getBalance", OTHER, 1)]
    first, second = eth.batch(calls, return_exceptions=True)
    assert isinstance(first, toolkit.MalformedResponse)
    assert "holds 2 answers for id" in str(first) and "they differ" in str(first)
    assert second == "0xcd"
    assert len(cache) == 1  # the answer that was unambiguous, and only it
    with pytest.raises(toolkit.MalformedResponse, match="they differ"):
        eth.batch([calls[0], ("eth_getBalance", "0x" + "ef" * 20, 1)])
    batches = [r for r in batch_node.server.requests if r[3].startswith(b"[")]
    assert len(batches) == 2  # neither batch retried: the node would say the same
    eth.close()


def test_a_second_copy_of_the_same_answer_is_that_answer(batch_node):
    batch_node.extra = lambda calls: [
        {"jsonrpc": "2.0", "id": calls[1]["id"], "result": "0xcd"}  # the very same answer
    ]
    eth = toolkit.node(batch_node.url, chain="ethereum", cache=False)
    assert eth.batch([("eth_getBalance", EVM, 1), ("eth_getBalance", OTHER, 1)]) == [
        "0xab",
        "0xcd",
    ]
    eth.close()


def test_the_async_batch_refuses_two_different_answers_too(batch_node):
    batch_node.extra = lambda calls: [
        {"jsonrpc": "2.0", "id": calls[1]["id"], "error": {"code": -32000, "message": "no"}}
    ]
    eth = toolkit.node(batch_node.url, chain="ethereum", cache=False)
    calls = [("eth_getBalance", EVM, 1), ("eth_getBalance", OTHER, 1)]
    first, second = asyncio.run(eth.aio.batch(calls, return_exceptions=True))
    assert first == "0xab"
    assert isinstance(second, toolkit.MalformedResponse) and "they differ" in str(second)
    eth.close()


@pytest.mark.parametrize(
    "envelope",
    [{"error": "x" * 100_000}, {"id": "x" * 100_000, "result": "0x1"}, {"error": [[1] * 50_000]}],
    ids=["error not an object", "id not the request's", "error a long list"],
)
def test_a_huge_malformed_envelope_is_quoted_in_short(loopback_server, envelope):
    """What a MalformedResponse quotes of the answer is cut, as everywhere else: a megabyte of
    it would otherwise be the message printed under a notebook cell."""

    def answer(request):
        body = {"jsonrpc": "2.0", "id": json.loads(request[3])["id"], **envelope}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    url = loopback_server(answer).url + "/KEY0123456789abcdef"
    eth = toolkit.node(url, chain="ethereum", cache=False, retry=ONE_TRY)
    with pytest.raises(toolkit.MalformedResponse, match="JSON-RPC") as caught:
        eth.block_number()
    eth.close()
    assert len(str(caught.value)) < 300
