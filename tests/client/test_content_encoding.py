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
        elif encoding == "deflate-raw":  # "deflate" as some servers send it: no zlib wrapper
            squeeze = zlib.compressobj(wbits=-zlib.MAX_WBITS)
            content = squeeze.compress(body) + squeeze.flush()
        else:
            content = zlib.compress(body)
        named = "deflate" if encoding == "deflate-raw" else encoding
        headers = {"Content-Type": "application/json", "Content-Encoding": named}
        return 200, headers, content

    return loopback_server(answer)


def _node(url: str, transport: str = "auto"):
    return toolkit.node(
        url, chain="ethereum", cache=False, retry=NO_RETRY, async_transport=transport
    )


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "deflate-raw"])
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


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
@pytest.mark.parametrize("flavour", ["sync", "aiohttp", "httpx"])
def test_a_body_that_is_not_what_its_encoding_says_is_a_typed_error(
    loopback_server, flavour, encoding
):
    server = _compressing(loopback_server, encoding, broken=True)
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


def _gzip_bomb(decoded: int) -> bytes:
    """A JSON-RPC answer whose result is `decoded` bytes of "0" digits, gzipped: about a
    thousandth of its size on the wire. Made a MiB at a time, so the test never holds it whole."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip container
    parts = [squeeze.compress(b'{"jsonrpc": "2.0", "id": 1, "result": "0x')]
    block = b"0" * (1 << 20)
    parts += [squeeze.compress(block) for _ in range(decoded >> 20)]
    parts.append(squeeze.compress(b'"}') + squeeze.flush())
    return b"".join(parts)


@pytest.mark.parametrize("flavour", ["sync", "aiohttp", "httpx"])
def test_a_gzip_bomb_is_refused_at_the_bound_without_growing_whole(loopback_server, flavour):
    """256 MiB of answer in a few hundred KiB of gzip: refused once 32 MiB (the default bound)
    are decoded, and the process holds little more than the bound (a 64 KiB chunk of the bomb
    inflates to 64 MiB when decoded whole: it is decoded in pieces)."""
    import tracemalloc

    bomb = _gzip_bomb(256 << 20)
    assert len(bomb) < 512 * 1024
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    server = loopback_server(lambda request: (200, headers, bomb))
    transport = "auto" if flavour == "sync" else flavour
    node = toolkit.node(server.url, chain="ethereum", cache=False, async_transport=transport)
    tracemalloc.start()
    try:
        with pytest.raises(toolkit.MalformedResponse, match="33,554,432 bytes") as caught:
            if flavour == "sync":
                node.block_number()
            else:
                asyncio.run(node.aio.block_number())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        node.close()
    assert peak < 48 << 20  # the bound and a piece or two, not the 256 MiB it decodes to
    assert "max_answer_bytes" in str(caught.value) and not caught.value.retryable
    assert len(server.requests) == 1  # not asked again: the same bomb would come back


@pytest.mark.parametrize("flavour", ["sync", "aiohttp", "httpx"])
def test_the_bound_is_a_setting_and_an_answer_within_it_passes(loopback_server, flavour):
    server = _compressing(loopback_server, "gzip")  # a balance answer of about 90 bytes

    def balance(max_answer_bytes):
        node = toolkit.node(
            server.url,
            chain="ethereum",
            cache=False,
            retry=NO_RETRY,
            async_transport="auto" if flavour == "sync" else flavour,
            max_answer_bytes=max_answer_bytes,
        )
        try:
            if flavour == "sync":
                return node.get_balance("0x" + "ab" * 20, 12)
            return asyncio.run(node.aio.get_balance("0x" + "ab" * 20, 12))
        finally:
            node.close()

    assert balance(200) == int(BALANCE, 16)
    with pytest.raises(toolkit.MalformedResponse, match="more than 50 bytes"):
        balance(50)
    with pytest.raises(toolkit.ValidationError, match="max_answer_bytes"):
        balance(0)
