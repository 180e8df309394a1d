"""The platform management API client: the organization's nodes, page by page or all at once.

It is a node client over the catalog's ``v2/nodes/`` entry with a Bearer header; what it adds is
following each page's `next` link to the end, as a list and as an iterator (sync or async).
The links are the server's to give, so following them is bounded: a link back to a page already
read (a loop) or more than `MAX_PAGES` pages is a `MalformedResponse`, never an endless listing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Unpack

from .._errors import MalformedResponse, PlatformError, ValidationError
from .._redact import clip, hide_credentials, redact_answer
from ..catalog import CHAINS
from ._core import NodeCore
from ._http import LazyModule
from ._node import AsyncNode, Node
from ._settings import Settings, SettingsOptions, Shared, settings_from, takes_settings
from ._transport import NO_ANSWER, Advice, bearer
from ._urls import checked_url

if TYPE_CHECKING:
    import httpx
else:
    httpx = LazyModule("httpx", globals())  # imported on first use: see `_http.LazyModule`

NODES = "v2/nodes/"
MAX_PAGES = 10_000  # a million nodes at 100 a page: a guard against a server's loop, not a limit

# What a node record's fields may hold, for the fields the toolkit reads (others pass as they
# are). Null or missing is always allowed: real records omit fields.
_TEXT_FIELDS = ("name", "protocol", "network", "status")
_ID_FIELDS = ("id",)  # text in the real API; a number is read as its digits
_ENDPOINT_FIELDS = ("https_endpoint", "wss_endpoint", "beacon_endpoint", "graphql_endpoint")


def record_label(record: Any, position: int) -> str:
    """How an error names a node record: its place in the listing, its name and id when text."""
    label = f"node record #{position + 1}"
    if isinstance(record, dict):
        known = [
            f"{field} {clip(repr(record[field]), 60)}"
            for field in ("name", "id")
            if isinstance(record.get(field), str | int) and not isinstance(record[field], bool)
        ]
        if known:
            label += f" ({', '.join(known)})"
    return label


def bad_record(record: Any, position: int, field: str, problem: str) -> PlatformError:
    """A `PlatformError` for a node record of the wrong shape, with `record` (its label) and
    `field` set: the platform's answer, not the caller's input, is at fault."""
    label = record_label(record, position)
    error = PlatformError("bad-record", f"{label}: {field} {problem}", method=NODES)
    error.record = label
    error.field = field
    return error


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {clip(repr(redact_answer(value)), 40)}"


def check_node_record(record: Any, position: int) -> None:
    """Refuse a node record the toolkit could not read: not an object, or a field it reads (its
    name, id, protocol, network, status, details and the endpoints in it) of the wrong type."""
    if not isinstance(record, dict):
        raise bad_record(record, position, "record", f"is {_kind(record)}; expected an object")
    for field in (*_TEXT_FIELDS, *_ID_FIELDS):
        value, allowed = record.get(field), str | int if field in _ID_FIELDS else str
        if value is not None and (isinstance(value, bool) or not isinstance(value, allowed)):
            raise bad_record(record, position, field, f"is {_kind(value)}; expected text")
    details = record.get("details")
    if details is None:
        return
    if not isinstance(details, dict):  # not quoted: it holds the credentials (as JSON text, say)
        kind = type(details).__name__
        raise bad_record(record, position, "details", f"is {kind}; expected an object")
    for field in _ENDPOINT_FIELDS:
        value = details.get(field)
        if value is not None and not isinstance(value, str):
            raise bad_record(
                record, position, f"details.{field}", f"is {_kind(value)}; expected a URL as text"
            )


def checked_page(page: dict[str, Any], first: int = 0) -> dict[str, Any]:
    """A node list page whose records the toolkit can read (`check_node_record`), with their
    credentials hidden (`hide_credentials`). `first`: how many records the listing's earlier
    pages held, so that a record is named by its place in the whole listing."""
    for position, record in enumerate(page["results"], start=first):
        check_node_record(record, position)
    return hide_credentials(page)


class _Listing:
    """One listing of every node: the steps of each page's request in turn (`steps`, None after
    the last page), following `next` links; a link back to a page already read (a loop) or past
    `MAX_PAGES` pages is a `MalformedResponse`, never an endless listing."""

    def __init__(self, core: NodeCore, ordering: str | None):
        params = {"ordering": ordering} if ordering else {}
        first = httpx.URL(core.endpoint.join("/" + NODES), params=params)
        self._core = core
        self._seen = {_same_page(str(first))}
        self._read = 0  # records on the pages before: a record is named by its place in all
        self._next: Any = None
        call = core.prepare(NODES, (), {"ordering": ordering})
        self.steps: Any = core.send(call, note=listing_note(1))

    def records(self, answer: Any) -> list[dict[str, Any]]:
        """The records of the page `answer` is, checked (`checked_page`)."""
        page = checked_page(answer, self._read)
        self._read += len(page["results"])
        self._next = page.get("next")
        return page["results"]

    def next_page(self) -> None:
        """Move `steps` on to the page after the one read last (None: that was the last)."""
        link, self.steps = self._next, None
        if not link:
            return
        if not isinstance(link, str):
            raise MalformedResponse(f"the node list's next link is not text: {type(link).__name__}")
        page = _same_page(link)
        if page in self._seen:
            raise MalformedResponse(
                f"the node list's next link points back at a page already read (after "
                f"{len(self._seen)} pages); stopped, as following it would never end",
                method=NODES,
            )
        if len(self._seen) >= MAX_PAGES:
            raise MalformedResponse(
                f"the node list goes on past {MAX_PAGES:,} pages; stopped", method=NODES
            )
        self._seen.add(page)
        self.steps = self._core.follow(link, NODES, note=listing_note(len(self._seen)))


def _same_page(link: str) -> str:
    """A link in one spelling: query parameters sorted, no trailing slash on the path."""
    try:
        url = httpx.URL(link)
    except (httpx.InvalidURL, TypeError, ValueError):
        return link
    query = "&".join(sorted(str(url.params).split("&")))
    return f"{url.scheme}://{url.host}:{url.port}{url.path.rstrip('/')}?{query}"


def platform_core(
    platform_url: str, api_key: str, shared: Shared, *, sources: Mapping[str, str] | None = None
) -> NodeCore:
    """The platform API's client core. `sources` names where ``platform_url`` and ``api_key``
    came from (an environment variable) when not from the caller, for the errors about them."""
    sources = sources or {}
    url_source, key_source = sources.get("platform_url", ""), sources.get("api_key", "")
    platform_url = checked_url(
        platform_url,
        param="platform_url",
        source=url_source,
        allow_insecure_http=shared.settings.allow_insecure_http,
        keyed=True,  # the API key goes with every request: a Bearer header
    )
    where = f" ({key_source})" if key_source else ""
    if not isinstance(api_key, str) or not api_key.strip():
        raise ValidationError(f"an API key is needed for the platform API{where}", param="api_key")
    if any(c.isspace() or not c.isprintable() or not c.isascii() for c in api_key.strip()):
        # Never quoted: httpx would raise a bare error, or one quoting the header, key and all.
        raise ValidationError(
            f"has whitespace, a control character or a character that is not ASCII inside{where}; "
            "a key has none (a zero-width space or a line break may come with a pasted key)",
            param="api_key",
            rule="key",
        )
    advice = []
    if key_source:
        advice.append(Advice(frozenset({401, 403}), f"the API key came from {key_source}"))
    if url_source:
        advice.append(
            Advice(frozenset({NO_ANSWER, 404}), f"the platform URL came from {url_source}")
        )
    return NodeCore(
        platform_url,
        CHAINS["platform"],
        shared=shared,
        name=f"platform {httpx.URL(platform_url).host}",
        headers=bearer(api_key),
        advice=tuple(advice),
    )


class PlatformMethods:
    # Declared for checkers only: `Node` or `AsyncNode`, mixed in below, define them.
    _request: Callable[..., Any]
    _core: NodeCore

    def list_nodes_page(self, *, ordering: str | None = None, page: int | None = None):
        """One page of the organization's nodes: ``{count, next, previous, results}``.

        `ordering` is ``name`` or ``created_at``, with a ``-`` prefix for descending order.
        Credentials a record carries (the v1 API's ``auth_key``, ``auth_password``, ...) are kept
        usable but never shown: no repr, log line or error message prints them. A record of the
        wrong shape (not an object, `details` not an object, an endpoint or a name that is not
        text) is a `PlatformError` naming the record and the field (`error.record`, `.field`).
        """
        return self._request(NODES, (), {"ordering": ordering, "page": page}, checked_page)


def listing_note(page: int) -> str:
    """The ledger note of a listing's page: the API has no page size, so listing every node is
    one request per page, and the ledger says which listing each is part of."""
    return f"page {page} of one node listing"


class AsyncPlatform(PlatformMethods, AsyncNode):
    """Async platform API client."""

    async def iter_nodes(self, *, ordering: str | None = None) -> AsyncIterator[dict[str, Any]]:
        """Every node of every page, following `next` until it is null."""
        listing = _Listing(self._core, ordering)
        while listing.steps is not None:
            for record in listing.records(await self._run(listing.steps)):
                yield record
            listing.next_page()

    async def list_nodes(self, *, ordering: str | None = None) -> list[dict[str, Any]]:
        """Every node of every page, as a list."""
        return [record async for record in self.iter_nodes(ordering=ordering)]


class Platform(PlatformMethods, Node):
    """Blocking platform API client. Its key never appears in a repr, error or log."""

    aio_class = AsyncPlatform

    def iter_nodes(self, *, ordering: str | None = None) -> Iterator[dict[str, Any]]:
        """Every node of every page, following `next` until it is null."""
        listing = _Listing(self._core, ordering)
        while listing.steps is not None:
            yield from listing.records(self._run(listing.steps))
            listing.next_page()

    def list_nodes(self, *, ordering: str | None = None) -> list[dict[str, Any]]:
        """Every node of every page, as a list."""
        return list(self.iter_nodes(ordering=ordering))


@takes_settings
def platform(
    platform_url: str,
    api_key: str,
    *,
    settings: Settings | None = None,
    **options: Unpack[SettingsOptions],
) -> Platform:
    """A standalone platform API client with its own ledger. The options (`budget`, `timeout`,
    `retry`, ..., or a whole ``settings=``) are those of `connect`; its answers are not cached
    unless `cache` says so (a node list changes)."""
    chosen = settings_from(settings, dict(options), where="platform", base=Settings(cache=None))
    shared = Shared(chosen, remote=True)
    return Platform(platform_core(platform_url, api_key, shared))
