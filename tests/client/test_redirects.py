"""No redirect is followed, on either path: a node URL's path holds its access key, and following
a redirect would re-send it (and the platform's API key header) wherever the answer points."""

import asyncio
import json

import pytest

import toolkit

KEY = "RedirectKey0123456789abcdefABCDEF"
NO_RETRY = toolkit.RetryPolicy(attempts=1)


def _elsewhere(loopback_server):
    """A second origin (another port) that answers every request as a node would."""

    def answer(request):
        body = {"jsonrpc": "2.0", "id": json.loads(request[3] or b"{}").get("id"), "result": "0x1"}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    return loopback_server(answer)


def _redirecting(loopback_server, target: str, status: int = 307):
    return loopback_server(lambda request: (status, {"Location": target + request[1]}, b""))


def _node(url: str, transport: str = "auto"):
    return toolkit.node(
        url, chain="ethereum", cache=False, retry=NO_RETRY, async_transport=transport
    )


def _assert_refused(error: toolkit.HTTPStatusError, status: int, where: str) -> None:
    assert error.status == status
    assert "redirects are not followed" in str(error)
    assert where in str(error) and KEY not in str(error)


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_sync_call_refuses_a_cross_origin_redirect(loopback_server, status):
    other = _elsewhere(loopback_server)
    origin = _redirecting(loopback_server, other.url, status)
    node = _node(f"{origin.url}/{KEY}")
    with pytest.raises(toolkit.HTTPStatusError) as caught:
        node.block_number()
    _assert_refused(caught.value, status, other.url)
    assert other.requests == []  # the key never reached the other origin
    assert len(origin.requests) == 1


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
@pytest.mark.parametrize("status", [302, 307])
def test_async_call_refuses_a_cross_origin_redirect_as_the_sync_one(
    loopback_server, transport, status
):
    other = _elsewhere(loopback_server)
    origin = _redirecting(loopback_server, other.url, status)
    node = _node(f"{origin.url}/{KEY}", transport)

    async def call():
        try:
            return await node.aio.block_number()
        finally:
            await node.aio.aclose()

    with pytest.raises(toolkit.HTTPStatusError) as caught:
        asyncio.run(call())
    _assert_refused(caught.value, status, other.url)
    assert other.requests == []
    assert len(origin.requests) == 1


def test_a_redirect_on_the_same_origin_is_not_followed_either(loopback_server):
    origin = _redirecting(loopback_server, "")  # Location: the path alone
    node = _node(f"{origin.url}/{KEY}")
    with pytest.raises(toolkit.HTTPStatusError) as caught:
        node.block_number()
    _assert_refused(caught.value, 307, "the same origin")
    assert len(origin.requests) == 1


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_the_platform_api_key_is_not_sent_after_a_redirect(loopback_server, transport):
    other = _elsewhere(loopback_server)
    origin = _redirecting(loopback_server, other.url)
    api_key = "PlatformKey-" + KEY
    settings = toolkit.client.Settings(cache=None, retry=NO_RETRY, async_transport=transport)
    platform = toolkit.client.platform(origin.url, api_key, settings=settings)
    with pytest.raises(toolkit.HTTPStatusError):
        platform.list_nodes()

    async def listing():
        try:
            return await platform.aio.list_nodes()
        finally:
            await platform.aio.aclose()

    with pytest.raises(toolkit.HTTPStatusError):
        asyncio.run(listing())
    assert other.requests == []
    assert all(api_key in request[2].get("Authorization", "") for request in origin.requests)
