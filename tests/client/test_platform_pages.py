"""Following the platform's `next` links is bounded: a link back to a page already read, a
cycle, or an endless chain of pages is a MalformedResponse, never a listing that loops forever."""

import json
from urllib.parse import parse_qs, urlsplit

import pytest

import toolkit
from toolkit.client import _platform

NO_RETRY = toolkit.RetryPolicy(attempts=1)


def _lister(loopback_server, next_of):
    """A platform API on loopback whose page N links to `next_of(N)` (None: the last page)."""

    def answer(request):
        query = parse_qs(urlsplit(request[1]).query)
        number = int(query.get("page", ["1"])[0])
        following = next_of(number)
        link = None if following is None else f"{server.url}/v2/nodes/?page={following}"
        page = {
            "count": 1000,
            "next": link,
            "previous": None,
            "results": [{"name": f"node-{number}", "status": "running"}],
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(page).encode()

    server = loopback_server(answer)
    return server


def _gateway(server):
    return toolkit.Gateway(server.url, "platform-key-0123456789", retry=NO_RETRY, cache=False)


@pytest.mark.parametrize(
    "next_of, pages_read",
    [
        # The first page is asked for without a page number, so a link to "?page=1" reads it
        # once more before the loop shows; every other page is read once.
        (lambda n: n, 2),  # page 1 links to itself
        (lambda n: 1 if n == 3 else n + 1, 4),  # 1 -> 2 -> 3 -> back to 1
        (lambda n: 2 if n == 3 else n + 1, 3),  # a cycle that skips the first page: 2 -> 3 -> 2
    ],
)
def test_a_next_link_back_to_a_page_already_read_stops_the_listing(
    loopback_server, next_of, pages_read
):
    server = _lister(loopback_server, next_of)
    gw = _gateway(server)
    with pytest.raises(toolkit.MalformedResponse, match="points back at a page already read"):
        gw.nodes()
    assert len(server.requests) == pages_read
    gw.close()


def test_the_async_listing_is_bounded_too(loopback_server):
    import asyncio

    server = _lister(loopback_server, lambda n: 1 if n == 2 else 2)
    gw = _gateway(server)

    async def listing():
        try:
            return await gw.platform.aio.list_nodes()
        finally:
            await gw.platform.aio.aclose()

    with pytest.raises(toolkit.MalformedResponse, match="already read"):
        asyncio.run(listing())
    assert len(server.requests) == 3  # 1, 2, "?page=1", then the link to 2 is refused


def test_an_endless_chain_of_new_pages_stops_at_the_bound(loopback_server, monkeypatch):
    monkeypatch.setattr(_platform, "MAX_PAGES", 5)
    server = _lister(loopback_server, lambda n: n + 1)
    gw = _gateway(server)
    with pytest.raises(toolkit.MalformedResponse, match="past 5 pages"):
        gw.nodes()
    assert len(server.requests) == 5


def test_a_finite_listing_is_read_whole(loopback_server):
    server = _lister(loopback_server, lambda n: n + 1 if n < 4 else None)
    assert [r["name"] for r in _gateway(server).nodes()] == [f"node-{n}" for n in range(1, 5)]


@pytest.mark.parametrize(
    "link",
    ["http://[::1/x", "http://127.0.0.1:x/", "::", "/v2/nodes/\n?page=2", "/v2/nodes/?page=\ud800"],
    ids=["open bracket", "bad port", "colons", "newline", "lone surrogate"],
)
def test_a_next_link_that_is_not_a_url_is_malformed(loopback_server, link):
    """httpx refuses these (`InvalidURL`, or `UnicodeEncodeError` for a lone surrogate, which
    JSON's ``\\ud800`` writes): a typed error, sync and async, not httpx's own."""
    import asyncio

    def answer(request):
        following = link if link.startswith(("http", ":")) else server.url + link
        page = {"count": 2, "next": following, "results": [{"name": "node-1"}]}
        return 200, {"Content-Type": "application/json"}, json.dumps(page).encode()

    server = loopback_server(answer)
    gw = _gateway(server)
    with pytest.raises(toolkit.MalformedResponse, match="linked to an address that is not a URL"):
        gw.nodes()
    with pytest.raises(toolkit.MalformedResponse, match="not a URL"):
        asyncio.run(gw.platform.aio.list_nodes())
    gw.close()
