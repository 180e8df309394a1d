"""Compressed answers: a gateway (or a proxy in front of it) may gzip or deflate its bodies, since
every request offers ``Accept-Encoding: gzip, deflate``. Each stack decodes them itself (httpx
for blocking calls, aiohttp or httpx for async ones) and the exchange reads the decoded body."""

import asyncio
import gzip
import json
import zlib

import pytest

import toolkit

NO_RETRY = toolkit.RetryPolicy(attempts=1)
BALANCE = hex(10**30 + 7)  # past 2**64: the exact value must survive decoding


def _compressing(loopback_server, encoding: str, *, broken: bool = False):
    def answer(request):
        call = json.loads(request[3])
        body = json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": BALANCE}).encode()
        if broken:
            content = b"not " + encoding.encode() + b" at all"
        elif encoding == "gzip":
            content = gzip.compress(body)
        else:
            content = zlib.compress(body)
        headers = {"Content-Type": "application/json", "Content-Encoding": encoding}
        return 200, headers, content

    return loopback_server(answer)


def _node(url: str, transport: str = "auto"):
    return toolkit.node(
        url, chain="ethereum", cache=False, retry=NO_RETRY, async_transport=transport
    )


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
@pytest.mark.parametrize("flavour", ["sync", "aiohttp", "httpx"])
def test_compressed_answers_are_decoded_on_every_path(loopback_server, encoding, flavour):
    server = _compressing(loopback_server, encoding)
    node = _node(server.url, "auto" if flavour == "sync" else flavour)
    address = "0x" + "ab" * 20
    try:
        if flavour == "sync":
            value = node.get_balance(address, 12)
        else:
            value = asyncio.run(node.aio.get_balance(address, 12))
    finally:
        node.close()
    assert value == int(BALANCE, 16)
    method, _, headers, _ = server.requests[0]
    offered = {k.lower(): v for k, v in headers.items()}["accept-encoding"]
    assert method == "POST" and "gzip" in offered and "deflate" in offered


@pytest.mark.parametrize("flavour", ["sync", "aiohttp", "httpx"])
def test_a_body_that_is_not_what_its_encoding_says_is_a_typed_error(loopback_server, flavour):
    server = _compressing(loopback_server, "gzip", broken=True)
    node = _node(server.url, "auto" if flavour == "sync" else flavour)
    try:
        with pytest.raises(toolkit.MalformedResponse, match="does not decode") as caught:
            if flavour == "sync":
                node.get_balance("0x" + "ab" * 20, 12)
            else:
                asyncio.run(node.aio.get_balance("0x" + "ab" * 20, 12))
    finally:
        node.close()
    assert caught.value.retryable  # garbled on the way, perhaps: asking again may help
    assert "Content-Encoding" in str(caught.value) and "reach" not in str(caught.value)


def test_an_answer_shows_neither_its_body_nor_its_headers():
    from toolkit.client._http import Answer

    key = "AnswerKey0123456789abcdefABCDEF"
    answer = Answer(403, {"x-echo": key}, f"<html>bad key /{key}/</html>".encode())
    assert repr(answer) == "<Answer 403, 54 bytes>" and key not in str(answer)
