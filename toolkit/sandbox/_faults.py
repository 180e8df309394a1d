"""Fault injection: the misbehaviour of real gateways and proxies, on demand.

Kinds, and what a client sees:

==================== ============================================================================
``latency``          the answer arrives `delay` seconds late (combines with any other fault)
``rate-limit``       HTTP 429 with ``Retry-After: <retry_after>`` and a JSON error body
``rate-limit-html``  HTTP 429 with an nginx HTML page and no Retry-After
``rate-limit-rpc``   HTTP 200 with JSON-RPC error -32005 "RPS limit exceeded" and
                     ``data.try_again_in`` like "250ms" (one error per envelope of a batch)
``server-error``     HTTP 500 with a JSON error body
``bad-gateway``      HTTP 502 with nginx's HTML page
``unavailable``      HTTP 503 with nginx's HTML page
``truncated``        the real answer cut to half its bytes (status and JSON content type kept)
``html``             HTTP 200 with an HTML page (a CDN challenge) instead of JSON
``wrong-content-type`` the real body, labelled ``text/plain``
``non-json-number``  the real answer with its first number (not an ``id``) written as ``NaN``,
                     or, with none, its JSON-RPC ``result`` (each one's, in a batch): Python's
                     json writes and reads that literal, which JSON does not have
``drop``             the connection is closed without any response
==================== ============================================================================

A fault applies to one node (by name, or ``"platform"`` for the platform API) or, with
``node=None``, to all of them. ``count=N`` makes it fire for the next N matching requests only
(then it is removed); ``rate`` is the chance it fires, drawn from a generator seeded with the
sandbox seed. When several answer-changing faults match, the first one set that fires wins.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ._jsonrpc import JSONRPC, RATE_LIMITED, Call, RpcError
from ._response import Reply, error_body

TRANSPORT_STATE_KEY = "toolkit.sandbox.transport"
"""Where the server puts each connection's asyncio transport in the ASGI scope state (for drop)."""


class FaultKind(StrEnum):
    LATENCY = "latency"
    RATE_LIMIT = "rate-limit"
    RATE_LIMIT_HTML = "rate-limit-html"
    RATE_LIMIT_RPC = "rate-limit-rpc"
    SERVER_ERROR = "server-error"
    BAD_GATEWAY = "bad-gateway"
    UNAVAILABLE = "unavailable"
    TRUNCATED = "truncated"
    HTML = "html"
    WRONG_CONTENT_TYPE = "wrong-content-type"
    NON_JSON_NUMBER = "non-json-number"
    DROP = "drop"


@dataclass
class Fault:
    id: int
    kind: FaultKind
    node: str | None
    rate: float
    count: int | None  # remaining firings; None = unlimited
    delay: float
    retry_after: int
    try_again_in: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": str(self.kind),
            "node": self.node,
            "rate": self.rate,
            "count": self.count,
            "delay": self.delay,
            "retry_after": self.retry_after,
            "try_again_in": self.try_again_in,
        }


@dataclass(frozen=True)
class Draw:
    """What befalls one request: a delay, and at most one fault that changes the answer."""

    delay: float = 0.0
    fault: Fault | None = None


class Faults:
    """The fault knobs of one sandbox; thread-safe."""

    def __init__(self, seed: int = 0, nodes: Iterable[str] = ()):
        self._nodes = frozenset(nodes)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._next_id = 1

    def set(
        self,
        *,
        kind: str,
        node: str | None = None,
        rate: float = 1.0,
        count: int | None = None,
        delay: float = 0.2,
        retry_after: int = 1,
        try_again_in: str = "250ms",
    ) -> Fault:
        """Add a fault; see the module docstring for the kinds. Returns it (with its id)."""
        try:
            fault_kind = FaultKind(kind)
        except ValueError:
            known = ", ".join(k.value for k in FaultKind)
            raise ValueError(f"unknown fault kind {kind!r}; kinds: {known}") from None
        if node is not None and self._nodes and node not in self._nodes:
            raise ValueError(f"unknown node {node!r}; nodes: {', '.join(sorted(self._nodes))}")
        if not 0 < rate <= 1:
            raise ValueError(f"rate must be in (0, 1], got {rate}")
        if count is not None and (isinstance(count, bool) or count < 1):
            raise ValueError(f"count must be a positive integer or None, got {count!r}")
        if delay < 0 or retry_after < 0:
            raise ValueError("delay and retry_after must not be negative")
        with self._lock:
            fault = Fault(
                self._next_id, fault_kind, node, rate, count, delay, retry_after, try_again_in
            )
            self._next_id += 1
            self._faults.append(fault)
        return fault

    def clear(self, node: str | None = None) -> int:
        """Remove every fault (or those set for `node`); return how many were removed."""
        with self._lock:
            kept = [f for f in self._faults if node is not None and f.node != node]
            removed = len(self._faults) - len(kept)
            self._faults = kept
        return removed

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [fault.to_json() for fault in self._faults]

    def draw(self, node: str) -> Draw:
        """Decide the faults of one request to `node`, consuming counts of those that fire."""
        delay, chosen = 0.0, None
        with self._lock:
            for fault in list(self._faults):
                if fault.node not in (None, node):
                    continue
                if fault.kind is not FaultKind.LATENCY and chosen is not None:
                    continue  # one answer-changing fault per request
                if fault.rate < 1 and self._rng.random() >= fault.rate:
                    continue
                if fault.count is not None:
                    fault.count -= 1
                    if fault.count == 0:
                        self._faults.remove(fault)
                if fault.kind is FaultKind.LATENCY:
                    delay += fault.delay
                else:
                    chosen = fault
        return Draw(delay, chosen)


# --- what faults answer -------------------------------------------------------------------------


def _nginx_page(status: int, reason: str) -> str:
    return (
        f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n"
        f"<center><h1>{status} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n"
        "</body>\r\n</html>\r\n"
    )


_CHALLENGE_PAGE = (
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head>'
    "<body><noscript>Enable JavaScript and cookies to continue</noscript></body></html>"
)


RATE_LIMIT_KINDS = (FaultKind.RATE_LIMIT, FaultKind.RATE_LIMIT_HTML, FaultKind.RATE_LIMIT_RPC)


def rate_limited(
    kind: FaultKind, calls: list[Call], batch: bool, retry_after: int, try_again_in: str
) -> Reply:
    """A rate-limit refusal in one of the shapes real gateways send (a fault's, or a plan's
    ceiling's, `_limits`):

    - ``rate-limit``: HTTP 429 Too Many Requests with ``Retry-After`` in whole seconds (RFC 6585,
      section 4) and the platform's JSON error shape (the spec's Errors:
      ``{"error": {"code", "message"}}``);
    - ``rate-limit-html``: HTTP 429 with nginx's own error page and no Retry-After, what nginx's
      ``limit_req`` answers with ``limit_req_status 429`` (the page of
      ``src/http/ngx_http_special_response.c``);
    - ``rate-limit-rpc``: HTTP 200 with one JSON-RPC error per envelope whose ``data.try_again_in``
      is a Go duration such as "250ms": Chainstack's, which sends no 429 status (GitHub
      ``BobTheBuidler/dank_mids``, ``dank_mids/types.py``, ``ChainstackRateLimitContext``), under
      the code gateways use for a limit (-32005, as Infura's per-second refusal:
      tests/fixtures/real/SOURCES.md).
    """
    if kind is FaultKind.RATE_LIMIT:
        message = f"Too many requests: rate limit exceeded, retry after {retry_after} s"
        headers = {"Retry-After": str(retry_after)}
        return Reply(error_body("rate_limited", message), status=429, headers=headers)
    if kind is FaultKind.RATE_LIMIT_HTML:
        return Reply.html(_nginx_page(429, "Too Many Requests"), 429)
    if kind is not FaultKind.RATE_LIMIT_RPC:
        raise ValueError(f"{kind} is not a rate-limit kind")
    error = RpcError(RATE_LIMITED, "RPS limit exceeded", {"try_again_in": try_again_in})
    errors = [JSONRPC.failure(call.id, error) for call in calls]
    return Reply(errors if batch else errors[0])


def replacement(fault: Fault, calls: list[Call], batch: bool) -> Reply | None:
    """The answer a fault gives instead of the real one; None if it distorts the real one."""
    kind = fault.kind
    if kind in RATE_LIMIT_KINDS:
        return rate_limited(kind, calls, batch, fault.retry_after, fault.try_again_in)
    if kind is FaultKind.SERVER_ERROR:
        return Reply(error_body("internal_error", "Internal server error"), status=500)
    if kind is FaultKind.BAD_GATEWAY:
        return Reply.html(_nginx_page(502, "Bad Gateway"), 502)
    if kind is FaultKind.UNAVAILABLE:
        return Reply.html(_nginx_page(503, "Service Temporarily Unavailable"), 503)
    if kind is FaultKind.HTML:
        return Reply.html(_CHALLENGE_PAGE, 200)
    return None


def distort(fault: Fault, answer: Reply) -> Reply:
    """The real answer, damaged by a `truncated` or `wrong-content-type` fault."""
    content = answer.content()
    if fault.kind is FaultKind.TRUNCATED:
        content = content[: len(content) // 2]
        return Reply(status=answer.status, headers=answer.headers, raw=content)
    if fault.kind is FaultKind.WRONG_CONTENT_TYPE:
        return Reply(
            status=answer.status,
            headers=answer.headers,
            content_type="text/plain; charset=utf-8",
            raw=content,
        )
    if fault.kind is FaultKind.NON_JSON_NUMBER:
        damaged = _with_a_nan(json.loads(content))
        return Reply(status=answer.status, headers=answer.headers, raw=json.dumps(damaged).encode())
    return answer


_NOT_DAMAGED = frozenset({"id", "jsonrpc"})  # the envelope's: the answer must still be matched


def _with_a_nan(body: Any) -> Any:
    """`body` with its first number written as NaN; with none, each JSON-RPC result."""
    done = [False]

    def walk(value: Any) -> Any:
        if done[0]:
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            done[0] = True
            return float("nan")
        if isinstance(value, dict):
            return {k: v if k in _NOT_DAMAGED else walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    damaged = walk(body)
    if done[0]:
        return damaged
    envelopes = damaged if isinstance(damaged, list) else [damaged]
    for envelope in envelopes:
        if isinstance(envelope, dict) and "result" in envelope:
            envelope["result"] = float("nan")
    return damaged
